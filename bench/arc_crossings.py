"""Sentence pictures' arcs that cross by a sampled test, relation labels printed over each other and
over the arcs' curves, in the layout of the first N dev sentences of some languages (bundled
models, gold trees).

Prints, per language, the pictures' mean width and height (px) and the CPU time of laying them
out, and counts the pairs of arcs that cross (:func:`fstpunct.show.layout.crosses`:
interleaved ends; an inner arc's curve above its enclosing arc's at one of 64 sampled points,
or ``--samples N``, by more than ``--tolerance`` px measured square to the enclosing curve, by
default the arcs' stroke width (``layout.STROKE``), as strokes closer than that do not part
(two curves leaving a word from one point run together for a few px; an inner apex may touch
the outer curve); the
root arrow through an arc; with ``--tolerance 0``, the old sampled count (any rise at the 64
points), this script's count before session 2026-11-30 09:09–12:09 in RESULTS.md; from e3335dc
to the review of it, the tolerance applied only to arcs sharing a word), these by kind (two
arcs sharing a word, two sharing none, the root arrow and an arc), the pairs of labels
whose boxes
(:func:`fstpunct.show.layout.overlapping_labels`, from the layout's width estimate) overlap,
and the pairs of a label and another arc whose curve (or the root arrow) passes through the
label's box (:func:`fstpunct.show.layout.labels_on_curves`: the curve's heights over the box,
from its ends' and apex', reach into it), these by the curve (an arc enclosing the label's arc
or another, sharing one of its words or none) and how many of them have the label at its own
arc; and the arrow heads (7 px wide, 6 px high, at each arc's dependent end, the root arrow's
counted apart too) that another arc's stroke cuts into
(:func:`fstpunct.show.layout.heads_cut`: its curve, up to the head's height, less than half a
stroke from the head's slanted edge; until session 2026-11-30 11:59–14:59 this count took an
end within half a head and half a stroke (4.1 px) of the head's point, the root arrow's left
out), with the least gap of another curve to a head's edge
(:func:`fstpunct.show.layout.head_gaps`) and how far a stroke's edge then reaches over it.
``--at COMMIT`` lays the sentences out with ``fstpunct/show/layout.py`` as it was at COMMIT
(read with ``git show``; everything else, the counting included, as checked out, measuring the
curves as COMMIT drew them: its ``arc_leg``, or one cubic over the whole span before there was
one), to compare a change with its parent. The arcs whose legs layout._steep narrowed
(``Arc.leg`` under half the span and the height, since 6bffa65) are counted, with the median
and the least of that ratio. The arcs wider than
``layout.FAR`` are counted, with how many have their label nearer the dependent's end and how far
it stands at most from the nearer end. ``--changed-against COMMIT`` also counts the
sentences whose SVG (:func:`fstpunct.show.tree.svg`, as checked out, its md5) differs between
the layout.py of ``--at`` (or the checkout) and that of COMMIT, each drawn with its own legs.
Usage: .venv/bin/python bench/arc_crossings.py [--sentences N] [--at COMMIT]
[--changed-against COMMIT] [--tolerance PX] [--samples N] [LANG ...]
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import importlib.util
import itertools
import math
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from fstpunct.model.store import load_model
from fstpunct.show import layout as current
from fstpunct.show import tree
from fstpunct.show.layout import (
    STROKE,
    Layout,
    crosses,
    head_gaps,
    labels_on_curves,
    overlapping_labels,
)
from fstpunct.show.sentence import SentenceView, sentence_views
from fstpunct.ud.release import split_source

ROOT = Path(__file__).resolve().parents[1]
CROSSINGS = ("at a shared word", "sharing none", "with the root arrow")
KINDS = ("an enclosing arc sharing a word", "an enclosing arc sharing none",
         "another arc sharing a word", "another arc sharing none")  # each pair in one


def layout_at(commit: str) -> ModuleType:
    """``fstpunct/show/layout.py`` as it was at ``commit``, loaded as a module of the
    package (its relative imports resolve to the checked-out code), its ``layout`` giving
    layouts with every label placed: where its arcs lack a field of the checked-out ``Arc``
    (older layout.py), through :func:`with_labels` (so that the layout CPU of a newer one is
    its own). An unknown commit, or one without the file: one line with git's message
    on stderr, exit 2; so too an ``Arc`` lacking a field that has neither a default nor a fill
    in ``FILLS`` (one line naming it)."""
    shown = subprocess.run(["git", "show", f"{commit}:fstpunct/show/layout.py"], cwd=ROOT,
                           capture_output=True, text=True)
    if shown.returncode:
        print(f"no fstpunct/show/layout.py at commit {commit!r}: "
              + "; ".join(shown.stderr.strip().splitlines()), file=sys.stderr)
        raise SystemExit(2)
    source = shown.stdout
    name = "fstpunct.show._layout_at_" + "".join(c if c.isalnum() else "_" for c in commit)
    spec = importlib.util.spec_from_loader(name, loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "fstpunct.show"
    sys.modules[spec.name] = module  # dataclasses look their module up
    exec(compile(source, f"{commit}:fstpunct/show/layout.py", "exec"), module.__dict__)
    have = fields(current.Arc)
    lacking = have - fields(module.Arc)
    if lacking:
        unfilled = sorted(f.name for f in dataclasses.fields(current.Arc) if f.name in lacking
                          and f.name not in FILLS and f.default is dataclasses.MISSING
                          and f.default_factory is dataclasses.MISSING)
        if unfilled:
            print(f"layout.py at commit {commit!r}: its Arc lacks "
                  f"{', '.join(map(repr, unfilled))}: no default, no fill in "
                  f"bench/arc_crossings.py's FILLS", file=sys.stderr)
            raise SystemExit(2)
        kept = have - lacking
        fills = {name: FILLS[name] for name in lacking if name in FILLS}
        laid_out = module.layout
        module.layout = lambda view: with_labels(laid_out(view), kept, fills)
    return module


def fields(cls: type) -> set[str]:
    """The names of the dataclass ``cls``'s fields."""
    return {f.name for f in dataclasses.fields(cls)}


@contextlib.contextmanager
def drawn_by(module: ModuleType) -> Iterator[None]:
    """Within the block the checked-out counting and drawing (layout.py's and tree.py's
    ``arc_leg``) measure the curves as ``module`` drew them: its ``arc_leg``, or one cubic over
    the whole span before there was one; restored after it."""
    saved = current.arc_leg, tree.arc_leg
    current.arc_leg = tree.arc_leg = getattr(module, "arc_leg",
                                             lambda arc: abs(arc.x2 - arc.x1) / 2)
    try:
        yield
    finally:
        current.arc_leg, tree.arc_leg = saved


# how with_labels fills a field an older layout.py's Arc lacks
FILLS = {"label_height": lambda a: a.height, "label_x": lambda a: (a.x1 + a.x2) / 2,
         "leg": lambda a: math.inf}


def with_labels(lay: Layout, kept: Collection[str],
                fills: Mapping[str, Callable[[Any], Any]]) -> Layout:
    """``lay``, whose arcs come from an older layout.py, as the checked-out ``Arc``, every
    field of it filled: those ``kept`` (the fields the older ``Arc`` has) as they are, those
    of ``fills`` (``FILLS``'s: a label without its own height at its arc's, one without its
    own x over the arc's middle; legs as that layout.py drew them, infinite: none narrowed
    before there was ``leg``) by them, any other at the checked-out ``Arc``'s default
    (:func:`layout_at` works ``kept`` and ``fills`` out once per layout.py, and refuses an
    older ``Arc`` lacking a field without a default and a fill in ``FILLS``)."""
    arcs = tuple(current.Arc(**{name: getattr(a, name) for name in kept},
                             **{name: fill(a) for name, fill in fills.items()})
                 for a in lay.arcs)
    return Layout(lay.width, lay.height, lay.rtl, lay.items, arcs, lay.slots, lay.words_y,
                  lay.surface_y)


def svg_digests(views: list[SentenceView], module: ModuleType) -> list[str]:
    """The md5 of each view's SVG (the checked-out tree.svg) laid out by ``module``'s layout.py
    and drawn with its legs."""
    with drawn_by(module):
        return [hashlib.md5(tree.svg(v, module.layout(v)).encode()).hexdigest()
                for v in views]


def curve_kinds(lay: Layout) -> Counter[str]:
    """``lay``'s label/curve pairs by the curve: an arc whose words enclose the label's arc's
    (or not: the root arrow among these), sharing one of its words or none; and how many of
    the labels stand at their own arc (over its apex, neither moved nor lifted)."""
    kinds: Counter[str] = Counter()
    for a, b in labels_on_curves(lay):
        encloses = bool(b.head) and min(b.head, b.dep) <= min(a.head, a.dep) \
            and max(a.head, a.dep) <= max(b.head, b.dep)
        shares = bool({a.head, a.dep} & {b.head, b.dep})
        kinds[f"{'an enclosing' if encloses else 'another'} arc sharing "
              f"{'a word' if shares else 'none'}"] += 1
        kinds["labels at their own arc"] += (a.label_height == a.height
                                             and a.label_x == (a.x1 + a.x2) / 2)
    return kinds


def crossing_kinds(lay: Layout, tolerance: float, samples: int) -> Counter[str]:
    """``lay``'s crossing pairs (:func:`fstpunct.show.layout.crosses`) by
    kind: two arcs sharing a word, two sharing none, the root arrow through an arc."""
    kinds: Counter[str] = Counter()
    for a, b in itertools.combinations(lay.arcs, 2):
        if crosses(a, b, samples, tolerance):
            kinds["with the root arrow" if not a.head or not b.head else
                  "at a shared word" if {a.head, a.dep} & {b.head, b.dep} else "sharing none"] += 1
    return kinds


def parse_with_layout_options(ap: argparse.ArgumentParser, samples: int, tolerance: float,
                              what: str = "") -> argparse.Namespace:
    """``ap``'s arguments with the options this script and bench/random_trees.py share: ``--at
    COMMIT`` (:func:`layout_at`), ``--samples N`` and ``--tolerance PX`` of the crossing test
    (defaults ``samples`` and ``tolerance``, described as ``what``); either below its least
    (0 px, 1 point): argparse's one-line error, exit 2."""
    ap.add_argument("--at", metavar="COMMIT", help="layout.py of this commit")
    ap.add_argument("--samples", type=int, default=samples, metavar="N",
                    help="points sampled along an inner arc (default %(default)s)")
    ap.add_argument("--tolerance", type=float, default=tolerance, metavar="PX",
                    help="how far (px) a curve must run outside an enclosing one to cross it "
                         f"(default {what}%(default)s)")
    args = ap.parse_args()
    if not args.tolerance >= 0:
        ap.error(f"--tolerance must be at least 0 px, not {args.tolerance:g}")
    if args.samples < 1:
        ap.error(f"--samples must be at least 1, not {args.samples}")
    return args


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("langs", nargs="*", default=["en", "zh"])
    ap.add_argument("--sentences", type=int, default=400)
    ap.add_argument("--changed-against", metavar="COMMIT",
                    help="count the SVGs that differ from those of this commit's layout.py")
    args = parse_with_layout_options(ap, 64, STROKE, "the arcs' stroke width, ")
    if args.sentences < 1:
        ap.error(f"--sentences must be at least 1, not {args.sentences}")
    module = layout_at(args.at) if args.at else current
    against = layout_at(args.changed_against) if args.changed_against else None
    print(f"layout.py of {args.at or 'the checkout'}; first {args.sentences} dev sentences; "
          f"crossing tolerance {args.tolerance:g} px, {args.samples} points sampled")
    with drawn_by(module):
        for lang in args.langs:
            report(lang, module, args, against)


def report(lang: str, module: ModuleType, args: argparse.Namespace,
           against: ModuleType | None) -> None:
    """Print the figures of ``lang``'s first sentences laid out by ``module`` (and how many
    of their SVGs differ from ``against``'s)."""
    sents = itertools.islice(split_source(lang, "dev").sentences(), args.sentences)
    views = list(sentence_views(load_model(lang), sents, k=0))
    start = time.process_time()
    lays = [module.layout(v) for v in views]
    cpu = time.process_time() - start
    kinds = sum(map(curve_kinds, lays), Counter())
    crossing = sum((crossing_kinds(lay, args.tolerance, args.samples) for lay in lays),
                   Counter())
    gaps = [(g, a) for lay in lays for a, g in zip(lay.arcs, head_gaps(lay))]
    cut = [a for g, a in gaps if g < STROKE / 2]  # heads_cut of every layout
    print(f"{lang}: {len(lays)} sentences, mean width "
          f"{statistics.mean(lay.width for lay in lays):.1f} px, mean height "
          f"{statistics.mean(lay.height for lay in lays):.1f} px, layout {cpu:.2f} s CPU; "
          f"{crossing.total()} crossing arc pairs ("
          + ", ".join(f"{crossing[k]} {k}" for k in CROSSINGS) + "), "
          f"{sum(len(overlapping_labels(lay)) for lay in lays)} overlapping label pairs, "
          f"{sum(kinds[k] for k in KINDS)} labels on curves, "
          f"{len(cut)} of "
          f"{sum(len(lay.arcs) for lay in lays)} arrow heads cut by another arc's stroke "
          f"({sum(not a.head for a in cut)} of "
          f"{sum(not a.head for lay in lays for a in lay.arcs)} the root arrow's)")
    print("  labels on curves by the curve: " + ", ".join(f"{kinds[k]} {k}" for k in KINDS)
          + f"; {kinds['labels at their own arc']} labels at their own arc")
    least = min(g for g, _ in gaps)
    root = min(g for g, a in gaps if not a.head)
    print(f"  heads: another stroke's edge at most {STROKE / 2 - least:+.2f} px over a head's "
          f"slanted edge (negative: clear of it; the stroke's centre {least:.2f} px off it), "
          f"the root arrow's {STROKE / 2 - root:+.2f} px ({root:.2f} px)")
    arcs = [a for lay in lays for a in lay.arcs if a.head]
    narrowed = [a.leg / full for a in arcs
                if a.leg < (full := min(abs(a.x2 - a.x1) / 2, a.height))]
    print(f"  legs narrowed (layout._steep): {len(narrowed)} of {len(arcs)} arcs, "
          + (f"to a median {statistics.median(narrowed):.2f} of half the span or the height, "
             f"the least {min(narrowed):.2f}" if narrowed else "none"))
    far = [a for a in arcs if abs(a.x2 - a.x1) > current.FAR]
    ends = [(abs(a.label_x - a.x2), abs(a.label_x - a.x1)) for a in far]  # dependent's, head's
    print(f"  arcs wider than FAR ({current.FAR:g} px): {len(far)}, their labels nearer the "
          f"dependent's end {sum(dep < head for dep, head in ends)}, at most "
          f"{max((min(e) for e in ends), default=0):.0f} px from the nearer end")
    if against is not None:
        ours = [hashlib.md5(tree.svg(v, lay).encode()).hexdigest()
                for v, lay in zip(views, lays)]  # main draws with module already
        changed = sum(a != b for a, b in zip(ours, svg_digests(views, against)))
        print(f"  SVGs that differ from those of {args.changed_against}'s layout.py: "
              f"{changed} of {len(views)}")


if __name__ == "__main__":
    main()
