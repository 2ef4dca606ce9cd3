"""A sentence's underlying tree T′ as SVG, in reading order (``draw tree`` and the viewer).

Words left to right (right to left for Arabic and Hebrew) with their dependency arcs above,
each constituent's underlying punctemes between the words at its edges, coloured by their fate
on the channel's most probable path (kept, absorbed, transposed; grey ``?`` where a backoff
puncteme is unknown), and the surface punctuation in the row below. Elements carry classes and
``data-`` attributes (word, slot, node) that the HTML viewer's script and :data:`STYLE` use.
"""
from __future__ import annotations

import math
from html import escape

from ..model.punct import PunctModel
from ..ud.treebank import Sentence
from .layout import (
    ARROW,
    ARROW_HIGH,
    FONT,
    LABEL_RISE,
    MARGIN,
    SMALL,
    STROKE,
    Layout,
    arc_leg,
    layout,
    text_width,
)
from .sentence import SentenceView, sentence_views

__all__ = ["FONTS", "STYLE", "sentence_svg", "svg", "tree_svg"]

# Noto covers Latin, Chinese (CJK), Devanagari and Arabic: Debian's fonts-noto-core and
# fonts-noto-cjk (README, "Set-up"); DejaVu and the generic family as a last resort.
FONTS = ('"Noto Sans", "Noto Sans CJK SC", "Noto Sans Devanagari", "Noto Sans Arabic", '
         '"Noto Naskh Arabic", "DejaVu Sans", sans-serif')
STYLE = f"""
.fp-tree text {{ font-family: {FONTS}; font-size: {FONT}px; text-anchor: middle; }}
.fp-tree .rel {{ font-size: {SMALL}px; fill: #666; paint-order: stroke; stroke: white;
                stroke-width: 3px; }}
.fp-tree .caption {{ text-anchor: start; font-size: {SMALL + 1}px; fill: #333; }}
.fp-tree .arc {{ fill: none; stroke: #8a8a8a; stroke-width: {STROKE}; }}
.fp-tree .head {{ fill: #8a8a8a; }}
.fp-tree .w {{ fill: #111; }}
.fp-tree .m {{ font-weight: bold; }}
.fp-tree .kept {{ fill: #1f5fbf; }}
.fp-tree .absorbed {{ fill: #c62828; text-decoration: line-through; }}
.fp-tree .transposed {{ fill: #d97a00; }}
.fp-tree .backoff {{ fill: #9e9e9e; }}
.fp-tree .x {{ fill: #333; }}
.fp-tree .rule {{ stroke: #ddd; }}
"""
_SIDE = {"l": "left", "r": "right"}


def _f(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _arcs(lay: Layout) -> list[str]:
    out = []
    y = lay.words_y - FONT  # where the arcs leave the words
    for a in lay.arcs:
        if a.head == 0:
            top = y - a.height
            out.append(f'<path class="arc" data-d="{a.dep}" d="M{_f(a.x2)} {_f(top)}V{_f(y)}"/>')
        else:  # the halves of a cubic of span 2 × leg (control points 4/3 height above its
            # ends), split at its apex, at the ends, and a straight line between them
            w = math.copysign(arc_leg(a), a.x2 - a.x1)
            top, rise = y - a.height, y - 2 * a.height / 3
            out.append(f'<path class="arc" data-d="{a.dep}" d="M{_f(a.x1)} {_f(y)}C{_f(a.x1)} '
                       f'{_f(rise)} {_f(a.x1 + w / 2)} {_f(top)} {_f(a.x1 + w)} {_f(top)}'
                       f'H{_f(a.x2 - w)}C{_f(a.x2 - w / 2)} {_f(top)} {_f(a.x2)} {_f(rise)} '
                       f'{_f(a.x2)} {_f(y)}"/>')
        label_x, label_y = a.label_x, y - a.label_height - LABEL_RISE
        out.append(f'<path class="head" d="M{_f(a.x2 - ARROW / 2)} {_f(y - ARROW_HIGH)}'
                   f'h{_f(ARROW)}l{_f(-ARROW / 2)} {_f(ARROW_HIGH)}z"/>')
        out.append(f'<text class="rel" x="{_f(label_x)}" y="{_f(label_y)}">'
                   f'{escape(a.label)}</text>')
    return out


def _texts(view: SentenceView, lay: Layout) -> list[str]:
    out = []
    for p in lay.items:
        at = f'x="{_f(p.x)}" y="{_f(lay.y(p))}"'
        if p.kind == "word":
            d = p.index - 1
            title = f"{view.words[d]} ({view.upos[d]}, {view.deprels[d]})"
            out.append(f'<text class="w" data-w="{p.index}" {at}><title>{escape(title)}'
                       f'</title>{escape(p.text)}</text>')
        elif p.kind == "mark":
            if p.fate == "backoff":
                title = "a backoff puncteme: its tokens are unknown"
            elif p.node == 0:
                title = "∘, the sentence boundary"
            else:
                d = p.node - 1
                title = (f"{_SIDE[p.side]} puncteme of the {view.deprels[d]} constituent headed "
                         f"by {view.words[d]}: {p.fate}")
            out.append(f'<text class="m {p.fate}" data-s="{p.slot}" data-n="{p.node}" {at}>'
                       f'<title>{escape(title)}</title>{escape(p.text)}</text>')
        else:
            out.append(f'<text class="x" data-s="{p.slot}" {at}>{escape(p.text)}</text>')
    return out


def svg(view: SentenceView, lay: Layout | None = None) -> str:
    """The picture of ``view`` as an inline ``<svg>`` element, styled by :data:`STYLE`."""
    lay = lay or layout(view)
    rule_y = lay.words_y + 9
    body = _arcs(lay) + [f'<line class="rule" x1="{MARGIN}" x2="{_f(lay.width - MARGIN)}" '
                         f'y1="{_f(rule_y)}" y2="{_f(rule_y)}"/>'] + _texts(view, lay)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="fp-tree" width="{_f(lay.width)}" '
            f'height="{_f(lay.height)}" viewBox="0 0 {_f(lay.width)} {_f(lay.height)}">'
            + "".join(body) + "</svg>")


def tree_svg(view: SentenceView, caption: str) -> str:
    """A standalone SVG document of ``view`` with a legend and ``caption`` below it."""
    lay = layout(view)
    legend = [("", "underlying marks:"), ("kept", "kept"), ("absorbed", "absorbed"),
              ("transposed", "transposed"), ("backoff", "? backoff"),
              ("", "(the surface punctuation is the row below the words)")]
    line = SMALL + 7
    y1, y2 = lay.height + line - 4, lay.height + 2 * line - 2
    parts, x = [], float(MARGIN)
    for fate, text in legend:
        parts.append(f'<text class="caption {"m " + fate if fate else ""}" x="{_f(x)}" '
                     f'y="{_f(y1)}">{escape(text)}</text>')
        x += text_width(text, SMALL + 1) + 14
    width = max(lay.width, x, 2 * MARGIN + text_width(caption, SMALL + 1))
    height = lay.height + 2 * line + 6
    direction = ' direction="rtl" unicode-bidi="embed"' if lay.rtl else ""
    anchor = f'x="{_f(width - MARGIN)}"' if lay.rtl else f'x="{MARGIN}"'
    parts.append(f'<text class="caption"{direction} {anchor} y="{_f(y2)}">{escape(caption)}'
                 "</text>")
    inner = svg(view, lay)
    body = inner[inner.index(">") + 1:-len("</svg>")]
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" class="fp-tree" width="{_f(width)}" '
            f'height="{_f(height)}" viewBox="0 0 {_f(width)} {_f(height)}">'
            f"<style>{STYLE}</style>"
            f'<rect width="100%" height="100%" fill="white"/>{body}{"".join(parts)}</svg>\n')


def sentence_svg(model: PunctModel, sent: Sentence, name: str) -> str:
    """What ``fstpunct draw tree`` draws of ``sent`` (called ``name`` in the caption): its
    Viterbi T′ under ``model``, as :func:`tree_svg`."""
    view = next(sentence_views(model, [sent], k=0))
    return tree_svg(view, f"{name}: {view.text}   (log p(x | T) = {view.log_prob:.2f})")
