"""The correction model: the learners' punctuation model and the corrector, trained on pairs.

:class:`CorrectionModel` holds two punctuation models: ``learner`` (trained on the learners'
original sentences; its Viterbi T_e′ explains a learner's punctuation) and ``corrector`` (a
:class:`~fstpunct.model.punct.PunctModel` over the corrected sentences whose nodes carry the
learner's puncteme pair and the surface strings around the node as extra Attach contexts,
:func:`learner_contexts`). The corrector is
trained by EM on (learner, corrected) pairs with the same trees: every pair (l_c, r_c) of W_d is
scored with the usual features and with each of ``xl=l_e``, ``xr=r_e``, ``xp=l_e|r_e``, so the
weights learn when a learner's mark is kept, dropped or changed; its channel starts from, and is
drawn towards (Dirichlet pseudo-counts ``prior`` per window), the channel of a reference model
(``reference``: the bundled ``en``, correct English, or the learners' own model).

*Reading T_e′ faithfully* (``sharpen`` β > 1, :func:`sharpened`): T_e′ is the Viterbi
analysis under the learner model with its channel's edit probabilities raised to the power β
and renormalised per window. Under the learner channel itself, Viterbi may explain a learner's
string by an improbable channel path (a ``. ”`` read as ``” . .`` with a swap, a ``.`` as an
underlying ``?``), and then copying T_e′'s punctemes renders another string than the learner
wrote, which MBR turns into an edit; with β > 1 the analyses whose likely renderings are the
learner's own strings are preferred. The learner model stored in the correction model is the
sharpened one, so training and decoding read T_e′ alike.

*Drawn readings* (``readings`` D > 0, :func:`drawn`): instead of the one Viterbi T_e′, the
corrector reads D exact draws of T′ from the learner model's posterior p(T′ | T, x_e), each
with weight 1/D: training has D copies of every pair, one per draw (θ's L2 and the channel's
Dirichlet prior multiplied by D, so that they weigh as much against the data as with one
reading; the vocabulary that of one copy, as with one reading, θ's contexts those of every
draw), and decoding mixes the slot distributions of the D readings equally — a Monte Carlo
estimate of p(x_c | T, x_e) = Σ p(x_c | T, T_e′) p(T_e′ | T, x_e), so that a reading the
learner model is unsure of (a final ``.`` as an underlying ``?``) drives an edit only in the
share of draws that make it. The draws of a call's sentence k come from the random stream
(S, first + k), S = ``readings_seed`` (0 by default; recorded unless 0), in training and in
decoding alike (:meth:`CorrectionModel.readings_of`).

*Copying is the default* (``copy`` > 0, :func:`copy_center`): the mean of θ's L2 prior gives
the weight ``copy`` to every conjunction ``xl=p`` × ``L=p`` and ``xr=p`` × ``R=p`` (the learner's
puncteme on that side, ε included), so that where training pairs say little (rare marks such as
``!``, ``?``, ``:``) the corrected node keeps the learner's punctemes, and only edits that the
pairs show often enough move away from it. The corrector's vocabulary and pair sets W_d are
those of both sides of the pairs and of any further learner sentences (``vocabulary``: the
learner model's training sentences), so the learner punctemes that T_e′ uses can be copied.
With lexical contexts (``Settings.lexical`` of :func:`train`'s ``settings``) the corrector also
reads the words at each node (:func:`~fstpunct.model.features.lexical_contexts`), which no
other context of the corrector does: whether a comma splice is corrected, say, may depend on
the word that follows the comma; the copy prior stays on the unlexicalised contexts.

*Decoding* (:meth:`CorrectionModel.decoding_for`, stored in the record per tree source —
gold trees, or a parser's —, chosen on dev by :mod:`.calibrate`): the MBR loss charges
``edit_cost`` per token edited away from the learner's string, and a slot whose learner string
has probability below ``support`` under the corrector (a string its trees cannot explain, e.g.
a quote without its partner) keeps that string
(:mod:`.correct`); a *gate* (:mod:`.gate`), when stored, undoes the edits it judges more
likely wrong than right; a *Platt map* (:mod:`.platt`), when stored, re-estimates the learner
string's probability of every slot before the decoder reads it (a decoding has at most one of
the two); the exact decoder (``decoder``, :data:`DECODERS_CORRECT`) is stored with them. A
model without them decodes with 0 and 0 (plain MBR) and the ``balanced`` decoder.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import (
    InputError,
    ModelError,
    as_floats,
    check_stream_seed,
    not_a_model,
    refuse_below,
    refuse_choice,
    refuse_count,
)
from ...files import CORRECTION_RECORD, model_folder, read_meta, write_json
from ...fst.channel import Channel
from ...fst.grammar import Grammar
from ...model import store
from ...model.attach import AttachModel
from ...model.features import render
from ...model.punct import Inference, PunctModel, Settings
from ...model.store import load_model, write_model
from ...model.train import em, initial_model
from ...model.vocab import Puncteme
from ...ud.slots import SlotSentence
from ..restoration import Insertion, marks
from ..restoration.exact import EXACT_DECODERS, SlotDistribution
from .draws import learner_draws
from .gate import FEATURES
from .platt import PLATT_SIZE

__all__ = ["DECODERS_CORRECT", "FILES", "KIND", "PART_FILES", "SUPPORT", "CorrectionModel",
           "Decoding", "copy_center", "drawn", "learner_contexts", "read_correction_record",
           "sharpened", "train", "unexplained", "with_learner"]

FORMAT = "fstpunct-correction 1"
FILES = ("learner", "corrector", CORRECTION_RECORD)  # what save writes: all it may replace
KIND = "a correction model"
PART_FILES = {"learner": store.FILES, "corrector": store.FILES}  # FILES' model folders
SUPPORT = 1e-3  # ExactPrior's candidate floor: a learner string below it is not a candidate
_DECODING = {False: "decoding", True: "decoding parsed"}  # record keys, by tree source
# the exact decoders of corrections: restoration's two, and ``learner`` (:mod:`.correct`)
DECODERS_CORRECT = (*sorted(EXACT_DECODERS), "learner")


@dataclass(frozen=True)
class Decoding:
    """How corrections are decoded (module docstring): the MBR loss's cost per token edited
    away from the learner's string, the probability below which the learner's string of a
    slot is kept as it is, at most one of a gate and a Platt map, and the exact decoder."""

    edit_cost: float = 0.0
    support: float = 0.0
    gate: tuple[float, ...] = ()  # coefficients of :mod:`.gate` (none: every edit is made)
    platt: tuple[float, ...] = ()  # w of :mod:`.platt` (none: the corrector's p as it is)
    decoder: str = "balanced"  # one of DECODERS_CORRECT

    def __post_init__(self) -> None:
        refuse_below(0, edit_cost=self.edit_cost)  # inf too: its loss would be NaN
        if not 0.0 <= self.support <= 1.0:
            raise InputError(f"support must be from 0 to 1, not {self.support}")
        if self.gate and len(self.gate) != len(FEATURES):
            raise InputError(f"a gate must have {len(FEATURES)} coefficients, not "
                             f"{len(self.gate)}")
        if self.platt and len(self.platt) != PLATT_SIZE:
            raise InputError(f"a Platt map must have {PLATT_SIZE} coefficients, not "
                             f"{len(self.platt)}")
        if self.gate and self.platt:
            raise InputError("a decoding has a gate or a Platt map, not both (no model "
                             "combines them)")
        refuse_choice("decoder", self.decoder, DECODERS_CORRECT)


def unexplained(slot: SlotDistribution, own: Insertion, support: float) -> bool:
    """Whether the learner's string ``own`` has probability below ``support`` in the slot's
    distribution (absent: 0), so that the slot keeps it (module docstring)."""
    return slot.prob(marks(own)) < support


def learner_contexts(ss: SlotSentence, pairs: Sequence[tuple[Puncteme, Puncteme] | None]
                     ) -> tuple[tuple[str, ...], ...]:
    """The extra context features of every node: the learner's puncteme pair at the node in
    T_e′ (``xl=``, ``xr=``, ``xp=``; None, the backoff, reads ``<backoff>``) and the surface
    strings the learner wrote in the slots where the node's constituent starts and ends
    (``sl=``, ``sr=``), which do not depend on how T_e′ explains them."""
    out = []
    for (i, k), pair in zip(ss.spans, pairs):
        l, r = ("<backoff>", "<backoff>") if pair is None else (render(pair[0]),
                                                                  render(pair[1]))
        out.append((f"xl={l}", f"xr={r}", f"xp={l}|{r}", f"sl={render(ss.slots[i])}",
                    f"sr={render(ss.slots[k])}"))
    return tuple(out)


def with_learner(learner: PunctModel, sentences: Sequence[SlotSentence]) -> list[SlotSentence]:
    """``sentences`` with the contexts of their Viterbi T_e′ under ``learner`` (their own
    surface punctuation is the learner's)."""
    if not sentences:
        return []
    inference = Inference(learner, learner.prepare(sentences))
    return [replace(ss, contexts=learner_contexts(ss, pairs[:ss.n] if ss.n else ()))
            for ss, pairs in zip(sentences, inference.viterbi_all())]


def drawn(learner: PunctModel, sentences: Sequence[SlotSentence], draws: int, seed: int = 0,
          first: int = 0) -> list[list[SlotSentence]]:
    """``draws`` lists of ``sentences``, list d with the contexts of the d-th exact draw of
    T_e′ from p(T′ | T, x_e) under ``learner`` (module docstring); sentence k draws from the
    random stream (seed, first + k) (:func:`.draws.learner_draws`), so its readings do not
    depend on the other sentences (``draws`` ≥ 1 and ``seed`` from 0 to 2**32 - 1 checked
    first, :func:`~fstpunct.errors.check_stream_seed`)."""
    got = learner_draws(learner, sentences, draws, seed, first)
    if got is None:
        return [[] for _ in range(draws)]
    sampled = got[1]
    return [[replace(ss, contexts=learner_contexts(ss, pairs[d][:ss.n] if ss.n else ()))
             for ss, pairs in zip(sentences, sampled)] for d in range(draws)]


def sharpened(channel: Channel, beta: float) -> Channel:
    """``channel`` with every window's edit probabilities raised to the power ``beta`` (> 0)
    and renormalised (module docstring: 1 leaves it as it is; large β keeps the likeliest
    edit of each window alone, β = ∞ exactly: each window is divided by its largest entry
    first, so that no window underflows to 0)."""
    if not beta > 0.0:
        raise InputError(f"the channel's sharpening must be above 0, not {beta}")
    phi = (channel.phi / channel.phi.max(axis=2, keepdims=True)) ** beta
    return Channel(channel.symbols, channel.direction, phi / phi.sum(axis=2, keepdims=True))


def copy_center(attach: AttachModel, token_cost: float, copy: float) -> np.ndarray:
    """θ's prior mean: :meth:`~fstpunct.model.attach.AttachModel.init_theta` plus ``copy`` on
    every (``xl=p``, ``L=p``) and (``xr=p``, ``R=p``) weight (module docstring)."""
    theta = attach.init_theta(token_cost)
    base = attach.blocks(theta)[0]
    features = {f: j for j, f in enumerate(attach.pair_feature_names)}
    for k, context in enumerate(attach.contexts[:attach.n_base]):
        for prefix, side in (("xl=", "L="), ("xr=", "R=")):
            j = features.get(side + context[len(prefix):]) if context.startswith(prefix) else None
            if j is not None:
                base[k, j] += copy
    return theta


def _towards(channel: Channel, reference: Channel) -> Channel:
    """``channel`` with φ[a, b] of every window whose symbols the reference also has taken
    from the reference (same direction required)."""
    if channel.direction != reference.direction:
        raise ModelError(f"the reference channel scans {reference.direction}, the corrector's "
                         f"{channel.direction}")
    phi = channel.phi.copy()
    both = [(k, reference.index(t)) for k, t in enumerate(channel.symbols)
            if t in reference.symbols]
    mine = np.array([k for k, _ in both], dtype=np.intp)
    theirs = np.array([j for _, j in both], dtype=np.intp)
    phi[np.ix_(mine, mine)] = reference.phi[np.ix_(theirs, theirs)]
    return Channel(channel.symbols, channel.direction, phi)


def _readings_seed(record: dict[str, Any]) -> int:
    """A record's ``readings_seed`` (:attr:`CorrectionModel.readings_seed`; 0 if none): one
    32-bit word, else an InputError in :func:`_readings`' words (null included)."""
    seed = record.get("readings_seed", 0)
    check_stream_seed(seed, "readings_seed", required=True)
    return seed


def _readings(record: dict[str, Any]) -> int:
    """A record's ``readings`` (:attr:`CorrectionModel.readings`; 0 if none): a whole number of
    at least 0, else an InputError (:func:`~fstpunct.errors.refuse_count`, null and a string
    included), not truncated (2.5 is no count)."""
    readings = record.get("readings", 0)
    refuse_count(0, required=True, readings=readings)
    return readings


def read_correction_record(folder: str | Path) -> dict[str, Any]:
    """The training record of the correction model saved in ``folder`` (its
    ``correction.json``), without loading its punctuation models; a ModelError naming the
    folder if it is not one, its ``record`` is not an object or its ``readings`` or
    ``readings_seed`` cannot be decoded with."""
    path = Path(folder)
    record = read_meta(path / CORRECTION_RECORD, FORMAT, KIND).get("record", {})
    if not isinstance(record, dict):
        raise ModelError(f"{path}: not a correction model ({CORRECTION_RECORD}: 'record' is "
                         "not a JSON object)")
    try:
        _readings(record)
        _readings_seed(record)
    except InputError as e:
        raise not_a_model(path, KIND, e, file=CORRECTION_RECORD) from e
    return record


@dataclass
class CorrectionModel:
    """A trained correction model (module docstring) and its training record."""

    learner: PunctModel
    corrector: PunctModel
    record: dict[str, Any]

    @property
    def decoding(self) -> Decoding:
        """The decoding for gold trees stored in the record (``decoding``), else plain MBR."""
        return self.decoding_for(parsed=False)

    @property
    def readings(self) -> int:
        """How many drawn readings of T_e′ the corrector reads (record ``readings``; 0: the
        learner model's Viterbi reading alone); an InputError naming ``readings`` if it is not
        a whole number of at least 0."""
        return _readings(self.record)

    @property
    def readings_seed(self) -> int:
        """The random stream of the drawn readings (record ``readings_seed``; 0 if none),
        an integer (not a bool, a float or a string) of one 32-bit word, else an InputError
        naming ``readings_seed`` (:func:`~fstpunct.errors.check_stream_seed`)."""
        return _readings_seed(self.record)

    def readings_of(self, sentences: Sequence[SlotSentence], first: int = 0
                    ) -> list[list[SlotSentence]]:
        """The readings of T_e′ decoding mixes, one list per reading: the Viterbi one
        (:func:`with_learner`), or for a model trained on D drawn readings, :func:`drawn` of
        ``sentences`` from the recorded stream :attr:`readings_seed`."""
        if not self.readings:
            return [with_learner(self.learner, sentences)]
        return drawn(self.learner, sentences, self.readings, self.readings_seed, first)

    def decoding_for(self, parsed: bool) -> Decoding:
        """The decoding for trees of that source: with ``parsed``, the one chosen on a
        parser's trees (``decoding parsed``) if stored, else the gold trees' one."""
        stored = self.record.get(_DECODING[parsed]) or self.record.get(_DECODING[False], {})
        return Decoding(float(stored.get("edit_cost", 0.0)), float(stored.get("support", 0.0)),
                        tuple(float(w) for w in stored.get("gate", ())),
                        tuple(float(w) for w in stored.get("platt", ())),
                        str(stored.get("decoder", "balanced")))

    def decoded_with(self, decoding: Decoding, parsed: bool = False, **why: Any
                     ) -> CorrectionModel:
        """This model with ``decoding`` stored for gold trees, or with ``parsed`` for a
        parser's trees (and ``why``: how it was chosen)."""
        maps = {name: list(w) for name, w in (("gate", decoding.gate),
                                              ("platt", decoding.platt)) if w}
        return replace(self, record={**self.record, _DECODING[parsed]: {
            "edit_cost": decoding.edit_cost, "support": decoding.support, **maps,
            "decoder": decoding.decoder, **why}})

    def save(self, folder: str | Path) -> Path:
        """A folder with ``learner/``, ``corrector/`` (punctuation model folders, each
        recording which part it is and, for the learner, the model it was read from if the
        record names one) and ``correction.json``, written whole. A folder holding anything
        else, in ``learner/`` or ``corrector/`` too (:data:`PART_FILES`), is left as it was: the
        model is written to a new folder beside it and :class:`~fstpunct.errors.SavedAside`
        names it (:func:`~fstpunct.files.model_folder`;
        a trainer checks its folder before training with :func:`~fstpunct.files.model_target`
        of :data:`FILES` and :data:`PART_FILES`)."""
        with model_folder(Path(folder), FILES, KIND, PART_FILES) as tmp:
            for part, model in (("learner", self.learner), ("corrector", self.corrector)):
                source = self.record.get(part)  # train records the learner model's folder
                (tmp / part).mkdir()  # in the one temporary folder: flushed once, with it
                write_model(model, tmp / part, {"part": part, **({"from": source} if source
                                                                 else {})})
            write_json(tmp / CORRECTION_RECORD, {"format": FORMAT, "record": self.record},
                       atomic=False)
        return Path(folder)

    @classmethod
    def load(cls, folder: str | Path) -> CorrectionModel:
        """The model saved in ``folder`` (:meth:`save`); a ModelError naming the folder if its
        record's :attr:`readings` or :attr:`readings_seed` cannot be decoded with (said here,
        not at the first sentence; :func:`read_correction_record`)."""
        path = Path(folder)
        record = read_correction_record(path)
        return cls(load_model(path / "learner"), load_model(path / "corrector"), record)


def train(learner: PunctModel, originals: Sequence[SlotSentence],
          corrected: Sequence[SlotSentence], reference: PunctModel, grammar: Grammar,
          iterations: int = 8, settings: Settings | None = None,
          report: Callable[[int, float, float], None] | None = None,
          record: dict[str, Any] | None = None, copy: float = 0.0,
          vocabulary: Sequence[SlotSentence] = (), sharpen: float = 1.0,
          readings: int = 0, readings_seed: int = 0) -> CorrectionModel:
    """Train the corrector on pairs: ``originals[k]`` (the learner's punctuation) and
    ``corrected[k]`` (the same words and tree, corrected punctuation); ``copy``: the prior
    weight of keeping the learner's punctemes (:func:`copy_center`); ``vocabulary``: more
    sentences whose punctuation joins the corrector's vocabulary; ``sharpen``: β of the
    learner channel by which T_e′ is read (:func:`sharpened`); ``readings``: D drawn readings
    of T_e′ in place of the Viterbi one (:func:`drawn`; 0: Viterbi; module docstring), from
    random stream ``readings_seed`` (recorded unless 0, as decoding reads it)."""
    refuse_count(0, readings=readings)
    as_floats(readings=readings)  # (l2 and prior are multiplied by it)
    if len(originals) != len(corrected) or not originals:
        raise InputError("the corrector needs as many corrected sentences as originals (>0)")
    for o, c in zip(originals, corrected):
        if o.n != c.n or o.heads != c.heads:
            raise InputError(f"{c.place}: its tree is not the original's")
    if readings_seed and not readings:
        raise InputError(f"a readings seed ({readings_seed}) needs drawn readings")
    check_stream_seed(readings_seed, "readings_seed")  # before the learner is sharpened
    settings = settings or Settings(lexical=0)
    if readings:  # refused (a float's inf) before any reading is drawn
        settings = replace(settings, l2=settings.l2 * readings, prior=settings.prior * readings)
    if sharpen != 1.0:
        learner = replace(learner, channel=sharpened(learner.channel, sharpen))
    if readings:
        sources = [ss for draw in drawn(learner, originals, readings, readings_seed)
                   for ss in draw]
    else:
        sources = with_learner(learner, originals)
    targets = [replace(c, contexts=o.contexts)
               for o, c in zip(sources, list(corrected) * max(readings, 1))]
    n = len(originals)  # the vocabulary from one copy of the pairs, as without readings
    start = initial_model(targets[:n] + sources[:n] + list(vocabulary), grammar,
                          settings=settings, readings=targets[n:] + sources[n:])
    center = copy_center(start.attach, settings.token_cost, copy)
    start = PunctModel(start.attach, center, _towards(start.channel, reference.channel),
                       settings)
    model, history = em(start, start.prepare(targets), iterations, report=report,
                        center=center)
    info = {**(record or {}), "pairs": len(targets), "iterations": iterations,
            "objective": history.objective, "sharpen": sharpen,
            **({"readings": readings} if readings else {}),
            **({"readings_seed": readings_seed} if readings_seed else {})}
    return CorrectionModel(learner, model, info)
