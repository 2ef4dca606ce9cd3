"""A linear-chain CRF tagger over slots (python-crfsuite): the tagging baseline of paper §4/§6.1.

The items of a sentence are its n+1 slots; a slot's tag is its punctuation tokens joined by a
space (``<abbv>`` left out; :data:`EMPTY` = none). Tags seen fewer than :data:`MIN_COUNT` times
in training become :data:`OTHER`, which restores nothing. So that every held-out sentence has a
probability, a slot whose string is not a tag is scored as p_crf(OTHER) times q′(x), where
q(x) = (1 − s)(s/|Σ|)^|x| is geometric over the strings of Σ = the training tokens plus one
``<unk>`` for every unseen token type, and q′ is q renormalised over the strings that are not
tags. Per-slot perplexity = exp(−Σ log p(x | words) / Σ (n+1)), no sentence skipped.
"""
from __future__ import annotations

import importlib.util
import math
import os
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import Any

from ...errors import InputError, ModelError, refuse_below
from ...files import model_folder, model_target, read_meta, write_json
from ...ud.slots import SlotSentence, to_slots
from ...ud.treebank import Sentence
from . import Insertion
from .metrics import slot_strings

__all__ = ["EMPTY", "FILES", "KIND", "MIN_COUNT", "OTHER", "Backoff", "CrfModel", "LockedTagger",
           "check_c2_grid", "crf_heads", "crf_insertions", "features", "installed", "slot_tags",
           "train"]

EMPTY = "O"
OTHER = "<other>"
MIN_COUNT = 2
FORMAT = "fstpunct-crf 1"
FILES = ("crf.model", "meta.json")  # what train writes
KIND = "a CRF"  # what refusals of its folder and SavedAside call it
_DISTANCES = ((1, "1"), (2, "2"), (5, "3-5"), (10, "6-10"))


def installed() -> bool:
    """Whether python-crfsuite (a dependency; it may still fail to install) is installed."""
    return importlib.util.find_spec("pycrfsuite") is not None


def _pycrfsuite() -> Any:
    try:
        import pycrfsuite
    except ImportError as e:
        raise ModelError("the CRF needs python-crfsuite: pip install python-crfsuite") from e
    return pycrfsuite


class LockedTagger:
    """A crfsuite tagger opened on a model file that several threads may share: crfsuite keeps
    the sentence ``set`` last, so each call sets its sentence and reads it under one lock.
    ``crfsuite`` is the tagger itself (for its labels and weights; one thread only)."""

    def __init__(self, model_file: Path) -> None:
        self.crfsuite = _pycrfsuite().Tagger()
        self.crfsuite.open(str(model_file))
        self._lock = threading.Lock()
        self._labels = tuple(self.crfsuite.labels())  # fixed once the file is open

    def labels(self) -> tuple[str, ...]:
        """The model's tags."""
        return self._labels

    def tag(self, xseq: Sequence[Sequence[str]]) -> list[str]:
        """The Viterbi tag of every item."""
        with self._lock:
            self.crfsuite.set(xseq)
            return list(self.crfsuite.tag())

    def marginals(self, xseq: Sequence[Sequence[str]], labels: Sequence[str]
                  ) -> list[list[tuple[str, float]]]:
        """Per item, the (label, marginal probability) of every one of ``labels``."""
        with self._lock:
            self.crfsuite.set(xseq)
            return [[(t, self.crfsuite.marginal(t, i)) for t in labels]
                    for i in range(len(xseq))]

    def probability(self, xseq: Sequence[Sequence[str]], tags: Sequence[str]) -> float:
        """p(tags | xseq)."""
        with self._lock:
            self.crfsuite.set(xseq)
            return float(self.crfsuite.probability(list(tags)))


def _distance(word: int, head: int) -> str:
    """Signed distance from a word to its head, bucketed; ``root`` for the root."""
    if head == 0:
        return "root"
    d = head - word
    label = next((name for top, name in _DISTANCES if abs(d) <= top), ">10")
    return ("+" if d > 0 else "-") + label


def features(ss: SlotSentence, tree: bool = True) -> list[list[str]]:
    """Feature strings of each slot i: words i−1..i+2 (lowercased) and their UPOS, the UPOS
    bigram across the slot, ``<s>``/``</s>`` beyond the sentence, ``last`` at slot n; with
    ``tree``, also the relations of words i and i+1, whether one heads the other, and their
    bucketed distances to their heads."""
    n = ss.n

    def at(seq: Sequence[str], k: int) -> str:
        return "<s>" if k < 1 else "</s>" if k > n else seq[k - 1]

    words = [w.lower() for w in ss.words]
    out = []
    for i in range(n + 1):
        left, right = at(ss.upos, i), at(ss.upos, i + 1)
        f = ["bias", f"wL={at(words, i)}", f"wR={at(words, i + 1)}", f"pL={left}",
             f"pR={right}", f"wLL={at(words, i - 1)}", f"pLL={at(ss.upos, i - 1)}",
             f"wRR={at(words, i + 2)}", f"pRR={at(ss.upos, i + 2)}", f"pLR={left}|{right}"]
        if i == n:
            f.append("last")
        if tree:
            if i >= 1:
                f += [f"dL={ss.deprels[i - 1]}", f"hL={_distance(i, ss.heads[i - 1])}"]
                if ss.heads[i - 1] == i + 1:
                    f.append("headR")
            if i < n:
                f += [f"dR={ss.deprels[i]}", f"hR={_distance(i + 1, ss.heads[i])}"]
                if i >= 1 and ss.heads[i] == i:
                    f.append("headL")
        out.append(f)
    return out


def slot_tags(ss: SlotSentence) -> list[str]:
    """Each slot's token string joined by a space (``<abbv>`` left out), or :data:`EMPTY`."""
    return [" ".join(slot) or EMPTY for slot in slot_strings(ss)]


def crf_heads(slot: int, string: Sequence[str]) -> tuple[int, ...]:
    """The heads of a string a CRF writes into ``slot``: the word left of the slot (slot 0:
    word 1) for every token."""
    return (max(slot, 1),) * len(string)


def crf_insertions(strings: Sequence[Sequence[str]]) -> list[Insertion]:
    """The strings a CRF writes into every slot, as insertions (heads: :func:`crf_heads`)."""
    return [tuple(zip(y, crf_heads(i, y))) for i, y in enumerate(strings)]


def _tokens(tag: str) -> tuple[str, ...]:
    return () if tag == EMPTY else tuple(tag.split(" "))


class Backoff:
    """q′: the geometric distribution q over token strings, renormalised over non-tags."""

    def __init__(self, alphabet: Collection[str], tags: Iterable[str], s: float) -> None:
        self.size, self.s = len(set(alphabet)) + 1, s  # + 1: <unk>
        known = math.fsum(math.exp(self.log_q(_tokens(t))) for t in set(tags) - {OTHER})
        self.log_norm = math.log1p(-known)

    def log_q(self, x: Sequence[str]) -> float:
        """log q(x) = log (1 − s) + |x| log (s/|Σ|): only the length matters."""
        return math.log1p(-self.s) + len(x) * math.log(self.s / self.size)

    def log_prob(self, x: Sequence[str]) -> float:
        """log q′(x) for a string x that is not a tag."""
        return self.log_q(x) - self.log_norm


class CrfModel:
    """A trained CRF folder: ``crf.model`` (crfsuite) and ``meta.json``."""

    def __init__(self, model_file: Path, meta: dict[str, Any]) -> None:
        self.model_file, self.meta = model_file, meta
        self.tagger = LockedTagger(model_file)
        self.tags = frozenset(meta["tags"])
        self.tree = bool(meta["settings"]["tree_features"])
        self.backoff = Backoff(meta["tokens"], self.tags, float(meta["settings"]["s"]))
        self._string_tags = tuple(t for t in self.tagger.labels() if t != OTHER)  # marginals'

    def __reduce__(self) -> tuple[type[CrfModel], tuple[Path, dict[str, Any]]]:
        """Pickled as its file and meta (the crfsuite tagger is reopened: for a cluster)."""
        return CrfModel, (self.model_file, self.meta)

    @classmethod
    def load(cls, folder: str | Path) -> CrfModel:
        """The CRF model in ``folder`` (as :func:`train` writes it); ModelError if it is not
        one."""
        path = Path(folder)
        meta = read_meta(path / "meta.json", FORMAT, "a CRF model folder", name=folder)
        if not (path / "crf.model").is_file():
            raise ModelError(f"{path}: crf.model is missing")
        return cls(path / "crf.model", meta)

    @property
    def tokens(self) -> list[str]:
        """The marks it knows and writes (its training data's, ``meta.json``), in their own
        width (:mod:`fstpunct.ud.width`)."""
        return self.meta["tokens"]

    def tag(self, ss: SlotSentence) -> list[str]:
        """The Viterbi tag of every slot."""
        return self.tagger.tag(features(ss, self.tree))

    def restore(self, sent: Sentence, alternatives: Sequence[Sentence] = ()) -> list[Insertion]:
        """Insertions from the Viterbi tags; each token attaches to the word left of its slot
        (slot 0: word 1); :data:`OTHER` restores nothing. Only ``sent``'s tree is read (and
        only by a CRF with tree features)."""
        ss = to_slots(sent)
        return crf_insertions([() if t == OTHER else _tokens(t) for t in self.tag(ss)])

    def marginals(self, ss: SlotSentence) -> list[dict[tuple[str, ...], float]]:
        """Per slot, the marginal probability of every tag, as token strings (:data:`EMPTY`:
        the empty string); :data:`OTHER`, which stands for no string in particular, is left out
        (so a slot's probabilities sum to 1 − p(OTHER))."""
        return [{_tokens(t): p for t, p in row}
                for row in self.tagger.marginals(features(ss, self.tree), self._string_tags)]

    def log_prob(self, ss: SlotSentence) -> float:
        """log p(x | words) of the sentence's surface punctuation (module docstring)."""
        gold = slot_tags(ss)
        tags = [t if t in self.tags else OTHER for t in gold]
        if OTHER in tags and OTHER not in self.tagger.labels():
            raise ModelError(f"{ss.place}: slot string "
                             f"{next(t for t in gold if t not in self.tags)!r} is not a tag, "
                             f"and the model has no {OTHER} tag")
        p = self.tagger.probability(features(ss, self.tree), tags)
        if p <= 0.0:
            raise ModelError(f"{ss.place}: the CRF probability underflows to 0")
        return math.log(p) + sum(self.backoff.log_prob(_tokens(x))
                                 for x, t in zip(gold, tags, strict=True) if t == OTHER)

    def perplexity(self, sents: Sequence[SlotSentence]) -> tuple[float, int, float]:
        """(log p, slots, per-slot perplexity) over every sentence."""
        if not sents:
            raise InputError("no sentences to score")
        log_p = math.fsum(self.log_prob(ss) for ss in sents)
        slots = sum(ss.n + 1 for ss in sents)
        return log_p, slots, math.exp(-log_p / slots)


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


def _fit(sents: Sequence[SlotSentence], tags: Collection[str], tree: bool, c1: float,
         c2: float, min_freq: float, max_iterations: int, path: Path) -> int:
    """Train one crfsuite model into ``path``; returns the number of L-BFGS iterations."""
    trainer = _pycrfsuite().Trainer(verbose=False)
    for ss in sents:
        trainer.append(features(ss, tree), [t if t in tags else OTHER for t in slot_tags(ss)])
    trainer.set_params({"c1": c1, "c2": c2, "feature.minfreq": min_freq,
                        "max_iterations": max_iterations})
    trainer.train(str(path))
    return int((trainer.logparser.last_iteration or {}).get("num", 0))


def check_c2_grid(grid: Iterable[float]) -> None:
    """Refuse (InputError) the first L2 coefficient of ``grid`` below 0, NaN or infinite (they
    would train, and break meta.json), named ``c2`` as :func:`~fstpunct.errors.refuse_below`
    names it."""
    for c2 in grid:
        refuse_below(0, c2=c2)


def train(train_sents: Sequence[SlotSentence], dev_sents: Sequence[SlotSentence],
          output: str | Path, lang: str, c2_grid: Sequence[float] = (0.1, 1.0, 10.0),
          max_iterations: int = 200, tree: bool = True, s: float = 0.5,
          info: dict[str, Any] | None = None, log: Callable[[str], None] = _stderr,
          c1: float = 0.0, min_freq: float = 0.0, min_tag_count: int = MIN_COUNT) -> CrfModel:
    """Train one CRF per L2 coefficient c2 in ``c2_grid`` (L-BFGS; with an L1 coefficient
    ``c1`` > 0, OWL-QN), keep the one with the lowest dev per-slot perplexity, and save it to
    the folder ``output``. A compact model: ``c1`` > 0 zeroes most weights (crfsuite stores only
    the non-zero ones), ``min_freq`` drops the (attribute, tag) features seen fewer times in
    training, and a ``min_tag_count`` above :data:`MIN_COUNT` makes more rare slot strings
    :data:`OTHER` (fewer tags: training time grows with their square). ``output`` is checked
    before training (:func:`~fstpunct.files.model_target`); if something is put into it while
    training runs, the model is written to a new folder beside it and
    :class:`~fstpunct.errors.SavedAside` names that folder."""
    if not train_sents or not dev_sents:
        raise InputError("the CRF needs training and dev sentences")
    refuse_below(0, c1=c1, min_freq=min_freq)  # NaN, inf: they would break meta.json
    check_c2_grid(c2_grid)
    model_target(output, FILES, KIND)
    start = time.perf_counter()
    counts = Counter(t for ss in train_sents for t in slot_tags(ss))
    tags = sorted(t for t, c in counts.items() if c >= min_tag_count)
    known = set(tags)
    tokens = sorted({tok for ss in train_sents for slot in slot_strings(ss) for tok in slot})
    meta: dict[str, Any] = {
        "format": FORMAT, "lang": lang, "tags": tags, "tokens": tokens,
        "settings": {"algorithm": "lbfgs", "c1": c1, "c2": None, "c2_grid": list(c2_grid),
                     "feature_minfreq": min_freq,
                     "max_iterations": max_iterations, "min_tag_count": min_tag_count, "s": s,
                     "tree_features": tree},
        "training": {**(info or {}), "train_sentences": len(train_sents),
                     "train_slots": sum(ss.n + 1 for ss in train_sents),
                     "dev_sentences": len(dev_sents), "dev_perplexity": {}, "iterations": {}}}
    best = math.inf
    with model_folder(output, FILES, KIND) as out:  # the folder appears whole or not at all
        for c2 in c2_grid:
            path = out / f"c2-{c2}.model"
            iterations = _fit(train_sents, known, tree, c1, c2, min_freq, max_iterations, path)
            ppl = CrfModel(path, meta).perplexity(dev_sents)[2]
            meta["training"]["dev_perplexity"][str(c2)] = ppl
            meta["training"]["iterations"][str(c2)] = iterations
            log(f"c2 {c2}: {iterations} iterations, dev perplexity {ppl:.4f}")
            if ppl < best:
                best, meta["settings"]["c2"] = ppl, c2
                os.replace(path, out / "crf.model")
            else:
                path.unlink()
        meta["training"]["seconds"] = round(time.perf_counter() - start, 1)
        write_json(out / "meta.json", meta, atomic=False)
    return CrfModel.load(output)
