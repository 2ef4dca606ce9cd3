"""Exact restoration (no sampling): the distribution of what each slot shows, under the prior.

Given T, every node draws its pair (l, r) independently (:mod:`.sample`), and a slot's
underlying string uᵢ concatenates one side of each of its members (:func:`slot_members`): of
*different* nodes, so uᵢ is a concatenation of independent punctemes, member j's drawn from its
node's marginal mⱼ(l) = (1 − β) Σ_r p_θ(l, r | w) + β q(l) (left side; the right side alike).
The probability that slot i shows the visible string y (x without ∘ and the :data:`HIDDEN`
symbols) is an FST computation in y's slot lattice (:mod:`fstpunct.fst.lattice`: the channel
composed with the acceptor of y, hidden symbols allowed anywhere), over the same matrices the
inside algorithm uses:

    p(yᵢ = y) = λᵀ · [M(∘) in slot 0] · Πⱼ ((1 − β) Σ_l mⱼ′(l) M(l) + β(1 − s) C) · ρ,

mⱼ′ the Attach part of the marginal and C the backoff closure, so even the infinitely many
backoff punctemes are summed exactly.

Which strings y: the **candidates** of a slot are the visible strings that a pruned forward
pass over its members and the channel reaches (:class:`ExactPrior`), each with p̃(y), the part
of p(y) that the pass keeps: a lower bound, and 1 − Σ p̃(y) is exactly the mass
that the candidates' estimates leave out (:attr:`SlotDistribution.rest`), which bounds the error of
every difference of expected losses (:meth:`SlotDistribution.certified`). :meth:`ExactPrior.exact`
replaces the estimates by the exact probabilities above (slower; the tests check both against
brute-force enumeration, and the exact ones against the sampler's frequencies).

Decoders (the loss is the edit distance summed over slots, so a sentence's expected loss is
Σᵢ Rᵢ(yᵢ) exactly, whatever the correlations between slots):

* :func:`slot_decoder`: every slot's candidate of least risk Rᵢ(y) = Σ_y′ p(y′) ed(y, y′):
  the minimum expected loss over every combination of candidates.
* :func:`balanced_decoder`: the least expected loss among the combinations whose paired marks
  (the model's symmetric pairs, e.g. ``( )``, ``“ ”``) balance over the sentence, by a dynamic
  program over slots whose state is the stack of marks still open.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial

import numpy as np

from ...dp.semiring import SumProduct
from ...fst.lattice import LatticeBuilder
from ...model.attach import AttachData
from ...model.punct import PunctModel, SlotCache
from ...model.vocab import Puncteme
from ...ud.slots import BOUNDARY, SlotSentence, slot_members, to_slots
from ...ud.treebank import Sentence
from .._restore import edit_distances, forward, top_entries
from . import HIDDEN, Insertion
from .sample import Visible

__all__ = ["EXACT_DECODERS", "ExactPrior", "ExactRestorer", "Marginals", "SlotDistribution",
           "balanced", "balanced_decoder", "insertions", "forward_reference", "slot_decoder",
           "top_entries_reference"]


@dataclass(frozen=True)
class SlotDistribution:
    """The candidate visible strings of one slot with their probabilities: lower bounds from
    :class:`ExactPrior`'s forward pass, or exact ones (:meth:`ExactPrior.exact`)."""

    strings: tuple[tuple[str, ...], ...]   # most probable first
    heads: tuple[tuple[int, ...], ...]     # per string, the word (1-based) of each token
    probs: np.ndarray

    @property
    def rest(self) -> float:
        """1 − Σ probs: the probability of every string that is not a candidate, plus what the
        estimates of the candidates' probabilities lack (0 for exact ones)."""
        return max(0.0, 1.0 - float(self.probs.sum()))

    def prob(self, y: tuple[str, ...]) -> float:
        """The probability of the string ``y`` (0 if it is not a candidate)."""
        return float(self.probs[self.strings.index(y)]) if y in self.strings else 0.0

    @cached_property
    def distances(self) -> np.ndarray:
        """The edit distance between every two candidates (compiled)."""
        return edit_distances(self.strings)

    @cached_property
    def risks(self) -> np.ndarray:
        """Rᵢ(y) = Σ_y′ p(y′) · ed(y, y′) over the candidates y′, for every candidate y (the
        strings left out add between 0 and :attr:`rest` · ed(y, y*) to a difference of risks;
        see :meth:`certified`)."""
        if len(self.strings) == 1:
            return np.zeros(1)
        return self.distances @ self.probs

    def certified(self, j: int) -> bool:
        """Whether candidate j has the least risk whatever the left-out strings are (by the
        triangle inequality they change R(y) − R(y_j) by at most rest · ed(y, y_j))."""
        gap = self.risks - self.risks[j]
        return bool(np.all(gap + 1e-12 >= self.rest * self.distances[:, j]))


@dataclass(frozen=True, eq=False)
class Marginals:
    """Every node's marginal distributions of one sentence (:meth:`ExactPrior.marginals`):
    row 2t is node t's left side, row 2t + 1 its right side, over the punctemes of V and then
    the backoff closure's coefficient β(1 − s) (which adds β q(l) for every token string l).
    A row is made from the node's Attach probabilities when first read (:meth:`row`): most
    slots need only ε's column (:attr:`empty`)."""

    empty: np.ndarray         # per row, the Attach part of ε's marginal
    offsets: np.ndarray       # node t's candidate rows: offsets[t]:offsets[t + 1]
    pairs: np.ndarray         # per candidate row, its pair of V's pair table
    probs: np.ndarray         # per candidate row, (1 − β) p_θ(l, r | w)
    sides: tuple[np.ndarray, np.ndarray]  # per pair of the table, its l; its r (intp)
    size: int                 # len(V) + 1
    closure: float            # β(1 − s)
    _rows: dict[int, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.empty)

    def row(self, r: int) -> np.ndarray:
        """Row r (do not write to it): (1 − β) Σ_r′ p_θ(l, r′ | w) (left side; the right side
        alike) for every puncteme l of V, then β(1 − s)."""
        out = self._rows.get(r)
        if out is None:
            a, b = self.offsets[r // 2], self.offsets[r // 2 + 1]
            out = np.bincount(self.sides[r % 2][self.pairs[a:b]], self.probs[a:b], self.size)
            out[-1] = self.closure
            self._rows[r] = out
        return out

    def top(self, r: int, add: np.ndarray, floor: float) -> tuple[list[int], list[float]]:
        """The punctemes of V (indices) whose entry of row r plus ``add`` is ≥ ``floor``, the
        largest first, and those sums: :func:`top_entries_reference` of :meth:`row`, compiled
        from the node's Attach probabilities (the row is not made)."""
        t = r // 2
        return top_entries(self.pairs, self.probs, self.sides[r % 2], self.offsets[t],
                           self.offsets[t + 1], add, floor)


Shown = tuple[str, ...]  # a visible slot string
Decoder = Callable[[Sequence[SlotDistribution], Sequence[tuple[str, str]]], list[int]]


def slot_decoder(slots: Sequence[SlotDistribution],
                 pairs: Sequence[tuple[str, str]] = ()) -> list[int]:
    """Per slot, the candidate of least risk (``pairs`` is ignored)."""
    return [int(np.argmin(slot.risks)) if len(slot.strings) > 1 else 0 for slot in slots]


def balanced_decoder(slots: Sequence[SlotDistribution],
                     pairs: Sequence[tuple[str, str]] = (), depth: int = 4) -> list[int]:
    """The combination of candidates of least expected loss Σᵢ Rᵢ(yᵢ) whose marks of
    ``pairs`` (opening, closing) balance: read left to right, each closing mark closes the
    innermost open mark, which must be its partner, and nothing is open at the end. Exact over
    the candidates (a Viterbi pass over slots; state = the open marks, at most ``depth`` deep);
    :func:`slot_decoder`'s choice where no combination balances."""
    closer = {a: b for a, b in pairs}
    opener = {b: a for a, b in pairs}
    # state (open marks, innermost last) -> (total risk, choices so far)
    states: dict[tuple[str, ...], tuple[float, tuple[int, ...]]] = {(): (0.0, ())}
    for slot in slots:
        nxt: dict[tuple[str, ...], tuple[float, tuple[int, ...]]] = {}
        for j, (y, risk) in enumerate(zip(slot.strings, slot.risks.tolist())):
            for stack, (total, choice) in states.items():
                after = _push(stack, y, closer, opener, depth)
                if after is None:
                    continue
                best = nxt.get(after)
                if best is None or total + risk < best[0]:
                    nxt[after] = (total + risk, choice + (j,))
        states = nxt
    done = states.get(())
    return list(done[1]) if done is not None else slot_decoder(slots)


def _push(stack: tuple[str, ...], y: Sequence[str], closer: dict[str, str],
          opener: dict[str, str], depth: int) -> tuple[str, ...] | None:
    """The open marks after reading y, or None if y closes a mark that is not open (or opens
    more than ``depth``). A symmetric mark that is its own partner closes when it is open."""
    for t in y:
        if t in opener and stack and stack[-1] == opener[t]:
            stack = stack[:-1]
        elif t in closer:
            if len(stack) == depth:
                return None
            stack = (*stack, t)
        elif t in opener:
            return None
    return stack


EXACT_DECODERS: dict[str, Decoder] = {"balanced": balanced_decoder, "slot": slot_decoder}


class ExactPrior:
    """Slot distributions (:class:`SlotDistribution`) of depunctuated trees under a
    :class:`PunctModel`'s prior.

    Candidates of a slot: a forward pass over its members in the channel's reading order, each
    drawing any puncteme of V (backoff share included) and the channel reading it
    (:meth:`Channel.distribution` of the pending token and the puncteme), with the state
    (visible tokens written, token pending) so that every way of reaching a state is merged;
    contributions below ``prune`` are dropped (first below ``coarse``, which is much cheaper,
    and again below ``prune`` only where that leaves the least-risk choice uncertain,
    :meth:`SlotDistribution.certified`). The visible strings it reaches with p̃(y) ≥
    ``floor`` are the candidates (ε always). p̃(y) is a lower bound of p(y), and 1 − Σ p̃(y) is
    exactly the mass the candidates leave out (:attr:`SlotDistribution.rest`). :meth:`exact`
    replaces the estimates by exact probabilities (the lattice computation of the module
    docstring; slower).

    A slot whose members all draw ε with probability Π ≥ 1/2 needs no candidates: ε is then
    the least-risk string of all (for |y| ≥ 1, R(y) ≥ R(ε) + |y| (2 p(ε) − 1) by the triangle
    inequality); :meth:`distributions` with ``quick`` gives such a slot ε alone."""

    def __init__(self, model: PunctModel, floor: float = 1e-3, prune: float = 3e-4,
                 coarse: float = 1e-2, hidden: frozenset[str] = HIDDEN) -> None:
        self.model, self.floor, self.prune, self.coarse = model, floor, prune, coarse
        settings, channel = model.settings, model.channel
        self._visible = Visible(channel, hidden)
        self._slots: SlotCache | None = None  # lattices, built when first needed
        self._boundary = channel.index(BOUNDARY)
        pairs = np.asarray(model.vocab.pairs, dtype=np.intp).reshape(-1, 2)
        self._sides = (np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1]))
        self._size = len(model.vocab.punctemes) + 1  # punctemes, then the backoff closure
        self._keep = 1.0 - settings.backoff
        self._closure = settings.backoff * (1.0 - settings.continuation)
        rate = settings.continuation / (len(channel.symbols) - 1)
        lengths = np.array([len(p) for p in model.vocab.punctemes])
        self._backoff = self._closure * rate ** lengths  # β q(l) of every l of V
        self._steps: dict[tuple[str | None, Puncteme],
                          list[tuple[Shown, tuple[bool, ...], str | None, bool, float]]] = {}

    def marginals(self, sentences: Sequence[SlotSentence]) -> list[Marginals]:
        """Per sentence, every node's marginals as the mixture of the lattice computation
        (:class:`Marginals`: the Attach part (1 − β) Σ_r p_θ(l, r | w) for every puncteme l of
        V, then the backoff closure's coefficient β(1 − s)), from one featurisation of all
        ``sentences``."""
        data = AttachData.build(self.model.attach, sentences)
        probs = self._keep * self.model.attach_probabilities(data)
        node_of_row = np.repeat(np.arange(data.n_nodes), np.diff(data.node_offsets))
        # ε's column of every row 2t + side (bincount adds in row order, as a row's own does)
        empty = np.zeros(2 * data.n_nodes)
        for side in (0, 1):
            rows = (self._sides[side] == 0)[data.pairs]
            empty[side::2] = np.bincount(node_of_row[rows], probs[rows], data.n_nodes)
        nodes, offsets = data.node_offsets, np.asarray(data.sentence_offsets)
        return [Marginals(empty[2 * a:2 * b], nodes[a:b + 1], data.pairs, probs, self._sides,
                          self._size, self._closure)
                for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())]

    def distributions(self, trees: Sequence[Sequence[SlotSentence]], quick: bool = False
                      ) -> Iterator[list[SlotDistribution]]:
        """Every sentence's slot distributions (estimated), from its trees ``trees[t][k]`` (one
        list per tree source, every tree of sentence k over the same words): with several
        trees, the equal mixture of theirs (candidates: the union, each string with the heads
        of the first tree that proposes it). ``quick``: ε alone where p(ε) ≥ 1/2."""
        marginals = [self.marginals(ts) for ts in trees]
        for k in range(len(trees[0])):
            yield self.sentence([(ts[k], m[k]) for ts, m in zip(trees, marginals)], quick)

    def sentence(self, trees: Sequence[tuple[SlotSentence, Marginals]],
                 quick: bool | Callable[[int, float], bool] = False,
                 done: dict[int, SlotDistribution] | None = None) -> list[SlotDistribution]:
        """The slot distributions of one sentence from its (tree, :meth:`marginals`) pairs.
        ``quick``: ε alone where p(ε) ≥ 1/2, or, a function of (slot i, a lower bound of its
        p(ε)), where it says so. ``done``: the slots already computed in full for these trees,
        by index (read, and filled with the others)."""
        per_tree = [(s, slot_members(s), m) for s, m in trees]
        empty = np.mean([self._empty(members, m) for _, members, m in per_tree], axis=0)
        alone = quick if callable(quick) else lambda i, p: bool(quick) and p >= 0.5
        out = []
        for i, p_empty in enumerate(empty.tolist()):
            if alone(i, p_empty):
                out.append(SlotDistribution(((),), ((),), np.array([p_empty])))
                continue
            slot = None if done is None else done.get(i)
            if slot is None:
                slot = self._slot(i, per_tree, p_empty, self.coarse)
                if not slot.certified(int(np.argmin(slot.risks))):
                    slot = self._slot(i, per_tree, p_empty, self.prune)
                if done is not None:
                    done[i] = slot
            out.append(slot)
        return out

    def _slot(self, i: int, per_tree: list[tuple[SlotSentence, list[list[tuple[int, int]]],
                                                  Marginals]],
              p_empty: float, prune: float) -> SlotDistribution:
        """Slot i's candidates from a forward pass pruned at ``prune`` in every tree, mixed."""
        # ε: at least the probability that every member draws ε (and a candidate always)
        estimate: dict[Shown, float] = {(): 0.0}
        heads: dict[Shown, tuple[int, ...]] = {(): ()}
        for s, members, m in per_tree:
            p, h = self._candidates(i, s.n, members[i], m, prune)
            for y, q in p.items():
                estimate[y] = estimate.get(y, 0.0) + q / len(per_tree)
                heads.setdefault(y, h[y])
        estimate[()] = max(estimate[()], p_empty)
        kept = [y for y, q in estimate.items() if q >= self.floor or not y]
        kept.sort(key=lambda y: -estimate[y])
        return SlotDistribution(tuple(kept), tuple(heads[y] for y in kept),
                                np.array([estimate[y] for y in kept]))

    def _empty(self, members: list[list[tuple[int, int]]], marginals: Marginals) -> np.ndarray:
        """Per slot, the probability that every member draws ε: u = ε (u = ∘ in slot 0), so
        that the slot shows nothing (a lower bound of p(ε), which also counts outputs of only
        hidden symbols)."""
        rows = np.array([2 * node + side for slot in members for node, side in slot],
                        dtype=np.intp)
        slot_of = np.repeat(np.arange(len(members)), [len(slot) for slot in members])
        with np.errstate(divide="ignore"):
            logs = np.log(marginals.empty[rows] + self._backoff[0])
        return np.exp(np.bincount(slot_of, logs, len(members)))

    def _candidates(self, i: int, n: int, members: list[tuple[int, int]],
                    marginals: Marginals, prune: float) -> tuple[dict[Shown, float],
                                                    dict[Shown, tuple[int, ...]]]:
        """p̃(y) of the visible strings of slot i, and the heads of each on its most probable
        path: a forward pass over the members in the channel's reading order whose state is
        (visible tokens written so far, token pending in the window), merging every way of
        reaching a state; contributions below ``prune`` are dropped (what they would have
        added is what p̃ lacks)."""
        ltr = self.model.channel.direction == "ltr"
        steps: list[tuple[int, list[tuple[Puncteme, float]]]] = [
            (node + 1 if n else 0, self._support(marginals, 2 * node + side, prune))
            for node, side in members]
        if i == 0:
            steps.insert(0, (0, [((BOUNDARY,), 1.0)]))
        states = forward(steps if ltr else steps[::-1], ltr, prune, self._steps, self._step)
        estimate: dict[Shown, float] = {}
        best_path: dict[Shown, tuple[float, tuple[int, ...]]] = {}
        for (written, pending), (p, best, heads, pending_head) in states.items():
            y, y_heads = written, heads
            if pending is not None and pending not in self._visible.hidden:
                y, y_heads = ((*y, pending), (*heads, pending_head)) if ltr else \
                    ((pending, *y), (pending_head, *heads))
            estimate[y] = estimate.get(y, 0.0) + p
            if best > best_path.get(y, (-1.0,))[0]:
                best_path[y] = (best, y_heads)
        return estimate, {y: h for y, (_, h) in best_path.items()}

    def _support(self, marginals: Marginals, r: int, prune: float
                 ) -> list[tuple[Puncteme, float]]:
        """The punctemes of row r whose marginal (backoff share included) is ≥ ``prune``, most
        probable first."""
        punctemes = self.model.vocab.punctemes
        return [(punctemes[a], w) for a, w in zip(*marginals.top(r, self._backoff, prune))]

    def _step(self, pending: str | None, puncteme: Puncteme
              ) -> list[tuple[Shown, tuple[bool, ...], str | None, bool, float]]:
        """The channel reading ``puncteme`` with ``pending`` in the window (cached): per
        outcome, the visible tokens it writes, whether each comes from the pending token (else
        from the puncteme), the token then pending, whether that is the old one, and its
        probability (:meth:`Channel.distribution` of the pending token and the puncteme: what
        it writes last is what stays pending; origins from :meth:`Channel.align`)."""
        key = (pending, puncteme)
        out = self._steps.get(key)
        if out is not None:
            return out
        channel, ltr = self.model.channel, self.model.channel.direction == "ltr"
        old = -1 if pending is None else 0 if ltr else len(puncteme)
        u = puncteme if pending is None else (pending, *puncteme) if ltr else \
            (*puncteme, pending)
        out = []
        repeats, hidden = len(set(u)) < len(u), self._visible.hidden
        for x, q in channel.distribution(u).items():
            if not x:
                out.append(((), (), pending, True, q))
                continue
            at = channel.align(u, x) if repeats else tuple(u.index(t) for t in x)
            last = len(x) - 1 if ltr else 0  # the token written at the end: still pending
            kept = [k for k in range(len(x)) if k != last and x[k] not in hidden]
            out.append((tuple(x[k] for k in kept), tuple(at[k] == old for k in kept), x[last],
                        at[last] == old, q))
        self._steps[key] = out
        return out

    def exact(self, trees: Sequence[tuple[SlotSentence, Marginals]],
              slots: Sequence[SlotDistribution]) -> list[SlotDistribution]:
        """``slots`` (of the sentence of ``trees``, as :meth:`sentence` takes them) with the
        exact probability of every candidate, most probable first."""
        return [self.exact_slot(trees, i, slot) for i, slot in enumerate(slots)]

    def exact_slot(self, trees: Sequence[tuple[SlotSentence, Marginals]], i: int,
                   slot: SlotDistribution) -> SlotDistribution:
        """Slot i of :meth:`exact`."""
        probs = np.mean([[self.probability(y, i, slot_members(s)[i], m) for y in slot.strings]
                         for s, m in trees], axis=0)
        order = np.argsort(-probs, kind="stable")
        return SlotDistribution(tuple(slot.strings[j] for j in order),
                                tuple(slot.heads[j] for j in order), probs[order])

    def probability(self, y: tuple[str, ...], i: int, members: Sequence[tuple[int, int]],
                    marginals: Marginals) -> float:
        """p(yᵢ = y) exactly: the slot lattice of y times every member's mixture."""
        if self._slots is None:
            builder = LatticeBuilder(self.model.channel, frozenset(self._visible.hidden))
            self._slots = SlotCache(self.model, builder, limit=None)
        slot = self._slots.get(y)
        lat = slot.lattice
        v = lat.start
        if i == 0:
            v = v @ lat.matrix((self._boundary,))
        for node, side in members:
            v = marginals.row(2 * node + side) @ slot.stack.apply_t(v, SumProduct)
        return float(v @ lat.final)


class ExactRestorer:
    """Restores punctuation by an exact decoder (:data:`EXACT_DECODERS`) over
    :class:`ExactPrior`'s slot distributions: deterministic, no samples. With alternative
    trees, the distributions are their equal mixture (what sampling splits its samples for).

    Slots where ε is certainly best get no candidates (``quick``); the balanced decoder asks
    for every slot's candidates only when the slot decoder's choice does not balance. With
    ``exact``, a slot whose choice the estimates do not certify
    (:meth:`SlotDistribution.certified`) gets its candidates' exact probabilities first (the
    lattice computation; slow), so every choice is the exact minimum-risk candidate."""

    def __init__(self, model: PunctModel, decoder: str = "slot", floor: float = 1e-3,
                 prune: float = 3e-4, exact: bool = False) -> None:
        self.prior = ExactPrior(model, floor, prune)
        self.decoder, self.exact = decoder, exact
        self.pairs = model.attach.symmetric

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self._settings()}>"

    def _settings(self) -> str:
        """What :meth:`__repr__` says of the decoding."""
        exact = ", exact" if self.exact else ""
        return (f"{self.decoder} decoder{exact}, floor {self.prior.floor:g}, prune "
                f"{self.prior.prune:g}")

    def restore(self, sent: Sentence, alternatives: Sequence[Sentence] = ()) -> list[Insertion]:
        """:meth:`Restorer.restore <fstpunct.apps.restoration.Restorer.restore>`: every slot's
        least-risk punctuation under the exact prior (``decoder``), its distribution averaged
        over ``sent``'s tree and the ``alternatives``."""
        return self.restore_many([sent], [alternatives])[0]

    def restore_many(self, sentences: Sequence[Sentence],
                     alternatives: Sequence[Sequence[Sentence]] | None = None
                     ) -> list[list[Insertion]]:
        """:meth:`restore` of many sentences at once (the Attach model featurises them
        together, which is much faster); ``alternatives[k]``: sentence k's other trees."""
        alternatives = alternatives or [()] * len(sentences)
        trees = [[to_slots(t) for t in (s, *alt)] for s, alt in zip(sentences, alternatives)]
        marginals = iter(self.prior.marginals([t for ts in trees for t in ts]))
        return [insertions(*self.decode([(t, next(marginals)) for t in ts])) for ts in trees]

    def decode(self, trees: Sequence[tuple[SlotSentence, Marginals]]
               ) -> tuple[list[SlotDistribution], list[int]]:
        """The slot distributions of one sentence (from its (tree, marginals) pairs) and the
        decoder's choice of candidate in each."""
        distributions = self.distributions(trees)
        slots = self._certain(trees, distributions(True))
        choice = slot_decoder(slots)
        if self.decoder == "balanced" and not balanced(slots, choice, self.pairs):
            slots = self._certain(trees, distributions(False))
            choice = balanced_decoder(slots, self.pairs)
        return slots, choice

    def distributions(self, trees: Sequence[tuple[SlotSentence, Marginals]]
                      ) -> Callable[[bool], list[SlotDistribution]]:
        """The slot distributions the decoder reads, as a function of ``quick`` (ε alone where
        ε is certainly the least-risk string): :meth:`ExactPrior.sentence`. The decoder may ask
        twice (quick, then all candidates): the slots computed in full by the first call are
        kept for the second."""
        return partial(self.prior.sentence, trees, done={})

    def _certain(self, trees: Sequence[tuple[SlotSentence, Marginals]],
                 slots: list[SlotDistribution]) -> list[SlotDistribution]:
        """``slots`` with exact probabilities where the estimates leave the choice open."""
        if not self.exact:
            return slots
        return [slot if slot.certified(int(np.argmin(slot.risks)))
                else self.prior.exact_slot(trees, i, slot) for i, slot in enumerate(slots)]


def balanced(slots: Sequence[SlotDistribution], choice: Sequence[int],
             pairs: Sequence[tuple[str, str]]) -> bool:
    """Whether the chosen strings' marks of ``pairs`` balance (see :func:`balanced_decoder`)."""
    return balanced_strings([slot.strings[j] for slot, j in zip(slots, choice)], pairs)


def balanced_strings(strings: Sequence[Sequence[str]], pairs: Sequence[tuple[str, str]]
                     ) -> bool:
    """Whether the marks of ``pairs`` in the slot strings ``strings`` balance (see
    :func:`balanced_decoder`)."""
    closer = {a: b for a, b in pairs}
    opener = {b: a for a, b in pairs}
    stack: tuple[str, ...] | None = ()
    for y in strings:
        stack = _push(stack, y, closer, opener, len(strings) + 1)
        if stack is None:
            return False
    return stack == ()


def forward_reference(steps: list[tuple[int, list[tuple[Puncteme, float]]]], ltr: bool,
                      prune: float, cache: dict[tuple[str | None, Puncteme], list],
                      step: Callable[[str | None, Puncteme], list]
                      ) -> dict[tuple[Shown, str | None], list]:
    """The forward pass of :meth:`ExactPrior._candidates` (compiled:
    :func:`~fstpunct.apps._restore.forward`; this is the tests' oracle): ``steps`` in reading
    order, each a member's head and support; ``cache``: the channel's outcomes of (pending
    token, puncteme) so far, ``step`` computes one (:meth:`ExactPrior._step`). The final
    states: (visible tokens written, token pending) -> [probability, best path's
    probability, written's heads, pending's head]."""
    states: dict[tuple[Shown, str | None], list] = {((), None): [1.0, 1.0, (), 0]}
    for head, support in steps:
        nxt: dict[tuple[Shown, str | None], list] = {}
        for (written, pending), (p, best, heads, pending_head) in states.items():
            for puncteme, w in support:
                pw = p * w
                if pw < prune:
                    break
                outcomes = cache.get((pending, puncteme)) or step(pending, puncteme)
                for shown, olds, new, old_new, q in outcomes:
                    mass = pw * q
                    if mass < prune:
                        continue
                    key = (written + shown, new) if ltr else (shown + written, new)
                    got = nxt.get(key)
                    if got is None:
                        got = nxt[key] = [0.0, -1.0, (), 0]
                    got[0] += mass
                    path = best * w * q
                    if path > got[1]:
                        if olds:
                            made = tuple(pending_head if o else head for o in olds)
                            got[2] = heads + made if ltr else made + heads
                        else:
                            got[2] = heads
                        got[1], got[3] = path, pending_head if old_new else head
        states = nxt
    return states


def top_entries_reference(row: np.ndarray, add: np.ndarray, floor: float
                          ) -> tuple[list[int], list[float]]:
    """:meth:`Marginals.top` by numpy from the row (the tests' oracle): the indices k < len(add)
    with row[k] + add[k] ≥ ``floor``, largest first (ties: the smaller k), and those sums."""
    values = row[:len(add)] + add
    top = np.flatnonzero(values >= floor)
    top = top[np.argsort(-values[top], kind="stable")]
    return top.tolist(), values[top].tolist()


def insertions(slots: Sequence[SlotDistribution], choice: Sequence[int]) -> list[Insertion]:
    """The chosen strings as (token, head word) per slot."""
    return [tuple(zip(slot.strings[j], slot.heads[j])) for slot, j in zip(slots, choice)]
