"""Restoration baselines on a standard split with gold trees: the trivial full stop and CRF
models, each run through ``fstpunct restore``'s pipeline (strip, restore, insert; a sentence that
is only punctuation is copied unchanged) and scored against gold (average edit distance per
sentence; per-mark precision/recall/F1), plus each CRF's per-slot perplexity.

    FSTPUNCT_UD_DIR=../shared/ud .venv/bin/python bench/restoration_baselines.py \\
        --lang en --crf models/crf-en models/crf-en-notree [--split test] [--json]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from fstpunct.apps.restoration import Restorer
from fstpunct.apps.restoration.crf import CrfModel
from fstpunct.apps.restoration.metrics import CLASSES, score
from fstpunct.apps.restoration.pipeline import restored
from fstpunct.apps.restoration.trivial import Trivial
from fstpunct.cli.table import format_table
from fstpunct.ud.release import split_source
from fstpunct.ud.slots import to_slots


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", required=True)
    ap.add_argument("--split", default="test", choices=("dev", "test"))
    ap.add_argument("--crf", nargs="+", default=[], metavar="DIR", help="CRF model folders")
    ap.add_argument("--json", action="store_true", help="JSON lines instead of a table")
    args = ap.parse_args()

    gold = list(split_source(args.lang, args.split).sentences())
    methods: list[tuple[str, Restorer]] = [("trivial", Trivial.for_language(args.lang))]
    methods += [(Path(d).name, CrfModel.load(d)) for d in args.crf]
    rows = []
    for name, method in methods:
        result = score(gold, list(restored(gold, method, warn=lambda m: None)))
        row: dict[str, object] = {
            "lang": args.lang, "split": args.split, "method": name,
            "sentences": result.sentences, "aed": round(result.average_edit_distance, 4),
            **{f"{k}_f1": round(result.marks[k].f1, 2) for k in CLASSES},
            "all_p": round(result.marks["all"].precision, 2),
            "all_r": round(result.marks["all"].recall, 2)}
        if isinstance(method, CrfModel):
            row["perplexity"] = round(method.perplexity([to_slots(g) for g in gold])[2], 4)
            row["c2"] = method.meta["settings"]["c2"]
        rows.append(row)
    if args.json:
        print("\n".join(json.dumps(r) for r in rows))
        return
    header = list(rows[-1])
    print(format_table(header, [[str(r.get(h, "")) for h in header] for r in rows]))


if __name__ == "__main__":
    main()
