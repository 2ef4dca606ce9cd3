"""Gold-tree restoration in every language with a standard split (issue 24): the markdown table
of test AED for trivial, CRF, Attach and +NC, with the goal checks (+NC below trivial and the
CRF, sign-flip p), from the JSON lines of ``scripts/restoration.py table --gold-only``.

    python scripts/restoration.py table --gold-only --langs ar de en es fr hi it pt ru zh \\
        > results/restoration-ten.jsonl
    python scripts/ten_languages.py results/restoration-ten.jsonl
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from fstpunct.apps.restoration.metrics import sign_flip_p

COLUMNS = (("trivial", "any", None), ("crf", "any", None), ("Attach", "gold", "sentence"),
           ("+NC", "gold", "sentence"), ("+NC", "gold", "slot"))


def pick(rows: list[dict], lang: str, method: str, trees: str, mbr: str | None) -> dict | None:
    """The last run of ``method`` (later runs replace earlier ones)."""
    found = [r for r in rows if (r["lang"], r["method"], r["trees"]) == (lang, method, trees)
             and r.get("mbr") == mbr]
    return found[-1] if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    rows = [json.loads(line) for f in args.files
            for line in Path(f).read_text(encoding="utf-8").splitlines() if line.strip()]
    print("| lang | sentences | trivial | CRF | Attach | +NC (slot MBR) | +NC − trivial (p) "
          "| +NC − CRF (p) | +NC − Attach (p) | goal |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for lang in sorted({r["lang"] for r in rows}):
        runs = [pick(rows, lang, *c) for c in COLUMNS]
        if None in runs:
            print(f"| {lang} | incomplete: " + ", ".join(
                f"{c[0]} {c[2] or ''}".strip() for c, r in zip(COLUMNS, runs) if r is None)
                + " missing |")
            continue
        trivial, crf, attach, nc, nc_slot = runs
        cells, met = [], True
        for base in (trivial, crf, attach):
            diff = nc["edit_distance"] - base["edit_distance"]
            p = sign_flip_p(nc["sentence_edits"], base["sentence_edits"])
            cells.append(f"{diff:+d} ({p:.3f})")
            met &= diff < 0 if base is not attach else True
        print(f"| {lang} | {nc['sentences']} | " + " | ".join(
            f"{r['average_edit_distance']:.3f}" for r in (trivial, crf, attach))
            + f" | **{nc['average_edit_distance']:.3f}** ({nc_slot['average_edit_distance']:.3f})"
            + " | " + " | ".join(cells) + f" | {'met' if met else 'not met'} |")


if __name__ == "__main__":
    main()
