"""The UPOS tagger: learns a toy language, generalises by suffix, saves and loads exactly."""
from __future__ import annotations

import random

import numpy as np

from fstpunct.parser.tagger import Tagger, _shape, accuracy, depunctuated, train_tagger
from fstpunct.ud.treebank import read_conllu

NOUNS = ["dog", "cat", "bird", "horse", "fish", "lion", "mouse", "goat"]
VERBS = ["walked", "jumped", "called", "played", "looked", "moved", "watched", "pushed"]
DETS = ["the", "a", "this", "every"]


def _toy(n: int, seed: int) -> list[tuple[list[str], list[str]]]:
    """DET NOUN VERB DET NOUN sentences (``run`` is a NOUN after a DET, a VERB after a NOUN)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        n1, n2 = rng.choice(NOUNS + ["run"]), rng.choice(NOUNS + ["run"])
        v = rng.choice(VERBS + ["run"])
        out.append(([rng.choice(DETS), n1, v, rng.choice(DETS), n2],
                    ["DET", "NOUN", "VERB", "DET", "NOUN"]))
    return out


def test_learns_context_and_suffixes() -> None:
    tagger = train_tagger(_toy(300, 0), epochs=5, log=lambda _: None)
    assert accuracy(tagger, _toy(100, 1)) == 1.0  # "run" is tagged by its context
    # an unseen verb is recognised by its suffix and position
    assert tagger.tag(["the", "dog", "kicked", "a", "cat"])[2] == "VERB"


def test_save_load_round_trip(tmp_path) -> None:
    tagger = train_tagger(_toy(200, 2), epochs=3, log=lambda _: None)
    tagger.save(tmp_path)
    again = Tagger.load(tmp_path)
    assert again.tags == tagger.tags and np.array_equal(again.keys, tagger.keys)
    # weights are stored in float16: equal up to its precision, same decisions
    assert np.allclose(again.weights, tagger.weights, rtol=1e-3, atol=1e-3)
    for words, _ in _toy(50, 3):
        assert again.tag(words) == tagger.tag(words)


def test_lowercase_tagger_ignores_case() -> None:
    data = [([w.capitalize() if k == 0 else w for k, w in enumerate(ws)], ts)
            for ws, ts in _toy(200, 4)]
    tagger = train_tagger(data, epochs=3, lowercase=True, log=lambda _: None)
    assert tagger.tag(["The", "Dog", "Walked"]) == tagger.tag(["the", "dog", "walked"])


def test_dev_keeps_best_epoch() -> None:
    log: list[str] = []
    train_tagger(_toy(100, 5), dev=_toy(30, 6), epochs=2, log=log.append)
    assert len(log) == 2 and all("dev accuracy" in line for line in log)


def test_shape() -> None:
    assert _shape("Hello") == "Xx"
    assert _shape("COVID-19") == "X-d"
    assert _shape("3.14") == "d.d"


def test_depunctuated_drops_punct_tokens() -> None:
    text = ("1\tHello\t_\tINTJ\t_\t_\t0\troot\t_\tSpaceAfter=No\n"
            "2\t,\t_\tPUNCT\t_\t_\t3\tpunct\t_\t_\n"
            "3\tworld\t_\tNOUN\t_\t_\t1\tvocative\t_\tSpaceAfter=No\n"
            "4\t.\t_\tPUNCT\t_\t_\t1\tpunct\t_\t_\n\n")
    sent = next(read_conllu(text.splitlines(keepends=True)))
    assert depunctuated(sent) == (("Hello", "world"), ("INTJ", "NOUN"))


def test_words_only_tagging_never_says_punct() -> None:
    data = _toy(100, 7) + [(["!", "?"], ["PUNCT", "PUNCT"])] * 20
    tagger = train_tagger(data, epochs=3, log=lambda _: None)
    assert tagger.tag(["!", "?"]) == ["PUNCT", "PUNCT"]
    assert "PUNCT" not in tagger.tag(["!", "?"], punct=False)
    assert tagger.tag(["the", "dog"], punct=False) == tagger.tag(["the", "dog"])
