"""bench/random_trees.py's figures, against the trees laid out here."""
from __future__ import annotations

import random
import statistics
import sys

from one_letter import MIXED, one_letter_tree, one_view
from script_module import BENCH, load_script

from fstpunct.show.layout import layout

load_script("arc_crossings", BENCH)  # random_trees imports it by name
random_trees = load_script("random_trees", BENCH)


def test_the_mean_width_is_that_of_the_seeds_trees(monkeypatch, capsys):
    """The mean width it prints (the final review's lens B, 2: it printed none) is that of
    the trees of seeds 0-3, mixed relations, each drawn by ``random.Random(seed).choice``."""
    monkeypatch.setattr(sys, "argv", ["random_trees.py", "--seeds", "4"])
    random_trees.main()
    widths = []
    for seed in range(4):
        lang, rows = one_letter_tree(random.Random(seed).choice, (MIXED,))
        widths.append(layout(one_view(rows, lang)).width)
    assert f"\nmean width {statistics.mean(widths):.1f} px\n" in capsys.readouterr().out
