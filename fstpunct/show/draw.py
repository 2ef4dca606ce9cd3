"""Pictures for people: small views of large machines, as Graphviz graphs.

Each ``*_graph`` function builds a :class:`graphviz.Digraph` showing only what one question needs
(DESIGN §7); :func:`write_graph` writes it as ``.dot``/``.gv`` source or renders ``.svg``,
``.png`` or ``.pdf`` with the ``dot`` program, falling back to the source when ``dot`` is missing.
"""
from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import graphviz

from ..errors import InputError
from ..files import output
from ..fst.channel import EDITS, END, FINAL_STATE, START_STATE, Channel
from ..fst.lattice import LatticeBuilder
from ..ud.slots import SlotSentence
from ..ud.tree import children

__all__ = ["channel_graph", "lattice_graph", "tree_graph", "write_graph", "SOURCE_SUFFIXES",
           "RENDER_SUFFIXES"]

SOURCE_SUFFIXES = (".dot", ".gv")
RENDER_SUFFIXES = (".svg", ".png", ".pdf")
_EPS = "ε"


def _state_name(channel: Channel, state: int) -> str:
    if state == START_STATE:
        return "nothing pending"
    if state == FINAL_STATE:
        return "end"
    return f"pending {channel.symbols[state - 2]}"


def channel_graph(channel: Channel, symbols: Sequence[str],
                  min_prob: float = 0.01) -> graphviz.Digraph:
    """The channel restricted to ``symbols``: states ``pending a``, arcs labelled
    ``a b : output / p`` (the window in original order, what the arc writes, its probability),
    parallel arcs drawn as one edge; arcs with p < ``min_prob`` are hidden and counted."""
    unknown = [s for s in symbols if s not in channel.symbols]
    if unknown:
        raise InputError(f"symbol(s) {' '.join(unknown)} not in the channel; it has: "
                         f"{' '.join(channel.symbols)}")
    if not symbols:
        raise InputError("name at least one symbol to draw")
    chosen = set(symbols)
    states = {START_STATE, FINAL_STATE} | {2 + channel.index(s) for s in symbols}
    reads = "u reversed + $, writes x reversed" if channel.direction == "rtl" else "u + $, writes x"
    g = graphviz.Digraph("channel", graph_attr={
        "rankdir": "LR", "labelloc": "t", "fontsize": "12", "fontname": "sans-serif"},
        node_attr={"shape": "ellipse", "fontname": "sans-serif", "fontsize": "11"},
        edge_attr={"fontname": "monospace", "fontsize": "10"})
    g.node("entry", "", shape="none", width="0", height="0")
    for state in sorted(states):
        g.node(str(state), graphviz.escape(_state_name(channel, state)),
               shape="doublecircle" if state == FINAL_STATE else "ellipse")
    g.edge("entry", str(START_STATE))
    labels: dict[tuple[int, int], list[tuple[float, str]]] = {}
    hidden = 0
    for arc in channel.arcs():
        if arc.src not in states or arc.dst not in states or \
                (arc.ilabel != END and arc.ilabel not in chosen):
            continue
        p, label = 1.0, f"{arc.ilabel} : {arc.olabel or _EPS}"
        if arc.param is not None:
            p = float(channel.phi[arc.param])
            if p < min_prob:
                hidden += 1
                continue
            a, b, _ = arc.param
            label = f"{channel.symbols[a]} {channel.symbols[b]} : {arc.olabel or _EPS} / {p:.2g}"
        labels.setdefault((arc.src, arc.dst), []).append((p, label))
    for (src, dst), lines in labels.items():  # parallel arcs share one edge, likeliest first
        ordered = sorted(lines, key=lambda pl: -pl[0])
        text = "".join(line.replace("\\", "\\\\") + "\\l" for _, line in ordered)
        g.edge(str(src), str(dst), graphviz.nohtml(text))
    caption = (f"{channel.direction} channel over {' '.join(symbols)} (reads {reads}); "
               f"{hidden} arcs with p < {min_prob:g} hidden")
    g.attr(label=graphviz.escape(caption))
    return g


def _graph(name: str, caption: str, rankdir: str = "LR") -> graphviz.Digraph:
    g = graphviz.Digraph(name, graph_attr={"rankdir": rankdir, "labelloc": "t", "fontsize": "12",
                                           "fontname": "sans-serif",
                                           "label": graphviz.escape(caption)},
                         node_attr={"fontname": "sans-serif", "fontsize": "11"},
                         edge_attr={"fontname": "monospace", "fontsize": "10"})
    return g


def lattice_graph(builder: LatticeBuilder, weights: Sequence[float], surface: Sequence[str],
                  caption: str, min_prob: float = 0.01) -> graphviz.Digraph:
    """One slot's lattice over underlying strings u: states named by the pending underlying
    token, arcs ``υ (edit a b) / p``; a state's final weight (ρ) is its arc to ``end``."""
    channel, arcs = builder.channel, builder.channel_arcs
    topo = builder.topology(surface)
    pending = {topo.start: "nothing pending"}
    for dst, arc in zip(topo.dst, topo.arc):
        if dst >= 0:
            pending[int(dst)] = _state_name(channel, arcs[arc].dst)
    g = _graph("lattice", f"{caption}; {topo.n_states} states (scan order: "
                          f"{'right to left' if topo.reverse else 'left to right'})")
    g.node("entry", "", shape="none", width="0", height="0")
    g.node("end", "end", shape="doublecircle")
    for state in range(topo.n_states):
        g.node(str(state), graphviz.escape(f"{state}: {pending.get(state, '?')}"))
    g.edge("entry", str(topo.start))
    hidden = 0
    for src, dst, arc in zip(topo.src, topo.dst, topo.arc):
        a, p = arcs[arc], float(weights[arc])
        if p < min_prob:
            hidden += 1
            continue
        if a.param is None:
            label = f"{a.ilabel} : {a.olabel or _EPS}" + ("" if a.ilabel == END else " / 1")
        else:
            x, y, e = a.param
            label = f"{a.ilabel}  ({EDITS[e]} {channel.symbols[x]} {channel.symbols[y]}) / {p:.2g}"
        g.edge(str(src), "end" if dst < 0 else str(dst), graphviz.escape(label))
    if hidden:
        g.attr(label=graphviz.escape(f"{caption}; {hidden} arcs with p < {min_prob:g} hidden"))
    return g


def tree_graph(sent: SlotSentence, pairs: Sequence[tuple[tuple[str, ...], tuple[str, ...]] | None],
               caption: str) -> graphviz.Digraph:
    """The underlying tree T′: each node shows ``l word r``, edges carry the relation."""
    g = _graph("tree", caption, rankdir="TB")
    kids = children(sent.heads)
    for w in range(1, sent.n + 1):
        pair = pairs[w - 1]
        l, r = pair if pair is not None else (("<backoff>",), ("<backoff>",))
        text = " ".join([*l, sent.words[w - 1], *r])
        g.node(str(w), graphviz.escape(text), shape="box")
    for w in range(1, sent.n + 1):
        for c in kids[w]:
            g.edge(str(w), str(c), graphviz.escape(sent.deprels[c - 1]))
    return g


def write_graph(graph: graphviz.Digraph, path: str | Path) -> tuple[Path, bool]:
    """Write ``graph`` to ``path``; returns (the file written, whether it was rendered). Without
    the ``dot`` program a rendering request writes the ``.dot`` source beside ``path`` instead."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SOURCE_SUFFIXES + RENDER_SUFFIXES:
        raise InputError(f"{path}: cannot draw to {suffix or 'a file without suffix'}; use one "
                         f"of {' '.join(SOURCE_SUFFIXES + RENDER_SUFFIXES)}")
    rendered = suffix in RENDER_SUFFIXES and shutil.which("dot") is not None
    target = path if rendered or suffix in SOURCE_SUFFIXES else path.with_suffix(".dot")
    with output(target, binary=rendered) as f:
        f.write(graph.pipe(format=suffix[1:]) if rendered else graph.source)
    return target, rendered
