"""Where everything of a sentence picture goes: words left to right in sentence order (right to
left for Arabic and Hebrew), dependency arcs above them, each slot's underlying marks between the
words at the edges of their constituents, the surface punctuation below.

The one layout of a sentence, drawn by :mod:`fstpunct.show.tree` as SVG for ``draw tree`` and
for every sentence of the HTML viewer. Text widths are estimated from character classes (wide
East Asian characters one em, combining marks none, the rest 0.6 em), as no font is at hand.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import unicodedata
from dataclasses import dataclass

from .sentence import SentenceView

__all__ = ["Arc", "Layout", "Placed", "arc_leg", "crosses", "crossings", "head_gaps",
           "heads_cut", "labels_on_curves", "layout", "overlapping_labels", "text_width"]

FONT = 15          # px, words and marks
SMALL = 11         # px, relation labels
GAP = 10           # px between neighbouring items
LEVEL = 22         # px of height per arc level
MARGIN = 12
LABEL_RISE = 3     # px from a label's height to its baseline
LIFTS = 1          # half levels a label may rise above its arc to keep clear of other curves
REACH = 0.45       # the share of its arc's span a label may move along it, either way
FAR = 600.0        # px: an arc wider tries its label first at its dependent's end (its arrow)
STEPS = 9          # places tried on either side of the middle
SAMPLES = 8        # a label box's x-extent in this many parts: where _between looks
STROKE = 1.2       # px, the arcs' stroke width (tree.py's STYLE)
ARROW = 7.0        # px, an arrow head's width at its top
ARROW_HIGH = 6.0   # px, an arrow head's height, its point at the arc's end
ANCHOR = 4.0       # px from a word's centre to its arcs' nearest end on either side (not the root)
SPREAD = (FONT / 5, FONT / 3)  # px between neighbouring arc ends at a word: least, most
BESIDE_HEAD = ARROW / 2 + STROKE  # px at least between an arrow head and the next arc end


def text_width(text: str, size: float = FONT) -> float:
    """An estimate of the rendered width of ``text`` at ``size`` px."""
    em = 0.0
    for c in text:
        if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me", "Cf"):
            continue
        em += 1.0 if unicodedata.east_asian_width(c) in ("W", "F") else 0.6
    return em * size


@dataclass(frozen=True)
class Placed:
    """A piece of text at centre ``x`` on its row (:meth:`Layout.y`): a word (``index``
    1-based), an underlying mark (``slot``, its position ``index`` in uᵢ, its node, side and
    fate) or a surface token."""

    kind: str  # "word", "mark" or "surface"
    text: str
    x: float
    slot: int = -1
    index: int = 0
    node: int = 0
    side: str = ""
    fate: str = ""


@dataclass(frozen=True)
class Arc:
    """The arc from word ``head`` to word ``dep`` (0: the root arrow), its end points' x (it
    leaves the words' row a font size above their baseline; see :func:`_anchors`), its height
    (its curve: :func:`arc_leg`), its label, the label's height (the arc's; the curve's under
    it where it is moved along the arc; higher by half levels where it is lifted) and the x it
    is centred on: see :func:`_label_places`; and the widest its legs may be (infinite: as
    wide as :func:`arc_leg` lets them; narrower over a steep arc inside it: :func:`_steep`)."""

    head: int
    dep: int
    x1: float
    x2: float
    height: float
    label: str
    label_height: float
    label_x: float
    leg: float = math.inf


@dataclass(frozen=True)
class Layout:
    """A sentence placed on the page: the size, the placed words and marks, the arcs, each
    slot's horizontal extent (``rtl``: laid out right to left) and the baselines of the two rows
    of text: the words with their underlying marks, and the surface tokens below them."""

    width: float
    height: float
    rtl: bool
    items: tuple[Placed, ...]
    arcs: tuple[Arc, ...]
    slots: tuple[tuple[float, float], ...]  # each slot's extent (left x, right x)
    words_y: float
    surface_y: float

    def y(self, item: Placed) -> float:
        """The baseline of ``item``'s row."""
        return self.surface_y if item.kind == "surface" else self.words_y


def _levels(heads: tuple[int, ...]) -> list[int]:
    """Each arc's level, one above the highest arc strictly inside its span (the root arc 0)."""
    n = len(heads)
    level = [0] * n
    for d in sorted(range(n), key=lambda d: abs(heads[d] - (d + 1))):
        h = heads[d]
        if h == 0:
            continue
        lo, hi = sorted((h, d + 1))
        inner = [level[e] for e in range(n) if heads[e] and e != d and
                 lo <= min(heads[e], e + 1) and max(heads[e], e + 1) <= hi]
        level[d] = 1 + max(inner, default=0)
    return level


def _label_box(arc: Arc, half: float | None = None) -> tuple[float, float, float, float]:
    """The box ``arc``'s label covers as drawn (``half`` its half-width, default the estimate):
    left and right x, and bottom and top as heights above the arcs' ends (a quarter em below
    the baseline to three quarters above it)."""
    half = text_width(arc.label, SMALL) / 2 if half is None else half
    base = arc.label_height + LABEL_RISE
    return arc.label_x - half, arc.label_x + half, base - SMALL / 4, base + 3 * SMALL / 4


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    """Whether boxes ``a`` and ``b`` (left, right, bottom, top) overlap."""
    return a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]


def _through(box: tuple[float, float, float, float], arc: Arc) -> bool:
    """Whether ``arc``'s curve (the root arrow's line) passes through ``box``: whether its
    heights over the box's x-extent, from the lower end's to the apex's or the higher end's
    (the curve rises to its middle and falls), reach between the box's bottom and top."""
    left, right, bottom, top = box
    if bottom >= arc.height:
        return False
    if not arc.head:
        return left < arc.x2 < right
    lo, hi = max(left, min(arc.x1, arc.x2)), min(right, max(arc.x1, arc.x2))
    if lo >= hi:
        return False
    ends = _arc_y(arc, lo), _arc_y(arc, hi)
    apex = lo <= (arc.x1 + arc.x2) / 2 <= hi  # under the box: above its bottom (checked above)
    return min(ends) < top and (apex or bottom < max(ends))


def _between(label: Arc, box: tuple[float, float, float, float], arc: Arc) -> bool:
    """Whether ``arc``'s curve runs between ``label``'s arc and its label's ``box`` somewhere
    under the box (at :data:`SAMPLES` + 1 points of the box's x-extent over both arcs): the
    label would seem to be ``arc``'s."""
    if not arc.head:  # the root arrow under a box passes through it (_through)
        return False
    left, right, bottom, _ = box
    lo = max(left, min(label.x1, label.x2), min(arc.x1, arc.x2))
    hi = min(right, max(label.x1, label.x2), max(arc.x1, arc.x2))
    if lo >= hi:
        return False
    xs = [lo + (hi - lo) * k / SAMPLES for k in range(SAMPLES + 1)]
    first, last = _arc_y(arc, xs[0]), _arc_y(arc, xs[-1])
    if min(first, last) >= bottom:  # its lowest there: at an end
        return False
    # the middle heights only as any() asks for them: a list of all nine, the ends' included,
    # made bench/arc_crossings.py's layout CPU 14 % (en) and 24 % (zh) longer
    heights = itertools.chain((first,), (_arc_y(arc, x) for x in xs[1:-1]), (last,))
    return any(_arc_y(label, x) < y < bottom for x, y in zip(xs, heights))


def overlapping_labels(lay: Layout) -> list[tuple[Arc, Arc]]:
    """The pairs of relation labels whose boxes (the width estimate's) overlap."""
    boxes = [(a, _label_box(a)) for a in lay.arcs if a.head]
    return [(a, b) for (a, box), (b, other) in itertools.combinations(boxes, 2)
            if _overlap(box, other)]


def labels_on_curves(lay: Layout) -> list[tuple[Arc, Arc]]:
    """The pairs (an arc, another arc whose curve passes through the first one's label box)."""
    boxes = [_label_box(a) for a in lay.arcs]
    return [(a, b) for a, box in zip(lay.arcs, boxes) for b in lay.arcs
            if b is not a and _through(box, b)]


def head_gaps(lay: Layout) -> list[float]:
    """For each of ``lay``'s arcs (the root arrow among them), how near another arc's curve
    comes to its arrow head: the least distance (px, negative inside the head) from the other
    curve's centre to the head's slanted edge, measured square to the edge, at heights up to
    the head's (:data:`ARROW_HIGH`, in steps of a quarter px); infinite where no other arc ends
    within a head and a stroke of the head's point (none can come as near as half a stroke). A
    curve's x at height y inverts its leg (:func:`_arc_y`: y = 4 height t (1 − t),
    x = 2 leg (3t² − 2t³) from its end). Right for arcs at least :data:`LEVEL` high, the
    lowest :func:`layout` makes: such a leg runs under 0.7 px sideways up to the head's height
    and, up to half the arc's height, rises steeper than the head's edges (under 0.53 px
    sideways a px, the edges 0.58), so no point of it above the head comes nearer an edge than
    the gap measured, where that is under 5 px (to the quarter-px steps). A lower arc is
    refused (ValueError): a 4 px arc's flat top through a head, or a 6.2 px arc's leg into one
    from 8.5 px off, went unseen (infinite)."""
    arcs = [a for a in lay.arcs if a.head]
    low = next((a for a in arcs if a.height < LEVEL), None)
    if low is not None:
        raise ValueError(f"head_gaps measures arcs at least {LEVEL} px high, not "
                         f"{low.height} ({low.head} -> {low.dep})")
    slant = ARROW_HIGH / math.hypot(ARROW_HIGH, ARROW / 2)  # the edge's cosine from upright

    legs = {id(b): arc_leg(b) for b in arcs}

    def gap(a: Arc, b: Arc, end: float, other: float, y: float) -> float:
        x = end + math.copysign(_leg_reach(legs[id(b)], b.height, y), other - end)
        return (abs(x - a.x2) - ARROW / 2 * y / ARROW_HIGH) * slant

    return [min((gap(a, b, end, other, ARROW_HIGH * k / 24)
                 for b in arcs if b is not a for end, other in ((b.x1, b.x2), (b.x2, b.x1))
                 if abs(end - a.x2) < ARROW + STROKE for k in range(25)),
                default=math.inf) for a in lay.arcs]


def heads_cut(lay: Layout) -> list[Arc]:
    """The arcs (the root arrow among them) whose arrow head another arc's stroke cuts into:
    the other curve's centre stands less than half a stroke from the head's slanted edge
    (:func:`head_gaps`; an arc lower than :data:`LEVEL` is refused, ValueError)."""
    return [a for a, gap in zip(lay.arcs, head_gaps(lay)) if gap < STROKE / 2]


def _resting(arc: Arc, x: float, half: float, lift: float) -> Arc:
    """``arc`` with its label (half-width ``half``) centred at ``x`` and resting on the curve:
    its box's bottom on the curve's highest point under it (the apex where the box spans the
    arc's middle), raised by ``lift``."""
    mid = (arc.x1 + arc.x2) / 2
    if abs(x - mid) <= half:
        return dataclasses.replace(arc, label_height=arc.height + lift, label_x=x)
    nearest = x - half if x > mid else x + half
    return dataclasses.replace(arc, label_height=_arc_y(arc, nearest) + lift, label_x=x)


def _label_places(arcs: list[Arc]) -> list[Arc]:
    """``arcs`` with their labels placed, shortest arc first: centred over the arc's apex,
    else moved along its middle (up to :data:`REACH` of its span either way) resting on its
    curve, or lifted by up to :data:`LIFTS` half levels, the first place where the label keeps
    :data:`GAP` from the other labels (it kept two) and off the other arcs' curves, and no
    other curve runs between it and its arc (the label would seem that arc's); where there is
    none, the lowest height over the apex clear of the labels (the label crosses a curve
    there). An arc wider than :data:`FAR` tries first the dependent's end of its flat top
    (a gap inside its leg), by its arrow head, then the places above: over the middle of a
    long arc the label stood far from both words (en:dev:20's 'acl', 1,700 px wide), and a
    reader could not tell which words it joined. Short neighbouring arcs under long labels
    ('compound', 'case') printed their labels over each other; raising the arc instead
    (de06b7d) made it cross the arcs above."""
    out = list(arcs)
    labelled: list[tuple[float, float, float, float]] = []  # the placed labels' boxes

    def apart(box: tuple[float, float, float, float]) -> bool:
        """Whether ``box`` stays :data:`GAP` clear of the placed labels' boxes, sideways."""
        left, right, bottom, top = box
        return not any(_overlap((left - GAP, right + GAP, bottom, top), b) for b in labelled)

    def clear(a: Arc, half: float, near: list[Arc]) -> bool:
        """Whether ``a``'s label box keeps apart and off the curves of ``near``."""
        box = _label_box(a, half)
        return apart(box) and not any(_through(box, b) or _between(a, box, b) for b in near)

    for k in sorted(range(len(arcs)), key=lambda k: abs(arcs[k].head - arcs[k].dep)):
        a = arcs[k]
        if not a.head:
            continue
        mid, step = (a.x1 + a.x2) / 2, abs(a.x2 - a.x1) * REACH / STEPS
        half = text_width(a.label, SMALL) / 2
        shifts = [0.0] + [s * step * j for j in range(1, STEPS + 1) for s in (-1, 1)]
        if abs(a.x2 - a.x1) > FAR:  # first at the dependent's end of the flat top
            flat = max(abs(a.x2 - a.x1) / 2 - arc_leg(a) - half - GAP, 0.0)
            shifts.insert(0, math.copysign(flat, a.x2 - a.x1))
        # the other arcs under some place tried (its box within reach of the middle; 1 px for
        # rounding): the rest end before the box or start after it, clear in any case
        reach = max(map(abs, shifts)) + half + 1
        near = [b for b in arcs if b.dep != a.dep  # a word's one arc
                and min(b.x1, b.x2) < mid + reach and max(b.x1, b.x2) > mid - reach]
        tries = (_resting(a, mid + shift, half, lift * LEVEL / 2)
                 for lift in range(LIFTS + 1) for shift in shifts)
        placed = next((c for c in tries if clear(c, half, near)), None)
        if placed is None:
            placed = a
            while not apart(_label_box(placed, half)):
                placed = dataclasses.replace(placed, label_height=placed.label_height + LEVEL / 2)
        labelled.append(_label_box(placed, half))
        out[k] = placed
    return out


def _fans(heads: tuple[int, ...], widths: list[float]
          ) -> dict[tuple[int, bool], list[tuple[int, float]]]:
    """The arcs leaving each word on each side (``later``: towards the later words), as the ends
    they leave from (2d at arc d's head, 2d + 1 at its dependent, where its arrow head is), each
    with its point's distance from the word's centre (:func:`_anchors`). The arcs of one side
    all nest, the longer enclosing the shorter: longest first, :data:`ANCHOR` px off the centre
    (:data:`BESIDE_HEAD` at the root word, beside the root arrow's head: at 4 px the arcs'
    strokes, rising almost upright, touched its top corners). Neighbouring points stand a step
    apart, the word's half-width past ANCHOR shared among them (a wide word spreads them), but
    at least FONT / 5 (3 px: the 1.2 px strokes part by more than a stroke's width) and at most
    FONT / 3 (5 px) (:data:`SPREAD`); either side of an arrow head (a word's one dependent end)
    at least :data:`BESIDE_HEAD` (4.7 px): half the head's width at its top (3.5 px), half a
    stroke, and half a stroke for the lean of the neighbour nearer the centre, which encloses
    the head's arc and curves towards the head (at most 0.33 px over the head's 6 px, for an arc
    44 px high or more). At 3 px another arc's stroke cut into the head's top
    (:func:`heads_cut`). The share is taken past ANCHOR at the root word too, and a step
    raised beside a head is not taken back from the others: a root word's fan whose steps
    share its half-width reaches 0.7 px (BESIDE_HEAD − ANCHOR) past it, a fan with a raised
    step further (:func:`_reach` and the slot widening read the last point). On a narrow word the
    points reach past its edge, and the slot beside it widens to keep them clear of the next
    text (:func:`layout`)."""
    sides: dict[tuple[int, bool], list[tuple[int, int]]] = {}  # (word, later): (span, end)
    for d, h in enumerate(heads):
        if h:
            for word, other, end in ((h - 1, d, 2 * d), (d, h - 1, 2 * d + 1)):
                sides.setdefault((word, other > word), []).append((abs(other - word), end))
    least, most = SPREAD
    fans = {}
    for (word, later), arcs in sides.items():
        step = min(max((widths[word] / 2 - ANCHOR) / max(len(arcs) - 1, 1), least), most)
        ends = [end for _, end in sorted(arcs, reverse=True)]
        offsets = [ANCHOR if heads[word] else BESIDE_HEAD]  # the root arrow's head at the centre
        for before, end in zip(ends, ends[1:]):
            offsets.append(offsets[-1] + (max(step, BESIDE_HEAD) if (before | end) & 1 else step))
        fans[word, later] = list(zip(ends, offsets))
    return fans


def _reach(fans: dict[tuple[int, bool], list[tuple[int, float]]], word: int,
           later: bool) -> float:
    """How far from ``word``'s centre its farthest arc point on that side stands (0: none)."""
    return fans[word, later][-1][1] if (word, later) in fans else 0.0


def _anchors(fans: dict[tuple[int, bool], list[tuple[int, float]]], centres: list[float],
             rtl: bool) -> list[tuple[float, float]]:
    """Each word's arc's end points (at its head, at the word; the root arrow at the word's
    centre): each arc its own point at each of its words, so that arcs sharing a word nest
    there. The arcs leaving a word on one side leave it from the centre out, longest first
    (:func:`_fans`): the longest :data:`ANCHOR` px off the centre (:data:`BESIDE_HEAD` at the
    root word), each next one a step further towards the other ends (away from the centre,
    mirrored right to left)."""
    points = [c for c in centres for _ in (0, 1)]
    for (word, later), ends in fans.items():
        side = 1 if later != rtl else -1
        for end, offset in ends:
            points[end] = centres[word] + side * offset
    return list(zip(points[::2], points[1::2]))


def _leg_reach(leg: float, height: float, y: float) -> float:
    """How far sideways from its end the leg (:func:`arc_leg`) of an arc ``height`` high has
    run where the curve is ``y`` high: y = 4 height t (1 − t), x = 2 leg (3t² − 2t³)."""
    t = (1 - math.sqrt(1 - y / height)) / 2
    return 2 * leg * (3 * t * t - 2 * t ** 3)


def _label_room(view: SentenceView, widths: list[float], slots: list[float], levels: list[int],
                fans: dict[tuple[int, bool], list[tuple[int, float]]]) -> list[float]:
    """For each slot, the width to add (given the slots' widths ``slots``, the words' ``widths``,
    the arcs' ``levels`` by :func:`_levels` and their ends' ``fans`` by :func:`_fans`) so that
    each arc's label has room between its words' centres: its width and, on both sides (it is
    centred), :data:`GAP` or, if further, the farthest reach at the label's top of a longer arc
    leaving either word over it: that arc's point's distance from the centre (:func:`_anchors`),
    its leg's run at that height with legs as wide as high (:func:`_leg_reach`; an
    over-estimate: :func:`arc_leg`, :func:`_steep`) and half a stroke. The root arrow, a line at
    the word's centre, stays within the gap. Shortest arc first, a shortfall shared evenly among
    the slots under the arc."""
    offset = {end: off for fan in fans.values() for end, off in fan}
    heads = view.heads
    extra = [0.0] * (view.n + 1)
    for d in sorted(range(view.n), key=lambda d: abs(heads[d] - (d + 1))):
        if not heads[d]:
            continue
        lo, hi = sorted((heads[d], d + 1))
        top = levels[d] * LEVEL + LABEL_RISE + 3 * SMALL / 4
        reach = GAP
        for e, h in enumerate(heads):
            a, b = sorted((h, e + 1))
            if h and (a == lo < hi < b or a < lo < hi == b):  # leaves lo or hi over the arc
                end = 2 * e + (h != (lo if a == lo else hi))  # its end there
                height = levels[e] * LEVEL
                reach = max(reach, offset[end] + _leg_reach(height, height, top) + STROKE / 2)
        apart = (widths[lo - 1] + widths[hi - 1]) / 2 + sum(widths[lo:hi - 1]) \
            + sum(slots[i] + extra[i] for i in range(lo, hi))
        short = text_width(view.deprels[d], SMALL) + 2 * reach - apart
        for i in range(lo, hi) if short > 0 else ():
            extra[i] += short / (hi - lo)
    return extra


def layout(view: SentenceView) -> Layout:
    """The layout of ``view``: x positions in reading order, mirrored for right-to-left text."""
    n = view.n
    items: list[Placed] = []
    slot_extent: list[tuple[float, float]] = []
    centres: list[float] = []
    x = MARGIN
    widths = [text_width(w) for w in view.words]
    fans = _fans(view.heads, widths)
    sized = []
    for i, slot in enumerate(view.slots):
        marks = [text_width(m.text) for m in slot.underlying]
        if slot.backoff:
            marks = [text_width("?")]
        surface = [text_width(t) for t in slot.surface]
        inner = max(sum(marks) + GAP * max(len(marks) - 1, 0),
                    sum(surface) + GAP * max(len(surface) - 1, 0))
        edge = GAP if marks or surface else GAP / 2  # a word's distance from a slot's text
        # arc points past a word's edge (a fan on a narrow word): the slot half a gap wider
        left = max(edge, _reach(fans, i - 1, True) - widths[i - 1] / 2 + GAP / 2) if i else edge
        right = max(edge, _reach(fans, i, False) - widths[i] / 2 + GAP / 2) if i < n else edge
        sized.append((marks, surface, inner, left, right))
    levels = _levels(view.heads)
    extra = _label_room(view, widths, [sum(size[2:]) for size in sized], levels, fans)
    for i, (slot, (marks, surface, inner, left, right)) in enumerate(zip(view.slots, sized)):
        start = x
        inner += extra[i]
        mx = x + left + (inner - sum(marks) - GAP * max(len(marks) - 1, 0)) / 2
        if slot.backoff:
            items.append(Placed("mark", "?", mx + marks[0] / 2, i, 0, fate="backoff"))
        for j, (m, w) in enumerate(zip(slot.underlying, marks)):
            items.append(Placed("mark", m.text, mx + w / 2, i, j, m.node, m.side, m.fate))
            mx += w + GAP
        sx = x + left + (inner - sum(surface) - GAP * max(len(surface) - 1, 0)) / 2
        for j, (t, w) in enumerate(zip(slot.surface, surface)):
            items.append(Placed("surface", t, sx + w / 2, i, j))
            sx += w + GAP
        x += inner + left + right
        slot_extent.append((start, x))
        if i < n:
            w = widths[i]
            centres.append(x + w / 2)
            items.append(Placed("word", view.words[i], x + w / 2, index=i + 1))
            x += w
    width = x + MARGIN
    if view.rtl:  # mirror: the first word on the right
        centres = [width - c for c in centres]
        slot_extent = [(width - b, width - a) for a, b in slot_extent]
        items = [dataclasses.replace(p, x=width - p.x) for p in items]
    root = (max(levels, default=0) + 1) * LEVEL  # the root arrow's height, above every arc
    arcs = []
    for d, (x1, x2) in enumerate(_anchors(fans, centres, view.rtl)):
        h, label = view.heads[d], view.deprels[d]
        if h == 0:
            arcs.append(Arc(0, d + 1, x1, x2, root, label, root, x2))
            continue
        arcs.append(Arc(h, d + 1, x1, x2, levels[d] * LEVEL, label, levels[d] * LEVEL,
                        (x1 + x2) / 2))
    arcs = _label_places(_steep(arcs))
    top = max(root, max((a.label_height for a in arcs), default=0))  # the root arc, a label
    words_y = MARGIN + top + 2 * SMALL
    surface_y = words_y + FONT + 14
    height = surface_y + MARGIN
    return Layout(width, height, view.rtl, tuple(items), tuple(arcs), tuple(slot_extent),
                  words_y, surface_y)


def arc_leg(arc: Arc) -> float:
    """How far ``arc``'s curve runs sideways from each end while it rises to its height: half
    its span, or its height where that is less (then the curve runs flat between its legs), or
    ``arc.leg`` where that is less still (:func:`_steep`). An arc's curve is the cubic with
    control points straight above its ends, apex ``height``, of span 2 × leg, split at its
    apex, the halves drawn at the ends and joined by a straight line. The single cubic over the
    whole span, as drawn before, rose the slower the longer the arc: a long, low arc enclosing a
    short one at a shared word ran inside it there, even from ordered end points
    (:func:`_anchors`). Legs as wide as high keep every arc's rise alike, and an arc narrower
    than twice its height (one steep cubic) makes the arcs around it as steep (:func:`_steep`),
    so that every arc inside another stays inside it."""
    return min(abs(arc.x2 - arc.x1) / 2, arc.height, arc.leg)


def _steep(arcs: list[Arc]) -> list[Arc]:
    """``arcs`` with each arc's legs no wider for its height than those of any arc inside it
    (:func:`arc_leg`): then no arc runs outside another. A curve's height at distance d from
    its nearer end is its height times f(d / leg), one concave, rising profile (flat at 1 past
    the leg). Each point of an inner arc is nearer the inner arc's ends than the enclosing
    arc's, so the enclosing curve there is at least H f(d / L), d the inner's distance; with
    L / H no greater than the inner arc's l / h (and H at least h), concavity
    (f(s u) >= s f(u), s <= 1) makes that at least h f(d / l), the inner curve. Legs as wide
    as high give every arc the same ratio, 1; an arc narrower than twice its height has less
    (half its span over its height). Without this rule a narrow, high arc over one-letter
    words ran out of an enclosing arc leaving the same word 3 px from it (an arc 96 px wide
    and 88 high under one 110 high, by more than a stroke). The root arrow is left as is."""
    out = list(arcs)
    ratios: list[tuple[float, float, float]] = []  # (left, right, leg / height) of arcs done
    for k in sorted(range(len(arcs)), key=lambda k: abs(arcs[k].x2 - arcs[k].x1)):
        a = arcs[k]
        if not a.head:
            continue
        left, right = sorted((a.x1, a.x2))
        own = arc_leg(a) / a.height
        ratio = min([own, *(r for lo, hi, r in ratios if left <= lo and hi <= right)])
        if ratio < own:
            out[k] = dataclasses.replace(a, leg=ratio * a.height)
        ratios.append((left, right, ratio))
    return out


def _arc_y(arc: Arc, x: float) -> float:
    """The height of ``arc``'s curve (as :mod:`fstpunct.show.tree` draws it: :func:`arc_leg`)
    above its ends at ``x`` in its extent."""
    left, right = sorted((arc.x1, arc.x2))
    leg = arc_leg(arc)
    # s = 3t² − 2t³ along the cubic of span 2 × leg, symmetric about its middle: s in [0, 1/2]
    # from the nearer end (1/2 on the straight line between the legs)
    s = min(max(min(x - left, right - x), 0.0), leg) / (2 * leg)
    # t = 1/2 − u turns it into 1 − 2s = 3u − 4u³ = sin 3θ for u = sin θ, θ in [−π/6, π/6]:
    # t = 1/2 − sin(asin(1 − 2s)/3), with asin(1 − 2s) = π/2 − 2 asin(√s), exact near s = 0
    t = 0.5 - math.sin(math.pi / 6 - 2 * math.asin(math.sqrt(s)) / 3)
    return 4 * arc.height * t * (1 - t)


def _cos_slope(arc: Arc, y: float) -> float:
    """The cosine of the angle between ``arc``'s curve and the horizontal where it is ``y``
    high (0 at its ends, where it rises straight up; 1 at its height): along a leg, with
    span = 2 × :func:`arc_leg`, x = left + span (3t² − 2t³) and y = 4 height t (1 − t) change
    with t by 6 span t (1 − t) = 6 span y / (4 height) and
    4 height (1 − 2t) = 4 height √(1 − y / height)."""
    dx = 6 * 2 * arc_leg(arc) * y / (4 * arc.height)
    dy = 4 * arc.height * math.sqrt(max(1 - y / arc.height, 0.0))
    return dx / math.hypot(dx, dy) if dx else 0.0


def crosses(a: Arc, b: Arc, samples: int = 64, tolerance: float = STROKE) -> bool:
    """Whether arcs ``a`` and ``b`` cross as a reader sees them, by a sampled test: ends
    interleaved (a non-projective pair); or one inside the other's extent whose curve rises
    above the other's at one of ``samples`` points by more than ``tolerance`` (default
    :data:`STROKE`, the arcs' stroke width: the strokes part) measured square to the outer curve
    (the height gap times the cosine of the outer curve's slope there, never more than the
    distance to it); or one the root arrow through the other's extent. An inner curve less
    than a stroke's width outside the other runs in its stroke and falls back inside: drawn,
    the strokes do not part, and no reader sees a crossing, whether the two arcs share a word
    (two arcs leaving a word from one point, as before :func:`_anchors`, rose from it
    together, and the steeper ran just outside the other for a few px) or not (an inner apex
    just under the outer curve). ``tolerance=0`` counts any rise at a sampled point; a negative
    tolerance is refused (ValueError)."""
    if not tolerance >= 0:
        raise ValueError(f"tolerance must be at least 0 px, not {tolerance}")
    if not a.head or not b.head:  # the root arrow, straight down from above all arcs
        root, arc = (a, b) if not a.head else (b, a)
        return arc.head != 0 and min(arc.x1, arc.x2) < root.x2 < max(arc.x1, arc.x2)
    (la, ra), (lb, rb) = sorted((a.x1, a.x2)), sorted((b.x1, b.x2))
    if (lb <= la and ra <= rb) or (la <= lb and rb <= ra):
        inner, outer = (a, b) if lb <= la and ra <= rb else (b, a)
        lo, hi = sorted((inner.x1, inner.x2))
        xs = (lo + (hi - lo) * (k + 0.5) / samples for k in range(samples))
        heights = ((_arc_y(inner, x), _arc_y(outer, x)) for x in xs)
        return any((y - o) * _cos_slope(outer, o) > tolerance for y, o in heights)
    return la < lb < ra < rb or lb < la < rb < ra


def crossings(lay: Layout, samples: int = 64, tolerance: float = STROKE) -> int:
    """How many pairs of ``lay``'s arcs cross as a reader sees them (:func:`crosses`)."""
    return sum(crosses(a, b, samples, tolerance) for a, b in itertools.combinations(lay.arcs, 2))
