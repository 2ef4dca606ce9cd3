"""An abstaining decoder: the correction model's edits made only where they are likely right.

Under token edit distance an edit of a slot lowers the expected loss only where the edited
string is the corrected one more often than the learner's own. The corrector's slot
probabilities rank its edits but are not calibrated for them (cross-validation: about half of
its MBR edits are right at every edit cost), so the *gate* estimates P(right | edit) by a
logistic regression over what the corrector says about each edit it proposes
(:func:`edit_features`) — fitted on held-out edits, each made by a corrector trained without
its sentence (cross-fitting) — and an edit is made only where that estimate exceeds 1/2
(:data:`THRESHOLD`, where a one-token edit starts to pay; not tuned). The edits of marks that
pair (quotes, brackets) in one sentence pass or fail together, so a pair is never half kept.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...errors import InputError
from ..restoration import Insertion, marks
from ..restoration.exact import SlotDistribution

__all__ = ["FEATURES", "FLOOR", "L2", "THRESHOLD", "edit_features", "examples", "fit", "gated",
           "objective", "probability"]

FEATURES = ("bias", "log p(edit) - log p(learner)", "log p(learner)", "insertion", "deletion",
            "final slot")
FLOOR = 1e-4   # probabilities floored before their logarithms (the combination's floor)
L2 = 1.0       # the regression's L2 on every coefficient but the bias (not tuned)
THRESHOLD = 0.5


def edit_features(slot: SlotDistribution, own: tuple[str, ...], edit: tuple[str, ...],
                  final: bool) -> np.ndarray:
    """The features (:data:`FEATURES`) of replacing the learner's string ``own`` of a slot by
    ``edit``, from the slot's distribution under the corrector; ``final``: the slot after the
    last word."""
    p_edit, p_own = (np.log(max(slot.prob(y), FLOOR)) for y in (edit, own))
    return np.array([1.0, p_edit - p_own, p_own, float(not own), float(not edit),
                     float(final)])


def examples(slots: Sequence[SlotDistribution], own: Sequence[Insertion],
             proposed: Sequence[Insertion], gold: Sequence[tuple[str, ...]]
             ) -> tuple[list[np.ndarray], list[float]]:
    """The features of one sentence's proposed edits and whether each is right (the slot's
    ``gold`` string), for :func:`fit`."""
    x, y = [], []
    last = len(slots) - 1
    for i, (slot, o, p, g) in enumerate(zip(slots, own, proposed, gold, strict=True)):
        mine, theirs = marks(o), marks(p)
        if mine != theirs:
            x.append(edit_features(slot, mine, theirs, i == last))
            y.append(float(theirs == tuple(g)))
    return x, y


def _sigmoid(z: np.ndarray | float) -> np.ndarray | float:
    return 1.0 / (1.0 + np.exp(-z))


def objective(w: np.ndarray, x: np.ndarray, y: np.ndarray, l2: float = L2,
              offset: np.ndarray | float = 0.0) -> tuple[float, np.ndarray]:
    """The penalised negative log-likelihood of labels ``y`` (1: the edit was right) under
    P(right) = σ(x · w + offset), and its gradient (the bias, column 0, is not penalised)."""
    z = x @ w + offset
    nll = float(np.sum(np.logaddexp(0.0, z) - y * z))
    penalty = w.copy()
    penalty[0] = 0.0
    grad = x.T @ (_sigmoid(z) - y) + l2 * penalty
    return nll + 0.5 * l2 * float(penalty @ penalty), grad


def fit(x: np.ndarray, y: np.ndarray, l2: float = L2, iterations: int = 100,
        offset: np.ndarray | float = 0.0) -> np.ndarray:
    """The coefficients minimising :func:`objective` (Newton's method; the objective is
    strictly convex for ``l2`` > 0 once the bias is identified, i.e. with at least one edit;
    ``offset``: a fixed term of every example's logit, e.g. a Platt map's own logit)."""
    if len(x) == 0 or len(x) != len(y):
        raise InputError("the gate needs as many labels as edits (> 0)")
    w = np.zeros(x.shape[1])
    ridge = l2 * np.eye(x.shape[1])
    ridge[0, 0] = 1e-8  # keeps the Hessian invertible when every label is the same
    for _ in range(iterations):
        _, grad = objective(w, x, y, l2, offset)
        p = _sigmoid(x @ w + offset)
        hessian = x.T @ (x * (p * (1.0 - p))[:, None]) + ridge
        step = np.linalg.solve(hessian, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w


def probability(w: Sequence[float], features: np.ndarray) -> float:
    """P(right) of one edit."""
    return float(_sigmoid(float(np.dot(w, features))))


def gated(slots: Sequence[SlotDistribution], own: Sequence[Insertion],
          proposed: Sequence[Insertion], w: Sequence[float], pairs: Sequence[tuple[str, str]]
          ) -> list[Insertion]:
    """One sentence's ``proposed`` corrections with every edit whose P(right) is at most
    :data:`THRESHOLD` undone (the learner's string and heads back); the edits touching a mark
    of ``pairs`` share the least P(right) among them (module docstring)."""
    paired = {m for pair in pairs for m in pair}
    last = len(slots) - 1
    chance: dict[int, float] = {}
    for i, (slot, o, y) in enumerate(zip(slots, own, proposed)):
        mine, theirs = marks(o), marks(y)
        if mine != theirs:
            chance[i] = probability(w, edit_features(slot, mine, theirs, i == last))
    group = [i for i in chance if paired & {*marks(own[i]), *marks(proposed[i])}]
    if group:
        least = min(chance[i] for i in group)
        chance.update({i: least for i in group})
    return [o if chance.get(i, 1.0) <= THRESHOLD else y
            for i, (o, y) in enumerate(zip(own, proposed))]
