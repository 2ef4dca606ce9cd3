"""A dependent-ordering model: how a head and its dependents are ordered (Wang & Eisner 2016).

**What is ordered.** A *family* is a head and its dependents: k items, the head itself and one
per dependent (the dependent's whole subtree, which moves as a block). Each item is described by
its relation and UPOS (the head item by ``<head>`` and the head's UPOS).

**The model: a sequential choice model** (a Plackett–Luce model with bigram features). The
order is written left to right; at step t one of the items not yet placed is chosen with

    p(π_t = j | π_<t) = exp θ·f(j, π_{t−1}, side, head) / Σ_{j′ not placed} exp θ·f(j′, …)

where ``side`` is L until the head item has been placed and R after it, so the side of every
dependent is a feature of its choice. Features of choosing dependent j: its relation, its UPOS,
relation × UPOS and relation × head UPOS, each conjoined with the side; bigrams: the previous
item's relation × j's relation (alone and × head UPOS). Choosing the head item: the head's UPOS
and the bigram with the previous item.

*Why sequential rather than pairwise precedence.* A pairwise model (a score for every ordered
pair of items, p(π) ∝ exp Σ_{a before b} s(a, b)) needs a partition function over all k!
orders: exact maximum likelihood and exact sampling are then exponential in k (families of
10–20 items occur), so training would need approximations. The sequential model normalises
each step over at most k items: p(π) is exact, the log-likelihood is a sum of log-softmaxes
(concave, trained exactly by L-BFGS), and sampling is exact and linear in the steps. It still
expresses precedence: with the side and bigram features it learns what comes first, what
stays before the head and which relation follows which. The most probable order is an exact
dynamic program over (set of items placed, last item) for k ≤ :data:`EXACT_LIMIT`; larger
families use beam search (approximate; they are rare).
"""
from __future__ import annotations

import io
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import optimize, sparse

from ...errors import ModelError
from ...files import check_pair, read_meta, read_npz, write_pair
from ...model.store import model_path

__all__ = ["EXACT_LIMIT", "HEAD", "Family", "Item", "NoOrderingModel", "OrderModel",
           "order_path", "train_order"]

HEAD = "<head>"      # the relation of the head item
_START = "<s>"       # the previous item before the first step
EXACT_LIMIT = 10     # families up to this size get the exact most probable order
_BEAM = 64
FORMAT = 1


@dataclass(frozen=True)
class Item:
    """One unit of a family's order: the head itself (``rel == HEAD``) or a dependent."""

    rel: str
    upos: str


@dataclass(frozen=True)
class Family:
    """A head and its dependents; ``items`` in their observed order (the head among them)."""

    head_upos: str
    items: tuple[Item, ...]

    def __len__(self) -> int:
        return len(self.items)


def _choice_features(item: Item, prev: str, side: str, head_upos: str) -> list[str]:
    """The names of the features firing when ``item`` is chosen after ``prev`` on ``side``."""
    bigram = [f"b|{prev}|{item.rel}", f"bh|{prev}|{item.rel}|{head_upos}"]
    if item.rel == HEAD:
        return [f"h|{head_upos}", *bigram]
    return [f"r|{item.rel}|{side}", f"u|{item.upos}|{side}", f"ru|{item.rel}|{item.upos}|{side}",
            f"rh|{item.rel}|{head_upos}|{side}", *bigram]


class OrderModel:
    """The sequential choice model over feature names ``features`` with weights ``theta``."""

    def __init__(self, features: Sequence[str], theta: np.ndarray, record: dict | None = None
                 ) -> None:
        if len(features) != len(theta):
            raise ModelError(f"ordering model: {len(features)} features but {len(theta)} weights")
        self.features = list(features)
        self.theta = np.asarray(theta, dtype=np.float64)
        self.record = record or {}
        self._index = {f: k for k, f in enumerate(self.features)}

    # ----------------------------------------------------------------- scores
    def _score(self, family: Family, j: int, prev: int | None, head_placed: bool) -> float:
        prev_rel = _START if prev is None else family.items[prev].rel
        names = _choice_features(family.items[j], prev_rel, "R" if head_placed else "L",
                                 family.head_upos)
        return float(sum(self.theta[k] for k in map(self._index.get, names) if k is not None))

    def step_log_probs(self, family: Family, placed: Sequence[int]) -> dict[int, float]:
        """log p(next item = j | items ``placed`` so far, in order) for every j not placed."""
        head = _head_index(family)
        done = set(placed)
        prev = placed[-1] if placed else None
        left = [j for j in range(len(family)) if j not in done]
        scores = np.array([self._score(family, j, prev, head in done) for j in left])
        scores -= np.logaddexp.reduce(scores)
        return dict(zip(left, scores.tolist()))

    def log_prob(self, family: Family, order: Sequence[int]) -> float:
        """log p(order) of the family's items (``order``: item indices, left to right)."""
        if sorted(order) != list(range(len(family))):
            raise ValueError("not a permutation of the family's items")
        return sum(self.step_log_probs(family, order[:t])[order[t]] for t in range(len(order)))

    # ----------------------------------------------------------------- decisions
    def sample(self, family: Family, rng: np.random.Generator) -> list[int]:
        """An order drawn from the model (item indices, left to right)."""
        order: list[int] = []
        while len(order) < len(family):
            step = self.step_log_probs(family, order)
            items = list(step)
            p = np.exp(np.array([step[j] for j in items]))
            order.append(items[int(np.searchsorted(np.cumsum(p), rng.random() * p.sum(),
                                                   side="right").clip(max=len(items) - 1))])
        return order

    def best(self, family: Family) -> list[int]:
        """The most probable order: exact for families of at most :data:`EXACT_LIMIT` items
        (dynamic program over the set placed and the last item), beam search above."""
        if len(family) > EXACT_LIMIT:
            return self._beam(family)
        k = len(family)
        # (mask, last) -> (best log prob, order); layer by layer over the number placed
        layer: dict[tuple[int, int | None], tuple[float, tuple[int, ...]]] = {(0, None): (0.0, ())}
        for _ in range(k):
            nxt: dict[tuple[int, int | None], tuple[float, tuple[int, ...]]] = {}
            for (mask, _last), (score, order) in layer.items():
                for j, lp in self.step_log_probs(family, order).items():
                    key = (mask | 1 << j, j)
                    if key not in nxt or score + lp > nxt[key][0]:
                        nxt[key] = (score + lp, order + (j,))
            layer = nxt
        return list(max(layer.values())[1])

    def _beam(self, family: Family) -> list[int]:
        beam: list[tuple[float, tuple[int, ...]]] = [(0.0, ())]
        for _ in range(len(family)):
            grown = [(score + lp, order + (j,)) for score, order in beam
                     for j, lp in self.step_log_probs(family, order).items()]
            beam = sorted(grown, reverse=True)[:_BEAM]
        return list(beam[0][1])

    # ----------------------------------------------------------------- files
    def save(self, path: str | Path) -> None:
        """Write ``<path>.json`` (feature names, record) and ``<path>.npz`` (weights) as a pair
        (:func:`~fstpunct.files.write_pair`: :meth:`load` refuses halves of two saves)."""
        path = Path(path)

        def weights() -> bytes:
            buffer = io.BytesIO()
            np.savez_compressed(buffer, theta=self.theta.astype(np.float32))
            return buffer.getvalue()

        meta = {"format": FORMAT, "features": self.features, "record": self.record}
        write_pair(path.with_suffix(".npz"), weights, path.with_suffix(".json"), meta)

    @classmethod
    def load(cls, path: str | Path) -> OrderModel:
        name, path = os.fspath(path), Path(path)  # name: as given, for messages
        meta = read_meta(path.with_suffix(".json"), FORMAT, "an ordering model",
                         {"features": list}, name=name)
        weights = path.with_suffix(".npz")
        try:  # read once, to be parsed and hashed
            content: bytes | None = weights.read_bytes()
        except OSError:  # read_npz says why
            content = None
        with read_npz(weights, "an ordering model", name, content) as data:
            theta = data.numbers("theta", 1).astype(np.float64)
        check_pair(meta, path.with_suffix(".json"), weights, content)
        return cls(meta["features"], theta, meta.get("record"))


class NoOrderingModel(ModelError):
    """Re-ordering asked of a model folder that holds no ordering model (``order.json``):
    ``what`` says so, the message adds what to give instead (the API's keywords; a command
    names its options)."""

    def __init__(self, what: str) -> None:
        self.what = what
        super().__init__(f"{what}: give one (order=), or only delete (delete=, delete_parens=)")


def order_path(name: str | Path) -> str:
    """An ordering model's path without suffix, as the user wrote it (``./m/order`` keeps its
    ``./``, for messages): ``order`` inside a folder or a bundled punctuation model (``en`` ->
    the ``order.json``/``order.npz`` shipped beside it), else ``name`` itself
    (``models/order-en`` for ``models/order-en.json`` and ``.npz``)."""
    folder, typed = model_path(name), os.fspath(name)
    if folder.is_dir():
        return os.path.join(typed if folder == Path(name) else os.fspath(folder), "order")
    return typed[:len(typed) - len(Path(typed).suffix)]


def _head_index(family: Family) -> int:
    return next(j for j, item in enumerate(family.items) if item.rel == HEAD)


@dataclass
class _Design:
    """Every choice of the observed orders: one row per candidate, rows of a step together."""

    matrix: sparse.csr_matrix   # candidates × features, 0/1
    offsets: np.ndarray         # start row of every step (and the end)
    chosen: np.ndarray          # row of the observed choice of every step
    features: list[str]


def _design(families: Iterable[Family], min_count: int) -> _Design:
    """The candidate rows of every step but the last (which is forced) of every family."""
    index: dict[str, int] = {}
    counts: list[int] = []
    rows: list[list[int]] = []
    offsets, chosen = [0], []
    for fam in families:
        head = _head_index(fam)
        for t in range(len(fam) - 1):
            prev = _START if t == 0 else fam.items[t - 1].rel
            side = "R" if head < t else "L"
            for j in range(t, len(fam)):  # observed order: items t.. are not placed yet
                if j == t:
                    chosen.append(len(rows))
                ids = []
                for name in _choice_features(fam.items[j], prev, side, fam.head_upos):
                    k = index.setdefault(name, len(index))
                    if k == len(counts):
                        counts.append(0)
                    counts[k] += 1
                    ids.append(k)
                rows.append(ids)
            offsets.append(len(rows))
    keep = np.flatnonzero(np.array(counts, dtype=np.int64) >= min_count)
    remap = np.full(len(counts), -1, dtype=np.int64)
    remap[keep] = np.arange(len(keep))
    names = list(index)
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    cols = []
    for r, ids in enumerate(rows):
        kept = [int(remap[k]) for k in ids if remap[k] >= 0]
        cols.extend(kept)
        indptr[r + 1] = indptr[r] + len(kept)
    matrix = sparse.csr_matrix((np.ones(len(cols)), np.array(cols, dtype=np.int64), indptr),
                               shape=(len(rows), len(keep)))
    return _Design(matrix, np.array(offsets, dtype=np.int64), np.array(chosen, dtype=np.int64),
                   [names[k] for k in keep])


def _objective(theta: np.ndarray, design: _Design, l2: float) -> tuple[float, np.ndarray]:
    """Negative log-likelihood of the observed orders plus (l2 / 2)‖θ‖², and its gradient."""
    scores = design.matrix @ theta
    starts = design.offsets[:-1]
    step_of_row = np.repeat(np.arange(len(starts)), np.diff(design.offsets))
    top = np.maximum.reduceat(scores, starts) if len(starts) else np.zeros(0)
    e = np.exp(scores - top[step_of_row])
    z = np.add.reduceat(e, starts) if len(starts) else np.zeros(0)
    log_z = top + np.log(z)
    nll = float(log_z.sum() - scores[design.chosen].sum()) + 0.5 * l2 * float(theta @ theta)
    residual = e / z[step_of_row]
    residual[design.chosen] -= 1.0
    return nll, design.matrix.T @ residual + l2 * theta


def train_order(families: Iterable[Family], l2: float = 1.0, min_count: int = 2,
                record: dict | None = None, max_iter: int = 500) -> OrderModel:
    """Maximum-likelihood training (L2-regularised, L-BFGS) on observed orders; features
    occurring fewer than ``min_count`` times among the candidates are left out."""
    design = _design(families, min_count)
    if not design.features:
        raise ModelError("no ordering features: the training data has no family of 2+ items")
    result = optimize.minimize(_objective, np.zeros(len(design.features)), args=(design, l2),
                               jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
    record = dict(record or {})
    record.update({"l2": l2, "min_count": min_count, "steps": int(len(design.chosen)),
                   "neg_log_likelihood": float(result.fun), "converged": bool(result.success)})
    return OrderModel(design.features, result.x, record)

