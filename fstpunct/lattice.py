"""Slot lattices: for a surface slot string x, a weighted automaton over underlying strings u
accepting u with weight p_φ(x | u) (DESIGN §3, "Slot lattices").

Built by OpenFst composition: the channel's scan machine, with every arc's input relabelled to
the arc's own index, is composed with the acceptor of x and projected onto its input side, then
trimmed. What remains is a :class:`Topology` — states and arcs, each arc remembering which
channel arc (and so which edit φ[a, b, e]) it is. It depends only on x and the channel's
structure, so it is cached per distinct surface string; weighting it by the current φ gives a
:class:`Lattice` of matrices M(υ), start vector λ and final vector ρ (the ``$`` arcs).

For a right-to-left channel the scan machine reads reversed strings; its lattice over reversed u
with (λ′, M′, ρ′) is turned around as λ = ρ′, M(υ) = M′(υ)ᵀ, ρ = λ′, so every lattice here
reads u in natural order.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pynini

from .channel import Channel, ScanArc
from .errors import FstpunctError
from .semiring import MaxProduct

__all__ = ["Lattice", "LatticeBuilder", "Topology"]

END = "$"


@dataclass(frozen=True)
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


@dataclass
class Lattice:
    """A weighted slot lattice in natural reading order, in one semiring (sum or max)."""

    start: np.ndarray
    final: np.ndarray
    tokens: dict[int, np.ndarray]
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
        cached = self._products.get(key)
        if cached is not None:
            return cached
        head = self.matrix(key[:-1])
        last = self.tokens.get(key[-1])
        if last is None or not head.any():
            result = np.zeros_like(head)
        elif self.maximum:
            result = MaxProduct.matmul(head, last)
        else:
            result = head @ last
        self._products[key] = result
        return result

    def possible(self, puncteme: Sequence[int]) -> bool:
        """Whether M(puncteme) ≠ 0: some path reads it (boolean reachability, O(|l|·N²))."""
        reach = np.ones(self.size, dtype=bool)
        for tok in puncteme:
            step = self.tokens.get(tok)
            if step is None:
                return False
            reach = (reach @ (step > 0))
            if not reach.any():
                return False
        return True

    def closure(self, rate: float, exclude: int) -> np.ndarray:
        """Σ over every token string l of rate^|l| · M(l), tokens ``exclude`` left out: the
        geometric backoff over punctemes. Sum semiring: (I − rate·A)⁻¹ with A = Σ_υ M(υ);
        max semiring: the best such path (the Kleene star, reached within size−1 steps since
        every cycle has weight < 1, by repeated squaring)."""
        a = rate * self._token_sum(exclude)
        eye = np.eye(self.size)
        if not self.maximum:
            return np.linalg.inv(eye - a)
        star = np.maximum(eye, a)  # best paths of length ≤ 1; each squaring doubles the length
        for _ in range(max(1, self.size - 1).bit_length()):
            star = MaxProduct.matmul(star, star)
        return star

    def _token_sum(self, exclude: int) -> np.ndarray:
        mats = [m for t, m in self.tokens.items() if t != exclude]
        if not mats:
            return np.zeros((self.size, self.size))
        return np.maximum.reduce(mats) if self.maximum else np.sum(mats, axis=0)

    def closure_grad(self, rate: float, exclude: int, grad: np.ndarray,
                     into: dict[int, np.ndarray]) -> None:
        """Add ∂/∂M(υ) for every token υ ≠ ``exclude``, given ``grad`` = ∂/∂closure (sum only)."""
        k = self.closure(rate, exclude)
        g = rate * (k.T @ grad @ k.T)
        for t in self.tokens:
            if t != exclude:
                into[t] = into.get(t, 0) + g

    def matrix_grad(self, puncteme: Sequence[int], grad: np.ndarray,
                    into: dict[int, np.ndarray]) -> None:
        """Add ∂/∂M(υ) for the tokens of ``puncteme`` given ``grad`` = ∂/∂M(puncteme) (sum only):
        for M(l) = M(l₁)⋯M(lₘ), ∂/∂M(lₖ) = M(l₁..lₖ₋₁)ᵀ · grad · M(lₖ₊₁..lₘ)ᵀ."""
        key = tuple(puncteme)
        for k, tok in enumerate(key):
            g = grad if k == 0 else self.matrix(key[:k]).T @ grad
            if k + 1 < len(key):
                g = g @ self.matrix(key[k + 1:]).T
            into[tok] = into.get(tok, 0) + g


class LatticeBuilder:
    """Builds lattices for one channel structure; topologies cached per surface string."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self._arcs = channel.arcs()
        self._symbols = {s: k for k, s in enumerate(channel.symbols)}
        self._machine = self._relabelled_machine()
        self._topologies: dict[tuple[str, ...], Topology] = {}
        self._has_param = np.array([a.param is not None for a in self._arcs])
        self._param_index = tuple(np.array([a.param for a in self._arcs if a.param is not None]).T)
        self._arc_token = np.array(
            [-1 if a.ilabel == END else self._symbols[a.ilabel] for a in self._arcs])

    @property
    def channel_arcs(self) -> list[ScanArc]:
        """The channel's scan arcs; a topology's ``arc`` entries index this list."""
        return self._arcs

    def _relabelled_machine(self) -> pynini.Fst:
        """The scan machine with input label = 1 + arc index, output = 1 + symbol index."""
        fst = pynini.Fst(arc_type="log")
        n_states = 1 + max(max(a.src, a.dst) for a in self._arcs)
        for _ in range(n_states):
            fst.add_state()
        fst.set_start(0)
        fst.set_final(1)
        one = pynini.Weight.one("log")
        for k, a in enumerate(self._arcs):
            out = 0 if a.olabel is None else 1 + self._symbols[a.olabel]
            fst.add_arc(a.src, pynini.Arc(1 + k, out, one, a.dst))
        return fst.arcsort("olabel")

    def topology(self, surface: Sequence[str]) -> Topology:
        key = tuple(surface)
        topo = self._topologies.get(key)
        if topo is None:
            topo = self._topologies[key] = self._compose(key)
        return topo

    def _compose(self, surface: tuple[str, ...]) -> Topology:
        reverse = self.channel.direction == "rtl"
        scan = surface[::-1] if reverse else surface
        acceptor = pynini.Fst(arc_type="log")
        acceptor.add_states(len(scan) + 1)
        acceptor.set_start(0)
        acceptor.set_final(len(scan))
        one = pynini.Weight.one("log")
        for k, tok in enumerate(scan):
            if tok not in self._symbols:
                raise FstpunctError(f"surface token {tok!r} is not in the channel's alphabet")
            label = 1 + self._symbols[tok]
            acceptor.add_arc(k, pynini.Arc(label, label, one, k + 1))
        lattice = pynini.compose(self._machine, acceptor)
        lattice.project("input")
        lattice.connect()
        if lattice.start() < 0:
            raise FstpunctError(f"the channel cannot produce the slot string {' '.join(surface)!r}")
        src, dst, arc = [], [], []
        for s in lattice.states():
            for a in lattice.arcs(s):
                src.append(s)
                dst.append(a.nextstate)
                arc.append(a.ilabel - 1)
        arcs = np.array(arc, dtype=np.int64)
        token = self._arc_token[arcs]
        src_a, dst_a = np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)
        # The final state is reached only by `$` arcs, which fold into the final vector: drop it.
        keep = np.unique(np.concatenate([[lattice.start()], src_a, dst_a[token >= 0]]))
        index = np.full(lattice.num_states(), -1)
        index[keep] = np.arange(len(keep))
        return Topology(len(keep), int(index[lattice.start()]), index[src_a], index[dst_a],
                        arcs, token, reverse)

    def edit_totals(self, arc_counts: np.ndarray) -> np.ndarray:
        """Counts per channel arc summed into counts per edit φ[a, b, e]."""
        out = np.zeros(self.channel.phi.shape)
        np.add.at(out, self._param_index, arc_counts[self._has_param])
        return out

    def arc_weights(self) -> np.ndarray:
        """Probability of every channel arc under the current φ (1 for parameter-free arcs)."""
        phi = self.channel.phi
        return np.array([1.0 if a.param is None else phi[a.param] for a in self._arcs])

    def lattice(self, surface: Sequence[str], weights: np.ndarray,
                maximum: bool = False) -> Lattice:
        """Weight the topology of ``surface`` by channel-arc probabilities ``weights``."""
        topo = self.topology(surface)
        n = topo.n_states
        w = weights[topo.arc]
        start = np.zeros(n)
        start[topo.start] = 1.0
        final = np.zeros(n)
        tokens: dict[int, np.ndarray] = {}
        combine = np.maximum.at if maximum else np.add.at
        ends = topo.token < 0
        combine(final, topo.src[ends], w[ends])
        for tok in np.unique(topo.token[~ends]):
            sel = topo.token == tok
            m = np.zeros((n, n))
            combine(m, (topo.src[sel], topo.dst[sel]), w[sel])
            tokens[int(tok)] = m.T if topo.reverse else m
        if topo.reverse:
            start, final = final, start
        return Lattice(start, final, tokens, maximum)

    def edit_counts(self, surface: Sequence[str], weights: np.ndarray,
                    grad_tokens: dict[int, np.ndarray], grad_final: np.ndarray,
                    grad_start: np.ndarray) -> np.ndarray:
        """Expected count of every channel arc used in this slot, given ∂log Z/∂ of the lattice's
        natural-order matrices (token matrices, final and start vectors)."""
        topo = self.topology(surface)
        w = weights[topo.arc]
        g = np.zeros(len(topo.arc))
        ends = topo.token < 0
        end_grad = grad_start if topo.reverse else grad_final
        g[ends] = end_grad[topo.src[ends]]
        for tok, grad in grad_tokens.items():
            sel = topo.token == tok
            scan_grad = grad.T if topo.reverse else grad
            g[sel] = scan_grad[topo.src[sel], topo.dst[sel]]
        counts = np.zeros(len(self._arcs))
        np.add.at(counts, topo.arc, g * w)
        return counts
