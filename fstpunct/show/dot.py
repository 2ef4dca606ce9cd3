"""Graphviz pictures of machines (the channel, slot lattices): a common style, and writing a
graph as ``.dot``/``.gv`` source or rendering ``.svg``, ``.png`` or ``.pdf`` with the ``dot``
program, falling back to the source when ``dot`` is missing.

Text is set in the generic sans-serif family; fontconfig takes each glyph it lacks from
another font, so Chinese, Devanagari and Arabic marks need a font that has them: Noto
(``fonts-noto-core``, ``fonts-noto-cjk``; README, "Set-up"). Each mark is written between
angle brackets (:func:`mark`), an arc's output after ``→``.
"""
from __future__ import annotations

import html
import shutil
import textwrap
import unicodedata
from collections.abc import Sequence
from pathlib import Path

import graphviz

from ..errors import InputError
from ..files import output

__all__ = ["CAPTION_COLUMNS", "EPS", "RENDER_SUFFIXES", "SOURCE_SUFFIXES", "caption_label",
           "arrow", "digraph", "html_text", "ltr", "mark", "marks", "state", "write_graph"]

SOURCE_SUFFIXES = (".dot", ".gv")
RENDER_SUFFIXES = (".svg", ".png", ".pdf")
EPS = "ε"
CAPTION_COLUMNS = 100  # caption lines wrap here (one long line made small graphs 1,600 px wide)
THIN_SPACE = "\u2009"  # between the characters of a mark of several (:func:`mark`)
SANS = "sans-serif"  # fontconfig falls back per glyph: Noto fonts


def mark(symbol: str) -> str:
    """A channel symbol as a label prints it: between angle brackets (``⟨।⟩``, ``⟨:⟩``), so that a
    mark is not read as a letter (the danda as ``l``), as the label's own ``:``, ``(`` or ``/``,
    or two hyphens as one dash (``⟨-⟩ ⟨-⟩`` against ``⟨- -⟩``). The characters of a mark of
    several, none a letter, stand a thin space apart (``⟨- -⟩``, ``⟨. . .⟩``, not ``<abbv>``):
    in sans-serif ``--`` read like the en dash ``–``, ``...`` like ``…``. No grammar's or
    bundled model's symbol is one of the brackets."""
    if len(symbol) > 1 and not any(c.isalpha() for c in symbol):
        symbol = THIN_SPACE.join(symbol)
    return f"⟨{symbol}⟩"


def marks(symbols: Sequence[str]) -> str:
    """``symbols`` as a label prints them (:func:`mark`), space-separated; none: ``ε``."""
    return " ".join(map(mark, symbols)) or EPS


def caption_label(caption: str) -> str:
    """``caption`` as a graph's label: each of its lines wrapped at :data:`CAPTION_COLUMNS`
    characters, escaped."""
    lines = [textwrap.fill(line, CAPTION_COLUMNS, break_on_hyphens=False)
             for line in caption.split("\n")]
    return graphviz.escape("\n".join(lines))


def arrow(read: str, written: str) -> str:
    """An arc's label part ``read → written``: what the arc reads and what it writes (the
    README's notation for the channel, ``, ,`` → ``,``); ``:`` is a mark too."""
    return f"{read} → {written}"


def digraph(name: str, caption: str, **graph_attr: str) -> graphviz.Digraph:
    """An empty left-to-right graph in the common style, ``caption`` on top
    (:func:`caption_label`)."""
    return graphviz.Digraph(name, graph_attr={"rankdir": "LR", "labelloc": "t", "fontsize": "12",
                                              "fontname": SANS, "label": caption_label(caption),
                                              **graph_attr},
                            node_attr={"fontname": SANS, "fontsize": "11"},
                            edge_attr={"fontname": SANS, "fontsize": "10"})


def ltr(line: str) -> str:
    """``line`` read left to right whatever marks it holds: where it holds a right-to-left
    character (``؟``), a left-to-right mark (U+200E) before each of its space-separated parts.
    Without them such a line was laid out right to left ('0.9 / ، : ؟ ،'), and a mark between
    two right-to-left ones could be mirrored (« as »)."""
    if not any(unicodedata.bidirectional(c) in ("R", "AL", "AN") for c in line):
        return line
    return " ".join("\u200e" + part if part else part for part in line.split(" "))


def html_text(text: str) -> str:
    """``text`` for a Graphviz HTML-like label: XML-escaped (``<``, ``&``, quotes) and its
    backslashes doubled, as Graphviz expands escapes there too (``\\N`` as the node's name,
    ``\\G`` the graph's, ``\\\\`` a backslash)."""
    return html.escape(text).replace("\\", "\\\\")


def state(graph: graphviz.Digraph, key: str, name: str, loops: Sequence[str] = (),
          shape: str = "ellipse", **attrs: str) -> None:
    """Add the state ``key`` called ``name`` (a ``shape``) to ``graph``; the labels of its
    self-loops (``loops``, one a line) are written in it, under its name and a rule, each after
    ``↻``, in a rounded box, and the loop is drawn unlabelled (``**attrs``: the loop's, e.g. its
    pen width). ``dot`` in a left-to-right graph set a loop's label where the loop itself and
    the edges coming in from above ran through it."""
    if not loops:
        graph.node(key, graphviz.escape(name), shape=shape)
        return
    lines = "".join(f"↻ {html_text(line)}<BR ALIGN=\"LEFT\"/>" for line in loops)
    graph.node(key, f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">'
                    f"<TR><TD>{html_text(name)}</TD></TR><HR/><TR><TD>"
                    f'<FONT POINT-SIZE="10">{lines}</FONT></TD></TR></TABLE>>',
               shape="box", style="rounded")
    graph.edge(key, key, **attrs)


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
