"""Slot lattices: for a surface slot string x, a weighted automaton over underlying strings u
accepting u with weight p_φ(x | u) (DESIGN §3, "Slot lattices").

Built as the composition of the channel's scan machine (every arc's input relabelled to the
arc's own index) with the acceptor of x, trimmed; its input side is the lattice. The composition
is compiled (:func:`fstpunct.fst._compose.compose_linear`), states and arcs numbered and ordered
exactly as OpenFst's ``compose(machine, acceptor, connect=True)`` numbers them (the tests check
it against OpenFst), so everything built on it is bitwise what it was. What remains is a
:class:`Topology` — states and arcs, each arc remembering which
channel arc (and so which edit φ[a, b, e]) it is. It depends only on x and the channel's
structure, so it is cached per distinct surface string; weighting it by the current φ gives a
:class:`Lattice` of matrices M(υ), start vector λ and final vector ρ (the ``$`` arcs).

For a right-to-left channel the scan machine reads reversed strings; its lattice over reversed u
with (λ′, M′, ρ′) is turned around as λ = ρ′, M(υ) = M′(υ)ᵀ, ρ = λ′, so every lattice here
reads u in natural order.

The tree DP needs M(l) = M(l₁)⋯M(lₘ) for every puncteme l, applied to vectors:
:func:`product_stack` builds them all at once as a sparse :class:`~fstpunct.dp.stacks.Stack`
(every suffix of every l, level by level), and :class:`EditCounter` turns the DP's gradients with
respect to them (outer products) into expected counts of the channel's arcs.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..dp import _sparse
from ..dp.semiring import MaxProduct, SumProduct
from ..dp.sparse import pointers
from ..dp.stacks import SparseStack
from ..errors import FstpunctError
from . import _compose
from .channel import FINAL_STATE, Channel, ScanArc

if TYPE_CHECKING:  # the readable tree DP, the tests' oracle: decode does not import it
    from ..dp.treedp import Outer

__all__ = ["BlockClosures", "EditCounter", "Lattice", "LatticeBuilder", "Topology", "product_stack",
           "product_stacks"]


@dataclass(frozen=True, eq=False)
class Topology:
    """A trimmed lattice's shape in scan order: arcs (src, dst, channel arc index, token index;
    token -1 = the end mark ``$``), the start state and the number of states."""

    n_states: int
    start: int
    src: np.ndarray
    dst: np.ndarray
    arc: np.ndarray
    token: np.ndarray
    reverse: bool


@dataclass(eq=False)
class Lattice:
    """A weighted slot lattice in natural reading order, in one semiring (sum or max): its token
    arcs (parallel ones combined) sorted by token, then source and target state."""

    start: np.ndarray
    final: np.ndarray
    token: np.ndarray  # each arc's token (uint16 as built, or any integer type, as src and dst)
    src: np.ndarray  # M(token)[src, dst] = weight
    dst: np.ndarray
    weight: np.ndarray
    maximum: bool = False

    @property
    def size(self) -> int:
        return len(self.start)

    @cached_property
    def _products(self) -> dict[tuple[int, ...], np.ndarray]:
        return {(): np.eye(self.size)}

    def matrix(self, puncteme: Sequence[int]) -> np.ndarray:
        """M(l): the product of the token matrices of ``puncteme`` (identity for ε), cached."""
        key = tuple(puncteme)
        done = len(key)  # the longest cached prefix; () always is
        while key[:done] not in self._products:
            done -= 1
        result = self._products[key[:done]]
        for k in range(done, len(key)):  # extend it one token at a time
            last = self.token_matrix(key[k])
            if k == 0:  # I · M(υ) = M(υ) exactly, in both semirings
                result = last
            elif not result.any():
                result = np.zeros_like(result)
            elif self.maximum:
                result = MaxProduct.matmul(result, last)
            else:
                result = result @ last
            self._products[key[:k + 1]] = result
        return result

    def token_matrix(self, token: int) -> np.ndarray:
        """M(token) as a dense array (:meth:`matrix` of a one-token puncteme, not cached)."""
        out = np.zeros((self.size, self.size))
        arcs = self.token == token
        out[self.src[arcs], self.dst[arcs]] = self.weight[arcs]
        return out

    def closure(self, rate: float, exclude: int) -> np.ndarray:
        """Σ over every token string l of rate^|l| · M(l), tokens ``exclude`` left out: the
        geometric backoff over punctemes. Sum semiring: (I − rate·A)⁻¹ with A = Σ_υ M(υ);
        max semiring: the best such path, the Kleene star of A (Floyd–Warshall: every cycle
        has weight < 1, so best paths are simple)."""
        return _star(self.backoff_arcs(rate, exclude), self.maximum)

    def backoff_arcs(self, rate: float, exclude: int) -> np.ndarray:
        """rate · A as a dense matrix (A = ⊕_υ M(υ), tokens ``exclude`` left out; compiled:
        :meth:`backoff_arcs_reference`'s values bitwise)."""
        token, src, dst = (np.asarray(x, dtype=np.uint16) for x in (self.token, self.src,
                                                                    self.dst))
        return _sparse.backoff_arcs(self.size, token, src, dst,
                                    np.asarray(self.weight, dtype=np.float64), rate, exclude,
                                    self.maximum)

    def backoff_arcs_reference(self, rate: float, exclude: int) -> np.ndarray:
        """:meth:`backoff_arcs` by numpy's ``ufunc.at`` (the tests' oracle)."""
        n = self.size
        a = np.zeros(n * n)  # flat: ufunc.at is much faster on one index array
        keep = self.token != exclude
        at = self.src[keep].astype(np.intp) * n + self.dst[keep]
        (np.maximum if self.maximum else np.add).at(a, at, rate * self.weight[keep])
        return a.reshape(n, n)


def _star(a: np.ndarray, maximum: bool) -> np.ndarray:
    """The closure of a dense rate · A: (I − a)⁻¹, or the max-times Kleene star of a."""
    eye = np.eye(len(a))
    if not maximum:
        return np.linalg.inv(eye - a)
    star = np.maximum(eye, a)  # best paths through no intermediate state ...
    _sparse.max_star(star)  # ... then through states < k + 1, for k = 0, 1, ...
    return star


class BlockClosures:
    """Sum closures (I − rate·A)⁻¹ of :meth:`Lattice.closure` computed block by block, for
    decoding (results/speed-history.md, "Decode's slot stage: session 2026-11-29 06:32–09:32"). A
    slot lattice's graph is acyclic between surface positions, so in the topological order of
    its strongly connected components (:func:`~fstpunct.dp._sparse.strong_components`: one per
    position, ~49 states each, and the start) a = rate·A is block upper triangular, and so is
    X = (I − a)⁻¹: with a component k and R the components after it, X_kk = (I − a_kk)⁻¹ and
    X_kR = X_kk a_kR X_RR, filled in from the last component to the first. The diagonal
    blocks' inverses are kept per block (every position of every string has the same one).
    The same matrix in exact arithmetic, associated otherwise than LAPACK's whole inverse:
    last-bit differences (the tests compare the two). Max closures are
    :meth:`Lattice.closure`'s (Floyd–Warshall already skips what is 0 there)."""

    def __init__(self) -> None:
        self._diagonal: dict[bytes, np.ndarray] = {}

    def of(self, lattice: Lattice, rate: float, exclude: int) -> np.ndarray:
        """The closure of ``lattice`` (as :meth:`Lattice.closure`'s arguments)."""
        if lattice.maximum:
            return lattice.closure(rate, exclude)
        a = lattice.backoff_arcs(rate, exclude)
        order, offsets = _sparse.strong_components(a)
        a = a.take(order, 0).take(order, 1)  # block upper triangular
        x = np.zeros_like(a)
        bounds = offsets.tolist()
        for lo, hi in zip(bounds[-2::-1], bounds[:0:-1]):  # the last component first
            x[lo:hi, lo:hi] = inverse = self._block(a[lo:hi, lo:hi])
            arcs = np.flatnonzero(a[lo:hi, hi:].any(axis=0))
            if len(arcs):  # where the component's arcs out go, then X_RR's rows there
                reach = slice(hi, hi + arcs[-1] + 1)
                x[lo:hi, hi:] = inverse @ (a[lo:hi, reach] @ x[reach, hi:])
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return x.take(rank, 0).take(rank, 1)

    def _block(self, a: np.ndarray) -> np.ndarray:
        key = a.tobytes()
        inverse = self._diagonal.get(key)
        if inverse is None:
            inverse = self._diagonal[key] = _star(a, False)
        return inverse


class LatticeBuilder:
    """Builds lattices for one channel structure; topologies cached per surface string (unless
    ``cache`` is false: for a caller that weights each string's topology once, as decoding
    does through its :class:`~fstpunct.model.punct.SlotCache`, which keeps the lattices).

    With ``hidden`` symbols, a lattice of x accepts u with weight Σ p_φ(x′ | u) over every x′
    that is x once the hidden symbols are deleted (the acceptor of x gets a loop of each hidden
    symbol at every state): the probability of what a reader sees, e.g. without ``∘``."""

    def __init__(self, channel: Channel, hidden: frozenset[str] = frozenset(),
                 cache: bool = True) -> None:
        self.channel = channel
        self.hidden = hidden
        self.cache = cache
        self._arcs = channel.arc_table()
        self._symbols = {s: k for k, s in enumerate(channel.symbols)}
        self._machine = self._sorted_machine()
        self._topologies: dict[tuple[str, ...], Topology] = {}
        # per surface string: the punctemes and excluded token it was made for, and the layout
        self._layouts: dict[tuple[str, ...], tuple[Sequence[tuple[int, ...]], int, _Layout]] = {}
        self._has_param = self._arcs.param[:, 0] >= 0
        self._param_index = tuple(self._arcs.param[self._has_param].T)
        self._arc_token = np.ascontiguousarray(self._arcs.ilabel, dtype=np.intp)

    def rebound(self, channel: Channel) -> LatticeBuilder:
        """A builder for ``channel`` that shares this one's topologies when the two machines
        have the same arcs (φ may differ but not where it is 0), as along EM."""
        builder = LatticeBuilder(channel, self.hidden)
        same = (channel.symbols, channel.direction) == (self.channel.symbols,
                                                         self.channel.direction)
        if same and builder._arcs == self._arcs:
            builder._topologies, builder._layouts = self._topologies, self._layouts
        return builder

    @cached_property
    def channel_arcs(self) -> list[ScanArc]:
        """The channel's scan arcs; a topology's ``arc`` entries index this list."""
        return self.channel.arcs()

    @property
    def n_arcs(self) -> int:
        """The number of the channel's scan arcs (:meth:`~fstpunct.fst.channel.Channel.arcs`),
        which a topology's ``arc`` entries index."""
        return len(self._arcs.src)

    def _sorted_machine(self) -> tuple[np.ndarray, ...]:
        """The scan machine as :func:`~fstpunct.fst._compose.compose_linear` takes it: each
        state's arcs (offsets), stably sorted by output label (0: ε, else 1 + symbol index),
        with their output labels, indices and targets."""
        src, dst = self._arcs.src, self._arcs.dst
        olabel = self._arcs.olabel + 1  # 0: ε
        order = np.lexsort((olabel, src))  # stable: by state, then output label
        n_states = 1 + max(int(src.max()), int(dst.max()))
        ptr = np.searchsorted(src[order], np.arange(n_states + 1)).astype(np.intp)
        return ptr, olabel[order], order.astype(np.intp), dst[order]

    def topology(self, surface: Sequence[str]) -> Topology:
        key = tuple(surface)
        topo = self._topologies.get(key)
        if topo is None:
            topo = self._compose(key)
            if self.cache:
                self._topologies[key] = topo
        return topo

    def counter_layout(self, surface: Sequence[str], punctemes: Sequence[tuple[int, ...]],
                       exclude: int) -> _Layout:
        """The φ-free part of an :class:`EditCounter` of ``surface``, cached with its
        topology."""
        key = tuple(surface)
        cached = self._layouts.get(key)
        if cached is not None and cached[1] == exclude and cached[0] == punctemes:
            return cached[2]
        layout = _Layout.of(self.topology(key), len(self.channel.symbols), punctemes, exclude)
        self._layouts[key] = (punctemes, exclude, layout)
        return layout

    def _compose(self, surface: tuple[str, ...]) -> Topology:
        reverse = self.channel.direction == "rtl"
        scan = surface[::-1] if reverse else surface
        for tok in scan:
            if tok not in self._symbols:
                raise FstpunctError(f"surface token {tok!r} is not in the channel's alphabet")
        # the acceptor of the scanned string, each hidden symbol looping at every position;
        # each position's arcs stably sorted by label (as pynini sorts them for OpenFst)
        loops = sorted(1 + self._symbols[tok] for tok in self.hidden)
        labels, targets, ptr = [], [], [0]
        for k in range(len(scan) + 1):
            arcs = sorted(([(1 + self._symbols[scan[k]], k + 1)] if k < len(scan) else []) +
                          [(label, k) for label in loops], key=lambda arc: arc[0])
            labels += [label for label, _ in arcs]
            targets += [nxt for _, nxt in arcs]
            ptr.append(len(labels))
        n, src_a, dst_a, arcs = _compose.compose_linear(
            *self._machine, FINAL_STATE, np.array(ptr, dtype=np.intp),
            np.array(labels, dtype=np.intp), np.array(targets, dtype=np.intp))
        if not n:
            raise FstpunctError(f"the channel cannot produce the slot string {' '.join(surface)!r}")
        # The final state is reached only by `$` arcs, which fold into the final vector: drop it
        # (the start kept as state 0; compiled)
        kept, src, dst, token = _compose.without_final(n, src_a, dst_a, arcs, self._arc_token)
        return Topology(kept, 0, src, dst, arcs, token, reverse)

    def edit_totals(self, arc_counts: np.ndarray) -> np.ndarray:
        """Counts per channel arc summed into counts per edit φ[a, b, e]."""
        out = np.zeros(self.channel.phi.shape)
        np.add.at(out, self._param_index, arc_counts[self._has_param])
        return out

    def arc_weights(self) -> np.ndarray:
        """Probability of every channel arc under the current φ (1 for parameter-free arcs)."""
        weights = np.ones(self.n_arcs)
        weights[self._has_param] = self.channel.phi[self._param_index]
        return weights

    def lattice(self, surface: Sequence[str], weights: np.ndarray,
                maximum: bool = False) -> Lattice:
        """Weight the topology of ``surface`` by channel-arc probabilities ``weights``."""
        return self.lattices(surface, weights, [maximum])[0]

    def lattices(self, surface: Sequence[str], weights: np.ndarray,
                 kinds: Sequence[bool]) -> list[Lattice]:
        """:meth:`lattice` in every semiring of ``kinds`` (True: max), all with the same arcs."""
        topo = self.topology(surface)
        n = topo.n_states
        w = weights[topo.arc]
        ends = np.flatnonzero(topo.token < 0)
        src, dst = (topo.dst, topo.src) if topo.reverse else (topo.src, topo.dst)
        # parallel arcs combined, sorted by token, source and target, the ends left out
        # (compiled)
        token, a_src, a_dst, combined = _sparse.combine_arcs(
            n, topo.token, src, dst, w, np.array(kinds, dtype=np.uint8))
        out = []
        for maximum, weight in zip(kinds, _distinct_rows(combined)):
            start = np.zeros(n)
            start[topo.start] = 1.0
            final = (MaxProduct if maximum else SumProduct).scatter(topo.src[ends], w[ends], n)
            if topo.reverse:
                start, final = final, start
            out.append(Lattice(start, final, token, a_src, a_dst, weight, maximum))
        return out


def _distinct_rows(values: np.ndarray) -> list[np.ndarray]:
    """The rows of ``values``: one array for them all where every row is bitwise the first (a
    lattice without parallel arcs has the same weights in both semirings: half the memory, for
    a slot cache that keeps its lattices for the whole run; read-only, so that no write meant
    for one semiring changes the other's), else the rows as they are."""
    bits = values.view(np.uint64)
    if len(values) < 2 or not all(np.array_equal(bits[0], row) for row in bits[1:]):
        return list(values)
    shared = values[0].copy()
    shared.flags.writeable = False
    return [shared] * len(values)


# --- products of token matrices as sparse stacks -------------------------------------------------

@dataclass(frozen=True, eq=False)
class _Plan:
    """How to build M(s) for a list of token strings through all their suffixes, level by level
    (the same for every lattice): level d holds the suffixes of length d, string q of it being
    token ``heads[q]`` then string ``parents[q]`` of level d − 1 (indices within levels, flat
    over levels; level 0 is ε); ``wanted[a]`` is the flat index of the a-th string asked for."""

    level_offsets: np.ndarray
    heads: np.ndarray
    parents: np.ndarray
    wanted: np.ndarray

    @cached_property
    def _levels(self) -> tuple[np.ndarray, np.ndarray]:
        """Every string's level and the flat index of its parent (once per plan: a cached plan
        is restricted at every slot build)."""
        offsets = self.level_offsets
        level_of = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        return level_of, offsets[np.maximum(level_of - 1, 0)] + self.parents

    def restricted(self, only: np.ndarray) -> _Plan:
        """The plan of the strings ``only`` (indices into those asked for) alone: every level
        keeps the suffixes of those strings, in the same order."""
        offsets = self.level_offsets
        level_of, parent = self._levels
        keep = np.zeros(offsets[-1], dtype=bool)
        keep[0] = True
        keep[self.wanted[only]] = True
        for d in range(len(offsets) - 2, 0, -1):  # the deepest level first
            level = slice(offsets[d], offsets[d + 1])
            keep[parent[level][keep[level]]] = True
        rank = np.cumsum(keep) - 1  # new flat index of every kept string
        counts = np.add.reduceat(keep.astype(np.intp), offsets[:-1])
        new_offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
        parents = np.where(level_of > 0, rank[parent] - new_offsets[np.maximum(level_of - 1, 0)],
                           0)
        levels = int(np.flatnonzero(counts)[-1]) + 1  # no empty levels at the end
        return _Plan(new_offsets[:levels + 1], self.heads[keep], parents[keep].astype(np.intp),
                     rank[self.wanted[only]].astype(np.intp))


@lru_cache(maxsize=32)
def _plan(strings: tuple[tuple[int, ...], ...]) -> _Plan:
    closed = {s[k:] for s in strings for k in range(len(s) + 1)} | {()}
    index: dict[tuple[int, ...], int] = {}
    levels: list[list[tuple[int, ...]]] = [[()]]
    for d in range(1, max(map(len, strings), default=0) + 1):
        levels.append(sorted(s for s in closed if len(s) == d))
    flat = [s for level in levels for s in level]
    for level in levels:
        index.update((s, i) for i, s in enumerate(level))
    offsets = np.cumsum([0] + [len(level) for level in levels])
    at = {s: q for q, s in enumerate(flat)}
    return _Plan(offsets.astype(np.intp), np.array([s[0] if s else 0 for s in flat], np.intp),
                 np.array([index[s[1:]] if s else 0 for s in flat], np.intp),
                 np.array([at[s] for s in strings], np.intp))


def _string_products(lattices: Sequence[Lattice], strings: Sequence[tuple[int, ...]],
                     extras: Sequence[Sequence[np.ndarray]], transpose: bool = False,
                     only: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """The CSR rows (ptr, col, val) of the stack of M(s) for the strings s = ``strings[a]``
    (M(ε) = I; ``only``: for a in ``only`` alone, the other matrices 0), or of M(s)ᵀ with
    ``transpose``, then the ``extras`` (per lattice, the same number), in every one of
    ``lattices`` (the same arcs, weighted in their own semirings; ``val[k]`` in lattice k): row
    r of M(t·s) is the ⊕ of the rows r′ of M(s) scaled by M(t)[r, r′], built for all suffixes
    level by level (compiled, all lattices in one pass)."""
    lattice = lattices[0]
    n = lattice.size
    plan = _plan(tuple(s[::-1] for s in strings) if transpose else tuple(strings))
    place = np.arange(len(strings), dtype=np.intp)
    if only is not None:
        plan, place = plan.restricted(only), np.asarray(only, dtype=np.intp)
    if len(plan.level_offsets) > 2:  # strings of tokens: their arcs
        arc_ptr, dst, weight = _token_arcs(lattices, plan, transpose)
    else:  # only ε (or only the extras, as for a slot of token chains): no arc is read
        arc_ptr, dst = np.zeros(1, dtype=np.intp), np.zeros(0, dtype=np.intp)
        weight = np.zeros((len(lattices), 0))
    maximum = np.array([lat.maximum for lat in lattices], dtype=np.uint8)
    extra = np.empty((len(extras[0]), len(lattices), n, n))  # (extra, lattice, n, n)
    for k, matrices in enumerate(extras):
        for e, matrix in enumerate(matrices):
            extra[e, k] = matrix
    return _sparse.string_products(
        n, arc_ptr, dst, weight, plan.level_offsets, plan.heads,
        plan.parents, plan.wanted, maximum, place, len(strings), extra)


def _token_arcs(lattices: Sequence[Lattice], plan: _Plan,
                transpose: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The arcs as :func:`~fstpunct.dp._sparse.string_products` reads them: where each
    (token, source) run of the arcs sorted by token, source and target begins, their targets
    and their weights in every lattice (of the transposed matrices with ``transpose``)."""
    lattice = lattices[0]
    n = lattice.size
    token, src, dst = (x.astype(np.intp) for x in (lattice.token, lattice.src, lattice.dst))
    weight = np.array([lat.weight for lat in lattices], dtype=float)
    if transpose:  # Mᵀ(s) = Mᵀ(s_m)⋯Mᵀ(s_1): reversed strings over reversed arcs
        src, dst = dst, src
        order = np.lexsort((dst, src, token))
        token, src, dst = token[order], src[order], dst[order]
        weight = np.ascontiguousarray(weight[:, order])  # (numpy gives two rows F-ordered)
    n_tokens = int(max(token.max(initial=-1), plan.heads.max(initial=-1))) + 1
    # where each (token, source) run of the sorted arcs begins: the arcs before it
    return pointers(token * n + src, n_tokens * n), dst, weight


def product_stack(lattice: Lattice, strings: Sequence[tuple[int, ...]],
                  extra: Sequence[np.ndarray] = (), transpose: bool = False) -> SparseStack:
    """M(s) = M(s₁)⋯M(s_m) (M(ε) = I) for every token string s, or their transposes, then any
    extra matrices, as a :class:`~fstpunct.dp.stacks.SparseStack` in the lattice's semiring."""
    return product_stacks([lattice], strings, [extra], transpose)[0]


def product_stacks(lattices: Sequence[Lattice], strings: Sequence[tuple[int, ...]],
                   extras: Sequence[Sequence[np.ndarray]], transpose: bool = False,
                   only: np.ndarray | None = None) -> list[SparseStack]:
    """:func:`product_stack` of each of ``lattices`` (the same arcs in their own semirings, as
    the sum and max lattices of a surface string) with its ``extras``, computed in one pass;
    with ``only`` (ascending indices into ``strings``), M(s) only for those strings, the other
    matrices 0 (each M(s) computed exactly as in the whole stack).
    The stacks share their index arrays (and their transposes': see
    :meth:`~fstpunct.dp.stacks.SparseStack.family`): an extra matrix is stored on the union of its
    nonzeros in every lattice, an explicit 0 where one of them has none (sum and max closures
    have the same nonzeros)."""
    ptr, col, val = _string_products(lattices, strings, extras, transpose, only)
    return SparseStack.family(len(strings) + len(extras[0]), lattices[0].size, ptr, col, val)


class _Positions(NamedTuple):
    """Token positions k of punctemes l, sorted by token: l, lₖ, and the index of l_<k among
    the prefixes and of l_>k among the suffixes (-1 where that side is not needed)."""

    puncteme: np.ndarray
    token: np.ndarray
    prefix: np.ndarray
    suffix: np.ndarray

    @classmethod
    def of(cls, punctemes: Sequence[tuple[int, ...]], pos: list[tuple[int, int]],
           prefixes: dict[tuple[int, ...], int],
           suffixes: dict[tuple[int, ...], int]) -> _Positions:
        pos = sorted(pos, key=lambda ak: punctemes[ak[0]][ak[1]])
        return cls(np.array([a for a, _ in pos], dtype=np.intp),
                   np.array([punctemes[a][k] for a, k in pos], dtype=np.intp),
                   np.array([prefixes.get(punctemes[a][:k], -1) for a, k in pos], dtype=np.intp),
                   np.array([suffixes.get(punctemes[a][k + 1:], -1) for a, k in pos],
                            dtype=np.intp))


class _Layout(NamedTuple):
    """What an :class:`EditCounter` needs that depends on its slot's topology and the
    punctemes only (not on φ): built once per surface string, kept along EM."""

    topology: Topology
    ends: np.ndarray
    arcs: np.ndarray
    tok: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    boundary: np.ndarray
    prefixes: list[tuple[int, ...]]
    suffixes: list[tuple[int, ...]]
    passes: tuple[np.ndarray, ...]  # the index arrays _sparse.edit_gradients takes

    @classmethod
    def of(cls, topo: Topology, n_tokens: int, punctemes: Sequence[tuple[int, ...]],
           exclude: int) -> _Layout:
        ends = np.flatnonzero(topo.token < 0)
        # token arcs in natural reading order, sorted by token
        arcs = np.flatnonzero(topo.token >= 0)
        arcs = arcs[np.argsort(topo.token[arcs], kind="stable")]
        src, dst = (topo.dst, topo.src) if topo.reverse else (topo.src, topo.dst)
        tok, src, dst = (x[arcs] for x in (topo.token, src, dst))
        spots: dict[str, list[tuple[int, int]]] = {"first": [], "last": [], "middle": []}
        for a, l in enumerate(punctemes):
            for k in range(len(l)):
                spots["first" if k == 0 else "last" if k == len(l) - 1 else "middle"].append((a, k))
        prefixes = sorted({punctemes[a][:k] for a, k in spots["last"] + spots["middle"]})
        suffixes = sorted({punctemes[a][k + 1:] for a, k in spots["first"] + spots["middle"]})
        pre = {x: i for i, x in enumerate(prefixes)}
        suf = {x: i for i, x in enumerate(suffixes)}
        first, last, middle = (_Positions.of(punctemes, spots[x], pre, suf)
                               for x in ("first", "last", "middle"))
        tokens = np.arange(n_tokens + 1)
        # in the order _sparse.edit_gradients takes them: token arcs (per-token offsets, source,
        # target); first positions and last positions (per-token offsets, puncteme, suffix or
        # prefix); middle positions (token, puncteme, prefix, suffix)
        passes = tuple(np.ascontiguousarray(x, dtype=np.intp) for x in (
            np.searchsorted(tok, tokens), src, dst,
            np.searchsorted(first.token, tokens), first.puncteme, first.suffix,
            np.searchsorted(last.token, tokens), last.puncteme, last.prefix,
            middle.token, middle.puncteme, middle.prefix, middle.suffix))
        return cls(topo, ends, arcs, tok, src, dst, np.flatnonzero(tok == exclude), prefixes,
                   suffixes, passes)


class EditCounter:
    """Expected counts of the channel arcs used in one slot (sum semiring), given ∂log Z with
    respect to the slot's puncteme matrices M(l) (l in ``punctemes``) and their backoff
    closure K as rank-one terms (:class:`~fstpunct.dp.treedp.Outer` over a stack holding M(l) for
    every l, then K), and ∂log Z with respect to its start and final vectors.

    An arc of token υ and weight w from s to t counts w·G_υ[s, t], G_υ = ∂log Z/∂M(υ).
    ∂/∂M(l) = p qᵀ puts (M(l_<k)ᵀ p)(M(l_>k) q)ᵀ into G_υ for every position k with lₖ = υ
    (sparse products over the stacks of all prefixes and suffixes of V). First positions share
    M(ε)ᵀp = p and last ones share q, so those add up to one p ⊗ b_υ and one f_υ ⊗ q per token;
    only the middle positions of punctemes of 3+ tokens are paired with υ's arcs one by one.
    ∂/∂K = p qᵀ puts rate·(Kᵀp)(Kq)ᵀ into G_υ for every token υ but ``exclude``. Each term
    is one compiled pass over the slot's arcs (:func:`fstpunct.dp._sparse.edit_gradients`, all
    terms of a slot in one call)."""

    def __init__(self, builder: LatticeBuilder, surface: Sequence[str], weights: np.ndarray,
                 lattice: Lattice, punctemes: Sequence[tuple[int, ...]], closure: np.ndarray,
                 rate: float, exclude: int) -> None:
        layout = builder.counter_layout(surface, punctemes, exclude)
        topo = layout.topology
        self._topology, self._n_arcs = topo, builder.n_arcs
        self._n_states = topo.n_states  # = lattice.size
        self._weights = weights[topo.arc]
        self._closure, self._rate = closure, rate
        self._ends, self._arcs = layout.ends, layout.arcs
        self._tok, self._src, self._dst = layout.tok, layout.src, layout.dst
        self._boundary = layout.boundary
        self._exclude = exclude  # the token the closure does not reach
        self._lattice, self._punctemes = lattice, punctemes
        self._prefixes = product_stack(lattice, layout.prefixes, transpose=True)
        self._suffixes = product_stack(lattice, layout.suffixes)
        self._layout = layout.passes

    def counts(self, terms: Sequence[Outer], grad_start: np.ndarray, grad_final: np.ndarray,
               grad_prefix: np.ndarray | None = None) -> np.ndarray:
        """Expected count of every channel arc; ``grad_prefix`` is ∂log Z/∂M(∘) in slot 0."""
        rows = list(_rank_one(terms))
        n = self._n_states
        coef = np.array([c for c, _, _ in rows], dtype=float).reshape(len(rows), -1) if rows \
            else np.zeros((0, 1))
        p, q = (np.array([row[k] for row in rows], dtype=float).reshape(len(rows), n)
                for k in (1, 2))
        return self.term_counts(coef, p, q, grad_start, grad_final, grad_prefix)

    def term_counts(self, coef: np.ndarray, p: np.ndarray, q: np.ndarray,
                    grad_start: np.ndarray, grad_final: np.ndarray,
                    grad_prefix: np.ndarray | None = None) -> np.ndarray:
        """:meth:`counts` of the terms ∂log Z/∂M(l) = coef[r, l] · p[r] q[r]ᵀ (rows r; the
        closure's coefficient last), all at once, term by term in one compiled pass (each
        term's products with the prefixes' and suffixes' stacks made there, only for those
        its nonzero coefficients use)."""
        grad = np.zeros(len(self._tok))
        if len(coef):
            p, q, coef = (np.ascontiguousarray(x, dtype=float) for x in (p, q, coef))
            closure = np.ascontiguousarray(coef[:, -1] * self._rate)
            kp, kq = p @ self._closure, q @ self._closure.T  # Kᵀp and Kq
            pre, suf = self._prefixes.rows, self._suffixes.rows
            _sparse.edit_gradients(grad, coef, p, q, pre.indptr, pre.indices, pre.data,
                                   suf.indptr, suf.indices, suf.data, closure,
                                   np.ascontiguousarray(kp), np.ascontiguousarray(kq),
                                   self._exclude, self._n_states, *self._layout)
        return self._arc_counts(grad, grad_start, grad_final, grad_prefix)

    def term_counts_reference(self, coef: np.ndarray, p: np.ndarray, q: np.ndarray,
                              grad_start: np.ndarray, grad_final: np.ndarray,
                              grad_prefix: np.ndarray | None = None) -> np.ndarray:
        """:meth:`term_counts` by dense numpy products, the terms summed per puncteme first
        (:meth:`_dense_gradient`; the tests' oracle: equal up to the order of additions)."""
        grad = np.zeros(len(self._tok))
        if len(coef):
            grad = self._dense_gradient(*(np.asarray(x, dtype=float) for x in (coef, p, q)))
        return self._arc_counts(grad, grad_start, grad_final, grad_prefix)

    def _arc_counts(self, grad: np.ndarray, grad_start: np.ndarray, grad_final: np.ndarray,
                    grad_prefix: np.ndarray | None) -> np.ndarray:
        """Expected arc counts from ∂log Z/∂M(υ) at the token arcs (``grad``, changed) and
        the gradients of the start and final vectors and of M(∘) in slot 0."""
        if grad_prefix is not None:
            src, dst = self._src[self._boundary], self._dst[self._boundary]
            grad[self._boundary] += grad_prefix[src, dst]
        topo = self._topology
        full = np.zeros(len(topo.arc))
        full[self._arcs] = grad
        full[self._ends] = (grad_start if topo.reverse else grad_final)[topo.src[self._ends]]
        return np.bincount(topo.arc, weights=full * self._weights, minlength=self._n_arcs)

    def _dense_gradient(self, coef: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        """∂log Z/∂M(υ)[s, t] at every token arc, the terms summed per matrix first: G_l =
        Σ_r coef[r, l] p_r q_rᵀ, then ∂/∂M(υ) = Σ over the positions k with l_k = υ of
        M(l_<k)ᵀ G_l M(l_>k)ᵀ, and the closure's rate · Kᵀ G_K Kᵀ for every token but the
        excluded one (dense n × n products)."""
        lattice, n = self._lattice, self._n_states
        tokens = np.unique(self._tok)
        grad_of = np.zeros((len(tokens), n, n))
        at = {int(v): k for k, v in enumerate(tokens)}
        used, rows = np.nonzero(coef[:, :-1].T)  # by puncteme: the terms that have it
        bounds = np.searchsorted(used, np.arange(coef.shape[1]))
        for a in np.unique(used):
            puncteme = self._punctemes[a]
            if not any(v in at for v in puncteme):
                continue
            these = rows[bounds[a]:bounds[a + 1]]
            summed = (p[these] * coef[these, a, None]).T @ q[these]
            for k, v in enumerate(puncteme):
                if v in at:
                    term = summed if k == 0 else lattice.matrix(puncteme[:k]).T @ summed
                    if k < len(puncteme) - 1:
                        term = term @ lattice.matrix(puncteme[k + 1:]).T
                    grad_of[at[v]] += term
        these = np.flatnonzero(coef[:, -1])
        if len(these):
            closure = self._closure
            summed = (p[these] * coef[these, -1, None]).T @ q[these]
            summed = self._rate * (closure.T @ summed @ closure.T)
            grad_of[tokens != self._exclude] += summed
        return grad_of[np.searchsorted(tokens, self._tok), self._src, self._dst]


def _rank_one(terms: Sequence[Outer]) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(coef, p, q) with one p and one q per term, splitting terms that have a vector per
    matrix (a sentence without words) into one term per matrix."""
    for t in terms:
        if t.p.ndim == 1 and t.q.ndim == 1:
            yield t.coef, t.p, t.q
            continue
        for a in np.flatnonzero(t.coef):
            coef = np.zeros_like(t.coef)
            coef[a] = t.coef[a]
            yield coef, t.p if t.p.ndim == 1 else t.p[a], t.q if t.q.ndim == 1 else t.q[a]
