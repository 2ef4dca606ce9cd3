"""A discriminative corrector: a linear-chain CRF over slots that reads the current punctuation.

The paper's BiLSTM-CRF corrector reads the words and each slot's punctuation x_i; this one is
restoration's CRF (:func:`fstpunct.apps.restoration.crf.features`: words, UPOS and tree around
the slot) with the learner's punctuation of the slot and of its neighbours added (``x=``,
``xl=``, ``xr=``, and ``x=`` conjoined with the UPOS bigram across the slot), predicting the
corrected string of every slot (tags seen fewer than twice in training keep the learner's
string). With *the keep tag* (``keep``), every slot whose corrected string is the learner's is
labelled :data:`OTHER` (keep the learner's string) in training, so that keeping is one label
shared by every mark rather than one per mark: a rare mark the learner wrote (a dash, a bracket,
a quote) is no longer rewritten because its own ``x=`` weights are too weak, the main error of
the per-string labelling (cross-validation over train pairs, RESULTS). Optional *generative*
features per slot (:func:`generative_features`) come from a punctuation model's exact slot
distribution under the tree (:class:`ExactPrior`): its most probable string, and the
probability it gives the learner's string, bucketed — so the CRF can learn when the model of
correct English doubts what the learner wrote; the same features of the correction model's slot
distributions (:func:`slot_features`) give the CRF the generative corrector's view.
"""
from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...errors import InputError
from ...files import model_folder, model_target, read_meta, write_json
from ...model.punct import PunctModel
from ...ud.slots import SlotSentence
from ..restoration import Insertion
from ..restoration.crf import (
    EMPTY,
    MIN_COUNT,
    OTHER,
    LockedTagger,
    _pycrfsuite,
    crf_insertions,
    slot_tags,
)
from ..restoration.crf import features as restoration_features
from ..restoration.exact import ExactPrior, SlotDistribution

__all__ = ["CrfCorrector", "features", "generative_features", "labels", "slot_features",
           "string_marginals", "tag_insertions", "train"]

FORMAT = "fstpunct-crf-corrector 1"
FILES = ("crf.model", "meta.json")  # what train writes: all a folder it replaces may hold
KIND = "a CRF corrector"
_BUCKETS = (0.01, 0.05, 0.2, 0.5, 0.8)


def _bucket(p: float) -> str:
    return next((f"<{b}" for b in _BUCKETS if p < b), f">={_BUCKETS[-1]}")


def generative_features(model: PunctModel, sentences: Sequence[SlotSentence],
                        name: str = "g") -> list[list[list[str]]]:
    """Per sentence and slot: ``NAME1=`` the model's most probable string and ``NAMEx=`` the
    bucketed probability of the sentence's own string (``NAMEx=<0.01`` for one outside the
    candidates)."""
    prior = ExactPrior(model)
    return [slot_features(ss, slots, name)
            for ss, slots in zip(sentences, prior.distributions([sentences]))]


def slot_features(ss: SlotSentence, slots: Sequence[SlotDistribution], name: str
                  ) -> list[list[str]]:
    """:func:`generative_features` of one sentence from its slot distributions (a punctuation
    model's, or the correction model's)."""
    feats = []
    for tag, slot in zip(slot_tags(ss), slots):
        best = " ".join(slot.strings[0]) or EMPTY
        p = slot.prob(() if tag == EMPTY else tuple(tag.split()))
        feats.append([f"{name}1={best}", f"{name}x={_bucket(p)}", f"{name}same={best == tag}"])
    return feats


def features(ss: SlotSentence, tree: bool = True,
             extra: Sequence[Sequence[str]] = ()) -> list[list[str]]:
    """Restoration's slot features, the learner's punctuation around each slot, and ``extra``
    (one list per slot)."""
    own = slot_tags(ss)
    out = restoration_features(ss, tree)
    n = ss.n
    for i, f in enumerate(out):
        left = own[i - 1] if i else "<s>"
        right = own[i + 1] if i < n else "</s>"
        bigram = next(x for x in f if x.startswith("pLR="))
        f += [f"x={own[i]}", f"xl={left}", f"xr={right}", f"x={own[i]}|{bigram}"]
        if i < len(extra):
            f += list(extra[i])
    return out


class CrfCorrector:
    """A trained CRF corrector folder: ``crf.model`` and ``meta.json``."""

    def __init__(self, folder: Path, meta: dict[str, Any]) -> None:
        self.meta = meta
        self.tagger = LockedTagger(folder / "crf.model")
        self.tree = bool(meta["tree_features"])

    @classmethod
    def load(cls, folder: str | Path) -> CrfCorrector:
        path = Path(folder)
        return cls(path, read_meta(path / "meta.json", FORMAT, KIND, name=folder))

    def correct(self, ss: SlotSentence, extra: Sequence[Sequence[str]] = ()) -> list[Insertion]:
        """The corrected string of every slot as insertions (each token attached to the word
        left of its slot; slot 0: word 1); :data:`OTHER` keeps the learner's string."""
        return tag_insertions(slot_tags(ss), self.tagger.tag(features(ss, self.tree, extra)))


    def marginals(self, ss: SlotSentence, extra: Sequence[Sequence[str]] = ()
                  ) -> list[dict[tuple[str, ...], float]]:
        """Every slot's marginal distribution over corrected strings (:data:`OTHER` read as
        the learner's string)."""
        return string_marginals(slot_tags(ss), self.tagger.marginals(
            features(ss, self.tree, extra), self.tagger.labels()))


def string_marginals(own: Sequence[str], rows: Sequence[Sequence[tuple[str, float]]]
                     ) -> list[dict[tuple[str, ...], float]]:
    """Per slot, its (label, marginal) ``rows`` as a distribution over corrected strings
    (:data:`OTHER`: the learner's string ``own[i]``; labels writing the same string summed)."""
    out = []
    for mine, row in zip(own, rows):
        dist: dict[tuple[str, ...], float] = {}
        for tag, p in row:
            y = tuple(t for t in (mine if tag == OTHER else tag).split(" ") if t != EMPTY)
            dist[y] = dist.get(y, 0.0) + p
        out.append(dist)
    return out


def tag_insertions(own: Sequence[str], tags: Sequence[str]) -> list[Insertion]:
    """A corrector's slot labels as insertions (:data:`OTHER`: the learner's string ``own``
    of that slot)."""
    return crf_insertions([[tok for tok in (own[i] if t == OTHER else t).split(" ")
                            if tok != EMPTY] for i, t in enumerate(tags)])


def labels(source: SlotSentence, gold: SlotSentence, known: set[str], keep: bool = False
           ) -> list[str]:
    """The training label of every slot: the corrected string if it is a ``known`` tag, else
    :data:`OTHER`; with ``keep``, :data:`OTHER` also wherever it is the learner's string."""
    return [OTHER if keep and t == own else t if t in known else OTHER
            for t, own in zip(slot_tags(gold), slot_tags(source))]


def train(sources: Sequence[SlotSentence], golds: Sequence[SlotSentence], output: str | Path,
          extras: Sequence[Sequence[Sequence[str]]] | None = None, c2: float = 1.0,
          max_iterations: int = 200, tree: bool = True,
          info: dict[str, Any] | None = None, keep: bool = False) -> CrfCorrector:
    """Train on (learner, corrected) slot sentences of the same words; ``extras[k]``: sentence
    k's extra features per slot; ``keep``: the keep tag (module docstring). ``output`` is
    checked before training and written as :func:`fstpunct.apps.correction.bilstm.train`'s."""
    if len(sources) != len(golds) or not sources:
        raise InputError("the CRF corrector needs as many corrected sentences as sources (>0)")
    model_target(output, FILES, KIND)
    counts = Counter(t for g in golds for t in slot_tags(g))
    known = {t for t, c in counts.items() if c >= MIN_COUNT}
    trainer = _pycrfsuite().Trainer(verbose=False)
    for k, (s, g) in enumerate(zip(sources, golds)):
        trainer.append(features(s, tree, extras[k] if extras else ()), labels(s, g, known, keep))
    trainer.set_params({"c1": 0.0, "c2": c2, "max_iterations": max_iterations})
    meta = {"format": FORMAT, "tree_features": tree, "c2": c2, "keep_tag": keep,
            "tags": sorted(known),
            "training": {**(info or {}), "pairs": len(sources)}}
    with model_folder(Path(output), FILES, KIND) as tmp, tempfile.TemporaryDirectory() as work:
        trainer.train(str(Path(work) / "crf.model"))
        (tmp / "crf.model").write_bytes((Path(work) / "crf.model").read_bytes())
        write_json(tmp / "meta.json", meta, atomic=False)
    return CrfCorrector.load(output)
