"""What the channel learned, as SVG: each grammar rule's window with the probabilities of its
four edits, the grammar's initial ones (thin grey bars) beside the learned ones (the grammar's
own edit in orange), after the paper's Figure 3. Shown in the HTML viewer's second tab.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from ..apps.rules import RuleBar
from ..fst.channel import EDITS
from .tree import FONTS

__all__ = ["EDIT_NAMES", "rules_chart"]

# the edits as the paper's Figure 3 names them, in EDITS order
EDIT_NAMES = {"KEEP": "ab→ab", "LEFT": "ab→b", "RIGHT": "ab→a", "SWAP": "ab→ba"}
_LABEL, _CELL, _ROW, _HEAD = 150, 130, 26, 40


def rules_chart(bars: Sequence[RuleBar]) -> str:
    """The chart of ``bars`` as an inline ``<svg>`` element."""
    width = _LABEL + _CELL * len(EDITS) + 10
    height = _HEAD + _ROW * len(bars) + 10
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="fp-chart" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}" '
           f'style="font-family: {escape(FONTS)}; font-size: 12px">']
    for e, edit in enumerate(EDITS):
        x = _LABEL + e * _CELL
        out.append(f'<text x="{x}" y="16" font-weight="bold">{EDIT_NAMES[edit]}</text>'
                   f'<text x="{x}" y="30" fill="#666">{edit}</text>')
    for k, bar in enumerate(bars):
        y = _HEAD + k * _ROW
        count = "" if math.isnan(bar.count) else f"  ×{bar.count:,.0f}"
        out.append(f'<text x="4" y="{y + 15}"><tspan font-weight="bold">{escape(bar.a)} '
                   f'{escape(bar.b)}</tspan><tspan fill="#666">{count}</tspan></text>')
        for e, edit in enumerate(EDITS):
            x = _LABEL + e * _CELL
            full = _CELL - 40
            rule = edit == bar.edit
            colour = "#e08600" if rule else "#4a78c2"
            out.append(f'<rect x="{x}" y="{y + 3}" width="{full * bar.initial[e]:.1f}" '
                       f'height="4" fill="#bbb"><title>grammar: {bar.initial[e]:.3f}</title>'
                       "</rect>")
            out.append(f'<rect x="{x}" y="{y + 9}" width="{max(full * bar.learned[e], 0.5):.1f}" '
                       f'height="11" fill="{colour}"><title>learned: {bar.learned[e]:.3f}'
                       f'{" (the grammar’s rule)" if rule else ""}</title></rect>')
            out.append(f'<text x="{x + full * bar.learned[e] + 4:.1f}" y="{y + 19}" '
                       f'font-size="10" fill="#444">{bar.learned[e]:.2f}</text>')
    out.append("</svg>")
    return "".join(out)
