"""The Python API (fstpunct.load and the model's methods) against the command line and the app
functions, for every kind of input; the choice of model by the input's language."""
import inspect
import io
import itertools
import json
import math
import warnings
from collections.abc import Iterator
from pathlib import Path

import conllu
import numpy as np
import pytest
from conftest import treebank
from pulled import Pulled
from unparsed import unparsed

import fstpunct
from fstpunct.api import choose, language_of
from fstpunct.apps.correction.draws import learner_draws
from fstpunct.apps.decode import annotate
from fstpunct.apps.restoration.sample import PriorSampler
from fstpunct.cli.main import main
from fstpunct.errors import ConlluError, InputError, ModelError
from fstpunct.model import mstep
from fstpunct.model.store import BUNDLED, bundled, load_model
from fstpunct.parallel import make_pool
from fstpunct.ud.treebank import read_file

SAMPLE = Path(__file__).parents[1] / "data" / "sample.conllu"
TEXT = SAMPLE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def en():
    return fstpunct.load("en")


def test_every_name_of_the_api_resolves():
    for name in fstpunct.api.__all__:
        getattr(fstpunct.api, name)  # from its module of _HOME, else an AttributeError


def test_public_names_have_docstrings():
    for name in fstpunct.__all__:
        assert getattr(fstpunct, name).__doc__, name
    for name in ("decode", "restore", "normalise", "log_prob", "perplexity"):
        assert getattr(fstpunct.Model, name).__doc__, name
    with pytest.raises(AttributeError):
        fstpunct.no_such_name  # noqa: B018


def _public_docstrings() -> Iterator[tuple[str, str | None]]:
    """(name, docstring) of every public name of ``fstpunct`` and every public method
    (classmethods too, which are not callable) and property of its classes."""
    for name in fstpunct.__all__:
        obj = getattr(fstpunct, name)
        yield name, obj.__doc__
        if inspect.isclass(obj) and not issubclass(obj, Warning):
            for member, value in vars(obj).items():
                if not member.startswith("_") and (
                        callable(value) or isinstance(value, (classmethod, property))):
                    yield f"{name}.{member}", value.__doc__


def test_help_shows_every_public_docstring_dedented():
    """help() dedents a docstring by the least indented of its later lines
    (:func:`inspect.cleandoc`): a ``\\n`` written unescaped inside one (Model.restore's ``" "``
    as ``"\\n"``) made a line at column 0, and help() then showed the whole docstring
    indented, with that line broken off. Checked on what help() shows, not on ``__doc__``,
    which Python 3.13's compiler has already dedented (its later lines begin at column 0):
    after the summary, help() begins at the margin."""
    seen = 0
    for name, doc in _public_docstrings():
        assert doc, name
        later = [line for line in inspect.cleandoc(doc).splitlines()[1:] if line.strip()]
        assert not later or not later[0][0].isspace(), (name, later[0])
        seen += 1
    assert seen > 30


def test_help_of_a_public_record_names_each_of_its_fields():
    """help(fstpunct.Perplexity), Source and ModelInfo say what each field holds: their fields
    have no docstrings of their own (Source.first and .last were shown bare)."""
    import dataclasses
    records = [getattr(fstpunct, name) for name in fstpunct.__all__
               if dataclasses.is_dataclass(getattr(fstpunct, name))]
    assert {r.__name__ for r in records} >= {"ModelInfo", "Perplexity", "Source"}
    for record in records:
        doc = " ".join(record.__doc__.split())
        for field in dataclasses.fields(record):
            assert f"``{field.name}``" in doc, (record.__name__, field.name)


def test_a_string_gives_a_string_as_the_command_line_writes(en, capsys):
    assert main(["decode", "--model", "en", str(SAMPLE)]) == 0
    assert en.decode(TEXT) == capsys.readouterr().out
    assert main(["restore", "--model", "en", "--samples", "30", "--seed", "3", "--quiet",
                 str(SAMPLE)]) == 0
    assert en.restore(TEXT, samples=30, seed=3) == capsys.readouterr().out
    assert main(["normalise", "--model", "en", str(SAMPLE)]) == 0
    assert en.normalise(TEXT) == capsys.readouterr().out


def test_tokenlists_give_new_tokenlists_and_leave_the_input_alone(en):
    lists = conllu.parse(TEXT)
    before = [t.serialize() for t in lists]
    out = en.decode(iter(lists), posteriors=2)
    assert not isinstance(out, list) and iter(out) is out  # an iterator
    out = list(out)
    assert all(isinstance(t, conllu.TokenList) for t in out)
    assert [t.serialize() for t in lists] == before
    assert "".join(t.serialize() for t in out) == en.decode(TEXT, posteriors=2)
    assert out[1].metadata["underlying"].startswith("[∘ ")
    assert "PunctPost" in out[1][0]["misc"]


def test_tokenlists_stream(en):
    """The first answers come before an endless input ends (chunks of 500 sentences)."""
    endless = itertools.cycle(conllu.parse(TEXT))
    first = list(itertools.islice(en.decode(endless), 7))
    assert [t.metadata["sent_id"] for t in first] == \
        [f"sample-{k % 5 + 1}" for k in range(7)]


def test_a_path_or_split_gives_tokenlists(en):
    treebank("hi", "dev")
    from_path = list(en.normalise(SAMPLE))
    assert "".join(t.serialize() for t in from_path) == en.normalise(TEXT)
    with pytest.warns(UserWarning, match="unknown to the model 'en'"):  # Hindi, en model
        assert len(list(en.log_prob("hi:dev"))) == 100


def test_log_prob_and_perplexity_agree(en):
    log_p = en.log_prob(TEXT)
    assert isinstance(log_p, list) and len(log_p) == 5
    result = en.perplexity(conllu.parse(TEXT))
    assert result.sentences == 5 and result.log_prob == pytest.approx(sum(log_p))
    slots = sum(len(s.words) - sum(w.is_punct for w in s.words) + 1
                for s in read_file(SAMPLE))
    assert result.slots == slots
    assert float(result) == pytest.approx(2.718281828 ** (-sum(log_p) / slots))


def test_the_api_equals_the_app_functions(en):
    direct = "".join(s.text() for s in annotate(load_model("en"), read_file(SAMPLE)))
    assert en.decode(TEXT) == direct


def test_bad_input_names_the_place(en):
    with pytest.raises(ConlluError, match=r"<string>:1"):
        en.decode("1\tbad\n\n")
    with pytest.raises(TypeError, match="conllu.TokenList"):
        list(en.decode([["not", "a", "sentence"]]))
    import conllu  # one sentence where sentences are meant: its tokens were taken for them
    (tokens,) = conllu.parse(TEXT.split("\n\n")[0] + "\n\n")
    with pytest.raises(TypeError, match=r"not one conllu.TokenList: pass \[sentence\]"):
        en.log_prob(tokens)


@pytest.mark.parametrize("source, lang", [
    ("zh:dev", "zh"), ("hi", "hi"), ("x/zh_gsd-ud-test.conllu", "zh"),
    ("/data/UD_Chinese/zh-ud-dev.conllu", "zh"), ("en_ewt-test", "en"), (str(SAMPLE), None),
    ("-", None), (None, None),
    # a large treebank's train file in parts, as UD releases them (cs_pdt, de_hdt): None once
    ("UD_Czech-PDT/cs_pdt-ud-train-c.conllu", "cs"), ("de_hdt-ud-train-a-1.conllu", "de"),
    # a suffix that is no UD part tells nothing: these gave big, new, all, pos, my, xx
    ("big-train-2020.conllu", None), ("new-train-v2.conllu", None),
    ("all-dev-clean.conllu", None), ("pos-test-fold1.conllu", None),
    ("my-train-2.conllu", None), ("xx_t-ud-train-2020.conllu", None)])
def test_language_from_the_input_name(source, lang):
    assert language_of(source) == lang


@pytest.mark.parametrize("comment", ["# lang = hi", "# language = hi", "# newdoc lang = hi"])
def test_language_from_metadata(comment):
    sent = next(read_file(SAMPLE))
    sent.comments.insert(0, comment)
    assert language_of("-", sent) == language_of(None, sent) == "hi"
    import conllu  # what API users hold (README): it raised AttributeError ('comments')
    (tokens,) = conllu.parse(sent.text())
    assert language_of(None, tokens) == "hi"


def test_choice_falls_back_to_english_with_a_note():
    assert choose("hi").name == "hi" and choose("hi").note is None
    for lang in (None, "xx"):
        assert choose(lang).name == "en" and "using the bundled 'en' model" in choose(lang).note


def test_every_bundled_folder_is_a_model():
    assert bundled() == sorted(p.name for p in BUNDLED.iterdir() if p.is_dir())


def test_the_command_line_picks_the_model_of_the_input(tmp_path, capsys):
    treebank("hi", "dev")
    hindi = tmp_path / "hindi.conllu"
    hindi.write_text("# lang = hi\n" + TEXT, encoding="utf-8")
    assert main(["decode", str(hindi)]) == 0
    picked = capsys.readouterr()
    assert "note" not in picked.err
    assert main(["decode", "--model", "hi", str(hindi)]) == 0
    assert capsys.readouterr().out == picked.out
    assert main(["decode", str(SAMPLE)]) == 0
    assert "using the bundled 'en' model" in capsys.readouterr().err
    assert main(["perplexity", "hi:dev"]) == 0
    assert main(["perplexity", "--model", "hi", "hi:dev"]) == 0
    auto, given = capsys.readouterr().out.splitlines()
    assert auto == given


def test_a_model_of_another_language_warns(capsys):
    treebank("zh", "dev")
    assert main(["decode", "--model", "hi", "zh:dev"]) == 0
    assert "are unknown to the model 'hi'" in capsys.readouterr().err
    assert main(["decode", "--model", "en", str(SAMPLE)]) == 0
    assert "unknown" not in capsys.readouterr().err


@pytest.mark.parametrize("marks, says", [
    (["।"], "1 of 1 punctuation token (100%) is unknown to the model 'en'"),
    (["।", "।"], "2 of 2 punctuation tokens (100%) are unknown to the model 'en'"),
])
def test_the_unknown_marks_warning_agrees_with_its_counts(en, marks, says):
    """The warning on marks unknown to the model: a count of 1 is singular, and so is its
    verb."""
    lines = ["1\twe\twe\tPRON\t_\t_\t0\troot\t_\t_"] + [
        f"{i}\t{mark}\t{mark}\tPUNCT\t_\t_\t1\tpunct\t_\t_" for i, mark in enumerate(marks, 2)]
    with pytest.warns(UserWarning) as caught:
        en.log_prob("# sent_id = u\n" + "\n".join(lines) + "\n\n")
    assert [str(w.message) for w in caught if "unknown" in str(w.message)] == [
        f"{says}: is it the input's language?"]


def test_a_bundled_name_is_not_shadowed_silently(tmp_path, monkeypatch):
    local = tmp_path / "en"
    local.mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.warns(UserWarning, match="write ./en for the folder"):
        assert fstpunct.load("en").folder == BUNDLED / "en"
    with pytest.raises(ValueError, match="not a fstpunct model"):
        fstpunct.load("./en")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="not a fstpunct model"):
            fstpunct.load(Path("en"))


def test_models_lists_every_bundled_model(capsys):
    """Aligned columns, as stats and rules print (the rows were tab-separated only), and
    with --tsv tab-separated."""
    assert main(["models", "--tsv"]) == 0
    tsv = capsys.readouterr().out
    rows = [line.split("\t") for line in tsv.splitlines()[1:]]
    assert [r[0] for r in rows] == bundled()
    assert all(r[1] in ("ltr", "rtl") and r[3].endswith(" MB") for r in rows)
    assert main(["models"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert "\t" not in "".join(table) and table[0].startswith("language  direction  ")
    assert [line.split()[:2] for line in table[1:]] == [r[:2] for r in rows]


def test_evaluate_records_the_test_perplexity(tmp_path, monkeypatch, capsys):
    treebank("hi", "test")
    import shutil

    from fstpunct.model import store
    shutil.copytree(BUNDLED / "hi", tmp_path / "hi")
    monkeypatch.setattr(store, "BUNDLED", tmp_path)
    assert main(["models", "--evaluate", "hi", "--tsv"]) == 0
    row = capsys.readouterr().out.splitlines()[1].split("\t")
    assert main(["perplexity", "--model", "hi", "--lang", "hi", "--split", "test"]) == 0
    measured = capsys.readouterr().out.split("perplexity ")[1].strip()
    assert row[:3] == ["hi", "rtl", measured]
    test = fstpunct.load("hi").record["evaluation"]["test"]
    assert test["command"] == "fstpunct perplexity --model hi --lang hi --split test"


def test_evaluate_refuses_a_name_that_is_not_bundled_before_measuring(capsys):
    assert main(["models", "--evaluate", "en", "xx"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a bundled model: xx" in err and "measuring" not in err


def test_arguments_are_checked_by_the_library(en, tmp_path, capsys):
    """What the commands refuse, the methods refuse too; the commands refuse it first, naming
    the option, before a model is loaded or the input read (no note on its language)."""
    with pytest.raises(InputError, match="posteriors must be at least 0"):
        en.decode(TEXT, posteriors=-1)
    for setting, message in (({"page_size": 0}, "page_size must be at least 1, not 0"),
                             ({"pairs": -1}, "pairs must be at least 0, not -1"),
                             # NaN: a TypeError (a traceback); inf: taken, one page
                             ({"pairs": math.nan}, "pairs must be at least 0, not nan"),
                             ({"page_size": math.inf},
                              "page_size must be a finite number of at least 1, not inf")):
        with pytest.raises(InputError, match=f"^{message}$"):
            en.show(TEXT, tmp_path / "page.html", **setting)
    assert not (tmp_path / "page.html").exists()
    for call in (lambda: en.restore(TEXT, samples=3, seed=-1),
                 lambda: en.rephrase(TEXT, seed=-1)):  # numpy's traceback before
        with pytest.raises(InputError, match="seed must be at least 0, not -1"):
            call()
    for command in (["decode", "--posteriors", "-1"], ["show", "--page-size", "0"],
                    ["show", "--pairs", "-1"], ["draw", "lattice", "--slot", "1", "--paths", "0"],
                    ["draw", "lattice", "--slot", "1", "--samples", "0"]):
        data = ["--sentence", f"{SAMPLE}:1"] if "draw" in command else [str(SAMPLE)]
        assert main([*command, *data, "-o", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{command[-2]} must be at least" in err, err
        assert "note" not in err and not (tmp_path / "out").exists()


@pytest.mark.parametrize(("call", "name"), [
    (lambda en, tmp: en.decode(TEXT, posteriors=1.5), "posteriors"),
    (lambda en, tmp: en.show(TEXT, tmp / "page.html", pairs=2.5), "pairs"),
    (lambda en, tmp: en.show(TEXT, tmp / "page.html", page_size=2.0), "page_size"),
    (lambda en, tmp: en.restore(TEXT, samples=2.5), "samples"),
    (lambda en, tmp: en.rephrase(TEXT, samples=2.5), "samples"),
    (lambda en, tmp: fstpunct.train(tmp / "m", SAMPLE, iterations=1.5), "iterations"),
    (lambda en, tmp: fstpunct.train(tmp / "m", SAMPLE, attach_iterations=2.5),
     "attach_iterations"),
    (lambda en, tmp: make_pool(jobs=1.5), "jobs"),
    (lambda en, tmp: make_pool(dask_workers=2.5), "dask_workers"),
    (lambda en, tmp: mstep.objective(np.zeros(1), None, np.zeros(1), 0.0, threads=1.5),
     "threads"),
    (lambda en, tmp: mstep.fit(np.zeros(1), None, np.zeros(1), 0.0, maxiter=2.5),
     "attach_iterations"),
    (lambda en, tmp: PriorSampler(en.punct, samples=2.5), "samples"),
    (lambda en, tmp: en.draw_lattice(TEXT, 1, paths=2.5), "paths"),
    (lambda en, tmp: en.draw_lattice(TEXT, 1, samples=10.0), "samples"),
    (lambda en, tmp: learner_draws(en.punct, [], 2.5, 0, 0), "the draws of T′"),
])
def test_a_count_that_is_not_whole_is_refused(en, tmp_path, call, name):
    """Counts (of sentences, draws, iterations, threads) are refused as fractions in one line,
    as the beam and epochs are: they failed in a range(), a slice or numpy with a TypeError,
    or were taken (a page of 2.0 sentences) where they enter the library."""
    with pytest.raises(InputError, match=f"^{name} must be a whole number of at least"):
        call(en, tmp_path)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("counts", [1, {}, "counts"])
def test_normalise_names_counts_of_another_kind(en, counts):
    """counts=1 failed with a bare AttributeError ('int' object has no attribute 'sentences')
    at the first sentence, or once the answer was read (an iterator's)."""
    with pytest.raises(TypeError, match=rf"^counts: a fstpunct\.apps\.normalise\.Counts "
                                        rf"\(Counts\(\)\), or None, not {type(counts).__name__}$"):
        en.normalise(TEXT, counts=counts)
    with pytest.raises(TypeError, match="^counts: "):
        en.normalise(Pulled([]), counts=counts)  # refused before any sentence is pulled


@pytest.mark.parametrize("data", [b"1\tx\n", 3, None])
def test_data_of_another_kind_is_named(en, data):
    with pytest.raises(TypeError, match=f"not {type(data).__name__}$"):
        en.decode(data)


def test_one_string_is_not_a_list_of_characters(en):
    """``delete="appos,parataxis"`` is the command line's list; ``parsers=FOLDER`` one parser."""
    arthur = (Path(__file__).parent / "data" / "arthur.conllu").read_text(encoding="utf-8")
    assert en.rephrase(arthur, delete="appos, parataxis") == \
        en.rephrase(arthur, delete=["appos", "parataxis"])
    parser = BUNDLED / "en" / "parser"
    assert en.restore(TEXT, parsers=str(parser)) == en.restore(TEXT, parsers=[parser])


def _record(folder: Path) -> dict:
    """A model.json but the command and the seconds (which differ between any two runs)."""
    meta = json.loads((folder / "model.json").read_text(encoding="utf-8"))
    for key in ("command", "seconds"):
        del meta["record"][key]
    return meta


def test_train_from_python_is_the_command(tmp_path):
    """fstpunct.train writes the folder fstpunct train writes (the command is a layer over it),
    takes one file or several, and gives the model back loaded."""
    from fstpunct.model.punct import Settings

    lines: list[str] = []
    second = tmp_path / "second.conllu"
    second.write_text(TEXT, encoding="utf-8")
    model = fstpunct.train(tmp_path / "py", [str(SAMPLE), second], dev=SAMPLE, iterations=1,
                           settings=Settings(lexical=0), log=lines.append)
    assert isinstance(model, fstpunct.Model)
    with pytest.warns(UserWarning, match="unknown to the model"):  # 5 sentences: rare marks
        assert model.perplexity(TEXT).sentences == 5
    assert lines[0].startswith("training on 10 sentences") and lines[-1].startswith("saved")
    assert main(["train", "--train", str(SAMPLE), str(second), "--dev", str(SAMPLE),
                 "--iterations", "1", "--lexical", "0", "--jobs", "1",
                 "-o", str(tmp_path / "cli")]) == 0
    for name in ("attach.json", "attach.npz", "channel.fst", "channel.json", "edits.npy"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    assert _record(tmp_path / "py") == _record(tmp_path / "cli")
    fstpunct.train(tmp_path / "one", SAMPLE, dev=[SAMPLE], iterations=0)
    assert _record(tmp_path / "one")["record"]["sentences"] == 5


def test_numpys_numbers_reach_json_as_pythons(en, tmp_path):
    """Counts and settings given as numpy's numbers (checked as whole numbers or numbers) are
    written to JSON as Python's: train's model.json and show's page are those of plain
    numbers, not a TypeError (show: at once; train: after training)."""
    from fstpunct.model.punct import Settings

    for name, plain in (("np", False), ("py", True)):
        number, whole = (float, int) if plain else (np.float32, np.int64)
        fstpunct.train(tmp_path / name, SAMPLE, dev=SAMPLE, iterations=whole(0),
                       attach_iterations=whole(2), seed=whole(0),
                       settings=Settings(xi=number(2.0), lexical=whole(500)))
        en.show(TEXT, tmp_path / f"{name}.html", pairs=whole(5), page_size=np.int32(3)
                if not plain else 3)
    assert _record(tmp_path / "np") == _record(tmp_path / "py")
    assert (tmp_path / "np.html").read_bytes() == (tmp_path / "py.html").read_bytes()


def test_train_takes_the_splits_of_a_users_release(tmp_path, toy_ud):
    """fstpunct.split's sources (the README: 'for your own UD release') train as their names
    do, one or several, part of a file too (a standard split); they were refused as 'not
    Source (write the sentences to a file)'."""
    from fstpunct.model.punct import Settings

    by_name = fstpunct.train(tmp_path / "names", "xx-train", dev="xx-dev", ud_dir=toy_ud,
                             iterations=1, settings=Settings(lexical=0))
    by_source = fstpunct.train(tmp_path / "sources", fstpunct.split("xx-train", toy_ud),
                               dev=[fstpunct.split("xx-dev", toy_ud)], iterations=1,
                               settings=Settings(lexical=0))
    assert by_name.record["record"]["data"] == by_source.record["record"]["data"]
    for name in ("attach.npz", "channel.fst", "edits.npy"):
        assert (tmp_path / "names" / name).read_bytes() == \
            (tmp_path / "sources" / name).read_bytes()
    part = fstpunct.split("hi:dev")  # hi_pud sentences 801-900
    fstpunct.train(tmp_path / "part", [part], direction="rtl", iterations=0)
    assert _record(tmp_path / "part")["record"]["sentences"] == 100


@pytest.mark.parametrize("arguments, message", [
    ({"iterations": -1}, "^iterations must be at least 0, not -1$"),
    ({"init": "bogus"}, "^init must be one of nunberg, random, identity, not 'bogus'$"),
    ({"direction": "up"}, "^direction must be one of ltr, rtl, not 'up'$"),
    ({"init": "random", "seed": -5}, "^seed must be at least 0, not -5$"),
    ({"grammar": "missing.rules"}, "missing.rules"),
    ({"grammar": "default"}, r"needs dev sentences: give dev \(--dev FILE\) or direction "
                             r"\(--direction ltr\|rtl\)"),
])
def test_train_refuses_before_reading(tmp_path, arguments, message):
    """Bad arguments, a missing rule file and a direction to choose without dev files are
    refused before the data is read (a file that is not CoNLL-U would be refused on reading)
    and before the pool is opened."""
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tx\n", encoding="utf-8")
    opened: list[bool] = []
    with pytest.raises(InputError, match=message):
        fstpunct.train(tmp_path / "out", [bad], pool=lambda: opened.append(True), **arguments)
    assert not opened and not (tmp_path / "out").exists()


def test_train_opens_the_pool_after_reading(tmp_path):
    """A pool given as a function is opened once the data is read, and closed after EM."""
    from fstpunct.parallel import SerialPool

    class Pool(SerialPool):
        events: list[str] = []

        def __enter__(self):
            self.events.append("open")
            return self

        def close(self) -> None:
            self.events.append("close")

    fstpunct.train(tmp_path / "m", SAMPLE, direction="ltr", iterations=0, pool=lambda: Pool(),
                   log=lambda line: Pool.events.append(line[:5]),
                   started=lambda *_: Pool.events.append("EM"))
    assert Pool.events == ["train", "open", "EM", "close", "saved"]
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tx\n", encoding="utf-8")
    with pytest.raises(ConlluError):
        fstpunct.train(tmp_path / "n", bad, direction="ltr", pool=lambda: Pool())
    assert Pool.events[-1] == "saved"


def test_train_command_opens_no_pool_before_its_checks(tmp_path, monkeypatch, capsys):
    """fstpunct train --dask-workers N refuses bad input before starting a cluster; on a
    terminal the error is the only line (no bars drawn before it), and on a good run the
    'saved' line comes below the closed bars."""
    import fstpunct.cli.train as command

    monkeypatch.setattr(command, "chosen_pool", lambda _: pytest.fail("pool opened"))
    monkeypatch.setattr(command, "on_terminal", lambda: True)
    for bad in (["--iterations", "-1"], ["--grammar", str(tmp_path / "missing.rules")],
                ["-o", str(SAMPLE)], ["--grammar", "default"],
                ["--jobs", "0", "--direction", "ltr"]):
        output = ["-o", str(tmp_path / "out")] if "-o" not in bad else []
        assert main(["train", "--train", str(SAMPLE), "--dask-workers", "1", *output,
                     *bad]) == 2
        assert capsys.readouterr().err.count("\n") == 1
    monkeypatch.undo()
    monkeypatch.setattr(command, "on_terminal", lambda: True)
    assert main(["train", "--train", str(SAMPLE), "--direction", "ltr", "--iterations", "1",
                 "--jobs", "1", "-o", str(tmp_path / "m")]) == 0
    err = capsys.readouterr().err
    assert "EM" in err and err.endswith(" s)\n") and "saved" in err.splitlines()[-1]


def test_draw_from_python_is_the_command(en, tmp_path):
    """Model.draw_tree and Model.draw_lattice give what fstpunct draw writes (the command is a
    layer over them); a sentence by number or sent_id; a missing one is one InputError."""
    svg = en.draw_tree(TEXT, "sample-2", name=f"{SAMPLE}:2")
    assert main(["draw", "tree", "--model", "en", "--sentence", f"{SAMPLE}:2", "-o",
                 str(tmp_path / "t.svg")]) == 0
    assert svg == (tmp_path / "t.svg").read_text(encoding="utf-8")
    graph = en.draw_lattice(SAMPLE, 3, 2, paths=4, samples=50, name=f"{SAMPLE}:2")
    assert main(["draw", "lattice", "--model", "en", "--sentence", f"{SAMPLE}:2", "--slot", "3",
                 "--paths", "4", "--samples", "50", "-o", str(tmp_path / "l.dot")]) == 0
    assert graph.source == (tmp_path / "l.dot").read_text(encoding="utf-8")
    with pytest.raises(InputError, match="has no sentence 9"):
        en.draw_tree(TEXT, 9)
    with pytest.raises(InputError, match="slot 99: the sentence has slots 0..4"):
        en.draw_lattice(TEXT, 99, 2)


@pytest.mark.parametrize("upos", [False, True])
def test_unparsed_tokenlists_are_parsed_as_unparsed_strings_are(en, upos):
    """Sentences without tree (and without UPOS, or with it) are tagged and parsed first,
    whatever kind holds them (TokenLists were read as trees and refused for their HEAD ``_``)."""
    text = unparsed(TEXT, upos)
    for method in (en.decode, en.restore):
        out = method(conllu.parse(text))
        assert "".join(t.serialize() for t in out) == method(text)


def test_a_partial_tree_is_refused_alike_in_a_string_and_in_tokenlists(en):
    """A sentence with HEAD ``_`` on one word only is the same ConlluError (reason, line,
    sentence) from a string and from TokenLists, the place named ``<string>``/``<TokenList 1>``."""
    lines = TEXT.split("\n")
    third = next(k for k, line in enumerate(lines) if line.startswith("3\t"))
    lines[third] = "\t".join("_" if k == 6 else f for k, f in enumerate(lines[third].split("\t")))
    partial = "\n".join(lines)
    errors = []
    for data in (partial, conllu.parse(partial)):
        with pytest.raises(ConlluError, match="found '_'") as e:
            list(en.decode(data))
        errors.append(e.value)
    assert errors[0].reason == errors[1].reason
    assert [(e.line, e.sent_id) for e in errors] == [(5, "sample-1")] * 2
    assert [e.path for e in errors] == ["<string>", "<TokenList 1>"]


def test_a_one_line_string_that_is_no_file_says_text(en, tmp_path, monkeypatch):
    """A one-line string is a path or split name; a sentence there is told about text=True,
    a name that looks like a file's (a path separator, .conllu, a folder) is not."""
    with pytest.raises(InputError, match="if it is plain text: pass text=True"):
        en.decode("We went home.")
    (tmp_path / "a folder").mkdir()
    monkeypatch.chdir(tmp_path)
    for name in ("missing.conllu", "my files.conllu", "my dir/x.conllu", "my dir/x",
                 "a folder"):
        with pytest.raises(InputError) as e:
            en.decode(name)
        assert "text=True" not in str(e.value), name


@pytest.mark.parametrize("data", [TEXT, conllu.parse(TEXT)])
def test_train_names_data_it_cannot_read(tmp_path, data):
    """fstpunct.train reads files and split names: a CoNLL-U string or TokenLists is one
    InputError (not an OSError 'File name too long' quoting the corpus, or a TypeError)."""
    with pytest.raises(InputError, match="files or split names") as e:
        fstpunct.train(tmp_path / "m", data, direction="ltr")
    assert "\n" not in str(e.value)


def test_train_needs_data(tmp_path):
    with pytest.raises(InputError, match="train needs data"):
        fstpunct.train(tmp_path / "m")


@pytest.mark.parametrize("data, kind", [
    (conllu.parse(TEXT)[0], "TokenList"), (TEXT.encode(), "bytes"), ("", "CoNLL-U text"),
    (5, "int")])
def test_train_names_the_kind_of_data_it_cannot_read(tmp_path, data, kind):
    """One TokenList, bytes, an empty string or a number as train's data is named by its own
    kind (a TokenList or bytes was iterated: 'not Token', 'not int'; '' was 'is a folder')."""
    with pytest.raises(InputError, match=f"data: CoNLL-U files or split names, not {kind} "):
        fstpunct.train(tmp_path / "m", data, direction="ltr")


def test_perplexity_prints_its_value(en):
    result = en.perplexity(TEXT)
    assert repr(result) == "<fstpunct.Perplexity 2.4287 (5 sentences, 50 slots, log p -44.3684)>"


def test_pictures_name_the_sentence(en):
    """By default a drawing's caption says 'sentence 2', not a bare '2' ('slot 3 of 2')."""
    assert "slot 3 of sentence 2:" in en.draw_lattice(TEXT, 3, 2, samples=20).source
    assert ">sentence sample-2: Dale" in en.draw_tree(TEXT, "sample-2")


def test_help_says_what_each_method_returns():
    """help(fstpunct.Model.decode) and its kin say what comes back and that an iterator does
    nothing until it is read (normalise's counts included)."""
    for name in ("decode", "restore", "normalise", "rephrase", "correct"):
        doc = " ".join(getattr(fstpunct.Model, name).__doc__.split())
        assert "Returns the same kind as ``data``" in doc, name
        assert "until it is read" in doc, name
    assert "``counts`` is complete once" in " ".join(fstpunct.Model.normalise.__doc__.split())


def test_the_readme_table_lists_every_parameter():
    """Each ``Model.X(...)``/``fstpunct.X(...)`` row of README's "Python API" table names every
    parameter the function takes (``pool``: its own paragraph below the table), none it lacks."""
    import inspect
    import re
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## Python API"):readme.index("## The OpenFst files")]
    rows = re.findall(r"`(Model|fstpunct)\.(\w+)\(([^`]*)\)`", table)
    assert len(rows) >= 15
    for owner, name, listed in rows:
        function = getattr(fstpunct.Model if owner == "Model" else fstpunct, name)
        takes = set(inspect.signature(function).parameters) - {"self", "pool"}
        names = {a.split("=")[0].strip(" *") for a in listed.split(",")} - {"", "pool"}
        assert names == takes, (name, names ^ takes)


def test_the_docstring_examples_run():
    """The examples in fstpunct's and fstpunct.api's docstrings run as written (the README's
    run as a doctest file: pyproject's --doctest-glob)."""
    import doctest
    import importlib
    names = ["fstpunct", "fstpunct.api", *(f"fstpunct.api.{p.stem}" for p in
             sorted((Path(fstpunct.__file__).parent / "api").glob("[!_]*.py")))]
    tried = 0
    for name in names:
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, name
        tried += result.attempted
    assert tried >= 2


def test_the_models_parts_print_in_a_line(en):
    """``model.punct`` and its channel print what they are, not θ's 1.3 million numbers or an
    object address."""
    punct = repr(en.punct)
    assert "\n" not in punct and "array" not in punct and len(punct) < 300, punct
    assert punct.startswith("<PunctModel: ") and "rtl channel" in punct
    assert f"{len(en.punct.theta):,} weights" in punct
    assert repr(en.punct.channel) == f"<Channel rtl: {len(en.punct.channel.symbols)} symbols>"


def test_a_pool_that_is_no_pool_is_named(en):
    """``pool=2`` (a number of jobs, say) is a TypeError saying what a pool is, before any
    sentence is read (it was an AttributeError: 'int' object has no attribute 'parallel')."""
    given = Pulled(conllu.parse(TEXT))
    for method in (en.decode, en.restore, en.normalise, en.perplexity):
        with pytest.raises(TypeError, match=r"pool: a fstpunct.parallel.Pool \(fstpunct."
                                            r"parallel.make_pool\(jobs\)\), not int"):
            method(iter(given), pool=2)
    assert given.count == 0


def test_warnings_point_at_the_callers_line(en, tmp_path, monkeypatch):
    """A warning names the line of the program that called fstpunct (where the answer is
    read, for an iterator), not a line inside fstpunct."""
    treebank("hi", "dev")
    with pytest.warns(UserWarning, match="unknown to the model 'en'") as caught:
        list(en.log_prob("hi:dev"))
    assert [w.filename for w in caught] == [__file__]
    punctuation_only = "# sent_id = p\n1\t.\t.\tPUNCT\t.\t_\t0\troot\t_\t_\n\n"
    with pytest.warns(UserWarning, match="only punctuation, its marks kept") as caught:
        list(en.restore(iter(conllu.parse(TEXT + punctuation_only))))
    assert {w.filename for w in caught} == {__file__}
    (tmp_path / "en").mkdir()
    monkeypatch.chdir(tmp_path)
    with pytest.warns(UserWarning, match="is the bundled model") as caught:
        fstpunct.load("en")
    assert [w.filename for w in caught] == [__file__]


def test_warnings_are_filtered_by_their_category(en):
    """fstpunct's warnings are FstpunctWarnings (UserWarnings), so a filter by that category
    silences them (one by module="fstpunct" cannot: they are located at the caller's line)."""
    treebank("hi", "dev")
    assert issubclass(fstpunct.FstpunctWarning, UserWarning)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=fstpunct.FstpunctWarning)
        list(en.log_prob("hi:dev"))
    assert not [w for w in caught if issubclass(w.category, UserWarning)]
    with pytest.warns(fstpunct.FstpunctWarning, match="unknown to the model 'en'"):
        list(en.log_prob("hi:dev"))


def test_the_pipeline_prints_what_it_holds(en):
    """``model.pipeline()`` prints its tagger's and parser's kind and size, not addresses."""
    shown = repr(en.pipeline())
    assert " object at 0x" not in shown, shown
    assert "<Tagger: " in shown and "<parser.Model (removed): " in shown


def test_a_tagger_or_parser_that_is_no_folder_is_refused_even_when_unused(en, tmp_path,
                                                                         capsys):
    """On input that has its trees, the tagger and parser are never loaded; a path to no
    folder is still refused, naming the parameter, before any sentence is read (it was
    ignored in silence)."""
    given = Pulled(conllu.parse(TEXT))
    missing = str(tmp_path / "missing")
    calls = {"tagger": (lambda: en.decode(iter(given), tagger=missing),
                        lambda: en.restore(iter(given), tagger=missing)),
             "parser": (lambda: en.decode(iter(given), parser=missing),),
             "parsers": (lambda: en.restore(iter(given), parsers=[missing]),)}
    for name, tried in calls.items():
        for call in tried:
            with pytest.raises(InputError, match=f"^{name} .*{missing}: no such folder$"):
                call()
    assert given.count == 0
    for command, option in (("decode", "--tagger"), ("decode", "--parser"),
                            ("restore", "--tagger"), ("restore", "--parser")):
        out = tmp_path / "out"
        assert main([command, "--model", "en", option, missing, str(SAMPLE), "-o",
                     str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{option}: {missing}: no such folder" in err, err
        assert not out.exists()


@pytest.mark.parametrize("beam, bound", [(0, "at least 1"), (1.5, "a whole number of at least 1"),
                                         (2.0, "a whole number of at least 1"),
                                         (True, "a whole number of at least 1")])
def test_a_beam_below_one_is_refused_before_reading(en, stub_correction, tmp_path, beam, bound):
    """``restore(parsers=..., beam=0)`` was refused only at the first sentence (the parser's
    search), ``restore``'s and ``decode``'s pipeline beam when the pipeline loaded; before
    any parser is read (an empty folder would be a ModelError): by every caller that loads a
    parser (fstpunct.parse, Model.parse, Model.correct check the beam themselves). A beam of
    1.5 failed in the search's slice (a TypeError at the first sentence), or was said to be
    below 2 (parse); 2.0 is refused too (one rule: a count is an integer), and True (it
    passed as 1)."""
    given = Pulled(conllu.parse(TEXT))
    parser = BUNDLED / "en" / "parser"
    corrector = fstpunct.load(stub_correction)
    for call in (lambda: en.restore(iter(given), parsers=[parser], beam=beam),
                 lambda: en.restore(iter(given), parsers=[parser, tmp_path], beam=beam),
                 lambda: en.restore(iter(given), parsers=[tmp_path], beam=beam),
                 lambda: en.restore(iter(given), beam=beam),
                 lambda: en.decode(iter(given), beam=beam),
                 lambda: en.parse(iter(given), tmp_path, beam=beam),
                 lambda: fstpunct.parse(iter(given), tmp_path, beam=beam),
                 lambda: corrector.correct(iter(given), parser=tmp_path, beam=beam)):
        with pytest.raises(InputError, match=f"^beam must be {bound}, not {beam}$"):
            call()
    assert given.count == 0


def test_restore_checks_the_beam_once_for_all_its_parsers(en, monkeypatch):
    """However many parsers, restore checks the beam once, before any parser loads (it was
    checked for each parser and again for the pipeline); the cases above pass either way."""
    import fstpunct.api.model
    import fstpunct.api.parsing
    from fstpunct.errors import refuse_count
    from fstpunct.parser import Model as ParserModel
    checked = []

    def counted(least, **values):
        checked.append(values)
        refuse_count(least, **values)
    for module in (fstpunct.api.model, fstpunct.api.parsing):
        monkeypatch.setattr(module, "refuse_count", counted)
    parser = ParserModel.load(BUNDLED / "en" / "parser")
    en.restore(conllu.parse(TEXT), parsers=[parser, parser, BUNDLED / "en" / "parser"], beam=2)
    assert checked == [{"beam": 2}]


def test_restore_refuses_the_tagger_then_the_beam_then_a_parser(en, tmp_path):
    """The order restore's docstring gives: a tagger that is no folder, then the beam, before
    a parser folder that is not a parser model (the first two before any parser loads)."""
    given = Pulled(conllu.parse(TEXT))
    missing = str(tmp_path / "missing")
    with pytest.raises(InputError, match=f"^tagger \\(--tagger\\): {missing}: no such folder$"):
        en.restore(iter(given), parsers=[tmp_path], tagger=missing, beam=0)
    with pytest.raises(InputError, match="^beam must be at least 1, not 0$"):
        en.restore(iter(given), parsers=[tmp_path], beam=0)
    with pytest.raises(ModelError, match="not a parser model"):
        en.restore(iter(given), parsers=[tmp_path])
    assert given.count == 0


def test_empty_input_is_no_sentences_in_every_kind(en, tmp_path, capsys):
    """An empty string, file or iterable is refused alike (ConlluError 'no sentences'), as the
    command line refuses an empty file; ``decode([])`` gave an empty answer, ``decode("")``
    refused."""
    empty = tmp_path / "empty.conllu"
    empty.write_text("", encoding="utf-8")
    assert main(["decode", "--model", "en", str(empty)]) == 2
    assert "no sentences (the input is empty)" in capsys.readouterr().err
    for data in ("", [], iter(()), empty):
        for method in (en.decode, en.restore, en.normalise, en.log_prob, en.perplexity):
            with pytest.raises(ConlluError, match="no sentences \\(the input is empty\\)$"):
                out = method(data)
                list(out) if isinstance(out, Iterator) else out


def test_a_none_in_the_input_is_named_not_taken_for_its_end(en):
    """None is a sentence of the wrong kind (a TypeError naming it), not the end of the
    input ('no sentences (the input is empty)' before); a None line of text too."""
    for data in ([None, *conllu.parse(TEXT)], iter([None])):
        with pytest.raises(TypeError, match="^sentence 1: expected a conllu.TokenList, got "
                                            "NoneType$"):
            list(en.decode(data))
    with pytest.raises(TypeError, match="^<lines>: line 1: expected a string, got NoneType$"):
        list(en.restore([None, "a b"], text=True))


def test_a_tagger_or_parser_given_to_the_pipeline_is_checked_as_decode_does(en, tmp_path):
    """``pipeline(tagger=)`` refuses a path to no folder as decode does (a ModelError 'not a
    tagger model (no such folder)' before); an existing file is 'not a folder'."""
    missing, a_file = tmp_path / "missing", tmp_path / "file"
    a_file.write_text("", encoding="utf-8")
    for name in ("tagger", "parser"):
        with pytest.raises(InputError, match=f"^{name} \\(--{name}\\): {missing}: no such "
                                             "folder$"):
            en.pipeline(**{name: missing})
        with pytest.raises(InputError, match=f"^{name} \\(--{name}\\): {a_file}: not a "
                                             "folder$"):
            en.decode(TEXT, **{name: a_file})


def test_posteriors_read_back_what_decode_wrote(en):
    """``fstpunct.posteriors`` gives each word's ranked (left, right, p) from ``PunctPost``:
    written again, they are decode's MISC value, character for character; a TokenList and an
    fstpunct sentence read alike; marks that MISC escapes come back as they were."""
    from fstpunct.apps.decode import posteriors_value
    from fstpunct.ud.treebank import read_conllu
    decoded = en.decode(TEXT, posteriors=4)
    as_lists = conllu.parse(decoded)
    as_sentences = list(read_conllu(io.StringIO(decoded)))
    words = 0
    for tokens, sent in zip(as_lists, as_sentences):
        read = fstpunct.posteriors(tokens)
        assert read == fstpunct.posteriors(sent)
        for token in tokens:
            written = (token["misc"] or {}).get("PunctPost")
            assert (written is None) == (token["id"] not in read)
            if written is not None:
                words += 1
                pairs = read[token["id"]]
                assert 1 <= len(pairs) <= 4 and sum(p for _, _, p in pairs) <= 1.002
                assert [p for _, _, p in pairs] == sorted((p for _, _, p in pairs),
                                                          reverse=True)
                assert posteriors_value(pairs) == written
    assert words == sum(1 for s in as_sentences for w in s.words if not w.is_punct)
    assert fstpunct.posteriors(as_lists[0])[1][0] == ((), (".",), 0.543)
    odd = [(("|", "‖"), ("%", ":"), 0.5), ((), ("¦", "="), 0.25), (None, None, 0.0)]
    line = TEXT.split("\n\n")[0].split("\n")[2].split("\t")
    line[9] = "PunctPost=" + posteriors_value(odd)
    assert fstpunct.posteriors(conllu.parse("\t".join(line) + "\n\n")[0]) == {1: odd}
    with pytest.raises(InputError, match="no PunctPost.*posteriors="):
        fstpunct.posteriors(conllu.parse(en.decode(TEXT))[0])
    with pytest.raises(TypeError, match="^expected a conllu.TokenList or an fstpunct sentence, "
                                        "got str$"):
        fstpunct.posteriors(decoded)
    line[9] = "PunctPost=a"  # not decode's form: one line naming the word and the value
    with pytest.raises(InputError, match="^<TokenList 1>: word 1: PunctPost='a' is not what "
                                         "decode writes$"):
        fstpunct.posteriors(conllu.parse("\t".join(line) + "\n\n")[0])
    line[6:8] = ["_", "_"]  # MISC is all it reads: a TokenList without its tree is read alike
    line[9] = "PunctPost=" + posteriors_value(odd)
    assert fstpunct.posteriors(conllu.parse("\t".join(line) + "\n\n")[0]) == {1: odd}


def test_what_a_model_learned_is_a_method(en, capsys, tmp_path):
    """``Model.rules`` gives what ``fstpunct rules --model`` prints (it prints the method's
    answer): the comparison with the grammar the model was trained from, and the relation
    table over its language's dev split."""
    for lang in ("en", "de"):  # the model's own and another
        treebank(lang, "dev")
    from fstpunct.apps.rules import PAPER_RELATIONS, compare_rules
    from fstpunct.fst.default_grammar import model_grammar
    learned = en.rules()
    assert (learned.lang, learned.split, learned.counted) == ("en", "dev", True)
    assert learned.comparison == compare_rules(
        en.punct.channel, en.edit_counts(), model_grammar(en.record["record"]))
    assert list(learned.pairs) == list(PAPER_RELATIONS)
    assert main(["rules", "--model", "en", "--tsv"]) == 0
    out = capsys.readouterr().out
    assert f"MRR {learned.comparison.mrr:.3f}" in out
    for rel, (nodes, pairs) in learned.pairs.items():
        for pair, p in pairs:
            assert f"{rel}\t{nodes}\t{pair}\t{100 * p:.1f}\n" in out
    assert en.rules(lang="de", relations=["appos"]).lang == "de"
    assert en.rules(relations=["appos"]).pairs.keys() == {"appos"}
    assert en.rules(relations=(), ud_dir=tmp_path).pairs == {}  # no split read: no UD needed
    with pytest.raises(InputError, match="not a UD universal relation: apos"):
        en.rules(relations=["apos"])


def test_a_given_grammar_is_used_and_the_training_one_read_only_for_its_language(
        en, monkeypatch):
    """``Model.rules(compare)`` used to read the training grammar as well, even when only
    the given one is compared; it is read now only for the model's language, when neither
    ``lang`` nor the record gives it (en's record names none: its grammar's, en)."""
    import fstpunct.apps.rules as rules
    from fstpunct.fst.default_grammar import model_grammar
    own = en.rules(relations=())
    read = []
    monkeypatch.setattr(rules, "model_grammar", lambda r: read.append(r) or model_grammar(r))
    grammar = Path(__file__).parents[1] / "grammars" / "en.rules"
    given = en.rules(grammar, lang="en", relations=())
    assert read == [] and given == own
    assert en.rules(grammar, relations=()).lang == "en" and len(read) == 1


def test_restorers_and_grammars_print_in_a_line(en):
    """``model.restorer()``'s objects and a ``Grammar`` print what they are in one line (an
    object address, or the grammar's every rule, before)."""
    from fstpunct.fst.grammar import load_grammar
    shown = {repr(en.restorer()), repr(en.restorer(decoder="balanced")),
             repr(en.restorer(samples=10, mbr="slot", seed=3)), repr(en.restorer(text=True))}
    assert len(shown) == 4
    for line in shown:
        assert "\n" not in line and " object at 0x" not in line and len(line) < 200, line
    assert repr(en.restorer(samples=10, mbr="slot", seed=3)) == \
        "<ModelRestorer: 10 samples, mbr slot, seed 3>"
    assert repr(en.restorer(decoder="balanced")).startswith("<ExactRestorer: balanced decoder")
    mixed = repr(en.restorer(text=True))
    assert mixed.startswith("<MixedRestorer: balanced decoder") and "CRF" in mixed
    grammar = load_grammar(Path(__file__).parents[1] / "grammars" / "en.rules")
    assert repr(grammar) == (f"<Grammar en.rules: en, {grammar.direction}, "
                             f"{len(grammar.symbols)} symbols, {len(grammar.pairs)} pairs, "
                             f"{len(grammar.rules)} rules>")


@pytest.mark.filterwarnings("ignore::fstpunct.FstpunctWarning")  # German-like marks
def test_split_reads_the_release_it_is_given(en, toy_ud, tmp_path, monkeypatch):
    """``fstpunct.split(name, ud_dir)`` is a split of the release in ``ud_dir``, old layout
    (``UD_Toy/xx-ud-dev.conllu``) or new, whatever ``$FSTPUNCT_UD_DIR`` says, and every data
    method reads it as it reads the file (the answer: TokenLists)."""
    monkeypatch.setenv("FSTPUNCT_UD_DIR", str(tmp_path))  # an empty folder: no release
    for name, path in (("xx-dev", "UD_Toy/xx-ud-dev.conllu"),
                       ("xx_new-test", "UD_Toy-New/xx_new-ud-test.conllu")):
        source = fstpunct.split(name, ud_dir=toy_ud)
        assert isinstance(source, fstpunct.Source) and source.path == toy_ud / path
        assert list(en.log_prob(source)) == list(en.log_prob(str(toy_ud / path)))
        decoded = list(en.decode(source))
        assert len(decoded) == 2 and all(isinstance(s, conllu.TokenList) for s in decoded)
    assert en.perplexity(fstpunct.split("xx-test", toy_ud)).sentences == 2
    with pytest.raises(InputError, match="^xx dev: a UD split is CoNLL-U, not plain text"):
        en.decode(fstpunct.split("xx-dev", toy_ud), text=True)


@pytest.mark.filterwarnings("ignore::fstpunct.FstpunctWarning")  # German-like marks
def test_split_keeps_a_standard_splits_sentences(en, tmp_path):
    """A standard split that is part of a file (``es:dev``: es_gsd test's sentences 1-213) is
    read as that part, not the whole file."""
    from toy_release import SAID, quoted
    from toy_release import conllu as as_conllu
    folder = tmp_path / "UD_Spanish-GSD"
    folder.mkdir()
    (folder / "es_gsd-ud-test.conllu").write_text("".join(
        as_conllu(quoted(*SAID[k % 5]), (f"sent_id = s{k}",)) for k in range(1, 216)),
        encoding="utf-8")
    dev, test = fstpunct.split("es:dev", tmp_path), fstpunct.split("es:test", tmp_path)
    assert fstpunct.language_of(dev) == fstpunct.language_of(test) == "es"
    assert [s.metadata["sent_id"] for s in en.normalise(dev)] == [f"s{k}" for k in range(1, 214)]
    assert [s.metadata["sent_id"] for s in en.normalise(test)] == ["s214", "s215"]
    assert en.draw_tree(test, which=2).startswith("<")
    with pytest.raises(InputError, match="^es test: has no sentence 3$"):
        en.draw_tree(test, which=3)


def test_split_refuses_what_is_no_split(toy_ud, tmp_path):
    """An unknown name, a LANG:SPLIT of a language without standard splits (not a path with a
    colon, nor ':dev', nor a folder: they were called that), a split its treebank lacks (or a
    file's stem, ``-ud-test``), a folder that is no UD release, a file's name, a language
    alone: one InputError line; a number: a TypeError naming the argument."""
    (tmp_path / "a:b").mkdir()
    for name, ud_dir, message in (
            ("yy-dev", toy_ud, "is neither a file, a language"),
            (":dev", toy_ud, "^':dev' is neither a file, a language"),
            ("out/run:3/x.txt", toy_ud, "^'out/run:3/x.txt' is neither a file, a language"),
            (str(tmp_path / "a:b"), toy_ud, "a:b: is a folder; name a CoNLL-U file"),
            ("en_US:dev", toy_ud, r"^'en_US:dev': no standard splits for language 'en_US' "
                                  r"\(they are for en, .*\); a treebank's split is named like "
                                  "en_ewt-dev$"),
            ("xx_new-dev", toy_ud, r"^treebank 'xx_new' has no split 'dev' under .* \(it has: "
                                   r"test; name one like xx_new-test\)$"),
            ("xx_new-ud-test", toy_ud, r"^treebank 'xx_new' has no split 'ud-test' under .* "
                                       r"\(it has: test; name one like xx_new-test\)$"),
            ("en:dev", tmp_path, "en_ewt-ud-dev.conllu not found under"),
            ("en:dev", tmp_path / "none", "does not exist"),
            ("data/sample.conllu", toy_ud, "names a file, not a split"),
            ("xx", toy_ud, "names 3 files")):
        with pytest.raises(InputError, match=message) as caught:
            fstpunct.split(name, ud_dir)
        assert "\n" not in str(caught.value)
    with pytest.raises(TypeError, match="^split: name must be a split name like 'en:dev', not "
                                        "int$"):
        fstpunct.split(3)


def test_load_and_language_of_name_their_argument():
    """A number where a name goes: fstpunct's TypeError naming the argument (it was Python's
    'expected str, bytes or os.PathLike object')."""
    with pytest.raises(TypeError, match="^load: name must be a model name or folder, not int$"):
        fstpunct.load(123)
    with pytest.raises(TypeError, match="^language_of: source must be a path or split name, "
                                        "not int$"):
        fstpunct.language_of(3)


def test_the_keywords_are_the_commands_options():
    """Every long option of a command that has a Python function is its keyword, ``-`` written
    ``_``, but for the exceptions README's "Python API" names; options about files, models and
    pools are the call itself (the mapping README states)."""
    import argparse
    import inspect

    from fstpunct.cli.main import build_parser
    exceptions = {("restore", "--parser"): "parsers", ("parse", "--model"): "parser",
                  ("rephrase", "--no-balance"): "balance", ("parse", "--punct-model"): None,
                  **{(c, o): "lowercase" for c in ("decode", "restore")
                     for o in ("--lowercase-input", "--cased-input")},
                  # fstpunct.train: files are data=, settings a Settings (its README row)
                  ("train", "--train"): "data", **{("train", o): "settings" for o in
                                                   ("--xi", "--l2", "--token-cost", "--lexical")},
                  ("restore", "--crf"): None, ("restore", "--trivial"): None,  # no Model's
                  ("restore", "--line-buffered"): None,  # the method Model.restore_lines
                  ("perplexity", "--split"): None, ("rules", "--tsv"): None}  # data; printing
    the_call = {"--output", "--model", "--lang", "--ud-dir", "--quiet", "--jobs", "--scheduler",
                "--dask-workers"}
    functions = {name: getattr(fstpunct.Model, name) for name in
                 ("decode", "restore", "normalise", "rephrase", "correct", "show", "perplexity",
                  "parse")}
    functions.update(rules=fstpunct.Model.rules, train=fstpunct.train)
    commands = next(a for a in build_parser()._actions
                    if isinstance(a, argparse._SubParsersAction)).choices
    for name, function in functions.items():
        takes = set(inspect.signature(function).parameters)
        if name == "parse":
            takes |= set(inspect.signature(fstpunct.parse).parameters)
        for action in commands[name]._actions:
            longs = [o for o in action.option_strings if o.startswith("--") and o != "--help"]
            if not longs or (longs[0] in the_call and (name, longs[0]) not in exceptions):
                continue
            keyword = exceptions.get((name, longs[0]), longs[0][2:].replace("-", "_"))
            assert keyword is None or keyword in takes, (name, longs[0], keyword)


def test_readmes_library_pointer_for_restore_runs_on_a_loaded_model(en):
    """The restore row of README's command table names the call that restores from Python (it
    named ExactRestorer(model).restore(sentence), which a loaded Model fails: user28 item
    10)."""
    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    row, = [ln for ln in readme.splitlines() if ln.startswith("| `fstpunct restore ")]
    call = row.split("Library: `")[1].split("`")[0]
    assert eval(call, {"fstpunct": fstpunct, "M": "en", "data": TEXT}) == en.restore(TEXT)


@pytest.mark.parametrize("keyword, what", [
    ("settings", r"a fstpunct\.model\.punct\.Settings \(Settings\(lexical=0\)\)"),
    ("grammar", "a rule file's path, 'default',"),
    ("pool", r"a fstpunct\.parallel\.Pool, a function that opens one,")])
def test_train_names_an_argument_of_the_wrong_type(tmp_path, keyword, what):
    """user28 item 10: settings=5 was AttributeError: 'int' object has no attribute 'lexical'
    (grammar=5 a bare TypeError, pool=5 'int' object is not callable, after reading)."""
    with pytest.raises(TypeError, match=rf"^train: {keyword} must be {what} or None, not int$"):
        fstpunct.train(tmp_path / "model", [str(SAMPLE)], direction="ltr", **{keyword: 5})
    assert not (tmp_path / "model").exists()


def test_draw_lattice_refuses_a_slot_or_min_prob_that_is_no_number(en):
    """user28 item 10: a slot of "1" was a bare TypeError ('<=' not supported); as every
    count of the library, it is refused by name (refuse_count), min_prob as a number."""
    with pytest.raises(InputError, match="^slot must be a whole number of at least 0, not '1'$"):
        en.draw_lattice(SAMPLE, "1")
    with pytest.raises(InputError, match="^min_prob must be a number of at least 0, not '0.1'$"):
        en.draw_lattice(SAMPLE, 1, full=True, min_prob="0.1")
