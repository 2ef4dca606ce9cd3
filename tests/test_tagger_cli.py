"""``fstpunct tagger train`` and :func:`fstpunct.train_tagger`: the UPOS tagger of plain text for a
language the project does not bundle, trained, saved whole, loaded and used."""
import errno
import re
from pathlib import Path

import numpy as np
import pytest

import fstpunct
from fstpunct.cli.main import build_parser, main
from fstpunct.errors import InputError, SavedAside
from fstpunct.parser import tagger as tagger_module
from fstpunct.parser.tagger import Tagger

BUNDLED_PARSER = Path(fstpunct.__file__).parent / "models" / "en" / "parser"
SENTENCES = [  # (form, UPOS, head, deprel): a made-up language, punctuation included
    [("ka", "DET", 2, "det"), ("velo", "NOUN", 3, "nsubj"), ("suma", "VERB", 0, "root"),
     (".", "PUNCT", 3, "punct")],
    [("ka", "DET", 2, "det"), ("miru", "NOUN", 3, "nsubj"), ("tosa", "VERB", 0, "root"),
     (",", "PUNCT", 6, "punct"), ("ka", "DET", 6, "det"), ("velo", "NOUN", 3, "obj"),
     (".", "PUNCT", 3, "punct")],
    [("miru", "NOUN", 2, "nsubj"), ("suma", "VERB", 0, "root"), ("!", "PUNCT", 2, "punct")],
    [("ka", "DET", 2, "det"), ("velo", "NOUN", 3, "nsubj"), ("tosa", "VERB", 0, "root"),
     ("ka", "DET", 5, "det"), ("miru", "NOUN", 3, "obj"), (".", "PUNCT", 3, "punct")],
]


def write(path, sentences):
    lines = []
    for k, sent in enumerate(sentences, 1):
        lines += [f"# sent_id = {k}", f"# text = {' '.join(w[0] for w in sent)}"]
        lines += [f"{i}\t{form}\t{form}\t{upos}\t_\t_\t{head}\t{rel}\t_\t_"
                  for i, (form, upos, head, rel) in enumerate(sent, 1)]
        lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_numpys_ints_train_a_tagger_and_reach_its_json_as_pythons(tmp_path):
    """epochs, min_count and seed given as numpy's ints (whole numbers, checked) train the
    tagger that Python's train, and tagger.json holds Python's: numpy's seed was random's
    TypeError before training, numpy's epochs and min_count json's TypeError after it."""
    train = write(tmp_path / "qz-train.conllu", SENTENCES)
    taggers = {name: fstpunct.train_tagger(tmp_path / name, [train], epochs=whole(3),
                                           min_count=whole(1), seed=whole(0))
               for name, whole in (("np", np.int64), ("py", int))}
    assert (taggers["np"].weights == taggers["py"].weights).all()
    assert (tmp_path / "np" / "tagger.json").read_bytes() == \
        (tmp_path / "py" / "tagger.json").read_bytes()


def test_tagger_train_trains_saves_and_the_text_path_uses_it(tmp_path, capsys):
    train, dev = write(tmp_path / "qz-train.conllu", SENTENCES), write(tmp_path / "dev.conllu",
                                                                      SENTENCES[:2])
    out = tmp_path / "m" / "tagger"
    assert main(["tagger", "train", "--train", str(train), "--dev", str(dev), "--epochs", "4",
                 "--min-count", "1", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.count("dev accuracy") == 4 and "epoch 4:" in err
    assert sorted(p.name for p in out.iterdir()) == ["tagger.json", "tagger.npz"]
    tagger = Tagger.load(out)
    assert set(tagger.tags) == {"DET", "NOUN", "VERB"}  # trained without the punctuation
    assert tagger.tag(["ka", "miru", "suma"]) == ["DET", "NOUN", "VERB"]
    assert tagger.info["train"] == [f"{train}: {train}"] and not tagger.lowercase
    same = fstpunct.train_tagger(tmp_path / "api", [train], dev=dev, epochs=4, min_count=1)
    assert same.tags == tagger.tags and (same.weights == tagger.weights).all()
    lower = tmp_path / "m" / "tagger-lc"
    assert main(["tagger", "train", "--train", str(train), "--lowercase", "--epochs", "4",
                 "--min-count", "1", "--quiet", "-o", str(lower)]) == 0
    assert capsys.readouterr().err == ""
    assert Tagger.load(lower).lowercase
    assert Tagger.load(lower).tag(["KA", "Velo", "SUMA"]) == ["DET", "NOUN", "VERB"]
    text = tmp_path / "in.txt"
    text.write_text("ka velo suma\n", encoding="utf-8")
    assert main(["restore", "--trivial", "en", "--text", str(text), "--tagger", str(out),
                 "--parser", str(BUNDLED_PARSER), "--format", "conllu", "--quiet"]) == 0
    restored = capsys.readouterr().out
    assert [ln.split("\t")[3] for ln in restored.splitlines() if ln[:1].isdigit()] == \
        ["DET", "NOUN", "VERB", "PUNCT"]


def test_the_trainers_quiet_and_epoch_lines_are_alike(tmp_path, capsys):
    """``parser train --quiet`` still printed its data line and a line per epoch, which
    ``tagger train --quiet`` does not: --quiet is one option of both, nothing on stderr. Without
    it both say an epoch alike: ``epoch N: S s, ...`` and ``(best)`` on the best dev epoch so
    far (the tagger's line had neither its seconds nor the mark)."""
    train = write(tmp_path / "qz-train.conllu", SENTENCES)
    dev = write(tmp_path / "dev.conllu", SENTENCES[:2])
    data = ["--train", str(train), "--dev", str(dev), "--epochs", "2"]
    lines = {}
    for trainer in ("tagger", "parser"):
        assert main([trainer, "train", *data, "--quiet", "-o", str(tmp_path / trainer)]) == 0
        assert capsys.readouterr().err == "", trainer
        assert main([trainer, "train", *data, "-o", str(tmp_path / f"{trainer}-2")]) == 0
        lines[trainer] = [ln for ln in capsys.readouterr().err.splitlines()
                          if ln.startswith("epoch ")]
    for trainer, said in lines.items():
        assert len(said) == 2 and "(best)" in said[0], (trainer, said)
        assert all(re.match(r"epoch \d: \d+\.\d s, ", ln) for ln in said), (trainer, said)


def test_the_trainers_refuse_lang_with_train_in_one_wording(tmp_path, capsys):
    """``--lang`` with ``--train``: the tagger said it in the library's keywords (``lang
    (--lang)``, ``data (--train)``), the parser in its options; both now say the same line."""
    train = write(tmp_path / "qz-train.conllu", SENTENCES)
    said = {}
    for trainer in ("tagger", "parser"):
        out = tmp_path / trainer
        assert main([trainer, "train", "--train", str(train), "--lang", "qz", "--quiet",
                     "-o", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and not out.exists(), err
        said[trainer] = err.removeprefix(f"fstpunct {trainer} train: error: ")
    assert said["tagger"] == said["parser"], said


@pytest.mark.parametrize("trainer, epochs, note, seed, use", [
    ("parser", 20, "; --patience may stop sooner", 1, "parsing (serves lower-cased text too)"),
    ("tagger", 6, ", as the bundled taggers", 0,
     "tagging (a model folder's tagger-lc/, for lower-cased text)")])
def test_each_trainer_says_its_own_defaults(trainer, epochs, note, seed, use, capsys):
    """``--epochs``, ``--lowercase`` and ``--seed`` were written in both trainers, only their
    defaults differing; declared once (add_trainer_arguments), they keep each command's
    defaults and their help."""
    args = build_parser().parse_args([trainer, "train", "-o", "out"])
    assert (args.epochs, args.seed, args.lowercase) == (epochs, seed, False)
    assert build_parser().parse_args([trainer, "train", "-o", "out", "--lowercase"]).lowercase
    with pytest.raises(SystemExit):
        main([trainer, "train", "--help"])
    help = " ".join(capsys.readouterr().out.split())
    assert f"--epochs N epochs to train (default {epochs}{note})" in help, help
    assert f"--seed SEED shuffling seed (default {seed})" in help, help
    assert f"--lowercase case-free {trainer}: words lower-cased in training and {use}" in help


@pytest.mark.parametrize("option", [["--epochs", "0"], ["--seed", "-1"], ["--seed", "1.5"]])
def test_the_trainers_refuse_their_shared_options_in_one_wording(option, tmp_path, capsys):
    """A bad --epochs or --seed: one line, the same in both trainers, before anything is
    read or written."""
    train = write(tmp_path / "qz-train.conllu", SENTENCES)
    said = {}
    for trainer in ("tagger", "parser"):
        out = tmp_path / trainer
        try:
            code = main([trainer, "train", "--train", str(train), *option, "--quiet",
                         "-o", str(out)])
        except SystemExit as e:  # argparse's refusal of a value of the wrong type
            code = e.code
        assert code == 2
        err = capsys.readouterr().err
        assert err.splitlines()[-1].startswith(f"fstpunct {trainer} train: error: "), err
        assert "Traceback" not in err and not out.exists(), err
        said[trainer] = err.splitlines()[-1].replace(f"fstpunct {trainer} train", "TRAINER")
    assert said["tagger"] == said["parser"] and option[0] in said["parser"], said


def test_tagger_train_refuses_bad_input_in_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tka\n", encoding="utf-8")
    good = write(tmp_path / "train.conllu", SENTENCES)
    model = tmp_path / "model"
    model.mkdir()
    (model / "model.json").write_text("{}", encoding="utf-8")
    for argv, message in (
            (["--train", str(bad)], f"{bad}:1 (sentence {bad}#1): expected 10 tab-separated "
                                    "fields, found 2"),
            (["--train", str(good), "--lang", "qz"], "--lang: names the standard splits to "
                                                     "train on; with --train, give dev with "
                                                     "--dev"),
            (["--train", str(good), "--min-count", "-1"], "--min-count must be at least 0"),
            (["--train", str(good), "-o", str(model)], f"{model}: holds model.json, not part "
                                                       "of a tagger")):
        out = ["-o", str(tmp_path / "out")] if "-o" not in argv else []
        assert main(["tagger", "train", *argv, *out, "--quiet"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
        assert not (tmp_path / "out").exists()
    assert sorted(p.name for p in model.iterdir()) == ["model.json"]
    with pytest.raises(InputError, match=r"^lang \(--lang\): names the standard"):
        fstpunct.train_tagger(tmp_path / "out", good, lang="qz")  # the library too
    assert not (tmp_path / "out").exists()


def test_tagger_folder_is_written_whole_or_not_at_all(tmp_path, capsys, monkeypatch):
    train = write(tmp_path / "train.conllu", SENTENCES)
    out = tmp_path / "tagger"
    assert main(["tagger", "train", "--train", str(train), "--epochs", "1", "--quiet",
                 "-o", str(out)]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def full(path, *args):
        Path(path).write_bytes(b"half")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tagger_module, "write_weights", full)
    assert main(["tagger", "train", "--train", str(train), "--epochs", "3", "--quiet",
                 "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tagger", "train.conllu"]
    with pytest.raises(fstpunct.api.training.InputError, match="needs data"):
        fstpunct.train_tagger(tmp_path / "none")


def test_what_a_user_puts_beside_a_tagger_while_it_trains_is_kept(tmp_path):
    """As for a punctuation model (test_files.py): a note put into the tagger's folder while it
    trained made the save refuse a new folder (the tagger lost) or went with an old tagger's
    folder. Both are kept: the folder as it was, the tagger in a new folder beside it, named by
    SavedAside (an InputError: one line, exit 2)."""
    train = write(tmp_path / "train.conllu", SENTENCES)
    out, fresh = tmp_path / "tagger", tmp_path / "fresh"
    notes = out / "NOTES.txt"

    def log(line: str) -> None:
        if line.startswith("epoch 1:"):
            out.mkdir(exist_ok=True)
            notes.write_text("mine\n", encoding="utf-8")

    fstpunct.train_tagger(fresh, [train], epochs=2, min_count=1)
    with pytest.raises(SavedAside, match=r"tagger: holds NOTES\.txt, not part of a tagger, "
                                         r".* saved in \S*/tagger\.new$") as caught:
        fstpunct.train_tagger(out, [train], epochs=2, min_count=1, log=log)  # a new folder
    assert caught.value.kind == "a tagger" and caught.value.saved == tmp_path / "tagger.new"
    assert sorted(p.name for p in out.iterdir()) == ["NOTES.txt"]
    notes.unlink()
    out.rmdir()
    fstpunct.train_tagger(out, [train], epochs=1, min_count=1)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(SavedAside, match=r"saved in \S*/tagger\.new-2$"):
        fstpunct.train_tagger(out, [train], epochs=2, min_count=1, log=log)  # an old tagger's
    assert notes.read_text(encoding="utf-8") == "mine\n"
    assert {p.name: p.read_bytes() for p in out.iterdir() if p != notes} == before
    for aside in ("tagger.new", "tagger.new-2"):  # the run's tagger, whole
        assert {p.name: p.read_bytes() for p in (tmp_path / aside).iterdir()} == \
            {p.name: p.read_bytes() for p in fresh.iterdir()}
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_training_data_without_a_word_is_one_line(tmp_path, capsys, monkeypatch):
    """Training sentences that leave the tagger no word (here: every sentence's depunctuated
    view made empty) are one line naming the file, exit 2 (the message joined the sources'
    paths as if they were strings: a TypeError)."""
    data = write(tmp_path / "marks.conllu", SENTENCES)
    monkeypatch.setattr(tagger_module, "depunctuated", lambda sent: ((), ()))
    with pytest.raises(InputError, match=r"marks\.conllu: no word to train a tagger on"):
        fstpunct.train_tagger(tmp_path / "t", data)
    assert main(["tagger", "train", "--train", str(data), "-o", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err
    assert "no word to train a tagger on" in err and "Traceback" not in err
