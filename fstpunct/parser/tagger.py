"""A UPOS tagger for unpunctuated text: greedy left-to-right averaged perceptron (Collins 2002).

Features of word i: the word itself and in lower case, its prefixes (1–3) and suffixes (1–4),
its shape (``Xxxx``, ``dd-dd``: digits, letters and case classes with runs collapsed), the two
words on each side, the suffixes (3) of the neighbours, and the tags already chosen for the two
words on its left (alone, as a pair, and with the word). With ``lowercase`` every word is lower
cased first, so no feature sees case (for lower-cased speech-recognition output).

Feature strings are hashed once per sentence to stable 64-bit keys (BLAKE2b); the keys of the
tag features are mixed in arithmetic. Weights are a dense ``(F + 1, T)`` array, row 0 (all
zeros) for unknown features, trained with the parser's :class:`~fstpunct.parser.train.Perceptron`
and stored sparse in float16 (the averaged weights lose nothing that changes a decision on the
test splits: see RESULTS.md).
"""
from __future__ import annotations

import dataclasses
import hashlib
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from ..errors import InputError, check_seed
from ..files import model_folder, write_json
from ..progress import on_terminal
from ..ud.treebank import Line, Sentence
from ..wording import counted
from .punct import prepare
from .storage import FINGERPRINT_SHIFT, pruned, read_folder, write_weights
from .train import Perceptron

__all__ = ["Tagger", "train_tagger", "accuracy", "depunctuated", "retagged",
           "jackknifed", "FILES", "FORMAT", "KIND"]

FORMAT = "fstpunct-tagger-1"
FILES = ("tagger.json", "tagger.npz")  # what Tagger.save writes
KIND = "a tagger"  # what refusals of its folder and SavedAside call it
_MASK = (1 << 64) - 1
_START = ("<s>", "<s2>")
_END = ("</s>", "</s2>")


def _hash(s: str) -> int:
    return int.from_bytes(hashlib.blake2b(s.encode("utf-8"), digest_size=8).digest(), "little")


def _mix(*xs: int) -> int:
    """A 64-bit key of small integers and keys (splitmix64 steps)."""
    h = 0x9E3779B97F4A7C15
    for x in xs:
        h = (h ^ x) * 0xBF58476D1CE4E5B9 & _MASK
        h ^= h >> 31
    return h


def _shape(word: str) -> str:
    out: list[str] = []
    for ch in word:
        c = "d" if ch.isdigit() else "X" if ch.isupper() else "x" if ch.isalpha() else ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)


def _static_keys(words: Sequence[str]) -> list[list[int]]:
    """For each word, the keys of its features that do not depend on tags (the first is the
    word's own key, which the tag features reuse)."""
    low = [w.lower() for w in words]
    padded = list(_START) + low + list(_END)
    out = []
    for i, w in enumerate(words):
        lw = low[i]
        j = i + 2
        feats = [f"w={lw}", "bias", f"W={w}", f"shape={_shape(w)}",
                 f"w-1={padded[j - 1]}", f"w-2={padded[j - 2]}",
                 f"w+1={padded[j + 1]}", f"w+2={padded[j + 2]}",
                 f"s3-1={padded[j - 1][-3:]}", f"s3+1={padded[j + 1][-3:]}",
                 f"w-1w={padded[j - 1]}|{lw}", f"ww+1={lw}|{padded[j + 1]}"]
        feats += [f"p{k}={lw[:k]}" for k in range(1, 4) if len(lw) >= k]
        feats += [f"s{k}={lw[-k:]}" for k in range(1, 5) if len(lw) >= k]
        out.append([_hash(f) for f in feats])
    return out


def _tag_keys(word_key: int, t1: int, t2: int) -> list[int]:
    """Keys of the features of the two previous tags (ids; 0 = sentence start)."""
    return [_mix(1, t1), _mix(2, t2, t1), _mix(3, t1, word_key)]


class Tagger:
    """Tags, known feature keys (sorted) and weights; :meth:`tag` labels a list of words."""

    def __init__(self, tags: Sequence[str], keys: np.ndarray, weights: np.ndarray,
                 lowercase: bool = False, info: dict | None = None) -> None:
        self.tags = list(tags)
        self.keys = keys
        self.weights = weights
        self.lowercase = lowercase
        self.info = info or {}
        self.fingerprints = False  # keys are fingerprints (a tagger saved with them, read back)
        self._row = {int(k): r for r, k in enumerate(keys.tolist(), 1)}

    def __repr__(self) -> str:
        case = ", lower-cased" if self.lowercase else ""
        return f"<Tagger: {len(self.tags)} tags, {len(self.keys):,} features{case}>"

    def _rows(self, keys: Iterable[int]) -> list[int]:
        if self.fingerprints:
            return [self._row.get(k >> FINGERPRINT_SHIFT, 0) for k in keys]
        return [self._row.get(k, 0) for k in keys]

    def _scores(self, static: list[int], t1: int, t2: int) -> np.ndarray:
        return self.weights[self._rows(static + _tag_keys(static[0], t1, t2))].sum(axis=0)

    def tag(self, words: Sequence[str], punct: bool = True) -> list[str]:
        """The UPOS of each word, chosen left to right; without ``punct`` never ``PUNCT``
        (for words already told from punctuation: the sentences of punctuation only that
        training keeps teach the tagger that tag)."""
        if self.lowercase:
            words = [w.lower() for w in words]
        banned = np.zeros(len(self.tags), np.float32)
        if not punct and "PUNCT" in self.tags:
            banned[self.tags.index("PUNCT")] = -np.inf
        t1 = t2 = 0
        out = []
        for static in _static_keys(words):
            best = int(np.argmax(self._scores(static, t1, t2) + banned))
            out.append(self.tags[best])
            t1, t2 = best + 1, t1
        return out

    def compacted(self, threshold: float) -> Tagger:
        """A copy without the weights of magnitude below ``threshold`` nor the features left
        with none (:func:`~fstpunct.parser.storage.pruned`)."""
        out = Tagger(self.tags, *pruned(self.keys, self.weights, threshold), self.lowercase,
                     {**self.info, "pruned_below": threshold})
        out.fingerprints = self.fingerprints
        return out

    def save(self, folder: str | Path, fingerprints: bool = False) -> None:
        """The folder ``folder`` (replaced whole; one holding anything else is left as it was,
        the tagger written beside it: :func:`~fstpunct.files.model_folder`) with ``tagger.npz``
        (keys, or with ``fingerprints`` their fingerprints, and float16 weights, sparse:
        :mod:`.storage`) and ``tagger.json``."""
        meta = {"format": FORMAT, "tags": self.tags, "lowercase": self.lowercase,
                "info": self.info}
        keys = self.keys << np.uint64(FINGERPRINT_SHIFT) if self.fingerprints else self.keys
        with model_folder(folder, FILES, KIND) as tmp:
            write_weights(tmp / FILES[1], keys, self.weights, np.float16,
                          fingerprints or self.fingerprints)
            write_json(tmp / FILES[0], meta, atomic=False)

    @classmethod
    def load(cls, folder: str | Path) -> Tagger:
        meta, keys, weights, fingerprints = read_folder(
            folder, "tagger", "tagger", FORMAT, "tagger", {"tags": list, "lowercase": bool})
        tagger = cls(meta["tags"], keys, weights.toarray(), meta["lowercase"], meta.get("info"))
        tagger.fingerprints = fingerprints
        return tagger


def train_tagger(sentences: Sequence[tuple[Sequence[str], Sequence[str]]],
                 dev: Sequence[tuple[Sequence[str], Sequence[str]]] = (), epochs: int = 8,
                 lowercase: bool = False, min_count: int = 1, seed: int = 0,
                 log: Callable[[str], None] = print, progress: bool = False) -> Tagger:
    """An averaged perceptron trained on ``(words, tags)`` pairs, sentences shuffled each
    epoch; with ``dev``, the epoch of best dev accuracy is kept (else the last). Features are
    those of the gold tag history seen at least ``min_count`` times. ``progress``: a bar of
    each epoch's sentences on a terminal's stderr."""
    from tqdm import tqdm  # training only: slow to import, tagging never needs it
    seed = check_seed(seed)
    if lowercase:
        sentences = [([w.lower() for w in ws], ts) for ws, ts in sentences]
    tags = sorted({t for _, ts in sentences for t in ts})
    tag_id = {t: k for k, t in enumerate(tags)}
    statics = [_static_keys(ws) for ws, _ in sentences]
    counts: dict[int, int] = {}
    for st, (_, ts) in zip(statics, sentences):
        t1 = t2 = 0
        for static, t in zip(st, ts):
            for k in static + _tag_keys(static[0], t1, t2):
                counts[k] = counts.get(k, 0) + 1
            t1, t2 = tag_id[t] + 1, t1
    keys = np.array(sorted(k for k, c in counts.items() if c >= min_count), dtype=np.uint64)
    tagger = Tagger(tags, keys, np.zeros((len(keys) + 1, len(tags)), np.float32), lowercase)
    p = Perceptron(tagger.weights.shape)
    order = list(range(len(sentences)))
    rng = random.Random(seed)
    best: tuple[float, np.ndarray] | None = None
    for epoch in range(1, epochs + 1):
        rng.shuffle(order)
        tagger.weights = p.w
        right = total = 0
        began = time.perf_counter()
        for s in tqdm(order, desc=f"epoch {epoch}", unit="sent", file=sys.stderr,
                      disable=not progress or not on_terminal(), leave=False):
            gold = [tag_id[t] for t in sentences[s][1]]
            t1 = t2 = 0
            for static, g in zip(statics[s], gold):
                rows = np.array([tagger._rows(static + _tag_keys(static[0], t1, t2))])
                guess = int(np.argmax(p.w[rows[0]].sum(axis=0)))
                if guess != g:
                    p.update(rows, np.array([g]), rows, np.array([guess]))
                right += guess == g
                total += 1
                p.c += 1
                t1, t2 = guess + 1, t1  # the tagger's own history, as when tagging
        seconds = time.perf_counter() - began
        tagger.weights = p.averaged()
        message = (f"epoch {epoch}: {seconds:.1f} s, train accuracy "
                   f"{right / max(total, 1):.4f}")  # as the parser's trainer says an epoch
        if dev:
            acc = accuracy(tagger, dev)
            improved = best is None or acc > best[0]
            message += f", dev accuracy {acc:.4f}" + (" (best)" if improved else "")
            if improved:
                best = (acc, tagger.weights)
        log(message)
    if best is not None:
        tagger.weights = best[1]
    tagger.info = {"features": int(len(keys)), "epochs": epochs, "min_count": min_count,
                   "sentences": len(sentences)}
    return tagger


def accuracy(tagger: Tagger, data: Iterable[tuple[Sequence[str], Sequence[str]]]) -> float:
    """Share of words tagged right."""
    return _share_right((tagger.tag(words), gold) for words, gold in data)


def _share_right(pairs: Iterable[tuple[Sequence[str], Sequence[str]]]) -> float:
    """Share of the tags (predicted, gold) that are the same."""
    right = total = 0
    for tags, gold in pairs:
        right += sum(a == b for a, b in zip(tags, gold))
        total += len(gold)
    return right / max(total, 1)


def depunctuated(sent: Sentence) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The words of ``sent`` without its punctuation, and their UPOS (the parser's ``removed``
    view: what the tagger sees in text to be restored)."""
    prep = prepare(sent, "removed", gold=False)
    return prep.forms, prep.upos


def retagged(sent: Sentence, tags: Sequence[str]) -> Sentence:
    """A copy of ``sent`` whose words of the depunctuated view (:func:`depunctuated`) have the
    UPOS ``tags`` (in CoNLL-U lines and words); punctuation keeps its tags."""
    ids = prepare(sent, "removed", gold=False).ids
    if len(ids) != len(tags):
        raise ValueError(f"{sent.name}: {len(tags)} tags for {len(ids)} words")
    new = {str(i): t for i, t in zip(ids, tags)}
    lines = [Line(ln.fields[:3] + [new[ln.fields[0]]] + ln.fields[4:], ln.lineno)
             if ln.fields[0] in new else ln for ln in sent.lines]
    words = [dataclasses.replace(w, upos=new.get(str(w.id), w.upos)) for w in sent.words]
    return dataclasses.replace(sent, comments=list(sent.comments), lines=lines, words=words)


def jackknifed(sentences: Sequence[Sentence], k: int, dev: Sequence[Sentence] = (),
               log: Callable[[str], None] = print, folds: Sequence[int] | None = None,
               held_dev: Sequence[bool] | None = None, punct: bool = True,
               extra: Sequence[Sentence] = (), **options: object) -> list[Sentence]:
    """``sentences`` with predicted UPOS (:func:`retagged`): each of K contiguous folds tagged
    by a tagger trained (:func:`train_tagger` with ``options``, epoch chosen on ``dev``) on the
    other folds, so a parser trained on them sees tags as good as a tagger's on new text.
    ``folds`` (one per sentence, K distinct) replaces the contiguous folds; with ``held_dev``
    (one flag per sentence, ``dev`` then empty) the flagged sentences train no tagger, and
    fold k's tagger chooses its epoch on the other folds' flagged ones (at least one).
    ``punct`` False: no word is tagged ``PUNCT`` (:meth:`Tagger.tag`), in the output and in
    the logged held-out accuracy. ``extra`` (sentences of no fold, none of ``sentences`` or
    ``dev`` by sent_id) are added to every fold's training sentences. Bad folds, flags or
    extra sentences: an :class:`InputError`."""
    from ..model.lbfgs import contiguous_ranges  # training only: not loaded for tagging
    from .jackknife import checked_extra, checked_flags, fold_parts
    if k < 2:
        raise InputError("jackknifing needs at least two folds")
    if folds is None:
        folds = [i for i, (a, b) in enumerate(contiguous_ranges(len(sentences), k))
                 for _ in range(a, b)]
    flags = checked_flags(len(sentences), folds, dev, held_dev)
    checked_extra(sentences, extra, dev)
    names = sorted(set(folds))
    if len(names) != k:
        raise InputError(f"{counted(len(folds), 'fold')} ({len(names)} distinct) given for "
                         f"{counted(len(sentences), 'sentence')} and {counted(k, 'fold')}")
    data = [depunctuated(s) for s in sentences]
    dev_data = [depunctuated(s) for s in dev]
    extra_data = [depunctuated(s) for s in extra]
    out: list[Sentence | None] = [None] * len(sentences)
    for i, fold in enumerate(names, 1):
        held = [j for j, f in enumerate(folds) if f == fold]
        rest, fold_dev = fold_parts(data, folds, fold, flags, dev_data, held_dev is not None,
                                    "tagger")
        tagger = train_tagger(rest + extra_data, fold_dev, log=lambda m: None, **options)  # type: ignore[arg-type]
        tags = {j: tagger.tag(data[j][0], punct) for j in held}
        for j in held:
            out[j] = retagged(sentences[j], tags[j])
        acc = _share_right((tags[j], data[j][1]) for j in held)
        log(f"fold {i}/{k}: {len(held)} sentences, held-out accuracy {acc:.4f}")
    return [s for s in out if s is not None]
