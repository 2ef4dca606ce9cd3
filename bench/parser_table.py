"""Markdown tables from `parser_bench.py --json` lines (files or stdin).

    python bench/parser_table.py results/tmp/bench-*.jsonl
"""
from __future__ import annotations

import fileinput
import json


def main() -> None:
    rows = [json.loads(line) for line in fileinput.input() if line.strip()]
    print("| mode | train beam | parse beam | best epoch | dev UAS | dev LAS | test UAS | "
          "test LAS | test punct UAS | test all-token UAS |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    by_model: dict[tuple[str, int], dict[str, dict]] = {}
    for r in rows:
        by_model.setdefault((r["model"], r["beam"]), {})[r["split"].split()[-1]] = r
    for (_, beam), splits in by_model.items():
        d, t = splits.get("dev", {}), splits.get("test", {})
        first = d or t
        print(f"| {first['mode']} | {first['train_beam']} | {beam} | {first['best_epoch']} | "
              f"{d.get('word_uas', '–')} | {d.get('word_las', '–')} | "
              f"{t.get('word_uas', '–')} | {t.get('word_las', '–')} | "
              f"{t.get('punct_uas', '–')} | {t.get('all_uas', '–')} |")
    print()
    tests = [r for r in rows if r["split"].endswith("test")]
    if not tests:
        return
    bands = list(tests[0]["bands"])
    print("Word UAS on test by sentence length (tokens) / punctuation ratio (words in cell):\n")
    print("| mode | beam | " + " | ".join(bands) + " |")
    print("|---|---|" + "---|" * len(bands))
    print("| (words) | | " + " | ".join(str(tests[0]["bands"][b][1]) for b in bands) + " |")
    for r in tests:
        print(f"| {r['mode']} | {r['beam']} | "
              + " | ".join(f"{r['bands'][b][0]:.2f}" if b in r["bands"] else "–" for b in bands)
              + " |")
    print()
    print("| mode | train beam | parse beam | test sent/s (wall) | sent/CPU-s | "
          "train s/epoch | model MB |")
    print("|---|---|---|---|---|---|---|")
    for r in tests:
        print(f"| {r['mode']} | {r['train_beam']} | {r['beam']} | {r['sent_per_s']} | "
              f"{r.get('sent_per_cpu_s', '–')} | {r['train_s_per_epoch']} | {r['model_mb']} |")


if __name__ == "__main__":
    main()
