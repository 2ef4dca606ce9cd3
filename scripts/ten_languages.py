"""Gold-tree restoration in every language with a standard split (issue 24): the markdown table
of test AED for trivial, CRF, Attach and +NC (an exact decoder, ``--decoder``: by default
``fstpunct restore``'s, slot; the sampled sentence MBR beside it), with the goal check (+NC
below trivial and the CRF) and paired sign-flip p-values, from the JSON lines of
``scripts/restoration.py table`` (``--gold-only`` but for zh, whose parsed trees RESULTS reports).

    python scripts/restoration.py table --gold-only --langs ar de en es fr hi it pt ru \\
        > results/restoration-ten.jsonl
    python scripts/restoration.py table --langs zh >> results/restoration-ten.jsonl
    python scripts/ten_languages.py results/restoration-ten.jsonl [--decoder balanced]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from fstpunct.apps.restoration.metrics import sign_flip_p


def columns(decoder: str) -> tuple[tuple[str, str, str | None], ...]:
    """(method, trees, decoder) of the table's columns, ``decoder`` for Attach and +NC."""
    exact = f"exact {decoder}"
    return (("trivial", "any", None), ("crf", "any", None), ("Attach", "gold", exact),
            ("+NC", "gold", exact), ("Attach", "gold", "sentence"), ("+NC", "gold", "sentence"))


def pick(rows: list[dict], lang: str, method: str, trees: str, mbr: str | None) -> dict | None:
    """The last run of ``method`` (later runs replace earlier ones)."""
    found = [r for r in rows if (r["lang"], r["method"], r["trees"]) == (lang, method, trees)
             and r.get("mbr") == mbr]
    return found[-1] if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+")
    parser.add_argument("--decoder", choices=("slot", "balanced"), default="slot",
                        help="the exact decoder of the Attach and +NC columns (default: "
                        "fstpunct restore's)")
    args = parser.parse_args()
    wanted = columns(args.decoder)
    rows = [json.loads(line) for f in args.files
            for line in Path(f).read_text(encoding="utf-8").splitlines() if line.strip()]
    print("| lang | sentences | trivial | CRF | Attach | +NC | +NC − trivial (p) | +NC − CRF (p) "
          "| +NC − Attach (p) | goal | Attach / +NC, sampled sentence MBR |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for lang in sorted({r["lang"] for r in rows}):
        runs = [pick(rows, lang, *c) for c in wanted]
        if None in runs[:4]:
            print(f"| {lang} | incomplete: " + ", ".join(
                f"{c[0]} {c[2] or ''}".strip() for c, r in zip(wanted, runs) if r is None)
                + " missing |")
            continue
        trivial, crf, attach, nc, attach_sampled, nc_sampled = runs
        cells = []
        for base in (trivial, crf, attach):
            diff = nc["edit_distance"] - base["edit_distance"]
            p = sign_flip_p(nc["sentence_edits"], base["sentence_edits"])
            cells.append(f"{diff:+d} ({'< 0.001' if p < 0.001 else f'{p:.3f}'})")
        met = nc["edit_distance"] < min(trivial["edit_distance"], crf["edit_distance"])
        sampled = " / ".join("–" if r is None else f"{r['average_edit_distance']:.3f}"
                             for r in (attach_sampled, nc_sampled))
        print(f"| {lang} | {nc['sentences']} | " + " | ".join(
            f"{r['average_edit_distance']:.3f}" for r in (trivial, crf, attach))
            + f" | **{nc['average_edit_distance']:.3f}** | " + " | ".join(cells)
            + f" | {'met' if met else 'not met'} | {sampled} |")


if __name__ == "__main__":
    main()
