"""scripts/restoration_report.py: the choice on dev and the goal verdicts over sampling seeds."""

import pytest
from script_module import load_script


@pytest.fixture(scope="module")
def report():
    return load_script("restoration_report")


def run(split, method, trees, seed, edits, **extra):
    """A sentence-MBR record of ``edits`` (per sentence)."""
    return {"lang": "hi", "split": split, "method": method, "trees": trees, "seed": seed,
            "mbr": "sentence", "edit_distance": sum(edits), "sentence_edits": edits, **extra}


def baselines(crf_edits):
    return [{"lang": "hi", "method": m, "trees": "any", "edit_distance": sum(e),
             "sentence_edits": e} for m, e in (("trivial", [3, 3, 3]), ("crf", crf_edits))]


def seeded(dev_a, dev_b, test_a, test_b):
    """Two parsed-tree systems (+NC ens, +NC-jk ens) over two seeds, and gold-tree runs."""
    out = []
    for seed in (0, 1):
        out += [run("test", "+NC", "gold", seed, [1, 0, 0]),
                run("test", "Attach", "gold", seed, [1, 1, 0])]
        for method, dev, test in (("+NC ens", dev_a, test_a), ("+NC-jk ens", dev_b, test_b)):
            out.append(run("dev", method, "parsed", seed, dev[seed], uas=80.0))
            out.append(run("test", method, "parsed", seed, test[seed], uas=80.0))
    return out


def test_dev_mean_chooses_and_test_mean_decides(report):
    # seed 0 ties on dev; the mean over seeds prefers +NC-jk ens (4 + 3 < 4 + 5 edits)
    seeds = seeded(dev_a=[[2, 2], [3, 2]], dev_b=[[2, 2], [1, 2]],
                   test_a=[[9, 0, 0], [9, 0, 0]], test_b=[[1, 1, 1], [2, 1, 0]])
    text = report.replicated(seeds, baselines([1, 1, 2]))
    assert "+NC-jk ens (chosen)" in text and "+NC ens (chosen)" not in text
    # test mean of the chosen system: 3 edits against the CRF's 4 and trivial's 9
    assert "+NC-jk ens (chosen on the dev mean) beats trivial and CRF" in text
    assert "gold trees: +NC beats every baseline" in text
    worse = report.replicated(seeds, baselines([1, 1, 1]))
    assert "+NC-jk ens (chosen on the dev mean) beats only trivial" in worse


def test_a_tie_on_the_mean_is_reported_not_broken(report):
    seeds = seeded(dev_a=[[2, 2], [2, 2]], dev_b=[[2, 2], [1, 3]],
                   test_a=[[1, 0, 0], [1, 0, 0]], test_b=[[1, 0, 0], [1, 0, 0]])
    text = report.replicated(seeds, baselines([1, 1, 2]))
    assert "dev ties +NC ens and +NC-jk ens on the mean" in text


def point(method, fraction, uas, aed):
    """A Figure 4 point: a dev run on the trees of a parser trained on ``fraction`` % of train."""
    return {"lang": "hi", "split": "dev", "method": method, "trees": "parsed", "mbr": "sentence",
            "fraction": fraction, "uas": uas, "average_edit_distance": aed}


def test_figure_table_keeps_the_last_run_of_each_point(report):
    """A re-run point replaces the earlier one (it was listed twice), and each row's +NC-jk is
    its own parser's, also where two parsers score the same UAS (it took the last such)."""
    runs = [point("+NC", 40, 77.4, 1.19), point("+NC-jk", 40, 77.4, 1.0),
            point("+NC", 50, 77.4, 1.2), point("+NC-jk", 50, 77.4, 1.05),
            point("+NC", 100, 81.0, 1.3), point("+NC-jk", 100, 81.0, 1.2),
            point("+NC", 100, 81.5, 1.1), point("+NC-jk", 100, 81.5, 0.9)]
    rows = [line.split() for line in report.figure_table(runs).splitlines()
            if line.startswith("hi")]
    assert [(r[1], r[3], r[4]) for r in rows] == [
        ("40", "1.190", "1.000"), ("50", "1.200", "1.050"), ("100", "1.100", "0.900")]
