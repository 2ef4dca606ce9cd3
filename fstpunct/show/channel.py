"""The channel restricted to a few symbols, as a Graphviz graph (``draw channel``)."""
from __future__ import annotations

from collections.abc import Sequence

import graphviz

from ..errors import InputError
from ..fst.channel import END, FINAL_STATE, START_STATE, Channel, ScanArc
from ..wording import counted
from .dot import EPS, arrow, caption_label, digraph, ltr, mark, marks, state

__all__ = ["channel_graph", "plain_arc", "state_name"]


def state_name(channel: Channel, state: int) -> str:
    """A channel state as a reader names it: ``nothing pending``, ``end`` or ``pending ⟨X⟩``
    (:func:`~.dot.mark`)."""
    if state == START_STATE:
        return "nothing pending"
    if state == FINAL_STATE:
        return "end"
    return f"pending {mark(channel.symbols[state - 2])}"


def _written(arc: ScanArc) -> str:
    """What ``arc`` writes as a label prints it: ``⟨b⟩``, or ``ε`` for nothing."""
    return EPS if arc.olabel is None else mark(arc.olabel)


def plain_arc(arc: ScanArc) -> str:
    """The label of an arc without a parameter (probability 1): ``⟨a⟩ → ε`` (a mark made
    pending) or ``$ → ⟨b⟩`` (the end, writing what is pending)."""
    return arrow(arc.ilabel if arc.ilabel == END else mark(arc.ilabel), _written(arc))


def channel_graph(channel: Channel, symbols: Sequence[str],
                  min_prob: float = 0.01) -> graphviz.Digraph:
    """The channel restricted to ``symbols``: states ``pending ⟨a⟩``, arcs labelled
    ``⟨a⟩ ⟨b⟩ → output / p`` (the window in original order, what the arc writes, its probability),
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
    g = digraph("channel", "")  # captioned below, once the hidden arcs are counted
    labels: dict[tuple[int, int], list[tuple[float, str]]] = {}
    hidden = 0
    for arc in channel.arcs():
        if arc.src not in states or arc.dst not in states or \
                (arc.ilabel != END and arc.ilabel not in chosen):
            continue
        p, label = 1.0, plain_arc(arc)
        if arc.param is not None:
            p = float(channel.phi[arc.param])
            if p < min_prob:
                hidden += 1
                continue
            a, b, _ = arc.param
            window = marks((channel.symbols[a], channel.symbols[b]))
            label = f"{arrow(window, _written(arc))} / {p:.2g}"
        labels.setdefault((arc.src, arc.dst), []).append((p, ltr(label)))
    lines = {key: [line for _, line in sorted(pl, key=lambda pl: -pl[0])]  # likeliest first
             for key, pl in labels.items()}  # parallel arcs share one edge
    g.node("entry", "", shape="none", width="0", height="0")
    for s in sorted(states):
        state(g, str(s), state_name(channel, s), lines.get((s, s), ()),
              "doublecircle" if s == FINAL_STATE else "ellipse")
    g.edge("entry", str(START_STATE))
    for (src, dst), text in lines.items():
        if src != dst:
            g.edge(str(src), str(dst), graphviz.nohtml("".join(
                line.replace("\\", "\\\\") + "\\l" for line in text)))
    caption = (f"{channel.direction} channel over {ltr(marks(symbols))} (reads {reads}); "
               f"{counted(hidden, 'arc')} with p < {min_prob:g} hidden")
    g.attr(label=caption_label(caption))
    return g
