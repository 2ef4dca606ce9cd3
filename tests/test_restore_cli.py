"""`fstpunct restore` end to end: the bundled model, the trivial baseline, a parser, errors."""
import io
import itertools
import json
import shutil
import sys
from pathlib import Path

import conllu
import pytest
from conftest import treebank

import fstpunct
from fstpunct.apps.restoration.crf import CrfModel
from fstpunct.apps.restoration.strip import strip
from fstpunct.cli.main import main
from fstpunct.model.store import bundled
from fstpunct.parser import train
from fstpunct.ud.treebank import read_conllu, read_file

SAMPLE = Path(__file__).parents[1] / "data" / "sample.conllu"


def words(path):
    return [[w.form for w in s.words if not w.is_punct] for s in read_file(path)]


@pytest.mark.parametrize("options", [[], ["--decoder", "balanced"], ["--samples", "50"],
                                     ["--samples", "50", "--mbr", "slot"],
                                     ["--trivial", "en"]])
def test_restore_keeps_words_and_writes_valid_ud(tmp_path, options):
    out = tmp_path / "out.conllu"
    assert main(["restore", str(SAMPLE), "-o", str(out), "--quiet", *options]) == 0
    assert words(out) == words(SAMPLE)
    parsed = conllu.parse(out.read_text(encoding="utf-8"))
    for sent in read_file(out):
        text = sent.text()
        assert "# text = " in text
        for w in sent.words:
            if w.is_punct:
                assert (w.upos, w.deprel) == ("PUNCT", "punct")
                assert 1 <= w.head <= len(sent.words) and not sent.words[w.head - 1].is_punct
    assert len(parsed) == len(list(read_file(SAMPLE)))
    assert main(["score", "--gold", str(SAMPLE), str(out), "--json"]) == 0


def test_trivial_restores_only_the_final_mark(tmp_path):
    out = tmp_path / "out.conllu"
    assert main(["restore", str(SAMPLE), "--trivial", "hi", "-o", str(out), "--quiet"]) == 0
    for sent in read_file(out):
        marks = [w for w in sent.words if w.is_punct]
        assert [w.form for w in marks] == ["।"]
        assert marks[0].id == len(sent.words)


def test_restore_writes_one_point_after_an_abbreviation(tmp_path):
    """The full stop restored after ``p.m.`` is absorbed by its dot (``# text`` ``9 p.m.``,
    not ``9 p.m..``), the words as given: by the trivial baseline and by the shipped model."""
    rows = ["We", "left", "at", "9", "p.m."]
    lines = ["# text = " + " ".join(rows)] + [
        f"{i}\t{w}\t{w}\t{u}\t_\t_\t{h}\t{r}\t_\t_" for i, (w, u, h, r) in enumerate(zip(
            rows, ["PRON", "VERB", "ADP", "NUM", "ADV"], [2, 0, 4, 2, 4],
            ["nsubj", "root", "case", "obl", "advmod"]), 1)]
    given = tmp_path / "pm.conllu"
    given.write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    for options in (["--trivial", "en"], ["--lang", "en"]):
        out = tmp_path / "out.conllu"
        assert main(["restore", str(given), "-o", str(out), "--quiet", *options]) == 0
        sent = next(iter(read_file(out)))
        assert "# text = We left at 9 p.m." in sent.comments, options
        assert [w.form for w in sent.words] == rows


def test_trivial_takes_the_full_stop_of_a_model_folder_or_rule_file(tmp_path, capsys):
    """A language the project does not bundle has a trivial baseline: the full stop of the
    grammar its model folder records, or of a rule file; a model without a grammar record, or a
    bare name that is no language, is one line, exit 2."""
    model, rules, bare = tmp_path / "m-qz", tmp_path / "qz.rules", tmp_path / "bare"
    model.mkdir()
    grammar = ["language qz", "direction ltr", "fullstop ।", "symbols । ,"]
    (model / "model.json").write_text(json.dumps(
        {"format": 1, "record": {"language": "qz", "grammar": "default",
                                 "default_grammar": grammar}}), encoding="utf-8")
    rules.write_text("language qz\ndirection rtl\nfullstop !\nsymbols ! ,\n", encoding="utf-8")
    for given, mark in ((model, "।"), (rules, "!")):
        out = tmp_path / "out.conllu"
        assert main(["restore", str(SAMPLE), "--trivial", str(given), "-o", str(out),
                     "--quiet"]) == 0
        for sent in read_file(out):
            assert [(w.form, w.id) for w in sent.words if w.is_punct] == [(mark, len(sent.words))]
    bare.mkdir()
    (bare / "model.json").write_text(json.dumps({"format": 1, "record": {"language": "qz"}}),
                                     encoding="utf-8")
    assert main(["restore", str(SAMPLE), "--trivial", str(model), "--lang", "hi", "--text",
                 "--quiet"]) == 2  # its tagger/ and parser/ would read the text, not hi's
    err = capsys.readouterr().err
    assert err == f"fstpunct restore: error: --lang hi: not with --trivial {model}, a model " \
                  "folder, whose tagger/ and parser/ are the text's\n", err
    text = tmp_path / "in.txt"  # a rule file is no model folder: its language's tagger
    text.write_text("we left\n", encoding="utf-8")
    assert main(["restore", str(text), "--trivial", str(rules), "--text", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no bundled tagger and parser for the rule file's " \
                                     "language 'qz'" in err, err
    for given, message in ((str(bare), f"{bare}: its model.json records no grammar"),
                           ("qz", "no rule file and no standard split for language 'qz' (or a "
                                  "model folder or rule file of it, a path such as ./NAME)")):
        assert main(["restore", str(SAMPLE), "--trivial", given, "--quiet"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err


def test_restore_is_reproducible_and_reads_unpunctuated_input(tmp_path, capsys):
    bare = tmp_path / "bare.conllu"
    bare.write_text("".join(strip(s).text() for s in read_file(SAMPLE)), encoding="utf-8")
    runs = []
    for source in (SAMPLE, bare, bare):
        assert main(["restore", str(source), "--samples", "30", "--seed", "3", "--quiet"]) == 0
        runs.append(capsys.readouterr().out)
    assert runs[0] == runs[1] == runs[2]


def test_restore_with_a_parser(tmp_path, capsys):
    sents = list(itertools.islice(treebank("en", "train").sentences(), 30))
    parser = tmp_path / "parser"
    train(sents, sents[:10], "removed", 1, parser, epochs=2, patience=2, progress=False,
          log=lambda m: None)
    out = tmp_path / "out.conllu"
    assert main(["restore", str(SAMPLE), "--parser", str(parser), "--samples", "20",
                 "-o", str(out), "--quiet"]) == 0
    assert words(out) == words(SAMPLE)
    other = tmp_path / "parser2"
    train(sents[10:], sents[:10], "removed", 1, other, epochs=2, patience=2, progress=False,
          log=lambda m: None)
    both = tmp_path / "both.conllu"
    assert main(["restore", str(SAMPLE), "--parser", str(parser), "--parser", str(other),
                 "--samples", "20", "-o", str(both), "--quiet"]) == 0
    assert words(both) == words(SAMPLE)
    assert main(["restore", str(SAMPLE), "--parser", str(parser), "--parser", str(other),
                 "--samples", "1", "--quiet"]) == 2
    assert "number of parsers" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["missing.conllu"], "missing.conllu"),
    (["--samples", "0", str(SAMPLE)], "--samples"),
    (["--model", "no-such-model", str(SAMPLE)], "no-such-model"),
])
def test_bad_input_is_a_one_line_error(args, message, capsys):
    assert main(["restore", "--quiet", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_score_json_has_every_mark_class(tmp_path, capsys):
    assert main(["restore", str(SAMPLE), "--trivial", "en", "--quiet",
                 "-o", str(tmp_path / "t.conllu")]) == 0
    capsys.readouterr()
    assert main(["score", "--gold", str(SAMPLE), str(tmp_path / "t.conllu"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["marks"]) == {"comma", "period", "quotes", "brackets", "all"}


def test_a_sentence_of_only_punctuation_is_copied_with_a_warning(tmp_path, capsys):
    edge = Path(__file__).parent / "data" / "edge.conllu"
    out = tmp_path / "out.conllu"
    assert main(["restore", str(edge), "--samples", "20", "-o", str(out), "--quiet"]) == 0
    assert "all-punct" in capsys.readouterr().err
    assert words(out) == words(edge)


def test_restore_and_score_read_a_standard_split_by_name(tmp_path, capsys):
    """`hi:dev` names the project's Hindi dev split (sentences 801–900 of hi_pud) for both."""
    gold = treebank("hi", "dev")
    out = tmp_path / "out.conllu"
    assert main(["restore", "hi:dev", "--trivial", "hi", "-o", str(out), "--quiet"]) == 0
    assert words(out) == [[w.form for w in s.words if not w.is_punct]
                          for s in gold.sentences()]
    assert main(["score", "--gold", "hi:dev", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sentences"] == 100
    assert main(["score", "--gold", "hi", str(out)]) == 2
    assert "names 3 files" in capsys.readouterr().err


def test_a_sentence_of_punctuation_only_is_copied_with_a_warning_naming_it(tmp_path, capsys):
    only = "1\t...\t...\tPUNCT\t:\t_\t0\troot\t_\t_\n\n"
    path = tmp_path / "x.conllu"
    path.write_text(SAMPLE.read_text(encoding="utf-8") + only, encoding="utf-8")
    assert main(["restore", str(path), "--model", "en", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert out.endswith(only)
    lineno = len(SAMPLE.read_text(encoding="utf-8").splitlines()) + 1
    assert err == (f"fstpunct restore: warning: {path}:{lineno} (sentence {path}#6): only "
                   "punctuation, its marks kept\n")
    with pytest.warns(UserWarning, match=f"{path}#6.*only punctuation"):  # the API warns
        assert [t["form"] for t in list(fstpunct.load("en").restore(path))[-1]] == ["..."]


def test_crf_restores_text_with_its_own_language(tmp_path, capsys):
    """restore --crf DIR --text tags and parses with the CRF's language (meta.json), as --lang
    would, not the English tagger (Spanish text read by it: 'el' a PROPN)."""
    text = tmp_path / "es.txt"
    text.write_text("el niño come manzanas peras y uvas en el mercado de madrid\n",
                    encoding="utf-8")
    crf = str(Path(fstpunct.__file__).parent / "models" / "es" / "text" / "crf")
    outputs = []
    for lang in ([], ["--lang", "es"]):
        assert main(["restore", "--crf", crf, *lang, "--text", str(text)]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert "1\tel\t_\tDET\t" in outputs[0]
    labelled = tmp_path / "xx-crf"  # a language without a bundled tagger: --lang is the way
    shutil.copytree(crf, labelled)
    meta = json.loads((labelled / "meta.json").read_text(encoding="utf-8"))
    (labelled / "meta.json").write_text(json.dumps({**meta, "lang": "xx"}), encoding="utf-8")
    assert main(["restore", "--crf", str(labelled), "--lang", "es", "--text", str(text)]) == 0
    assert capsys.readouterr().out == outputs[0]


def test_crf_text_of_a_language_without_a_bundled_tagger_is_refused(tmp_path, monkeypatch,
                                                                    capsys):
    """``crf train --lang xx --train F --dev F`` records any language code (another UD
    language's); ``restore --crf --text`` with such a CRF, or with ``--lang xx``, says in one
    line (exit 2) that 'xx' has no bundled tagger and parser, and what to give instead: a
    bundled language or --tagger and --parser (which it then takes). The code was looked up as
    a folder: ``./xx/tagger`` in the working folder was loaded as the tagger of 'xx'."""
    crf = tmp_path / "xx-crf"
    assert main(["crf", "train", "--lang", "xx", "--train", str(SAMPLE), "--dev", str(SAMPLE),
                 "--c2", "1", "-o", str(crf)]) == 0
    assert CrfModel.load(crf).meta["lang"] == "xx"
    text = tmp_path / "in.txt"
    text.write_text("the king who wields excalibur\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "xx" / "tagger").mkdir(parents=True)  # not a tagger
    english = fstpunct.load("en").folder
    own = "the CRF's language (crf train --lang) 'xx'"
    for given, told in (([], own), (["--lang", "xx"], "--lang 'xx'"),
                        (["--tagger", str(english / "tagger")], own)):  # --tagger alone: no
        capsys.readouterr()
        assert main(["restore", "--crf", str(crf), *given, "--text", str(text)]) == 2
        err = capsys.readouterr().err
        assert err == (f"fstpunct restore: error: no bundled tagger and parser for {told}: give "
                       f"--lang with one of {', '.join(bundled())}, or --tagger DIR and "
                       "--parser DIR\n")
    assert main(["restore", "--crf", str(crf), "--text", str(text), "--tagger",
                 str(english / "tagger"), "--parser", str(english / "parser")]) == 0
    given = capsys.readouterr().out
    assert main(["restore", "--crf", str(crf), "--lang", "en", "--cased-input", "--text",
                 str(text)]) == 0
    assert capsys.readouterr().out == given


class _UnreadStdin(io.StringIO):
    """A stdin that fails the test when it is read."""

    def __iter__(self):
        raise AssertionError("stdin was read")

    def read(self, *args):
        raise AssertionError("stdin was read")

    readline = read


@pytest.mark.parametrize("method", [["--crf", "en/text/crf"], ["--trivial", "qz.rules"]])
@pytest.mark.parametrize("lang", ["nl", ""])
@pytest.mark.parametrize("buffered", [[], ["--line-buffered"]])
def test_a_lang_without_a_bundled_tagger_is_refused_before_the_text_is_read(
        method, lang, buffered, tmp_path, monkeypatch, capsys):
    """``restore --crf DIR --text --lang nl`` (or ``--trivial RULES``; or ``--lang ''``) was
    refused only when the first sentence was analysed, after stdin was read: with
    --line-buffered, the client's first line got exit 2 instead of an answer. Now with the
    other option refusals: one line, exit 2, stdin never read."""
    rules = tmp_path / "qz.rules"
    rules.write_text("language qz\nfullstop .\nsymbols .\n", encoding="utf-8")
    given = (str(fstpunct.load("en").folder / "text" / "crf") if method[0] == "--crf"
             else str(rules))
    monkeypatch.setattr(sys, "stdin", _UnreadStdin())
    assert main(["restore", method[0], given, "--text", "--lang", lang, *buffered]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (
        f"fstpunct restore: error: no bundled tagger and parser for --lang {lang!r}: give "
        f"--lang with one of {', '.join(bundled())}, or --tagger DIR and --parser DIR\n")


@pytest.mark.parametrize("pool", [["--jobs", "2"], ["--dask-workers", "2"],
                                  ["--scheduler", "tcp://127.0.0.1:9"]])
@pytest.mark.parametrize("lang", ["nl", ""])
def test_a_lang_without_a_bundled_model_is_refused_before_a_pool_opens(
        pool, lang, monkeypatch, capsys):
    """``restore --dask-workers 2 --lang nl`` started a dask cluster (or connected to
    --scheduler, whose error then came first) and loaded every --parser before the model's
    choice refused --lang, as decode and normalise do not: now refused before either."""
    def never(*args, **kwargs):
        raise AssertionError("work started before --lang was refused")
    monkeypatch.setattr("fstpunct.cli.restore.chosen_pool", never)
    monkeypatch.setattr("fstpunct.cli.restore.load_parser", never)
    parser = str(fstpunct.load("en").folder / "parser")
    assert main(["restore", str(SAMPLE), "--parser", parser, *pool, "--lang", lang]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (
        f"fstpunct restore: error: --lang {lang!r}: no bundled model of that language "
        f"(bundled: {', '.join(bundled())}; or pass --model DIR, a model of your own)\n")


def test_trivial_text_warns_of_no_local_folder_named_as_its_language(tmp_path, monkeypatch,
                                                                      capsys):
    """The tagger and parser of --trivial RULES --text are the rule file's language's, a name
    the user did not type: a local folder of that name (``en/``) drew "write ./en for the
    folder", advice --lang ./en refuses; the bundled one is taken without a warning."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "en").mkdir()
    rules, text = tmp_path / "x.rules", tmp_path / "in.txt"
    rules.write_text("language en\ndirection ltr\nfullstop .\nsymbols . ,\n", encoding="utf-8")
    text.write_text("the cat sat on the mat\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    assert main(["restore", str(text), "--trivial", str(rules), "--text", "--format", "text",
                 "-o", str(out), "--quiet"]) == 0
    assert out.read_text(encoding="utf-8") == "the cat sat on the mat.\n"
    assert not capsys.readouterr().err


@pytest.mark.parametrize("method", [["--crf", str(Path(fstpunct.__file__).parent / "models" / "en"
                                                  / "text" / "crf")], ["--trivial", "en.rules"]])
def test_an_unused_lang_is_said(method, tmp_path, monkeypatch, capsys):
    """``restore --crf DIR --lang en`` (or ``--trivial RULES``) on CoNLL-U whose sentences all
    have UPOS and a tree: --lang picks only the tagger and parser of a sentence that lacks them,
    so it was used for nothing, without a word. The run's output is kept, and a note at its end
    says so; not when a sentence needed them, nor without --lang. Sentences with UPOS but no
    tree, given --parser, need neither either: the note then said "every sentence had UPOS and
    a tree", which they had not; it now says what was seen, that none needed them."""
    monkeypatch.chdir(tmp_path)
    Path("en.rules").write_text("language en\ndirection ltr\nfullstop .\nsymbols . ,\n",
                                encoding="utf-8")
    note = ("fstpunct restore: note: --lang en: used for nothing: no sentence needed the tagger "
            "or parser it picks\n")
    assert main(["restore", str(SAMPLE), *method, "--quiet"]) == 0
    plain = capsys.readouterr()
    assert plain.err == ""
    assert main(["restore", str(SAMPLE), *method, "--lang", "en", "--quiet"]) == 0
    noted = capsys.readouterr()
    assert noted.out == plain.out
    assert noted.err == note
    bare = [line if line.startswith("#") or not line else "\t".join(
        line.split("\t")[:6] + ["_", "_"] + line.split("\t")[8:])
        for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    Path("bare.conllu").write_text("\n".join(bare) + "\n", encoding="utf-8")  # no trees
    assert main(["restore", "bare.conllu", *method, "--lang", "en", "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    parser = str(fstpunct.load("en").folder / "parser")
    assert main(["restore", "bare.conllu", *method, "--parser", parser, "--lang", "en",
                 "--quiet"]) == 0
    assert capsys.readouterr().err == note


@pytest.mark.parametrize("method", [["--crf", str(Path(fstpunct.__file__).parent / "models" / "en"
                                                  / "text" / "crf")], ["--trivial", "en.rules"]])
def test_an_unused_tagger_or_case_option_is_said(method, tmp_path, monkeypatch, capsys):
    """``--tagger`` and ``--lowercase-input`` or ``--cased-input``, like ``--lang``, serve only
    the tagger and parser of a sentence that lacks UPOS or a tree: on CoNLL-U whose sentences
    all have them they were used for nothing, in silence (only --lang was noted). One note at
    the end names each unused option; not when a sentence needed them."""
    monkeypatch.chdir(tmp_path)
    Path("en.rules").write_text("language en\ndirection ltr\nfullstop .\nsymbols . ,\n",
                                encoding="utf-8")
    tagger = str(fstpunct.load("en").folder / "tagger")
    assert main(["restore", str(SAMPLE), *method, "--quiet"]) == 0
    plain = capsys.readouterr()
    for options, named in ((["--tagger", tagger], f"--tagger {tagger}: used for nothing: no "
                            "sentence needed the tagger or parser it picks"),
                           (["--cased-input"], "--cased-input: used for nothing: no sentence "
                            "needed the tagger or parser it picks"),
                           (["--lang", "en", "--tagger", tagger, "--lowercase-input"],
                            f"--lang en, --tagger {tagger}, --lowercase-input: used for "
                            "nothing: no sentence needed the tagger or parser they pick")):
        assert main(["restore", str(SAMPLE), *method, *options, "--quiet"]) == 0
        noted = capsys.readouterr()
        assert noted.out == plain.out
        assert noted.err == f"fstpunct restore: note: {named}\n"
    bare = [line if line.startswith("#") or not line else "\t".join(
        line.split("\t")[:3] + ["_"] + line.split("\t")[4:])
        for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    Path("untagged.conllu").write_text("\n".join(bare) + "\n", encoding="utf-8")  # no UPOS
    assert main(["restore", "untagged.conllu", *method, "--tagger", tagger, "--cased-input",
                 "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_an_unused_pipeline_option_is_said_with_a_model(tmp_path, monkeypatch, capsys):
    """``restore --model DIR`` (or the bundled model --lang picks) with ``--tagger`` and
    ``--lowercase-input`` or ``--cased-input`` on CoNLL-U whose sentences all have UPOS and a
    tree (or only lack trees, given --parser) used them for nothing, in silence, where --crf
    and --trivial say so: the same note now, naming only those (--lang picked the model);
    the output unchanged; no note when a sentence needed the tagger or parser."""
    monkeypatch.chdir(tmp_path)
    folder = fstpunct.load("en").folder
    tagger, parser = str(folder / "tagger"), str(folder / "parser")
    model = ["--model", str(folder)]
    assert main(["restore", str(SAMPLE), *model, "--quiet"]) == 0
    plain = capsys.readouterr()
    assert plain.err == ""
    for options, named in ((["--tagger", tagger], f"--tagger {tagger}: used for nothing: no "
                            "sentence needed the tagger or parser it picks"),
                           (["--lang", "en", "--cased-input"], "--cased-input: used for "
                            "nothing: no sentence needed the tagger or parser it picks"),
                           (["--tagger", tagger, "--lowercase-input"],
                            f"--tagger {tagger}, --lowercase-input: used for nothing: no "
                            "sentence needed the tagger or parser they pick")):
        chosen = [] if "--lang" in options else model
        assert main(["restore", str(SAMPLE), *chosen, *options, "--quiet"]) == 0
        noted = capsys.readouterr()
        assert noted.out == plain.out
        assert noted.err == f"fstpunct restore: note: {named}\n"
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    for name, column in (("untagged.conllu", 3), ("bare.conllu", 6)):  # no UPOS; no tree
        Path(name).write_text("\n".join(line if line.startswith("#") or not line else "\t".join(
            line.split("\t")[:column] + ["_"] + line.split("\t")[column + 1:])
            for line in lines) + "\n", encoding="utf-8")
        assert main(["restore", name, *model, "--tagger", tagger, "--cased-input",
                     "--quiet"]) == 0
        assert capsys.readouterr().err == ""
    assert main(["restore", "bare.conllu", *model, "--parser", parser, "--tagger", tagger,
                 "--quiet"]) == 0
    assert capsys.readouterr().err == (f"fstpunct restore: note: --tagger {tagger}: used for "
                                       "nothing: no sentence needed the tagger or parser it "
                                       "picks\n")


def test_trivial_takes_a_model_folder_by_its_bare_name(tmp_path, monkeypatch, capsys):
    """README's recipe ends "fstpunct restore --trivial M --text" as --model M: a bare name
    that is no language is the folder or file of that name here, as --model's is (it was
    refused: "no rule file and no standard split for language 'M' (the folder or file:
    write ./M)"); a language's name wins over a local folder, with --model's warning."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "M").mkdir()
    grammar = ["language qz", "direction ltr", "fullstop ।", "symbols । ,"]
    (tmp_path / "M" / "model.json").write_text(json.dumps(
        {"format": 1, "record": {"language": "qz", "grammar": "default",
                                 "default_grammar": grammar}}), encoding="utf-8")
    assert main(["restore", str(SAMPLE), "--trivial", "M", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and _first_marks(out) == ["।"]
    (tmp_path / "en").mkdir()
    assert main(["restore", str(SAMPLE), "--trivial", "en", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert err == ("fstpunct restore: warning: 'en' is the language, not the local folder en "
                   "(write ./en for the folder)\n")
    assert _first_marks(out) == ["."]


def _first_marks(conllu_text: str) -> list[str]:
    """The punctuation of the first sentence of a CoNLL-U text."""
    return [w.form for w in next(read_conllu(io.StringIO(conllu_text))).words if w.is_punct]


def test_trivial_names_a_path_as_typed(tmp_path, monkeypatch, capsys):
    """--trivial ./NAME's refusals keep the ./ the user typed (they said "adir: ...")."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    (tmp_path / "adir").mkdir()
    (tmp_path / "adir" / "model.json").write_text('{"format": 1, "record": {}}')
    (tmp_path / "xf").write_text("direction ltr\n")
    for given, why in [("./nodir", "no such file"),
                       ("./empty", "not a fstpunct model (no model.json)"),
                       ("./adir", "its model.json records no grammar, so no full stop (give "
                                  "the trivial baseline a rule file or a language)"),
                       ("./xf", "missing 'language' line")]:
        assert main(["restore", str(SAMPLE), "--trivial", given, "--quiet"]) == 2
        assert capsys.readouterr().err == f"fstpunct restore: error: {given}: {why}\n"
