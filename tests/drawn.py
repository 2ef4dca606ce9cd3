"""What a drawing holds, for the tests of the channel and lattice pictures."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import graphviz

_EDGE = re.compile(r"^\s*(\d+) -> (\d+)(.*)$", re.M)  # an edge of a DOT source, its attributes


def self_loops(source: str) -> list[tuple[str, str]]:
    """The state and the rest of the line (its attributes) of each edge of the DOT ``source``
    from a state to itself, in order."""
    return [(a, rest) for a, b, rest in _EDGE.findall(source) if a == b]


def svg_texts(graph: graphviz.Digraph) -> set[str | None]:
    """The texts of ``graph`` drawn as SVG by Graphviz's dot."""
    svg = ET.fromstring(graph.pipe(format="svg", encoding="utf-8"))
    return {t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")}
