"""Compact models (pruning, float16, fingerprints), case-free parsers and jackknifed tags."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import treebank
from learner_pairs import PLAIN, RELATIVE, conll, sentences

from fstpunct.cli.main import main
from fstpunct.errors import InputError
from fstpunct.model.lbfgs import contiguous_ranges
from fstpunct.parser import Model, parse, train
from fstpunct.parser import tagger as tagger_module
from fstpunct.parser.storage import lookup_keys, pruned, read_folder, write_weights
from fstpunct.parser.tagger import Tagger, depunctuated, jackknifed, retagged, train_tagger
from fstpunct.ud.treebank import read_conllu


def _weights(rng: np.random.Generator, n: int, a: int) -> tuple[np.ndarray, np.ndarray]:
    keys = np.unique(rng.integers(0, 2 ** 63 - 1, n, dtype=np.int64).astype(np.uint64))
    n = len(keys)
    w = rng.normal(size=(n + 1, a)).astype(np.float32)
    w[rng.random((n + 1, a)) < 0.7] = 0
    w[0] = 0
    return keys, w


def _write_meta(folder, kind="x"):
    (folder / "m.json").write_text('{"format": "%s"}' % kind)


def test_pruned_against_brute_force():
    keys, w = _weights(np.random.default_rng(0), 60, 5)
    k2, w2 = pruned(keys, w, 0.8)
    kept = [(int(k), row) for k, row in zip(keys, w[1:])
            if any(abs(x) >= 0.8 for x in row)]
    assert [k for k, _ in kept] == k2.tolist() and not w2[0].any()
    for (_, row), new in zip(kept, w2[1:]):
        assert new.tolist() == [x if abs(x) >= 0.8 else 0 for x in row]
    assert len(pruned(keys, w, 0)[0]) == int(np.any(w[1:] != 0, axis=1).sum())


@pytest.mark.parametrize("fingerprints", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_write_read_round_trip(tmp_path, fingerprints, dtype):
    keys, w = _weights(np.random.default_rng(1), 200, 7)
    write_weights(tmp_path / "w.npz", keys, w, dtype, fingerprints)
    _write_meta(tmp_path)
    _, k2, w2, fp = read_folder(tmp_path, "m", "w", "x", "test")
    assert fp == fingerprints
    assert k2.tolist() == lookup_keys(keys, fingerprints).tolist()  # no collision here
    assert np.array_equal(w2.toarray(), w.astype(dtype).astype(np.float32))


def test_keys_of_equal_fingerprints_are_summed(tmp_path):
    keys = np.array([5 << 32 | 1, 5 << 32 | 9, 7 << 32], dtype=np.uint64)
    w = np.array([[0, 0], [1, 2], [10, 20], [3, 4]], dtype=np.float32)
    write_weights(tmp_path / "w.npz", keys, w, fingerprints=True)
    _write_meta(tmp_path)
    _, k2, w2, _ = read_folder(tmp_path, "m", "w", "x", "test")
    assert k2.tolist() == [5, 7] and w2.toarray().tolist() == [[0, 0], [11, 22], [3, 4]]


@pytest.fixture(scope="module")
def data():
    train_sents = list(itertools.islice(treebank("en", "train").sentences(), 40))
    return train_sents, list(itertools.islice(treebank("en", "dev").sentences(), 15))


@pytest.fixture(scope="module")
def case_free(data, tmp_path_factory):
    folder = tmp_path_factory.mktemp("compact") / "removed-lc"
    train(data[0], data[0][:20], "removed", 1, folder, epochs=6, patience=6, progress=False,
          log=lambda m: None, lowercase=True)
    return folder


def test_case_free_parser_ignores_case(data, case_free):
    model = Model.load(case_free)
    assert model.lowercase and all(w == w.lower() for w in model.words.items)
    for sent in data[1]:
        lines = [ln.fields[:1] + [ln.fields[1].lower()] + ln.fields[2:] for ln in sent.lines]
        low = "".join("\t".join(f) + "\n" for f in lines) + "\n"
        a = [(w.head, w.deprel) for w in parse(model, sent, 1).words]
        lowered = next(read_conllu(low.splitlines(keepends=True)))
        b = [(w.head, w.deprel) for w in parse(model, lowered, 1).words]
        assert a == b


def test_lossless_compact_parses_identically(data, case_free, tmp_path):
    """Threshold 0 drops only all-zero features; float32 fingerprints change nothing unless
    two keys collide (none in a model this small)."""
    model = Model.load(case_free)
    small = model.compacted(0)
    assert len(small.keys) < len(model.keys)
    small.save(tmp_path / "c", fingerprints=True)
    again = Model.load(tmp_path / "c")
    assert again.fingerprints and again.lowercase
    assert [parse(model, s, 1).text() for s in data[1]] == \
           [parse(again, s, 1).text() for s in data[1]]
    again.save(tmp_path / "d")  # a fingerprinted model stays one
    assert Model.load(tmp_path / "d").keys.tolist() == again.keys.tolist()


def test_compact_command(case_free, tmp_path, capsys):
    out = tmp_path / "p"
    assert main(["parser", "compact", str(case_free), "--threshold", "0.5", "--float16",
                 "--fingerprints", "-o", str(out)]) == 0
    size = sum(p.stat().st_size for p in out.iterdir())
    assert size < sum(p.stat().st_size for p in case_free.iterdir())
    assert Model.load(out).fingerprints
    tagger = train_tagger([(["the", "dog"], ["DET", "NOUN"])] * 3, epochs=2, log=lambda m: None)
    tagger.save(tmp_path / "t")
    assert main(["parser", "compact", str(tmp_path / "t"), "--fingerprints", "-o",
                 str(tmp_path / "t2")]) == 0
    again = Tagger.load(tmp_path / "t2")
    assert again.fingerprints and again.tag(["the", "dog"]) == ["DET", "NOUN"]
    for bad in ("-1", "nan"):  # NaN used to write a model without any weight
        assert main(["parser", "compact", str(case_free), "--threshold", bad, "-o",
                     str(tmp_path / "bad")]) == 2
        assert capsys.readouterr().err.count("\n") == 1 and not (tmp_path / "bad").exists()
        with pytest.raises(InputError, match="threshold must be at least 0"):
            Model.load(case_free).compacted(float(bad))
        with pytest.raises(InputError, match="threshold must be at least 0"):
            tagger.compacted(float(bad))
    with pytest.raises(InputError, match="^threshold must be a finite number of at least 0, "
                                         "not inf$"):  # it would be written as Infinity
        Model.load(case_free).compacted(float("inf"))


TEXT = ("1\tHello\t_\tINTJ\t_\t_\t0\troot\t_\tSpaceAfter=No\n"
        "2\t,\t_\tPUNCT\t_\t_\t3\tpunct\t_\t_\n"
        "3\tworld\t_\tNOUN\t_\t_\t1\tvocative\t_\tSpaceAfter=No\n"
        "4\t.\t_\tPUNCT\t_\t_\t1\tpunct\t_\t_\n\n")


def test_retagged_changes_only_the_words_upos():
    sent = next(read_conllu(TEXT.splitlines(keepends=True)))
    out = retagged(sent, ["X", "VERB"])
    assert [w.upos for w in out.words] == ["X", "PUNCT", "VERB", "PUNCT"]
    assert [ln.fields[3] for ln in out.lines] == ["X", "PUNCT", "VERB", "PUNCT"]
    assert [ln.fields[:3] + ln.fields[4:] for ln in out.lines] == \
           [ln.fields[:3] + ln.fields[4:] for ln in sent.lines]
    assert sent.words[0].upos == "INTJ"  # the input is not changed
    with pytest.raises(ValueError):
        retagged(sent, ["X"])


def test_jackknifed_tags_come_from_the_other_folds(data):
    sents = data[0][:30]
    out = jackknifed(sents, 3, log=lambda m: None, epochs=2, min_count=1)
    pairs = [depunctuated(s) for s in sents]
    for a, b in contiguous_ranges(len(sents), 3):
        held = range(a, b)
        tagger = train_tagger([p for j, p in enumerate(pairs) if j not in held], epochs=2,
                              log=lambda m: None)
        for j in held:
            assert depunctuated(out[j]) == (pairs[j][0], tuple(tagger.tag(pairs[j][0])))
    assert [b - a for a, b in contiguous_ranges(10, 3)] == [3, 3, 4]


def test_jackknifed_tags_by_given_folds_with_held_dev(data, monkeypatch):
    sents = data[0][:12]
    folds = [0, 1, 2] * 4  # not contiguous
    flags = [j in (3, 4, 5) for j in range(12)]  # one flagged sentence in each fold
    pairs = [depunctuated(s) for s in sents]
    seen = []
    real = tagger_module.train_tagger

    def spied(rest, dev, **options):
        seen.append((rest, dev, tagger := real(rest, dev, **options)))
        return tagger

    monkeypatch.setattr(tagger_module, "train_tagger", spied)
    out = jackknifed(sents, 3, folds=folds, held_dev=flags, punct=False, log=lambda m: None,
                     epochs=2, min_count=1)
    assert [s.sent_id for s in out] == [s.sent_id for s in sents]
    assert len(seen) == 3
    for fold, (rest, dev, tagger) in enumerate(seen):  # fold k's tagger: the other folds only
        assert rest == [p for p, f, x in zip(pairs, folds, flags) if f != fold and not x]
        assert dev == [p for p, f, x in zip(pairs, folds, flags) if f != fold and x]
        for j in (j for j, f in enumerate(folds) if f == fold):
            assert depunctuated(out[j]) == (pairs[j][0], tuple(tagger.tag(pairs[j][0], False)))
    with pytest.raises(InputError, match="2 distinct"):
        jackknifed(sents, 3, folds=[0, 1] * 6)
    with pytest.raises(InputError, match="and a dev set besides"):
        jackknifed(sents, 3, sents, folds=folds, held_dev=flags)


def test_jackknifed_tags_train_on_extra_sentences_in_every_fold(monkeypatch):
    """Hand-made sentences: ``extra`` joins each fold's training sentences, not its dev ones,
    and is not tagged; one of the jackknifed sentences (by sent_id) is refused."""
    sents = sentences("".join(conll(RELATIVE if k % 2 else PLAIN, f"s{k}") for k in range(6)))
    extra = sentences(conll(PLAIN, "e0") + conll(RELATIVE, "e1"))
    folds, flags = [0, 0, 0, 1, 1, 1], [True, False, False, True, False, False]
    seen = []
    real = tagger_module.train_tagger

    def spied(rest, dev, **options):
        seen.append((rest, dev))
        return real(rest, dev, **options)

    monkeypatch.setattr(tagger_module, "train_tagger", spied)
    out = jackknifed(sents, 2, folds=folds, held_dev=flags, punct=False, log=lambda m: None,
                     epochs=1, min_count=1, extra=extra)
    assert [s.sent_id for s in out] == [s.sent_id for s in sents]
    pairs, more = [depunctuated(s) for s in sents], [depunctuated(s) for s in extra]
    assert seen == [(pairs[4:] + more, pairs[3:4]), (pairs[1:3] + more, pairs[:1])]
    with pytest.raises(InputError, match=r"\(sent_id s2\): extra training sentence with the "
                       "sent_id of one of the sentences jackknifed"):
        jackknifed(sents, 2, folds=folds, held_dev=flags, extra=sents[2:3])


def test_jackknifed_tags_refuse_bad_folds_and_a_fold_without_dev():
    """Hand-made sentences: an InputError (the CLI's one line) for one fold and for a fold
    whose epoch no flagged sentence of the other folds can choose; the logged accuracy is
    that of the tags written (no PUNCT with punct False)."""
    sents = sentences("".join(conll(RELATIVE if k % 2 else PLAIN, f"s{k}") for k in range(6)))
    with pytest.raises(InputError, match="at least two folds"):
        jackknifed(sents, 1, log=lambda m: None, epochs=1)
    folds = [0, 0, 0, 1, 1, 1]
    with pytest.raises(InputError, match="fold 0: no dev sentence to choose its tagger's epoch"):
        jackknifed(sents, 2, folds=folds, held_dev=[True] + [False] * 5, log=lambda m: None,
                   epochs=1)
    logged: list[str] = []
    out = jackknifed(sents, 2, folds=folds, held_dev=[True, False, False, True, False, False],
                     punct=False, log=logged.append, epochs=2, min_count=1)
    assert len(logged) == 2
    for fold, line in enumerate(logged):
        held = [j for j, f in enumerate(folds) if f == fold]
        right = sum(a == b for j in held
                    for a, b in zip(depunctuated(out[j])[1], depunctuated(sents[j])[1]))
        total = sum(len(depunctuated(sents[j])[1]) for j in held)
        assert line.endswith(f"held-out accuracy {right / total:.4f}")
