"""One slot's lattice of underlying strings, as a Graphviz graph (``draw lattice``).

A slot lattice accepts every underlying string u with weight p(x | u), one path per channel
edit path; even a one-comma slot has about a hundred states and thousands of arcs, far more
than a person (or ``dot``) can take in. So by default :func:`slot_paths` picks the slot's K most
probable paths *in its sentence*: it draws exact samples of T′ given the tree and the surface
(each gives the slot's u), and scores every edit path of each sampled u by
P̂(u | x, T) · p(path | u) / p(x | u), an estimate of the path's posterior. :func:`paths_graph`
draws those paths merged into one small automaton (the lattice's own states and arcs, shared
where the paths share them) and its caption says how much posterior they cover and how many
paths they leave out (:func:`sample_slots` samples once for all slots of a sentence).
:func:`lattice_graph` draws the whole lattice, and refuses above
:data:`MAX_STATES` states or :data:`MAX_ARCS` arcs.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import graphviz
import numpy as np

from ..errors import InputError, refuse_below, refuse_count, refuse_unused
from ..fst.channel import EDITS, END
from ..fst.lattice import LatticeBuilder, Topology
from ..model.punct import Inference, PunctModel
from ..ud.slots import BOUNDARY, opening, slot_members, to_slots, underlying_slot
from ..ud.treebank import Sentence
from ..wording import counted
from .channel import plain_arc, state_name
from .dot import SANS, digraph, html_text, ltr, mark, marks, state
from .sentence import slot_surface

__all__ = ["MAX_ARCS", "MAX_STATES", "LatticePath", "Sampled", "SlotPaths", "lattice_graph",
           "paths_graph", "sample_slots", "sentence_lattice", "slot_paths"]

MAX_STATES, MAX_ARCS = 60, 200  # a full drawing above this would keep dot busy for minutes
_MAX_PATHS = 10_000  # edit paths enumerated per underlying string


@dataclass(frozen=True)
class LatticePath:
    """A path of the lattice: its underlying string (natural order), its arcs (indices into
    the topology, in scan order), p(path | u) and its estimated posterior."""

    u: tuple[str, ...]
    arcs: tuple[int, ...]
    weight: float
    posterior: float


@dataclass(frozen=True)
class SlotPaths:
    """The K most probable paths of a slot, and what they leave out: ``total`` edit paths of
    the ``strings`` distinct u seen in ``samples`` samples of T′, the posterior they cover, and
    the share of samples whose u holds a backoff puncteme (its tokens are unknown)."""

    surface: tuple[str, ...]
    paths: tuple[LatticePath, ...]
    total: int
    strings: int
    samples: int
    covered: float
    backoff: float


def _edit_paths(topo: Topology, tokens: Sequence[int], weights: np.ndarray
                ) -> list[tuple[tuple[int, ...], float]]:
    """Every path of ``topo`` reading the token ids ``tokens`` (scan order) then ``$``, with
    the product of its arcs' channel weights (at most :data:`_MAX_PATHS`)."""
    out: dict[int, list[int]] = {}
    for a, s in enumerate(topo.src):
        out.setdefault(int(s), []).append(a)
    arc_weight = weights[topo.arc]
    found: list[tuple[tuple[int, ...], float]] = []
    stack: list[tuple[int, int, tuple[int, ...], float]] = [(topo.start, 0, (), 1.0)]
    while stack and len(found) < _MAX_PATHS:
        state, k, arcs, w = stack.pop()
        want = tokens[k] if k < len(tokens) else -1
        for a in out.get(state, ()):
            if topo.token[a] != want:
                continue
            if want < 0:
                found.append((arcs + (a,), w * float(arc_weight[a])))
            else:
                stack.append((int(topo.dst[a]), k + 1, arcs + (a,), w * float(arc_weight[a])))
    return found


@dataclass(frozen=True)
class Sampled:
    """A slot's underlying strings u in ``samples`` samples of T′ (how often each came), and
    how many samples held a backoff puncteme there."""

    strings: Counter[tuple[str, ...]]
    backoff: int
    samples: int


def sample_slots(inference: Inference, s: int, samples: int = 1000,
                 seed: int = 0) -> list[Sampled]:
    """Every slot's underlying strings in ``samples`` exact samples of sentence ``s``'s T′."""
    sent = inference.batch.sentences[s]
    members = slot_members(sent)
    strings: list[Counter[tuple[str, ...]]] = [Counter() for _ in members]
    backoff = [0] * len(members)
    for pairs in inference.sample(s, np.random.default_rng(seed), samples):
        for i, slot in enumerate(members):
            if any(pairs[node] is None for node, _ in slot):
                backoff[i] += 1
                continue
            u, _ = underlying_slot(i, sent.n, ((node, pairs[node][side])  # type: ignore[index]
                                               for node, side in slot))
            strings[i][tuple(u)] += 1
    return [Sampled(c, b, samples) for c, b in zip(strings, backoff)]


def slot_paths(inference: Inference, s: int, slot: int, k: int = 10,
               sampled: Sampled | None = None) -> SlotPaths:
    """The ``k`` most probable paths of sentence ``s``'s slot ``slot`` in ``inference``'s batch,
    their posteriors estimated from ``sampled`` (default: :func:`sample_slots`)."""
    sampled = sampled or sample_slots(inference, s)[slot]
    surface = inference.batch.surfaces[s][slot]
    topo = inference.builder.topology(surface)
    index = {t: i for i, t in enumerate(inference.builder.channel.symbols)}
    scored: list[LatticePath] = []
    for u, count in sampled.strings.items():
        ids = [index[t] for t in u]
        found = _edit_paths(topo, ids[::-1] if topo.reverse else ids, inference.weights)
        likelihood = sum(w for _, w in found)
        share = count / sampled.samples
        scored.extend(LatticePath(u, arcs, w, share * w / likelihood) for arcs, w in found)
    scored.sort(key=lambda p: -p.posterior)
    drawn = tuple(scored[:k])
    return SlotPaths(tuple(surface), drawn, len(scored), len(sampled.strings), sampled.samples,
                     sum(p.posterior for p in drawn), sampled.backoff / sampled.samples)


def _posterior(p: float) -> str:
    """``p`` as the paths box prints it (HTML-like text), to three decimals: ``p ≈ 0.559``,
    or ``p < 0.001`` where three decimals would print ``p ≈ 0.000``."""
    shown = f"{p:.3f}"
    return "p &lt; 0.001" if shown == "0.000" else f"p ≈ {shown}"


def _paths_table(paths: Sequence[LatticePath], topo: Topology) -> str:
    """The box listing the paths, as a Graphviz HTML-like table: one row per path, its number
    and its p right-aligned in their cells, its u and the states it passes (``topo``'s, as
    the drawing numbers them) left-aligned in their own (u left to right, :func:`ltr`), so
    that the columns align whatever width the font gives each mark (a CJK font's full-width
    marks). A row is a path, not a string: two edit paths of one u (a loop taken on one state
    or on another) are two rows, told apart by their states."""
    rows = "".join(f'<TR><TD ALIGN="RIGHT">{i}.</TD>'
                   f'<TD ALIGN="LEFT">u = {html_text(ltr(marks(p.u)))}</TD>'
                   f'<TD ALIGN="LEFT">states {" ".join(str(int(topo.src[a])) for a in p.arcs)}'
                   '</TD>'
                   f'<TD ALIGN="RIGHT">{_posterior(p.posterior)}</TD></TR>'
                   for i, p in enumerate(paths, 1))
    return f'<<TABLE BORDER="1" CELLBORDER="0" CELLSPACING="0" CELLPADDING="3">{rows}</TABLE>>'


def _arc_label(builder: LatticeBuilder, weights: np.ndarray, topo: Topology, a: int) -> str:
    """The label of ``topo``'s arc ``a``, left to right (:func:`ltr`)."""
    i = int(topo.arc[a])
    arc = builder.channel_arcs[i]
    if arc.param is None:
        return ltr(plain_arc(arc) + ("" if arc.ilabel == END else " / 1"))
    x, y, e = arc.param
    symbols = builder.channel.symbols
    return ltr(f"{mark(arc.ilabel)}  ({EDITS[e]} {marks((symbols[x], symbols[y]))}) / "
               f"{float(weights[i]):.2g}")


def _state_labels(builder: LatticeBuilder, topo: Topology) -> dict[int, str]:
    pending = {topo.start: "nothing pending"}
    for dst, arc in zip(topo.dst, topo.arc):
        if dst >= 0:
            pending[int(dst)] = state_name(builder.channel, builder.channel_arcs[arc].dst)
    return pending


def _loops(builder: LatticeBuilder, weights: np.ndarray, topo: Topology,
           arcs: Sequence[int]) -> dict[int, list[tuple[int, str]]]:
    """The self-loops among ``arcs`` (indices into ``topo``) by state: each arc and its label."""
    loops: dict[int, list[tuple[int, str]]] = {}
    for a in arcs:
        if topo.dst[a] == topo.src[a]:
            loops.setdefault(int(topo.src[a]), []).append(
                (a, _arc_label(builder, weights, topo, a)))
    return loops


def _edges(g: graphviz.Digraph, builder: LatticeBuilder, weights: np.ndarray, topo: Topology,
           arcs: Iterable[int], pen: Callable[[int], str] | None = None) -> None:
    """Draw ``arcs`` (indices into ``topo``), in order, as edges of ``g``, each with its label
    and ``pen(arc)`` its pen width; self-loops are left to their states (:func:`_loops`)."""
    for a in arcs:
        dst = int(topo.dst[a])
        if dst != topo.src[a]:
            g.edge(str(int(topo.src[a])), "end" if dst < 0 else str(dst),
                   graphviz.escape(_arc_label(builder, weights, topo, a)),
                   penwidth=None if pen is None else pen(a))


def paths_graph(builder: LatticeBuilder, weights: np.ndarray, paths: SlotPaths,
                caption: str) -> graphviz.Digraph:
    """The paths of ``paths`` merged into one automaton over the lattice's states; an edge's
    width grows with the posterior flowing through it. A box lists the paths; with none (every
    sample had a backoff puncteme there) the caption says so."""
    topo = builder.topology(paths.surface)
    flow: dict[int, float] = {}
    for path in paths.paths:
        for a in path.arcs:
            flow[a] = flow.get(a, 0.0) + path.posterior
    if paths.paths:
        note = (f"the {len(paths.paths)} most probable of the {paths.total} edit paths of the "
                f"{paths.strings} underlying strings seen in {paths.samples} samples of T′; "
                f"they cover {paths.covered:.1%} of the slot's posterior (estimated), leaving "
                f"out {paths.total - len(paths.paths)} paths"
                + (f" and the backoff's {paths.backoff:.1%}" if paths.backoff else ""))
    else:  # every sample had a backoff puncteme here
        note = (f"no path to draw: each of the {paths.samples} samples of T′ has a backoff "
                "puncteme at this slot (its tokens are unknown)")
    g = digraph("lattice", f"{caption}\n{note} (scan order: "
                           f"{'right to left' if topo.reverse else 'left to right'})")
    g.node("entry", "", shape="none", width="0", height="0")
    g.node("end", "end", shape="doublecircle")
    states = {int(topo.src[a]) for a in flow} | {int(topo.dst[a]) for a in flow if topo.dst[a] >= 0}
    top = max(flow.values(), default=1.0)

    def pen(f: float) -> str:
        return f"{0.6 + 2.4 * f / top:.2f}"
    loops, names = _loops(builder, weights, topo, sorted(flow)), _state_labels(builder, topo)
    for s in sorted(states):
        state(g, str(s), f"{s}: {names.get(s, '?')}", [line for _, line in loops.get(s, ())],
              penwidth=pen(sum(flow[a] for a, _ in loops.get(s, ()))))
    if paths.paths:
        g.edge("entry", str(topo.start))
    _edges(g, builder, weights, topo, sorted(flow), lambda a: pen(flow[a]))
    if paths.paths:  # an empty table is a syntax error to dot
        g.node("paths", _paths_table(paths.paths, topo), shape="plaintext", fontname=SANS,
               fontsize="10")
    return g


def lattice_graph(builder: LatticeBuilder, weights: np.ndarray, surface: Sequence[str],
                  caption: str, min_prob: float = 0.01) -> graphviz.Digraph:
    """The whole lattice of ``surface``: states named by the pending underlying token, arcs
    ``⟨υ⟩ (edit ⟨a⟩ ⟨b⟩) / p``; a state's final weight (ρ) is its arc to ``end``. Arcs with
    p < ``min_prob`` are hidden; refused when the rest exceeds the size limits."""
    topo = builder.topology(surface)
    drawn = [a for a in range(len(topo.src)) if weights[topo.arc[a]] >= min_prob]
    if topo.n_states > MAX_STATES or len(drawn) > MAX_ARCS:
        raise InputError(f"the lattice of '{' '.join(surface)}' has "
                         f"{counted(topo.n_states, 'state')} and {counted(len(drawn), 'arc')} "
                         f"with p >= {min_prob:g}, above the {MAX_STATES} "
                         f"states or {MAX_ARCS} arcs a full drawing allows; draw its most "
                         "probable paths (--paths K) instead")
    hidden = len(topo.src) - len(drawn)
    g = digraph("lattice", f"{caption}; {topo.n_states} states (scan order: "
                           f"{'right to left' if topo.reverse else 'left to right'})"
                + (f"; {counted(hidden, 'arc')} with p < {min_prob:g} hidden"
                   if hidden else ""))
    g.node("entry", "", shape="none", width="0", height="0")
    g.node("end", "end", shape="doublecircle")
    loops, names = _loops(builder, weights, topo, drawn), _state_labels(builder, topo)
    for s in range(topo.n_states):
        state(g, str(s), f"{s}: {names.get(s, '?')}", [line for _, line in loops.get(s, ())])
    g.edge("entry", str(topo.start))
    _edges(g, builder, weights, topo, drawn)
    return g


def sentence_lattice(model: PunctModel, sent: Sentence, slot: int, name: str,
                     paths: int | None = None, samples: int | None = None, full: bool = False,
                     min_prob: float | None = None) -> graphviz.Digraph:
    """What ``fstpunct draw lattice`` draws of slot ``slot`` of ``sent`` (called ``name`` in the
    caption): its ``paths`` most probable paths (default 10), posteriors from ``samples``
    samples of T′ (default 1000; :func:`paths_graph`), or with ``full`` the whole lattice, arcs
    of p ≥ ``min_prob`` (default 0.01; :func:`lattice_graph`); an option the choice would
    ignore is refused."""
    refuse_unused({"paths": full and paths is not None, "samples": full and samples is not None},
                  "not with full (--full), the whole lattice")
    refuse_unused({"min_prob": not full and min_prob is not None}, "only with full (--full)")
    paths, samples = 10 if paths is None else paths, 1000 if samples is None else samples
    refuse_count(1, paths=paths, samples=samples)
    refuse_count(0, slot=slot)
    refuse_below(0, min_prob=min_prob)
    slots = to_slots(sent)
    inference = Inference(model, model.prepare([slots]))
    surfaces = inference.batch.surfaces[0]
    if not 0 <= slot < len(surfaces):
        raise InputError(f"slot {slot}: the sentence has slots 0..{len(surfaces) - 1}")
    x = surfaces[slot]
    surface = marks(opening(slot, BOUNDARY) + slot_surface(sent, slots, slot))
    caption = (f"slot {slot} of {name}: surface {ltr(surface)}, between "
               f"'{slots.words[slot - 1] if slot else '<s>'}' and "
               f"'{slots.words[slot] if slot < slots.n else '</s>'}'")
    if full:
        return lattice_graph(inference.builder, inference.weights, x, caption,
                             0.01 if min_prob is None else min_prob)
    sampled = sample_slots(inference, 0, samples)[slot]
    return paths_graph(inference.builder, inference.weights,
                       slot_paths(inference, 0, slot, paths, sampled), caption)
