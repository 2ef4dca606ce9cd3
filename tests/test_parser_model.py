"""Training tiny parsers, save/load, the `parse` and `parser train` commands, scoring."""
import io
import itertools
import json
import math
import os
import random
import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import treebank
from tqdm import tqdm

import fstpunct
from fstpunct.cli.main import main
from fstpunct.errors import InputError
from fstpunct.model.store import BUNDLED
from fstpunct.parser import Model, decode, kbest, parse, score, train
from fstpunct.parser.model import LEGALITY_CLASSES
from fstpunct.parser.punct import EMPTY, MARK, REL_MARK, WORD, Prepared, initial_props, prepare
from fstpunct.parser.search import greedy, search, search_beam, tree
from fstpunct.parser.train import Perceptron, _beam_epoch, _early_greedy_epoch, build
from fstpunct.parser.transitions import Shift, initial, leaf
from fstpunct.ud.tree import is_projective
from fstpunct.ud.treebank import read_conllu, read_file


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("parser")
    train_sents = list(itertools.islice(treebank("en", "train").sentences(), 40))
    dev_sents = list(itertools.islice(treebank("en", "dev").sentences(), 15))
    for name, sents in (("train", train_sents), ("dev", dev_sents)):
        (root / f"{name}.conllu").write_text("".join(s.text() for s in sents), encoding="utf-8")
    return root, train_sents, dev_sents


@pytest.fixture(scope="module")
def models(data):
    root, train_sents, dev_sents = data
    out = {}
    for mode, beam in (("tokens", 1), ("removed", 1), ("paired", 1), ("properties", 1),
                       ("typed", 1), ("properties", 3)):
        folder = root / f"{mode}-{beam}"
        epochs = 8 if beam == 1 else 25  # early update learns a prefix per sentence and epoch
        train(train_sents, train_sents[:20], mode, beam, folder, epochs=epochs,
              patience=epochs, progress=False, log=lambda m: None)
        out[mode, beam] = folder
    return out


@pytest.mark.parametrize("key", [("tokens", 1), ("removed", 1), ("paired", 1),
                                 ("properties", 1), ("properties", 3)])
def test_tiny_model_learns_its_training_sentences(data, models, key):
    """(Its dev set is 20 of them.) Fails if training and parsing see different features."""
    _, train_sents, _ = data
    model = Model.load(models[key])
    s = score(train_sents[:20], (parse(model, x, key[1]) for x in train_sents[:20]))
    assert s.words.uas > 95


@pytest.mark.parametrize("key", [("tokens", 1), ("removed", 1), ("paired", 1),
                                 ("properties", 3)])
def test_output_is_valid_and_keeps_everything_but_head_and_deprel(data, models, key):
    _, _, dev_sents = data
    model = Model.load(models[key])
    for sent in dev_sents:
        out = parse(model, sent, 2)
        assert out.comments == sent.comments
        for a, b in zip(sent.lines, out.lines):
            assert a.fields[:6] + a.fields[8:] == b.fields[:6] + b.fields[8:]
        heads = [w.head for w in out.words]
        assert heads.count(0) == 1 and is_projective(heads)
        assert [w.deprel for w in out.words if w.head == 0] == ["root"]
        again = next(read_conllu(io.StringIO(out.text()))).words
        assert [(w.head, w.deprel) for w in again] == [(w.head, w.deprel) for w in out.words]


def test_save_load_round_trip_gives_identical_parses(data, models, tmp_path):
    _, _, dev_sents = data
    model = Model.load(models["properties", 3])
    model.save(tmp_path / "copy")
    again = Model.load(tmp_path / "copy")
    for beam in (1, 4):
        assert [parse(model, s, beam).text() for s in dev_sents] == \
               [parse(again, s, beam).text() for s in dev_sents]
    assert again.props_version == model.props_version == 2
    meta = json.loads((tmp_path / "copy" / "model.json").read_text())
    del meta["props_version"]  # as written before version 2
    (tmp_path / "copy" / "model.json").write_text(json.dumps(meta))
    assert Model.load(tmp_path / "copy").props_version == 1


def test_a_loaded_models_weights_stay_sparse_until_read(data, models):
    """A loaded model parses greedily from its stored sparse weights; reading ``weights``
    makes them dense (the same values), and setting them replaces the stored ones."""
    _, _, dev_sents = data
    model = Model.load(models["properties", 1])
    before = [parse(model, s).text() for s in dev_sents]
    assert model._dense is None  # the compiled parser never needed them dense
    stored = model.sparse_weights()
    dense = model.weights
    assert dense.dtype == np.float32 and dense.shape == (len(model.keys) + 1,
                                                         len(model.transitions))
    for x, y in zip(stored, model.sparse_weights(dense.copy())):
        np.testing.assert_array_equal(x, y)
    assert [parse(model, s).text() for s in dev_sents] == before
    model.weights = np.zeros_like(dense)
    assert not any(model.sparse_weights()[2])


def test_a_fresh_process_parses_identically(data, models, tmp_path):
    """Features hash only integers: nothing depends on the process (e.g. PYTHONHASHSEED)."""
    root, _, dev_sents = data
    model = Model.load(models["typed", 1])
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-m", "fstpunct.cli.main", "parse", "--model",
                          str(models["typed", 1]), "--beam", "2", str(root / "dev.conllu")],
                         env=env, capture_output=True, text=True, check=True).stdout
    assert out == "".join(parse(model, s, 2).text() for s in dev_sents)


def test_model_records_dev_scores_per_epoch(models):
    info = json.loads((models["properties", 3] / "model.json").read_text())["info"]
    assert info["beam"] == 3 and len(info["history"]) >= info["best_epoch"]
    best = max(h["dev_uas"] for h in info["history"])
    assert info["history"][info["best_epoch"] - 1]["dev_uas"] == best


def test_parse_command_files_and_stdin(data, models, tmp_path, capsys, monkeypatch):
    root, _, _ = data
    model = str(models["removed", 1])
    out = tmp_path / "out.conllu"
    assert main(["parse", "--model", model, str(root / "dev.conllu"), "-o", str(out)]) == 0
    assert len(list(read_file(out))) == 15
    monkeypatch.setattr(sys, "stdin", io.StringIO((root / "dev.conllu").read_text()))
    assert main(["parse", "--model", model]) == 0
    assert capsys.readouterr().out == out.read_text()


def test_unparsed_input_without_punctuation_is_accepted(models, capsys, monkeypatch):
    text = ("# sent_id = x1\n# text = dogs bark loudly\n"
            "1\tdogs\tdog\tNOUN\tNNS\t_\t_\t_\t_\t_\n"
            "2-3\tbarkloudly\t_\t_\t_\t_\t_\t_\t_\t_\n"
            "2\tbark\tbark\tVERB\tVBP\t_\t_\t_\t_\t_\n"
            "3\tloudly\tloudly\tADV\tRB\t_\t_\t_\t_\t_\n\n")
    for key in models:
        monkeypatch.setattr(sys, "stdin", io.StringIO(text))
        assert main(["parse", "--model", str(models[key])]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[:2] == text.splitlines()[:2] and lines[3].startswith("2-3\tbarkloudly")
        heads = [int(ln.split("\t")[6]) for ln in lines[2:] if ln[:1].isdigit() and "-" not in
                 ln.split("\t")[0]]
        assert heads.count(0) == 1


@pytest.mark.parametrize("text", ["1\tdogs\tdog\tNOUN\tNNS\t_\t_\t_\n\n",
                                  "1\tdogs\tdog\tNOUN\tNNS\t_\tx\t_\t_\t_\n\n"])
def test_malformed_input_is_a_one_line_error(models, capsys, monkeypatch, text):
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    assert main(["parse", "--model", str(models["tokens", 1])]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "<stdin>:1" in err


def test_missing_model_is_a_one_line_error(tmp_path, capsys):
    assert main(["parse", "--model", str(tmp_path / "nothing"), "-"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a parser model" in err


@pytest.mark.parametrize("command", ["parse", "restore", "decode", "correct"])
@pytest.mark.parametrize("beam", ["0", "-1", "x"])
def test_a_beam_below_1_is_refused(models, capsys, command, beam):
    """--beam 0 used to mean the parser's beam, and -1 a beam that grows without end."""
    with pytest.raises(SystemExit) as stop:
        main([command, "--model", str(models["removed", 1]), "--beam", beam, "-"])
    assert stop.value.code == 2
    assert "argument --beam: must be a whole number of at least 1" in capsys.readouterr().err
    sent = next(read_conllu(io.StringIO("1\tdogs\tdog\tNOUN\tNNS\t_\t_\t_\t_\t_\n\n"),
                            tree=None))
    with pytest.raises(InputError, match="beam must be at least 1, not 0"):
        parse(Model.load(models["removed", 1]), sent, 0)


@pytest.mark.parametrize("setting", [{"patience": -1}, {"min_count": -1}])
def test_the_library_refuses_a_negative_patience_or_min_count(tmp_path, setting):
    """train(patience=-1) stopped after the first epoch and min_count=-1 kept every feature,
    in silence: the library refuses them, before any sentence is read, as the command does."""
    with pytest.raises(InputError, match=r"^(patience|min_count) must be at least 0, not -1$"):
        train(_unread(), _unread(), "removed", 1, tmp_path / "m", **setting)
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("setting, message", [
    ({"beam": math.nan}, "beam must be at least 1, not nan"),
    ({"epochs": math.inf}, "epochs must be a finite number of at least 1, not inf"),
    ({"patience": math.nan}, "patience must be at least 0, not nan"),
    ({"min_count": math.inf}, "min_count must be a finite number of at least 0, not inf")])
def test_the_library_refuses_a_nan_or_infinite_training_setting(tmp_path, setting, message):
    """NaN and inf passed the hand-written checks: a NaN beam or infinite epochs failed with a
    TypeError (a traceback), a NaN patience or infinite min_count trained and saved a model;
    refused before any sentence is read (the sentences fail the test when read)."""
    with pytest.raises(InputError, match=f"^{message}$"):
        train(_unread(), _unread(), "tokens", **{"beam": 1, **setting}, out=tmp_path / "m")
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("setting, message", [
    ({"beam": 1.5}, "beam must be a whole number of at least 1, not 1.5"),
    ({"epochs": 2.5}, "epochs must be a whole number of at least 1, not 2.5"),
    ({"epochs": 2.0}, "epochs must be a whole number of at least 1, not 2.0"),
    ({"patience": 1.5}, "patience must be a whole number of at least 0, not 1.5"),
    ({"min_count": 2.5}, "min_count must be a whole number of at least 0, not 2.5")])
def test_the_library_refuses_a_fractional_beam_or_epochs(tmp_path, setting, message):
    """A beam of 1.5 failed in the search's slice, epochs of 2.5 (or 2.0) in range(), with a
    TypeError; refused before any sentence is read."""
    with pytest.raises(InputError, match=f"^{message}$"):
        train(_unread(), _unread(), "tokens", **{"beam": 1, **setting}, out=tmp_path / "m")
    assert not (tmp_path / "m").exists()


def _unread():
    """Sentences whose reading fails the test."""
    raise AssertionError("a sentence was read")
    yield


@pytest.mark.parametrize("beam, bound", [(math.nan, "at least 1"),
                                         (math.inf, "a finite number of at least 1")])
def test_the_beam_search_refuses_a_nan_or_infinite_beam(models, beam, bound):
    """A NaN or infinite beam failed in the search's slice (a TypeError with a traceback)."""
    sent = next(read_conllu(io.StringIO("1\tdogs\tdog\tNOUN\tNNS\t_\t_\t_\t_\t_\n\n"),
                            tree=None))
    with pytest.raises(InputError, match=f"^beam must be {bound}, not {beam}$"):
        parse(Model.load(models["removed", 1]), sent, beam)


@pytest.mark.parametrize("beam", [1.5, None])
def test_the_beam_search_refuses_a_fractional_beam_or_none(beam):
    """A beam of 1.5 failed in the search's slice (a TypeError); None passed the check and
    kept every item (an unbounded beam: 98 items for two words with the en parser). parse's
    None is the parser's own beam; search_beam has no default."""
    model = Model.load(BUNDLED / "en" / "parser")
    sent = next(read_conllu(io.StringIO("1\tdogs\tdog\tNOUN\tNNS\t_\t_\t_\t_\t_\n"
                                        "2\tbark\tbark\tVERB\tVBP\t_\t_\t_\t_\t_\n\n"),
                            tree=None))
    prep = prepare(sent, model.mode, gold=False, version=model.props_version)
    with pytest.raises(InputError, match=f"^beam must be a whole number of at least 1, not "
                                         f"{beam}$"):
        search_beam(model, model.input(prep), beam, model.weights)
    if beam is not None:
        with pytest.raises(InputError, match=f"^beam must be a whole number .* not {beam}$"):
            parse(model, sent, beam)


def test_the_library_beam_is_the_models_by_default_and_never_0(data, models):
    """``beam=None`` is the parser's own beam; 0 is refused everywhere (it used to mean the
    parser's own beam in restoration and correction with a parser)."""
    _, _, dev_sents = data
    model = Model.load(models["properties", 3])
    assert [parse(model, s).text() for s in dev_sents[:5]] == \
        [parse(model, s, 3).text() for s in dev_sents[:5]]
    assert [t.text() for _, t in kbest(model, dev_sents[0])] == \
        [t.text() for _, t in kbest(model, dev_sents[0], 3)]
    sample = "".join(s.text() for s in dev_sents[:2])
    removed = models["removed", 1]
    assert fstpunct.load("en").restore(sample, parsers=[removed]) == \
        fstpunct.load("en").restore(sample, parsers=[removed], beam=1)
    for beam in (0, -1):
        with pytest.raises(InputError, match=f"beam must be at least 1, not {beam}"):
            fstpunct.load("en").restore(sample, parsers=[removed], beam=beam)


def test_parser_train_command(data, tmp_path, capsys):
    root, _, _ = data
    out = tmp_path / "m"
    assert main(["parser", "train", "--train", str(root / "train.conllu"), "--dev",
                 str(root / "dev.conllu"), "--punct", "tokens", "--beam", "2", "--epochs", "2",
                 "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "epoch 1:" in err and "dev UAS" in err
    assert Model.load(out).info["beam"] == 2
    for option, value in (("--beam", "0"), ("--beam", "-1"), ("--epochs", "0")):
        with pytest.raises(SystemExit) as stop:
            main(["parser", "train", "--punct", "tokens", option, value, "-o", str(out)])
        assert stop.value.code == 2
        assert f"argument {option}: must be a whole number of at least 1" in \
            capsys.readouterr().err
    for beam, epochs in ((0, 1), (-1, 1), (1, 0)):
        with pytest.raises(InputError, match="must be at least 1"):
            train(data[1][:2], data[1][:2], "tokens", beam, tmp_path / "x", epochs=epochs)


def test_parser_train_without_dev_keeps_the_last_epoch(data, tmp_path, capsys):
    """``parser train --train`` without ``--dev`` keeps the last epoch, as ``tagger train``
    does: it chose the epoch on --lang's dev, by default en's, for a parser of any language
    (here --ud-dir names a folder without UD: that dev was an error before training)."""
    root, train_sents, _ = data
    out = tmp_path / "m"
    assert main(["parser", "train", "--train", str(root / "train.conllu"), "--punct", "tokens",
                 "--epochs", "3", "--ud-dir", str(tmp_path), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "epoch 3:" in err and "dev UAS" not in err, err
    info = Model.load(out).info
    assert info["dev"] is None and info["best_epoch"] == 3 and len(info["history"]) == 3
    assert not any("dev_uas" in h for h in info["history"])
    train(train_sents, [], "tokens", 1, tmp_path / "api", epochs=3, progress=False,
          log=lambda _: None)  # the library: no dev sentences, the last epoch
    assert (Model.load(tmp_path / "api").weights == Model.load(out).weights).all()


def test_without_dev_the_parser_is_saved_once(data, tmp_path, monkeypatch):
    """Without dev every epoch was saved in turn (each the 'best'); now the last epoch is
    saved once, at the end. With dev, each better epoch still is (a checkpoint, in
    NAME.partial), and the best one with the whole history to the folder at the end."""
    _, train_sents, dev_sents = data
    saved, save = [], Model.save

    def counted(self, folder, *args):
        saved.append((os.path.basename(folder), self.info["best_epoch"]))
        save(self, folder, *args)

    monkeypatch.setattr(Model, "save", counted)
    train(train_sents, [], "tokens", 1, tmp_path / "m", epochs=3, progress=False,
          log=lambda _: None)
    assert saved == [("m", 3)] and Model.load(tmp_path / "m").info["best_epoch"] == 3
    saved.clear()
    lines: list[str] = []
    train(train_sents, dev_sents, "tokens", 1, tmp_path / "d", epochs=3, patience=3,
          progress=False, log=lines.append)
    best = [int(ln.split()[1].rstrip(":")) for ln in lines
            if ln.startswith("epoch ") and ln.endswith("(best)")]
    assert best[0] == 1 and saved == [*(("d.partial", e) for e in best), ("d", best[-1])], \
        (saved, lines)  # each better epoch, and only they, then the best one in d
    info = Model.load(tmp_path / "d").info
    assert info["best_epoch"] == best[-1] and len(info["history"]) == 3


def test_parser_train_refuses_lang_with_train(data, tmp_path, capsys):
    """``--lang`` with ``--train`` was ignored in silence (its dev split too, even without
    ``--dev``): refused in one line before anything is read, as ``tagger train`` refuses it."""
    root, _, _ = data
    out = tmp_path / "m"
    for dev in ([], ["--dev", str(root / "dev.conllu")]):
        assert main(["parser", "train", "--lang", "en", "--train", str(root / "train.conllu"),
                     *dev, "--epochs", "1", "--quiet", "-o", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--lang: names the standard splits to train on; " \
            "with --train, give dev with --dev" in err, err
        assert not out.exists()


def test_parser_train_refuses_patience_without_dev(data, tmp_path, capsys):
    """``--patience`` counts epochs without a better dev UAS: with ``--train`` and no ``--dev``
    it did nothing, in silence; refused in one line before anything is read (the library too,
    before training). With dev it is taken, and the library's None is its default."""
    root, train_sents, _ = data
    out = tmp_path / "m"
    assert main(["parser", "train", "--train", str(root / "train.conllu"), "--patience", "2",
                 "--epochs", "1", "--quiet", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--patience: counts epochs without a better dev UAS; " \
        "without dev sentences (--dev) every epoch is trained and the last kept" in err, err
    assert not out.exists()
    with pytest.raises(InputError, match=r"^patience \(--patience\): counts epochs"):
        train(train_sents, [], "tokens", 1, out, patience=2, progress=False)
    assert not out.exists()
    assert main(["parser", "train", "--train", str(root / "train.conllu"), "--dev",
                 str(root / "dev.conllu"), "--patience", "0", "--epochs", "2", "--quiet",
                 "-o", str(out)]) == 0


def test_parser_train_takes_several_files_in_turn(data, tmp_path, capsys, monkeypatch):
    """``parser train --train`` takes several files, as ``train --train`` does (it took one):
    read in turn, the same parser as their concatenation; all are found before any is read
    (a missing second file is said before the first, stdin here, is touched)."""
    root, train_sents, _ = data
    halves = tmp_path / "a, first.conllu", tmp_path / "b.conllu"  # a path with ", " in it
    for half, sents in zip(halves, (train_sents[:25], train_sents[25:])):
        half.write_text("".join(s.text() for s in sents), encoding="utf-8")
    common = ["--dev", str(root / "dev.conllu"), "--epochs", "2", "--quiet"]
    assert main(["parser", "train", "--train", *map(str, halves), *common,
                 "-o", str(tmp_path / "two")]) == 0
    assert main(["parser", "train", "--train", str(root / "train.conllu"), *common,
                 "-o", str(tmp_path / "one")]) == 0
    two, one = Model.load(tmp_path / "two"), Model.load(tmp_path / "one")
    assert (two.weights == one.weights).all() and two.info["train_sentences_available"] == 40
    assert two.info["train"] == [str(halves[0]), str(halves[1])]  # a list, as train's "data"
    assert one.info["train"] == str(root / "train.conllu")
    capsys.readouterr()
    assert main(["parser", "train", "--train", str(halves[0]), str(tmp_path / "gone.conllu"),
                 *common, "-o", str(tmp_path / "three")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "gone.conllu" in err and not (tmp_path / "three").exists()

    class Untouched:  # a stdin whose every use fails the test
        def __getattr__(self, name: str) -> None:
            raise AssertionError(f"stdin read (.{name}) before the missing file was said")

    monkeypatch.setattr(sys, "stdin", Untouched())
    assert main(["parser", "train", "--train", "-", str(tmp_path / "gone.conllu"), *common,
                 "-o", str(tmp_path / "four")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "gone.conllu" in err and not (tmp_path / "four").exists()
    monkeypatch.undo()
    assert main(["parser", "train", "--train", "-", "-", *common, "-o", str(tmp_path / "x")]) == 2
    assert "named more than once" in capsys.readouterr().err


def test_early_update_at_beam_1_is_an_option_recorded_in_the_model(data, models, tmp_path,
                                                                  capsys):
    """Beam 1 learns locally by default; ``--learning early`` decodes greedily and updates at the
    first wrong transition (one update per sentence at most), so it learns other weights."""
    root, train_sents, _ = data
    local = Model.load(models["properties", 1])
    assert local.info["learning"] == "local"
    out = tmp_path / "early"
    assert main(["parser", "train", "--train", str(root / "train.conllu"), "--dev",
                 str(root / "dev.conllu"), "--learning", "early", "--epochs", "3", "--quiet",
                 "-o", str(out)]) == 0
    early = Model.load(out)
    assert early.info["learning"] == "early" and early.info["beam"] == 1
    updates = [h["updates"] for h in early.info["history"]]
    assert all(b - a <= len(train_sents) for a, b in zip([0] + updates, updates))
    assert early.weights.shape == local.weights.shape
    assert not (early.weights == local.weights).all()
    capsys.readouterr()
    assert main(["parser", "train", "--beam", "2", "--learning", "local", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--learning local needs --beam 1" in err
    with pytest.raises(InputError, match="beam 1"):
        train(train_sents[:5], train_sents[:5], "tokens", 2, tmp_path / "x", learning="local")


@pytest.mark.parametrize("mode", ["properties", "tokens"])
def test_fast_early_update_at_beam_1_is_beam_search_early_update(data, mode):
    """Training uses gold feature rows up to the first error instead of a beam-1 search:
    the same weights and running sums after a few epochs (in ``tokens`` mode also the same
    legal transitions: no word labelled ``punct``)."""
    _, train_sents, _ = data
    model, examples = build(train_sents, mode, log=lambda m: None)
    masks = model.mask_table()
    out = []
    for epoch in (lambda p, bar: _beam_epoch(model, p, examples, 1, bar),
                  lambda p, bar: _early_greedy_epoch(p, examples, masks, bar)):
        p = Perceptron(model.weights.shape)
        with tqdm(disable=True) as bar:
            for _ in range(3):
                epoch(p, bar)
        out.append(p)
    assert out[0].updates == out[1].updates > 0
    assert (out[0].w == out[1].w).all() and (out[0].u == out[1].u).all()


def test_parser_train_on_a_fraction_records_it(data, tmp_path, capsys):
    root, _, _ = data
    out = tmp_path / "m"
    assert main(["parser", "train", "--train", str(root / "train.conllu"), "--dev",
                 str(root / "dev.conllu"), "--punct", "removed", "--epochs", "1",
                 "--fraction", "0.25", "-o", str(out)]) == 0
    model = Model.load(out)
    assert model.info["fraction"] == 0.25 and model.info["train_sentences"] == 10
    assert model.info["train_sentences_available"] == 40 and model.props_version == 2
    assert "10 training sentences" in capsys.readouterr().err
    for bad in ("0", "1.5"):
        assert main(["parser", "train", "--fraction", bad, "-o", str(out)]) == 2


def test_scores_follow_the_conll_2018_script(data):
    _, _, dev_sents = data
    perfect = score(dev_sents, dev_sents)
    assert perfect.words.uas == perfect.words.las == perfect.punct.uas == 100.0
    assert perfect.words.total + perfect.punct.total == perfect.tokens.total
    assert sum(c.total for c in perfect.bands.values()) == perfect.words.total
    sent = dev_sents[0]
    other = next(read_conllu(io.StringIO(sent.text().replace("\tobl:npmod\t", "\tobl\t")
                                         .replace("\tcompound\t", "\tamod\t"))))
    s = score([sent], [other])
    assert s.words.uas == 100.0
    wrong = sum(w.deprel == "compound" for w in sent.words if not w.is_punct)
    assert s.words.labelled == s.words.total - wrong


def _reference(model, prep, weights):
    """The readable greedy parse: beam search with k = 1."""
    return tree(model, search(model, model.input(prep), 1, weights))


def _random_weights(rng, model, integers):
    """Random float32 weights of the model's shape: small integers (many ties and zeros, row 0
    of unknown features included) or normal values, half of them 0."""
    shape = model.weights.shape
    if integers:
        return rng.integers(-2, 3, shape).astype(np.float32)
    return (rng.standard_normal(shape) * (rng.random(shape) < 0.5)).astype(np.float32)


@pytest.mark.parametrize("key", [("tokens", 1), ("removed", 1), ("paired", 1),
                                 ("properties", 1), ("typed", 1), ("properties", 3)])
def test_compiled_greedy_parser_is_the_reference(data, models, key, tmp_path):
    """The same heads and relations as beam search with k = 1, on real sentences, with the
    trained weights, random ones and a model read back with fingerprints."""
    _, train_sents, dev_sents = data
    model = Model.load(models[key])
    rng = np.random.default_rng(len(key[0]))
    small = tmp_path / "small"
    model.compacted(0.5).save(small, float16=True, fingerprints=True)
    compact = Model.load(small)
    assert compact.fingerprints
    for m, weights in ((model, model.weights), (model, _random_weights(rng, model, True)),
                       (model, _random_weights(rng, model, False)),
                       (compact, compact.weights)):
        for sent in train_sents + dev_sents:
            prep = prepare(sent, m.mode, gold=False, version=m.props_version)
            assert greedy(m, prep, weights) == _reference(m, prep, weights)


@pytest.mark.parametrize("key", [("tokens", 1), ("properties", 1), ("typed", 1),
                                 ("paired", 1)])
def test_compiled_greedy_parser_on_random_sentences(models, key):
    """Random words, tags, marks and punctuation around them (nested paired marks, both
    versions of the initial properties), random weights; sentences of 0 to 25 tokens."""
    model = Model.load(models[key])
    rng = np.random.default_rng(7)
    r = random.Random(7)
    marks = [WORD, MARK, REL_MARK] if "punct" in model.labels else [WORD, MARK]
    around = ["(", ")", "“", "”", "[", "]", "‘", "’", ",", ".", ":", "-", "!"]
    for trial in range(150):
        weights = _random_weights(rng, model, trial % 2 == 0)
        n = r.randrange(26)
        gaps = [r.choices(around, k=r.choice([0, 0, 1, 2, 4])) for _ in range(n + 1)]
        props = initial_props(gaps, typed=key[0] == "typed", version=r.choice([1, 2]))
        prep = Prepared(tuple(r.choice(model.words.items + ["zzz"]) for _ in range(n)),
                        tuple(r.choice(model.tags.items + ["X"]) for _ in range(n)),
                        tuple(range(1, n + 1)), tuple(props), None, None,
                        tuple(r.choice(marks) for _ in range(n)))
        assert greedy(model, prep, weights) == _reference(model, prep, weights)


def test_parse_at_beam_1_is_the_compiled_parser(data, models, monkeypatch):
    _, _, dev_sents = data
    model = Model.load(models["properties", 1])
    expected = [parse(model, s, 1).text() for s in dev_sents]
    calls = []
    monkeypatch.setattr(decode, "greedy", lambda *a: calls.append(1) or greedy(*a))
    assert [parse(model, s, 1).text() for s in dev_sents] == expected and calls
    calls.clear()  # the reference: asked for, or with float64 weights
    assert [parse(model, s, 1, reference=True).text() for s in dev_sents] == expected
    assert [parse(model, s, 1, model.weights.astype(np.float64)).text()
            for s in dev_sents] == expected and not calls


def test_parse_refuses_arcs_that_leave_a_word_out(data, models, monkeypatch):
    """Every word gets the parser's arc: a mapping that leaves one out (no word keeps its old,
    e.g. gold, arc) or names no word is a ValueError naming the sentence (were: the left-out
    word kept its arc silently)."""
    _, _, dev_sents = data
    model, sent = Model.load(models["tokens", 1]), dev_sents[0]
    real = decode.reattach
    monkeypatch.setattr(decode, "reattach", lambda *a: dict(list(real(*a).items())[:-1]))
    n = len(sent.words)
    with pytest.raises(ValueError, match=rf"^{re.escape(sent.place)}: {n - 1} arcs for {n} words$"):
        parse(model, sent, 1)
    monkeypatch.setattr(decode, "reattach",  # as many arcs, one of them for no word
                        lambda *a: {**dict(list(real(*a).items())[:-1]), n + 1: (1, "dep")})
    with pytest.raises(ValueError, match=rf"arcs of no word of the sentence \(IDs {n + 1}\)$"):
        parse(model, sent, 1)


def test_the_mask_table_is_every_legality_class(models):
    model = Model.load(models["tokens", 1])
    table = model.mask_table()
    assert table.shape == (LEGALITY_CLASSES, len(model.transitions))
    assert all(np.array_equal(table[model.legality(s, marks)], model.mask(s, marks))
               for s, marks in _some_states(model))


def _some_states(model):
    """Configurations of every depth up to 4, empty buffer or not, all marks at s0 and s1."""
    for n, depth, marks in itertools.product((2, 4), (1, 2, 3, 4), itertools.product(
            (WORD, MARK, REL_MARK), repeat=2)):
        if depth > n + 1:
            continue
        leaves = [leaf(i, 3, 3, EMPTY) for i in range(n + 1)]
        state = initial(leaves[0], n)
        for _ in range(depth - 1):
            state = Shift().apply(state, leaves)
        m = [WORD] * (n + 2)
        m[state.s0[0]], m[state.s1[0]] = marks
        yield state, tuple(m)


def test_a_damaged_model_is_a_one_line_error(tmp_path, capsys, monkeypatch):
    """A flipped bit in the weights (the zip's CRC finds it) or a truncated weights file: one
    line naming the folder, exit 2 (a zip error used to escape as a traceback)."""
    bundled = os.path.join(os.path.dirname(fstpunct.__file__), "models", "en", "parser")
    weights = open(os.path.join(bundled, "weights.npz"), "rb").read()
    middle = len(weights) // 2
    for k, damaged in enumerate((weights[:middle] + bytes([weights[middle] ^ 1]) +
                                 weights[middle + 1:], weights[:middle])):
        folder = tmp_path / str(k)
        folder.mkdir()
        for name in os.listdir(bundled):
            (folder / name).write_bytes(open(os.path.join(bundled, name), "rb").read())
        (folder / "weights.npz").write_bytes(damaged)
        monkeypatch.setattr(sys, "stdin", io.StringIO("1\tdogs\tdog\tNOUN\tNNS\t_\t_\t_\t_\t_\n\n"))
        assert main(["parse", "--model", str(folder), "-"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "not a parser model" in err and str(folder) in err
