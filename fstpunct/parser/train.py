"""Training: averaged perceptron, with local learning on gold configurations (beam 1 only) or
global learning with beam search and early update (any beam, beam 1 included, as Ma, Zhang & Zhu
2014 train every beam size); the epoch with the best dev word UAS is kept.

Averaging uses the lazy form of Daumé (2006): beside the weights w keep u, adding ``c·δ`` to u
whenever ``δ`` is added to w at time c; the average is ``w - u / c``. No weight is touched
unless it changes, like the timestamp trick, without storing timestamps.

The feature index is built once from the gold (oracle) configurations of the training data;
features seen only elsewhere keep weight 0.
"""
from __future__ import annotations

import inspect
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from ..errors import InputError, SavedAside, check_seed, refuse_count, refuse_unused
from ..files import model_target, partial_folder, remove_model_folder
from ..progress import on_terminal
from ..ud.treebank import Sentence
from ..wording import counted
from . import features as F
from .decode import parse
from .model import FILES, KIND, Input, Model
from .oracle import OracleError, oracle
from .punct import PROPS_VERSION, prepare
from .score import score
from .search import search, trail
from .transitions import Arc, State, initial

__all__ = ["LEARNING", "PATIENCE", "PATIENCE_WITHOUT_DEV", "Example", "Perceptron", "build",
           "check_arc_weights", "resolved_defaults", "step_weights", "train", "train_settings"]

#: ``local``: update on every wrong transition along the gold path (beam 1 only); ``early``:
#: decode with the current weights and update when the gold path falls off the beam.
LEARNING = ("local", "early")
#: epochs without a better dev UAS after which training stops, by default
PATIENCE = 4
#: why patience is refused without dev sentences
PATIENCE_WITHOUT_DEV = ("counts epochs without a better dev UAS; without dev sentences (--dev) "
                        "every epoch is trained and the last kept")


class Perceptron:
    """Integer weights ``w`` and their running sum ``u`` for averaging."""

    def __init__(self, shape: tuple[int, int]) -> None:
        self.w = np.zeros(shape, dtype=np.int32)
        self.u = np.zeros(shape, dtype=np.int64)
        self.c = 1
        self.updates = 0

    def update(self, good_rows: np.ndarray, good: np.ndarray, bad_rows: np.ndarray,
               bad: np.ndarray, scale: int = 1) -> None:
        """+``scale`` for each (feature row, action) of the gold steps, -``scale`` for the
        predicted ones."""
        n_actions = self.w.shape[1]
        flat = np.concatenate([(good_rows * n_actions + good[:, None]).ravel(),
                               (bad_rows * n_actions + bad[:, None]).ravel()])
        delta = np.concatenate([np.full(good_rows.size, scale, np.int32),
                                np.full(bad_rows.size, -scale, np.int32)])
        keep = flat >= n_actions  # row 0 = unknown features, never learnt
        flat, delta = flat[keep], delta[keep]
        np.add.at(self.w.reshape(-1), flat, delta)
        np.add.at(self.u.reshape(-1), flat, delta.astype(np.int64) * self.c)
        self.updates += 1

    def averaged(self) -> np.ndarray:
        avg = self.u.astype(np.float32)
        avg *= np.float32(-1.0 / self.c)
        avg += self.w
        return avg


@dataclass
class Example:
    """A training sentence: its input, gold action numbers, gold feature rows and the
    legality class (:meth:`Model.legality`) of each gold configuration; ``weights``: the
    integer weight of each gold step's update in local learning (None: all 1)."""

    inp: Input
    actions: np.ndarray
    rows: np.ndarray
    legality: np.ndarray
    weights: np.ndarray | None = None


def _gold_states(model: Model, inp: Input, actions: np.ndarray) -> list[State]:
    """The configurations of the gold path, before each of its ``actions``."""
    states = [initial(inp.leaves[0], inp.n)]
    for a in actions[:-1]:
        states.append(model.transitions[a].apply(states[-1], inp.leaves))
    return states


def step_weights(model: Model, inp: Input, ids: Sequence[int], actions: np.ndarray,
                 arc_weights: Mapping[int, int], states: Sequence[State] | None = None
                 ) -> np.ndarray:
    """The weight of each gold step: an arc's is ``arc_weights``' for its dependent's
    CoNLL-U word id (``ids``: of the parsed tokens), 1 if it has none; a shift's is 1
    (``states``: the gold configurations, :func:`_gold_states`', if already worked out)."""
    out = np.ones(len(actions), np.int32)
    if states is None:
        states = _gold_states(model, inp, actions)
    for t, (state, a) in enumerate(zip(states, actions)):
        step = model.transitions[a]
        if isinstance(step, Arc):
            _, dependent = step.joined(state)
            out[t] = arc_weights.get(ids[dependent - 1], 1)
    return out


def check_arc_weights(arc_weights: Sequence[Mapping[int, int] | None] | None, n: int
                       ) -> None:
    """An :class:`~fstpunct.errors.InputError` unless ``arc_weights`` is None or one weighting
    for each of ``n`` training sentences, its weights integers of at least 1."""
    if arc_weights is None:
        return
    if len(arc_weights) != n:
        raise InputError(f"{counted(len(arc_weights), 'arc weighting')} given for "
                         f"{counted(n, 'training sentence')}")
    for j, weighting in enumerate(arc_weights):
        for word, w in (weighting or {}).items():
            if isinstance(w, bool) or not isinstance(w, (int, np.integer)) or w < 1:
                raise InputError(f"arc weights are integers of at least 1: training sentence "
                                 f"{j + 1}'s word {word} has {w!r}")


def build(train_sents: Sequence[Sentence], mode: str, min_count: int = 1,
          min_word: int = 2, log: Callable[[str], None] = print,
          props_version: int = PROPS_VERSION, lowercase: bool = False,
          arc_weights: Sequence[Mapping[int, int] | None] | None = None
          ) -> tuple[Model, list[Example]]:
    """A model with vocabularies and feature index from ``train_sents``, and its examples
    (``lowercase``: a case-free model, its words lower-cased; ``arc_weights``: one per
    sentence, ``{word id: weight}`` of the arcs attaching those words, integers of at least 1,
    :func:`step_weights`, or None: all 1; else an :class:`~fstpunct.errors.InputError`)."""
    check_arc_weights(arc_weights, len(train_sents))
    preps = [prepare(s, mode, gold=True, version=props_version) for s in train_sents]
    weighting = [None] * len(preps) if arc_weights is None else arc_weights
    words = Counter(f.lower() if lowercase else f for p in preps for f in p.forms)
    tags = sorted({t for p in preps for t in p.upos})
    labels = sorted({d for p in preps for d in p.deprels or ()})
    model = Model(mode, sorted(w for w, c in words.items() if c >= min_word), tags, labels,
                  F.templates(mode), np.zeros(0, dtype=np.uint64), props_version=props_version,
                  lowercase=lowercase)
    raw: list[tuple[Input, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]] = []
    skipped = 0
    for p, weights in zip(preps, weighting):
        try:
            seq = oracle(p.heads or (), p.deprels or ())
        except OracleError:
            skipped += 1
            continue
        inp = model.input(p)
        actions = np.array([model.action[t] for t in seq])
        states = _gold_states(model, inp, actions)
        raw.append((inp, actions, model.feature_keys(states, inp),
                    np.array([model.legality(s, inp.marks) for s in states], np.int8),
                    None if weights is None else step_weights(model, inp, p.ids, actions,
                                                              weights, states)))
    if not raw:
        raise InputError("no training sentence could be used")
    keys, counts = np.unique(np.concatenate([r[2].ravel() for r in raw]), return_counts=True)
    model.set_keys(keys[counts >= min_count])
    model.weights = np.zeros((len(model.keys) + 1, len(model.transitions)), np.float32)
    examples = [Example(inp, acts, model.rows(k), leg, w) for inp, acts, k, leg, w in raw]
    log(f"{len(examples)} training sentences ({skipped} skipped), {len(model.keys):,} features, "
        f"{len(model.transitions)} transitions, {len(model.words.items):,} words")
    return model, examples


def _greedy_epoch(p: Perceptron, examples: Sequence[Example], masks: np.ndarray,
                  bar: tqdm) -> None:
    """Local learning on gold configurations: update on every wrong transition, by the step's
    weight (:attr:`Example.weights`; ``masks`` from :meth:`Model.mask_table`)."""
    for ex in examples:
        legal = masks[ex.legality]
        scores = p.w[ex.rows].sum(axis=1, dtype=np.int32) + legal
        for t, gold in enumerate(ex.actions):
            pred = int(np.argmax(scores[t]))
            if pred != gold:
                p.update(ex.rows[t:t + 1], ex.actions[t:t + 1], ex.rows[t:t + 1],
                         np.array([pred]), 1 if ex.weights is None else int(ex.weights[t]))
                scores[t + 1:] = p.w[ex.rows[t + 1:]].sum(axis=1, dtype=np.int32) + legal[t + 1:]
            p.c += 1
        bar.update()


def _early_greedy_epoch(p: Perceptron, examples: Sequence[Example], masks: np.ndarray,
                        bar: tqdm, block: int = 8) -> None:
    """Early update at beam 1: decode greedily with the current weights and update at the
    first wrong transition only. Up to it the decoder's configurations are the gold ones, whose
    feature rows are ``ex.rows``: the same updates as :func:`_beam_epoch` with beam 1, faster
    (``block`` steps scored at a time; ``masks`` from :meth:`Model.mask_table`)."""
    for ex in examples:
        for t0 in range(0, len(ex.actions), block):
            rows = ex.rows[t0:t0 + block]
            scores = p.w[rows].sum(axis=1, dtype=np.int32) + masks[ex.legality[t0:t0 + block]]
            pred = scores.argmax(axis=1)
            wrong = np.flatnonzero(pred != ex.actions[t0:t0 + block])
            if wrong.size:
                t = int(wrong[0])
                p.update(rows[t:t + 1], ex.actions[t0 + t:t0 + t + 1], rows[t:t + 1],
                         pred[t:t + 1])
                break
        p.c += 1
        bar.update()


def _beam_epoch(model: Model, p: Perceptron, examples: Sequence[Example], beam: int,
                bar: tqdm) -> None:
    """Global learning: beam search, early update when the gold path falls off the beam."""
    for ex in examples:
        best = search(model, ex.inp, beam, p.w, gold=ex.actions)
        if not best.gold:
            path = trail(best)
            m = len(path)
            p.update(ex.rows[:m], ex.actions[:m], np.array([it.rows for it in path]),
                     np.array([it.action for it in path]))
        p.c += 1
        bar.update()


def evaluate(model: Model, sentences: Sequence[Sentence], beam: int,
             weights: np.ndarray | None = None) -> tuple[float, float]:
    """Word UAS and LAS (punctuation excluded) of the parser on gold ``sentences``."""
    s = score(sentences, (parse(model, x, beam, weights) for x in sentences))
    return s.words.uas, s.words.las


def train(train_sents: Sequence[Sentence], dev_sents: Sequence[Sentence], mode: str,
          beam: int, out: str | Path, epochs: int = 20, patience: int | None = None,
          seed: int = 1, min_count: int = 1, log: Callable[[str], None] | None = None,
          progress: bool = True, info: dict | None = None,
          props_version: int = PROPS_VERSION, learning: str | None = None,
          lowercase: bool = False,
          arc_weights: Sequence[Mapping[int, int] | None] | None = None) -> Model:
    """Train, score dev after every epoch, and keep the best epoch's model, stopping after
    ``patience`` epochs (None: :data:`PATIENCE`) without a better dev UAS; it is saved to
    ``out`` at the end, with the whole history and ``info["finished"]``: until then ``out``
    keeps its previous model. Each better epoch is saved as it comes to ``NAME.partial`` beside
    ``out`` (:func:`~fstpunct.files.partial_folder`), removed at the end: if training is cut
    short (an error, Ctrl-C, SIGTERM), it is left there, and ``log`` says so. No
    ``dev_sents``: every epoch is trained and the last saved once, at the end (``patience`` is
    refused). ``info``: extra entries for the
    model's ``info``, e.g. the training data used; ``props_version``: of the
    initial punctuation properties, see :func:`~fstpunct.parser.punct.initial_props`;
    ``learning``: one of :data:`LEARNING`, by default ``local`` at beam 1 and ``early`` above,
    the only choice there; ``lowercase``: a case-free parser, words lower-cased in training
    and parsing; ``arc_weights``: one per training sentence, ``{CoNLL-U word id: integer
    weight}`` of the arcs attaching those words (others, and None, 1), by which their gold
    steps' updates are multiplied (local learning only, :func:`step_weights`). ``out`` is
    checked before training: a new or empty folder, or a parser's
    holding nothing else (:func:`~fstpunct.files.model_target`), and so is ``NAME.partial``;
    if something is put into ``out`` while training runs, the model is written to a new folder
    beside it and :class:`~fstpunct.errors.SavedAside` names it."""
    refuse_count(1, beam=beam, epochs=epochs)
    refuse_count(0, patience=patience, min_count=min_count)
    seed = check_seed(seed)
    refuse_unused({"patience": patience is not None and not dev_sents}, PATIENCE_WITHOUT_DEV)
    patience, learning = resolved_defaults(beam, patience, learning)
    if learning not in LEARNING:
        raise InputError(f"unknown learning {learning!r}: choose from {', '.join(LEARNING)}")
    if learning == "local" and beam > 1:
        raise InputError("local learning needs beam 1; beam > 1 always uses early update")
    if arc_weights is not None and learning != "local":
        raise InputError("arc weights weigh the updates of local learning (beam 1): "
                         f"not {learning} update")
    check_arc_weights(arc_weights, len(train_sents))  # (build's check, before out is touched)
    model_target(out, FILES, KIND)
    partial = partial_folder(out)
    if dev_sents:
        model_target(partial, FILES, KIND)

    def say(msg: str) -> None:
        (log or (lambda m: print(m, file=sys.stderr, flush=True)))(msg)

    t0 = time.perf_counter()
    model, examples = build(train_sents, mode, min_count, log=say, props_version=props_version,
                            lowercase=lowercase, arc_weights=arc_weights)
    build_seconds = time.perf_counter() - t0
    p = Perceptron(model.weights.shape)
    masks = model.mask_table() if beam == 1 else None
    rng = random.Random(seed)
    history: list[dict] = []
    best, best_epoch, kept = -1.0, 0, False
    try:
        for epoch in range(1, epochs + 1):
            order = list(examples)
            rng.shuffle(order)
            t0 = time.perf_counter()
            with tqdm(total=len(order), desc=f"epoch {epoch}", unit="sent", file=sys.stderr,
                      disable=not progress or not on_terminal(), leave=False) as bar:
                if masks is None:
                    _beam_epoch(model, p, order, beam, bar)
                elif learning == "local":
                    _greedy_epoch(p, order, masks, bar)
                else:
                    _early_greedy_epoch(p, order, masks, bar)
            seconds = time.perf_counter() - t0
            # without dev only the last epoch is kept: the averaged weights (a copy of the whole
            # table) are worked out for it alone
            last, better, uas, scores = epoch == epochs, False, best, {}
            avg = p.averaged() if dev_sents or last else None
            said = f"epoch {epoch}: {seconds:.1f} s, {p.updates:,} updates so far"
            if dev_sents:
                t1 = time.perf_counter()
                uas, las = evaluate(model, dev_sents, beam, avg)
                better = uas > best  # than every epoch before
                scores = {"dev_seconds": round(time.perf_counter() - t1, 1),
                          "dev_uas": round(uas, 2), "dev_las": round(las, 2)}
                said += f", dev UAS {uas:.2f} LAS {las:.2f}" + (" (best)" if better else "")
            history.append({"epoch": epoch, "train_seconds": round(seconds, 1),
                            "updates": p.updates, **scores})
            say(said)
            keep = better if dev_sents else last  # dev's best epoch so far, else the last one
            if keep:
                best, best_epoch = uas, epoch
                model.weights = avg
                model.info = {"beam": beam, "learning": learning, "best_epoch": epoch,
                              "seed": seed, "min_count": min_count,
                              "build_seconds": round(build_seconds, 1),
                              "train_sentences": len(train_sents), **(info or {}),
                              "history": history}
                if dev_sents:  # the best epoch so far, on disk in case training is cut short
                    try:
                        model.save(partial)
                    except SavedAside as e:  # something put into it: from now on beside it
                        say(f"{e}; the better epochs go there from now on")
                        partial = e.saved
                    kept = True
            elif dev_sents and epoch - best_epoch >= patience:
                break
        model.info["finished"] = True  # (a checkpoint of a run cut short has no such mark)
        model.save(out)
    except BaseException as e:
        if kept and isinstance(e, SavedAside) and e.folder == Path(out):
            remove_model_folder(partial, FILES)  # the model is whole beside out, e names it
        elif kept:
            say(f"training stopped: its best epoch so far, {best_epoch}, is kept in {partial}")
        raise
    if kept:
        remove_model_folder(partial, FILES)
    return model


def train_settings(mode: str, beam: int, **settings: Any) -> dict[str, Any]:
    """The settings :func:`train` trains with, given ``mode``, ``beam`` and ``settings`` (its
    other keyword arguments but ``log``, ``progress``, ``info`` and ``arc_weights``): its
    defaults for the rest, ``patience`` and ``learning`` resolved as it resolves them, sorted
    by name."""
    bound = inspect.signature(train).bind_partial(mode=mode, beam=beam, **settings)
    bound.apply_defaults()
    used = {key: value for key, value in bound.arguments.items()
            if key not in ("log", "progress", "info", "arc_weights")}
    used["patience"], used["learning"] = resolved_defaults(beam, used["patience"],
                                                           used["learning"])
    return dict(sorted(used.items()))


def resolved_defaults(beam: int, patience: int | None, learning: str | None
                      ) -> tuple[int, str]:
    """``patience`` (None: :data:`PATIENCE`) and ``learning`` (None: ``local`` at beam 1,
    ``early`` above) as :func:`train` uses them (not checked)."""
    return (PATIENCE if patience is None else patience,
            learning or ("local" if beam == 1 else "early"))
