"""Random projective trees of one-letter words (the generator of tests/one_letter.py, from which
tests/test_draw_tree.py's random trees are drawn; here seed s draws tree s by
``random.Random(s).choice``), laid out and counted: the trees with a pair of arcs that cross
(:func:`fstpunct.show.layout.crosses`; by default at any rise, ``--tolerance 0``, at 512
points sampled, as the test checks), these pairs by kind (as bench/arc_crossings.py: at a
shared word, sharing none, with the root arrow); the trees with a relation label on
another arc's curve (:func:`fstpunct.show.layout.labels_on_curves`), with the pairs; and the
pictures' mean width.

``--relations mixed`` (the default) gives every tree relations drawn from one_letter.MIXED,
``dep`` every relation 'dep', ``drawn`` either, drawn per tree as the test does. ``--at
COMMIT`` lays the trees out with COMMIT's layout.py, measured as it drew them (see
bench/arc_crossings.py).
Usage: .venv/bin/python bench/random_trees.py [--seeds N] [--relations mixed|dep|drawn]
[--at COMMIT] [--tolerance PX] [--samples N]
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections import Counter
from pathlib import Path

from arc_crossings import (
    CROSSINGS,
    crossing_kinds,
    drawn_by,
    layout_at,
    parse_with_layout_options,
)

from fstpunct.model.store import load_model
from fstpunct.show import layout as current
from fstpunct.show.layout import labels_on_curves

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from one_letter import MIXED, one_letter_tree, one_view  # noqa: E402

RELATIONS = {"mixed": (MIXED,), "dep": (("dep",),), "drawn": (("dep",), MIXED)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=1000, metavar="N", help="trees 0 .. N-1")
    ap.add_argument("--relations", choices=sorted(RELATIONS), default="mixed")
    args = parse_with_layout_options(ap, 512, 0.0, "any rise, ")
    if args.seeds < 1:
        ap.error(f"--seeds must be at least 1, not {args.seeds}")
    module = layout_at(args.at) if args.at else current
    models = {lang: load_model(lang) for lang in ("en", "ar")}
    crossed, pairs, labelled, on_curves, widths = 0, Counter(), 0, 0, []
    with drawn_by(module):
        for seed in range(args.seeds):
            lang, rows = one_letter_tree(random.Random(seed).choice, RELATIONS[args.relations])
            lay = module.layout(one_view(rows, models[lang]))
            widths.append(lay.width)
            kinds = crossing_kinds(lay, args.tolerance, args.samples)
            crossed += bool(kinds)
            pairs += kinds
            found = len(labels_on_curves(lay))
            labelled += bool(found)
            on_curves += found
    print(f"layout.py of {args.at or 'the checkout'}; trees of seeds 0-{args.seeds - 1}, "
          f"relations {args.relations}; crossing tolerance {args.tolerance:g} px, "
          f"{args.samples} points sampled")
    print(f"{crossed} of {args.seeds} trees with a crossing pair of arcs ({pairs.total()} pairs: "
          + ", ".join(f"{pairs[k]} {k}" for k in CROSSINGS) + ")")
    print(f"{labelled} of {args.seeds} trees with a label on another arc's curve "
          f"({on_curves} label/curve pairs)")
    print(f"mean width {statistics.mean(widths):.1f} px")


if __name__ == "__main__":
    main()
