"""Parser accuracy and speed on a standard split: word UAS/LAS (punctuation excluded),
punctuation UAS, all tokens, word UAS by sentence length × punctuation ratio, sentences per
second (wall clock and per CPU second; one process, model loading excluded), training seconds
per epoch and model size.

    FSTPUNCT_UD_DIR=../shared/ud .venv/bin/python bench/parser_bench.py \\
        --model models/parser-en-properties-b1 --split test [--beam K] [--json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from fstpunct.cli.arguments import positive
from fstpunct.parser import Model, parse, score
from fstpunct.parser.score import LENGTH_BANDS, RATIO_BANDS
from fstpunct.ud.release import split_source


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--lang", default="en")
    ap.add_argument("--split", default="test", choices=("dev", "test"))
    ap.add_argument("--beam", type=positive, help="default: the model's training beam")
    ap.add_argument("--json", action="store_true", help="one JSON line instead of a report")
    args = ap.parse_args()

    model = Model.load(args.model)
    beam = model.beam_width(args.beam)
    gold = list(split_source(args.lang, args.split).sentences())
    t0, c0 = time.perf_counter(), time.process_time()
    system = [parse(model, s, beam) for s in gold]
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    s = score(gold, system)
    history = model.info.get("history", [])
    size = sum(f.stat().st_size for f in Path(args.model).iterdir())
    bands = {f"{LENGTH_BANDS[lb][0]}-{LENGTH_BANDS[lb][1] if lb < 3 else ''}/"
             f"{int(RATIO_BANDS[rb][0] * 100)}-{min(int(RATIO_BANDS[rb][1] * 100), 100)}%":
             (round(c.uas, 2), c.total) for (lb, rb), c in sorted(s.bands.items())}
    row = {"model": args.model, "mode": model.mode, "train_beam": model.info["beam"],
           "learning": model.info.get("learning",  # not recorded before --learning
                                      "local" if model.info["beam"] == 1 else "early"),
           "beam": beam, "split": f"{args.lang} {args.split}",
           "best_epoch": model.info.get("best_epoch"),
           "word_uas": round(s.words.uas, 2), "word_las": round(s.words.las, 2),
           "punct_uas": round(s.punct.uas, 2), "all_uas": round(s.tokens.uas, 2),
           "all_las": round(s.tokens.las, 2), "sentences": s.sentences,
           "parse_seconds": round(seconds, 2), "sent_per_s": round(s.sentences / seconds, 1),
           "sent_per_cpu_s": round(s.sentences / cpu, 1),
           "train_s_per_epoch": round(statistics.mean(h["train_seconds"] for h in history), 1)
           if history else None,
           "model_mb": round(size / 1e6, 1), "bands": bands}
    if args.json:
        print(json.dumps(row))
        return
    if beam == 1:
        print(f"greedy parser: {row['sent_per_s']} sentences/s wall, {row['sent_per_cpu_s']} per "
              f"CPU second (goal >= 1,000, UDPipe 1: 1,080): ratio "
              f"{row['sent_per_cpu_s'] / 1000:.2f} by CPU time")
    for k, v in row.items():
        if k != "bands":
            print(f"{k:18} {v}")
    print("word UAS by length/punct ratio (words):")
    for k, (uas, n) in bands.items():
        print(f"  {k:14} {uas:6.2f}  ({n})")


if __name__ == "__main__":
    main()
