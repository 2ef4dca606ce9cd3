"""Parser accuracy and speed on a standard split: word UAS/LAS (punctuation excluded),
punctuation UAS, all tokens, word UAS by sentence length × punctuation ratio, sentences per
second (wall clock and per CPU second; one process, model loading excluded; the median of
``--rounds`` passes), training seconds per epoch and model size.

In the same run, interleaved with the parser's passes: with ``--udpipe MODEL``, UDPipe 1
parsing the same sentences (a model of bench/udpipe_peer.py; gold UPOS and FEATS, CoNLL-U in and
out, one thread), and its throughput against ours; with ``--reference``, our parser through the
readable beam search at beam 1 (the greedy parser before it was compiled), checked to give the
same trees.

    FSTPUNCT_UD_DIR=../shared/ud .venv/bin/python bench/parser_bench.py \\
        --model models/parser-en-properties-b1 --split test [--beam K] [--json] \\
        [--udpipe results/tmp/udpipe-en.model] [--reference] [--rounds N]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

from fstpunct.cli.arguments import positive
from fstpunct.parser import Model, parse, score
from fstpunct.parser.score import LENGTH_BANDS, RATIO_BANDS
from fstpunct.ud.release import split_source
from fstpunct.ud.treebank import Sentence


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--lang", default="en")
    ap.add_argument("--split", default="test", choices=("dev", "test"))
    ap.add_argument("--beam", type=positive, help="default: the model's training beam")
    ap.add_argument("--json", action="store_true", help="one JSON line instead of a report")
    ap.add_argument("--udpipe", metavar="MODEL",
                    help="also time this UDPipe 1 model (bench/udpipe_peer.py) in the same run")
    ap.add_argument("--reference", action="store_true",
                    help="also time the readable search at beam 1 and check its trees")
    ap.add_argument("--rounds", type=positive, default=1,
                    help="timed passes of each parser, interleaved (medians; default 1)")
    args = ap.parse_args()

    model = Model.load(args.model)
    beam = model.beam_width(args.beam)
    gold = list(split_source(args.lang, args.split).sentences())
    udpipe = _udpipe(args.udpipe) if args.udpipe else None
    times: dict[str, list[tuple[float, float]]] = {"ours": [], "udpipe": [], "reference": []}
    for _ in range(args.rounds):
        system, seconds, cpu = _timed(lambda: [parse(model, s, beam) for s in gold])
        times["ours"].append((seconds, cpu))
        if udpipe:
            times["udpipe"].append(udpipe.timed_parse(udpipe.model, gold)[1:])
        if args.reference:
            ref, seconds, cpu = _timed(lambda: [parse(model, s, beam, reference=True)
                                                for s in gold])
            times["reference"].append((seconds, cpu))
            if [x.text() for x in ref] != [x.text() for x in system]:
                raise SystemExit("the readable search parses differently")
    seconds, cpu = (statistics.median(x) for x in zip(*times["ours"]))
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
           "model_mb": round(size / 1e6, 1), "rounds": args.rounds, "bands": bands}
    for name in ("udpipe", "reference"):
        if times[name]:
            wall, other_cpu = (statistics.median(x) for x in zip(*times[name]))
            row[f"{name}_sent_per_s"] = round(s.sentences / wall, 1)
            row[f"{name}_sent_per_cpu_s"] = round(s.sentences / other_cpu, 1)
            row[f"cpu_ratio_to_{name}"] = round(other_cpu / cpu, 2)
    if args.json:
        print(json.dumps(row))
        return
    if beam == 1:
        print(f"greedy parser: {row['sent_per_s']} sentences/s wall, {row['sent_per_cpu_s']} per "
              f"CPU second (goal >= 1,000, UDPipe 1 on another machine: 1,080): ratio "
              f"{row['sent_per_cpu_s'] / 1000:.2f} by CPU time")
    if times["udpipe"]:
        print(f"UDPipe 1 in this run: {row['udpipe_sent_per_s']} sentences/s wall, "
              f"{row['udpipe_sent_per_cpu_s']} per CPU second: ours / UDPipe "
              f"{row['cpu_ratio_to_udpipe']:.2f} by CPU time")
    for k, v in row.items():
        if k != "bands":
            print(f"{k:18} {v}")
    print("word UAS by length/punct ratio (words):")
    for k, (uas, n) in bands.items():
        print(f"  {k:14} {uas:6.2f}  ({n})")


def _timed(run: Callable[[], list[Sentence]]) -> tuple[list[Sentence], float, float]:
    """What ``run`` returns, and its wall and CPU seconds."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = run()
    return out, time.perf_counter() - t0, time.process_time() - c0


def _udpipe(path: str) -> SimpleNamespace:
    """bench/udpipe_peer.py's ``timed_parse`` with a loaded ``model`` (ufal.udpipe: extra
    ``bench``)."""
    sys.path.insert(0, str(Path(__file__).parent))
    import udpipe_peer
    return SimpleNamespace(model=udpipe_peer.load(path), timed_parse=udpipe_peer.timed_parse)


if __name__ == "__main__":
    main()
