"""The cost of answering line by line (``restore --text --line-buffered``, whose work is
``Model.restore_lines``): the first ``--lines`` sentences of LANG's standard test split as plain
text (their words, punctuation removed, one sentence a line), restored by one model loaded
once, warmed up by one call (the tagger, parser and CRF read): in one call of
``Model.restore(text, text=True)`` (what the command does without the option: chunks of 256,
width and quotes decided once) and by ``Model.restore_lines(lines)`` (a line at a time), in
turn, ``--runs`` times. Prints the medians of the CPU and wall times and the answers per second
(a line each), how many lines' answers differ (width and quotes decided per line), and the load
average before and after (wall times on a shared machine depend on it).
Usage: nice -n 15 python bench/line_buffered_bench.py [--lang en] [--lines 200] [--runs 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import fstpunct
from bench.service_bench import lines_of
from fstpunct.cli.arguments import positive


def timed(work: Callable[[], list[str]]) -> tuple[float, float, list[str]]:
    """(CPU, wall) seconds of ``work()``, and its answers."""
    cpu, wall = time.process_time(), time.perf_counter()
    answers = work()
    return time.process_time() - cpu, time.perf_counter() - wall, answers


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lang", default="en")
    parser.add_argument("--lines", type=positive, default=200)
    parser.add_argument("--runs", type=positive, default=5)
    args = parser.parse_args(argv)
    lines = [line + "\n" for line in lines_of(args.lang, None, lower=False)[:args.lines]]
    if not lines:
        parser.error(f"{args.lang}:test: no line with a word")
    model = fstpunct.load(args.lang)
    model.restore(lines[0], text=True)  # reads the tagger, parser and CRF
    print(f"{args.lang} test, {len(lines)} lines; load average before "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    ways = {"one call (without the option)":
            lambda: model.restore("".join(lines), text=True).splitlines(keepends=True),
            "line by line (restore_lines, --line-buffered)":
            lambda: list(model.restore_lines(lines))}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
    answers = {}
    for _ in range(args.runs):
        for name, work in ways.items():
            cpu, wall, answers[name] = timed(work)
            times[name].append((cpu, wall))
    for name, runs in times.items():
        cpu = statistics.median(r[0] for r in runs)
        wall = statistics.median(r[1] for r in runs)
        print(f"{name}: CPU {cpu:.3f} s, {len(lines) / cpu:.0f} answers/s; wall {wall:.3f} s, "
              f"{len(lines) / wall:.0f} answers/s")
    whole, alone = answers.values()  # as many answers (strict: a lost one is no match)
    differ = sum(a != b for a, b in zip(whole, alone, strict=True))
    print(f"lines whose answers differ: {differ}; load average after "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
