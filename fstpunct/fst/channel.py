"""The noisy channel: a sliding-window probabilistic FST from underlying to surface punctuation.

A 2-token window slides once over an underlying slot string u (DESIGN §3). For window contents
``a b`` (``a`` LEFT of ``b`` in the original order) one edit is chosen with probability
``phi[a, b, e]``: KEEP (ab → ab), LEFT (a absorbed: ab → b), RIGHT (b absorbed: ab → a) or
SWAP (ab → ba). Nothing is ever inserted and something always survives, so x = ε ⇔ u = ε.

**The machine.** ``$`` is appended to u so the input side has no ε. States: ``0`` (nothing
pending), ``F`` (final), ``q_p`` (token p pending). Left to right (``ltr``), reading token t::

    0   –t:ε/1→ q_t          0   –$:ε/1→ F          q_p –$:p/1→ F
    q_p –t:p→ q_t  KEEP      q_p –t:ε→ q_t  LEFT     window (a, b) = (p, t)
    q_p –t:ε→ q_p  RIGHT     q_p –t:t→ q_p  SWAP

**Right to left** (``rtl``) is the same machine run over *reversed* u: :meth:`Channel.fst` reads
``reversed(u) + $`` and writes ``reversed(x)``. ``phi`` keeps its original-order meaning, so a
rule reads the same in both directions: from ``q_p`` reading t the window is (a, b) = (t, p)::

    q_p –t:p→ q_t  KEEP      q_p –t:ε→ q_p  LEFT (a = t absorbed)
    q_p –t:ε→ q_t  RIGHT     q_p –t:t→ q_p  SWAP (emits t, p stays pending)

:meth:`Channel.prob`, :meth:`~Channel.distribution` and :meth:`~Channel.sample` take u and x
in natural order and do the reversal themselves; :meth:`~Channel.input_acceptor` and
:meth:`~Channel.output_acceptor` build the matching pynini acceptors.

**Structural zeros** (:attr:`Channel.mask`): the boundary ``∘`` is never absorbed or moved, so
``phi[∘, b]`` allows only KEEP and RIGHT; pairs ``(b, ∘)`` never occur and are KEEP with
probability 1; for ``a == a`` RIGHT would duplicate LEFT and SWAP would duplicate KEEP (same
output, same next state), so only KEEP and LEFT are free. Zero-probability edits get no arc,
which also makes every arc's parameter recoverable from its labels and end points.

:meth:`Channel.arcs` is the single source of truth for the machine: :meth:`Channel.fst` and any
arc-id variant (lattices) are built from it. State numbering: 0 = nothing pending, 1 = F,
2 + k = ``symbols[k]`` pending.
"""
from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

import numpy as np

from ..errors import FstpunctError, InputError, ModelError
from ..files import atomic_path, check_pair, write_pair
from ..ud.slots import ABBV, BOUNDARY, UNK
from .fstbinary import FstArcs, NotAnFst, parse_file

if TYPE_CHECKING:
    import pynini

__all__ = ["EDITS", "KEEP", "LEFT", "RIGHT", "SWAP", "END", "EPSILON", "DIRECTIONS",
           "SPECIALS", "ArcTable", "EditPath", "NoDirection", "ScanArc", "Step", "Channel",
           "read_sidecar", "scan_moves", "structural_mask", "sidecar_direction", "sidecar_path",
           "writable_sidecar"]

EDITS = ("KEEP", "LEFT", "RIGHT", "SWAP")
KEEP, LEFT, RIGHT, SWAP = range(4)
END = "$"
EPSILON = "<eps>"
DIRECTIONS = ("ltr", "rtl")
SPECIALS = (BOUNDARY, ABBV, UNK)
START_STATE, FINAL_STATE = 0, 1
T = TypeVar("T")
_TOLERANCE = 1e-6


class Step(NamedTuple):
    """One edit of a path: the window's positions in u (``a`` left of ``b``), the edit (an
    index into :data:`EDITS`) and its probability."""

    a: int
    b: int
    edit: int
    p: float


class EditPath(NamedTuple):
    """An edit path writing x from u: the position in u of each token of x, the edits in scan
    order, and the path's probability."""

    positions: tuple[int, ...]
    steps: tuple[Step, ...]
    prob: float


# A best path's back-pointers, None at the start: (the trail before, the position emitted or
# -1, the pending position, the position read, edit, its probability).
_Trail = tuple["_Trail", int, int, int, int, float] | None


class ScanArc(NamedTuple):
    """One arc of the scan machine; ``param`` = (a, b, edit) indexes ``phi`` (None: weight 1)."""

    src: int
    dst: int
    ilabel: str
    olabel: str | None
    param: tuple[int, int, int] | None


class ArcTable(NamedTuple):
    """The scan machine's arcs (:meth:`Channel.arcs`, in that order) as arrays: source and
    target states, input and output symbol indices (−1: the end mark ``$``, or no output), and
    the (a, b, edit) index into ``phi`` (rows of −1 for parameter-free arcs)."""

    src: np.ndarray
    dst: np.ndarray
    ilabel: np.ndarray
    olabel: np.ndarray
    param: np.ndarray

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ArcTable) and all(
            np.array_equal(x, y) for x, y in zip(self, other))


def structural_mask(symbols: Sequence[str]) -> np.ndarray:
    """Boolean (S, S, 4): which edits may have nonzero probability (see the module docstring)."""
    n = len(symbols)
    mask = np.ones((n, n, 4), dtype=bool)
    idx = np.arange(n)
    mask[idx, idx, RIGHT] = mask[idx, idx, SWAP] = False
    if BOUNDARY in symbols:
        o = list(symbols).index(BOUNDARY)
        mask[o, :, LEFT] = mask[o, :, SWAP] = False
        mask[:, o, LEFT:] = False
    return mask


def scan_moves(direction: str, pending: T, t: T) -> tuple[T, T, tuple[tuple[int, T | None, T],
                                                                     ...]]:
    """The window (a, b) met when the scan reads ``t`` with ``pending`` (symbol ids, positions,
    or arrays of either), and its four edits in scan order, each as (edit, what it emits or
    None, the next pending): the one move table of :meth:`Channel._steps`,
    :meth:`Channel.arcs` and the check of a channel file's arcs."""
    if direction == "ltr":
        a, b = pending, t
        return a, b, ((KEEP, a, b), (LEFT, None, b), (RIGHT, None, a), (SWAP, b, a))
    a, b = t, pending
    return a, b, ((KEEP, b, a), (LEFT, None, b), (RIGHT, None, a), (SWAP, a, b))


def sidecar_path(path: str | Path) -> Path:
    """The JSON file written beside a channel ``.fst`` (direction, pairs, symbols, source)."""
    return Path(path).with_suffix(".json")


def writable_sidecar(path: str | Path) -> Path:
    """:func:`sidecar_path` of a channel about to be written to ``path``; an InputError when
    ``path`` is its own sidecar (``x.json``: the sidecar would overwrite the channel), or
    ``-``, standard output, where the other outputs of fstpunct go (not two files)."""
    if str(path) == "-":
        raise InputError("-: a channel is written as two files, the .fst and its JSON sidecar "
                         "beside it, not to standard output; name the channel .fst")
    side = sidecar_path(path)
    if side == Path(path):
        raise InputError(f"{path}: the channel's JSON sidecar would overwrite it; name the "
                         "channel .fst")
    return side


class Channel:
    """The sliding-window channel over a token alphabet, with edit probabilities ``phi``."""

    def __init__(self, symbols: Sequence[str], direction: str, phi: np.ndarray) -> None:
        symbols = tuple(symbols)
        if direction not in DIRECTIONS:
            raise ModelError(f"channel direction must be ltr or rtl, not {direction!r}")
        if len(set(symbols)) != len(symbols):
            raise ModelError("channel symbols repeat")
        missing = [s for s in SPECIALS if s not in symbols]
        if missing:
            raise ModelError(f"channel symbols lack {' '.join(missing)}")
        bad = [s for s in symbols if s in (END, EPSILON) or s.split() != [s]]
        if bad:
            raise ModelError(f"channel symbols must be nonempty, without spaces, and not "
                             f"{END} or {EPSILON}: {bad}")
        phi = np.asarray(phi, dtype=np.float64)
        n = len(symbols)
        if phi.shape != (n, n, 4):
            raise ModelError(f"phi has shape {phi.shape}, expected {(n, n, 4)}")
        if not np.all(np.isfinite(phi)) or np.any(phi < 0):
            raise ModelError("phi has negative or non-finite entries")
        if np.any(phi[~structural_mask(symbols)] != 0):
            raise ModelError("phi gives probability to a structurally impossible edit")
        if not np.allclose(phi.sum(axis=2), 1.0, atol=_TOLERANCE):
            raise ModelError("phi[a, b] must sum to 1 for every pair")
        self.symbols: tuple[str, ...] = symbols
        self.direction: str = direction
        self.phi: np.ndarray = phi

    def __repr__(self) -> str:
        return f"<Channel {self.direction}: {len(self.symbols)} symbols>"

    # ----------------------------------------------------------------- construction
    @classmethod
    def identity(cls, symbols: Sequence[str], direction: str) -> Channel:
        """KEEP with probability 1 for every window."""
        phi = np.zeros((len(symbols), len(symbols), 4))
        phi[:, :, KEEP] = 1.0
        return cls(symbols, direction, phi)

    @classmethod
    def random(cls, symbols: Sequence[str], direction: str,
               rng: np.random.Generator) -> Channel:
        """Every pair's allowed edits drawn from a flat Dirichlet."""
        mask = structural_mask(symbols)
        phi = rng.gamma(1.0, size=mask.shape) * mask
        return cls(symbols, direction, phi / phi.sum(axis=2, keepdims=True))

    @cached_property
    def mask(self) -> np.ndarray:
        """Boolean (S, S, 4): the edits that may be nonzero (:func:`structural_mask`)."""
        return structural_mask(self.symbols)

    @cached_property
    def _index(self) -> dict[str, int]:
        return {s: k for k, s in enumerate(self.symbols)}

    def index(self, sym: str) -> int:
        """Position of ``sym`` in :attr:`symbols`."""
        try:
            return self._index[sym]
        except KeyError:
            raise ModelError(f"symbol {sym!r} is not in the channel alphabet") from None

    # ----------------------------------------------------------------- reference semantics
    def _steps(self, pending: int, t: int, symbol: Callable[[int], int] | None = None
               ) -> Iterator[tuple[int, float, tuple[int, ...], int]]:
        """(edit, prob, emitted, new pending) for reading t with ``pending`` in scan order.
        ``pending`` and ``t`` are symbol ids, or anything ``symbol`` maps to one (positions)."""
        a, b, moves = scan_moves(self.direction, pending, t)
        phi = self.phi[a, b] if symbol is None else self.phi[symbol(a), symbol(b)]
        for edit, emitted, nxt in moves:
            p = phi[edit]
            if p > 0:
                yield edit, float(p), () if emitted is None else (emitted,), nxt

    def _scan_order(self, tokens: Sequence[str]) -> list[int]:
        ids = [self.index(t) for t in tokens]
        return ids[::-1] if self.direction == "rtl" else ids

    def _natural(self, emitted: Sequence[int]) -> tuple[str, ...]:
        out = [self.symbols[k] for k in emitted]
        return tuple(out[::-1] if self.direction == "rtl" else out)

    def distribution(self, u: Sequence[str]) -> dict[tuple[str, ...], float]:
        """p(x | u) for every x, by enumerating all edit sequences (a reference for tests)."""
        ids = self._scan_order(u)
        if not ids:
            return {(): 1.0}
        paths: dict[tuple[tuple[int, ...], int], float] = {((), ids[0]): 1.0}
        for t in ids[1:]:
            nxt: dict[tuple[tuple[int, ...], int], float] = {}
            for (out, pending), p in paths.items():
                for _, q, emitted, new in self._steps(pending, t):
                    key = (out + emitted, new)
                    nxt[key] = nxt.get(key, 0.0) + p * q
            paths = nxt
        dist: dict[tuple[str, ...], float] = {}
        for (out, pending), p in paths.items():
            x = self._natural(out + (pending,))
            dist[x] = dist.get(x, 0.0) + p
        return dist

    def prob(self, u: Sequence[str], x: Sequence[str]) -> float:
        """p(x | u) by brute-force enumeration."""
        return self.distribution(u).get(tuple(x), 0.0)

    def align(self, u: Sequence[str], x: Sequence[str]) -> tuple[int, ...] | None:
        """The position in u of each token of x on the most probable edit path that writes x
        from u, or None when p(x | u) = 0 (:meth:`best_path`)."""
        path = self.best_path(u, x)
        return None if path is None else path.positions

    def best_path(self, u: Sequence[str], x: Sequence[str]) -> EditPath | None:
        """The most probable edit path that writes x from u, or None when p(x | u) = 0 (ties:
        the path found first, edits tried in the order KEEP, LEFT, RIGHT, SWAP)."""
        ids = [self.index(t) for t in u]
        scan = list(range(len(u)))[::-1] if self.direction == "rtl" else list(range(len(u)))
        target = self._scan_order(x)
        if not scan:
            return EditPath((), (), 1.0) if not target else None
        # Viterbi over (tokens written, symbol pending): what follows depends on nothing else,
        # so one best path per state is exact; each state keeps its pending position and a
        # back-pointer trail, so a step costs O(1) however long u is. The moves are those of
        # _steps, inlined: (edit, position emitted or -1, new pending position).
        ltr, phi, m = self.direction == "ltr", self._phi_rows, len(target)
        paths: dict[tuple[int, int], tuple[float, int, _Trail]] = {
            (0, ids[scan[0]]): (1.0, scan[0], None)}
        for t in scan[1:]:
            nxt: dict[tuple[int, int], tuple[float, int, _Trail]] = {}
            for (n, pending_symbol), (p, pending, trail) in paths.items():
                if ltr:
                    row = phi[pending_symbol][ids[t]]
                    moves = ((KEEP, pending, t), (LEFT, -1, t), (RIGHT, -1, pending),
                             (SWAP, t, pending))
                else:
                    row = phi[ids[t]][pending_symbol]
                    moves = ((KEEP, pending, t), (LEFT, -1, pending), (RIGHT, -1, t),
                             (SWAP, t, pending))
                for edit, out, new in moves:
                    q = row[edit]
                    if q <= 0 or out >= 0 and (n == m or ids[out] != target[n]):
                        continue
                    key = (n + (out >= 0), ids[new])
                    best = nxt.get(key)
                    if best is None or p * q > best[0]:
                        nxt[key] = (p * q, new, (trail, out, pending, t, edit, q))
            paths = nxt
        ends = [(p, pending, trail) for (n, symbol), (p, pending, trail) in paths.items()
                if n == m - 1 and symbol == target[n]]
        if not ends:
            return None
        p, pending, trail = max(ends, key=lambda end: end[0])
        written, steps = [pending], []
        while trail is not None:
            trail, out, pending, t, edit, q = trail
            if out >= 0:
                written.append(out)
            steps.append(Step(pending, t, edit, q) if ltr else Step(t, pending, edit, q))
        best_written = tuple(written[::-1])
        return EditPath(best_written[::-1] if not ltr else best_written, tuple(steps[::-1]), p)

    @cached_property
    def _phi_rows(self) -> list[list[list[float]]]:
        """phi as nested lists (fast scalar access in :meth:`best_path`)."""
        return self.phi.tolist()

    def sample(self, u: Sequence[str], rng: np.random.Generator) -> tuple[str, ...]:
        """Draw x ~ p(· | u)."""
        ids = self._scan_order(u)
        if not ids:
            return ()
        out: list[int] = []
        pending = ids[0]
        for t in ids[1:]:
            steps = list(self._steps(pending, t))
            probs = np.array([s[1] for s in steps])
            _, _, emitted, pending = steps[rng.choice(len(steps), p=probs / probs.sum())]
            out.extend(emitted)
        return self._natural(out + [pending])

    # ----------------------------------------------------------------- the machine
    def arcs(self) -> list[ScanArc]:
        """The scan machine's arcs (zero-probability edits omitted), in a fixed order."""
        syms, n = self.symbols, len(self.symbols)
        arcs = [ScanArc(START_STATE, 2 + t, syms[t], None, None) for t in range(n)]
        arcs.append(ScanArc(START_STATE, FINAL_STATE, END, None, None))
        positive = (self.phi > 0).tolist()  # as _steps, without a numpy scalar per edit
        for p in range(n):
            for t in range(n):
                a, b, moves = scan_moves(self.direction, p, t)
                allowed = positive[a][b]
                for edit, emitted, nxt in moves:
                    if allowed[edit]:
                        arcs.append(ScanArc(2 + p, 2 + nxt, syms[t],
                                            None if emitted is None else syms[emitted],
                                            (a, b, edit)))
            arcs.append(ScanArc(2 + p, FINAL_STATE, END, syms[p], None))
        return arcs

    def arc_table(self) -> ArcTable:
        """:meth:`arcs` as arrays (the same arcs in the same order): the arcs every channel over
        these symbols could have, less the edits phi gives no probability."""
        every = _every_arc(self.symbols, self.direction)
        a, b, e = every.param.T
        keep = (e < 0) | (self.phi[a, b, e] > 0)
        return ArcTable(*(x[keep] for x in every))

    def symbol_table(self) -> pynini.SymbolTable:
        """Shared input/output table: 0 ε, 1 ``$``, then :attr:`symbols` from 2."""
        import pynini  # only to write or draw a channel: slow to import

        table = pynini.SymbolTable(name="fstpunct-channel")
        for s in (EPSILON, END, *self.symbols):
            table.add_symbol(s)
        return table

    def _label(self, sym: str | None) -> int:
        if sym is None:
            return 0
        return 1 if sym == END else 2 + self.index(sym)

    def fst(self, arc_type: str = "log") -> pynini.Fst:
        """The channel as a transducer (weights −log p); ``rtl`` reads and writes reversed."""
        import pynini

        f = pynini.Fst(arc_type=arc_type)
        f.add_states(2 + len(self.symbols))
        f.set_start(START_STATE)
        f.set_final(FINAL_STATE)
        one = pynini.Weight.one(f.weight_type())
        for arc in self.arcs():
            w = one if arc.param is None else \
                pynini.Weight(arc_type, -math.log(self.phi[arc.param]))
            f.add_arc(arc.src, pynini.Arc(self._label(arc.ilabel), self._label(arc.olabel),
                                          w, arc.dst))
        table = self.symbol_table()
        f.set_input_symbols(table)
        f.set_output_symbols(table)
        return f

    def _acceptor(self, labels: Sequence[str], arc_type: str) -> pynini.Fst:
        import pynini

        f = pynini.Fst(arc_type=arc_type)
        f.add_states(len(labels) + 1)
        f.set_start(0)
        f.set_final(len(labels))
        one = pynini.Weight.one(f.weight_type())
        for k, sym in enumerate(labels):
            lab = self._label(sym)
            f.add_arc(k, pynini.Arc(lab, lab, one, k + 1))
        table = self.symbol_table()
        f.set_input_symbols(table)
        f.set_output_symbols(table)
        return f

    def input_acceptor(self, u: Sequence[str], arc_type: str = "log") -> pynini.Fst:
        """Acceptor for what :meth:`fst` reads given underlying u: u (reversed if rtl) + ``$``."""
        order = list(u)[::-1] if self.direction == "rtl" else list(u)
        return self._acceptor([*order, END], arc_type)

    def output_acceptor(self, x: Sequence[str], arc_type: str = "log") -> pynini.Fst:
        """Acceptor for what :meth:`fst` writes given surface x (reversed if rtl)."""
        return self._acceptor(list(x)[::-1] if self.direction == "rtl" else list(x), arc_type)

    # ----------------------------------------------------------------- files
    def to_bytes(self) -> bytes:
        """The machine as an OpenFst ``.fst`` file's bytes (arc type log64, so phi survives
        exactly): what :meth:`save` writes, and a model folder's ``channel.fst``."""
        return self.fst("log64").write_to_string()

    def save(self, path: str | Path, sidecar: Mapping[str, Any] | None = None) -> None:
        """Write the machine as an OpenFst ``.fst`` (:meth:`to_bytes`); with ``sidecar``, that
        JSON object beside it (:func:`writable_sidecar`), the two as a pair
        (:func:`~fstpunct.files.write_pair`: :func:`read_sidecar` refuses halves of two
        writes)."""
        if sidecar is None:
            with atomic_path(path) as tmp:
                tmp.write_bytes(self.to_bytes())
        else:
            write_pair(path, self.to_bytes, writable_sidecar(path), sidecar)

    @classmethod
    def load(cls, path: str | Path, direction: str | None = None,
             content: bytes | None = None) -> Channel:
        """Read a channel ``.fst`` (log or log64 arcs); the direction comes from the argument,
        else from the JSON sidecar (:func:`sidecar_path`), checked against the bytes read here
        (the file is read once). phi is recovered from the arcs (parsed from the file's bytes:
        :func:`~fstpunct.fst.fstbinary.parse_file`). ``content``: the file's bytes where the
        caller has read them."""
        try:  # a foreign file is refused before pynini (which prints its own message) sees it
            data = Path(path).read_bytes() if content is None else content
            f = parse_file(data)
        except OSError as e:
            raise ModelError(f"{path}: cannot read an OpenFst channel: {e.strerror or e}") from e
        except NotAnFst as e:
            raise ModelError(f"{path}: not an OpenFst file") from e
        except FstpunctError as e:
            raise ModelError(f"{path}: cannot read an OpenFst channel: {e}") from e
        if direction is None:
            direction = sidecar_direction(path, content=data)
        table, arcs = f.input_symbols, f.arcs
        if f.arc_type not in ("log", "log64") or table is None or arcs.start != START_STATE:
            raise ModelError(f"{path}: not a channel (need log arcs, symbol tables, start 0)")
        names = [table.get(k, "") for k in range(len(table))]
        if names[:2] != [EPSILON, END]:
            raise ModelError(f"{path}: symbol table does not start with {EPSILON} {END}")
        try:
            shell = cls.identity(names[2:], direction)
        except ModelError as e:
            raise ModelError(f"{path}: {e}") from e
        a, b, e, bad = _edits(shell, arcs)
        if len(bad):
            k = int(bad[0])
            state, nextstate, ilabel, olabel = (int(x[k]) for x in (arcs.src, arcs.dst,
                                                                    arcs.ilabel, arcs.olabel))
            key = (state, nextstate, names[ilabel] if 0 <= ilabel < len(names) else ilabel,
                   (names[olabel] if 0 < olabel < len(names) else olabel) if olabel else None)
            raise ModelError(f"{path}: arc {key} is not a channel arc")
        phi = np.zeros_like(shell.phi)
        has = e >= 0
        # weights exactly as stored (log64: float64), added up in the file's order
        np.add.at(phi, (a[has], b[has], e[has]), [math.exp(-w) for w in arcs.weight[has].tolist()])
        sums = phi.sum(axis=2, keepdims=True)
        if not np.allclose(sums, 1.0, atol=1e-4):
            raise ModelError(f"{path}: edit probabilities do not sum to 1")
        return cls(shell.symbols, direction, phi / sums)


@lru_cache(maxsize=16)
def _every_arc(symbols: tuple[str, ...], direction: str) -> ArcTable:
    """The scan machine's arcs when every structurally allowed edit has one, in
    :meth:`Channel.arcs`' order, as read-only arrays (shared: one table per alphabet)."""
    n = len(symbols)
    a, b, moves = scan_moves(direction, *np.divmod(np.arange(n * n), n))  # every (p, t)
    edit = np.array([code for code, _, _ in moves])
    allowed = structural_mask(symbols)[a[:, None], b[:, None], edit]  # (p·n + t, move)
    # per pending p: its moves (t, move) in order, then its end arc
    keep = np.concatenate([allowed.reshape(n, 4 * n), np.ones((n, 1), dtype=bool)], axis=1)
    p_of, rest = np.divmod(np.flatnonzero(keep), 4 * n + 1)
    end = rest == 4 * n
    t_of, move = np.divmod(np.where(end, 0, rest), 4)
    a, b, moves = scan_moves(direction, p_of, t_of)  # each arc's window and its four moves
    emitted = np.choose(move, [np.full_like(a, -1) if out is None else out
                               for _, out, _ in moves])  # −1: none
    pending = np.choose(move, [nxt for _, _, nxt in moves])
    start = np.arange(n)
    src = np.concatenate([np.full(n + 1, START_STATE), 2 + p_of])
    dst = np.concatenate([2 + start, [FINAL_STATE], np.where(end, FINAL_STATE, 2 + pending)])
    ilabel = np.concatenate([start, [-1], np.where(end, -1, t_of)])
    olabel = np.concatenate([np.full(n + 1, -1), np.where(end, p_of, emitted)])
    param = np.concatenate([np.full((n + 1, 3), -1),
                            np.where(end[:, None], -1, np.stack([a, b, edit[move]], axis=1))])
    table = ArcTable(*(np.ascontiguousarray(x, dtype=np.intp)
                       for x in (src, dst, ilabel, olabel, param)))
    for x in table:
        x.setflags(write=False)
    return table


def _edits(shell: Channel, arcs: FstArcs) -> tuple[np.ndarray, ...]:
    """Which edit φ[a, b, e] each arc of a channel's file is (a, b, e; e = −1 where the arc
    has no parameter), and the indices of the arcs that are no arc :meth:`Channel.arcs` makes
    over ``shell.symbols``, whatever phi is: each arc looked up by its states and labels among
    the arcs of a channel where every allowed edit has an arc."""
    n = len(shell.symbols)
    every = _every_arc(shell.symbols, shell.direction)

    def key(src: np.ndarray, dst: np.ndarray, ilabel: np.ndarray,
            olabel: np.ndarray) -> np.ndarray:
        """One integer per (src, dst, ilabel, olabel) in the table's terms (−1: $ or none)."""
        return ((src * (n + 2) + dst) * (n + 1) + ilabel + 1) * (n + 1) + olabel + 1

    known = key(every.src, every.dst, every.ilabel, every.olabel)
    order = np.argsort(known)
    # the file's labels: 0 ε, 1 $, then the symbols from 2; anything else matches no arc
    src, dst = arcs.src.astype(np.intp), arcs.dst.astype(np.intp)
    ilabel = arcs.ilabel.astype(np.intp) - 2   # $ (1) becomes −1; ε (0) matches nothing
    olabel = np.select([arcs.olabel == 0, arcs.olabel == 1], [-1, n],  # ε: none; $: no arc
                       arcs.olabel.astype(np.intp) - 2)
    valid = ((src >= 0) & (src < n + 2) & (dst >= 0) & (dst < n + 2) & (ilabel >= -1)
             & (ilabel < n) & (olabel >= -1) & (olabel < n))
    wanted = key(src, dst, ilabel, olabel)
    row = order[np.searchsorted(known, wanted, sorter=order).clip(0, len(known) - 1)]
    found = valid & (known[row] == wanted)
    param = np.where(found[:, None], every.param[row], -1)
    return param[:, 0], param[:, 1], param[:, 2], np.flatnonzero(~found)


class NoDirection(ModelError):
    """The JSON beside a channel file, which gives its direction, cannot be read or holds
    none (a caller may say another way to give it)."""


def sidecar_direction(path: str | Path, content: bytes | None = None) -> str:
    """The direction (``ltr``/``rtl``) in the JSON beside the channel ``path``; a
    :class:`NoDirection` or a ModelError as :func:`read_sidecar`'s."""
    return read_sidecar(path, content=content)[1]


def read_sidecar(path: str | Path, content: bytes | None = None) -> tuple[dict[str, Any], str]:
    """The JSON object beside the channel ``path`` and its direction, read once: a
    :class:`NoDirection` if it cannot be read or holds none, or a ModelError when it records
    another channel than ``path`` (:func:`~fstpunct.files.check_pair`'s refusal, not a
    NoDirection: giving the direction another way does not get round it). ``content``: the
    channel's bytes where the caller has read them (else read here to be checked)."""
    side = sidecar_path(path)
    try:
        meta = json.loads(side.read_text(encoding="utf-8"))
    except OSError as e:  # its strerror: the path is said once, first
        raise NoDirection(f"{side}: cannot read the channel's direction "
                          f"({(e.strerror or str(e)).lower()})") from e
    except ValueError as e:
        raise NoDirection(f"{side}: cannot read the channel's direction ({e})") from e
    direction = meta.get("direction") if isinstance(meta, dict) else None
    if direction not in DIRECTIONS:
        raise NoDirection(f"{side}: 'direction' must be ltr or rtl")
    check_pair(meta, side, path, content=content)  # a sidecar written with another channel
    return meta, direction
