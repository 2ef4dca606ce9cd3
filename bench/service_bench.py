"""Benchmark of the text path as a long-running service uses it: one model loaded once, then
``Model.restore(line, text=True, lowercase=True)`` called once per line, as README's recipe
does ("From Python: a service that punctuates transcripts": text without case). Input: the
words of LANG's standard test split (en: en_ewt test; punctuation removed, lower-cased, like
speech-recognition output; sentences with no word left out), or the lines of ``--file`` (read
as text without case too), one call per line, taken in turn, ``--calls`` calls in all
(the lines again when they run out). Prints the load time,
the first call (it reads the tagger, parser and CRF), the median and 95th percentile of the CPU
and wall time per call after ``--warm-up`` calls, the process's resident memory (RSS) before
and after the timed calls, and the load average (wall times on a shared machine depend on it);
then the CPU time per line of the first ``BATCH`` of those lines given in one call (a string of
lines), and how many of its lines differ from the calls' (a call writes its quotes straight or
curly as most of its input's quotes are, else as the model does: README, "Punctuation of either
width").
Usage: python bench/service_bench.py [--lang en] [--calls N] [--warm-up N] [--file TEXT]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import fstpunct
from fstpunct.cli.arguments import positive
from fstpunct.ud.release import read_one

BATCH = 1000  # lines restored in one call, for comparison


def rss_mib() -> float:
    """This process's resident memory, MiB (Linux: /proc/self/status)."""
    with open("/proc/self/status", encoding="ascii") as f:
        kib = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return kib / 1024


def lines_of(lang: str, file: str | None, lower: bool = True) -> list[str]:
    """The lines to punctuate: ``file``'s lines with a word, else the words of ``lang``'s
    standard test split, lower-cased unless ``lower`` is false, one sentence a line."""
    if file:
        return [line.strip() for line in Path(file).read_text(encoding="utf-8").splitlines()
                if any(c.isalnum() for c in line)]  # a word: as fstpunct.ud.text reads one
    sents = read_one(f"{lang}:test")
    words = (" ".join(w.form for w in s.words if not w.is_punct) for s in sents)
    return [line.lower() if lower else line for line in words if line]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lang", default="en")
    parser.add_argument("--calls", type=positive, default=10_000)
    parser.add_argument("--warm-up", type=int, default=20)
    parser.add_argument("--file", help="plain text, one line per call (default: LANG's test "
                                       "split's words, lower-cased)")
    args = parser.parse_args(argv)
    if args.warm_up < 0:
        parser.error(f"argument --warm-up: must be 0 or more, not {args.warm_up}")
    lines = lines_of(args.lang, args.file)
    if not lines:
        parser.error(f"{args.file or args.lang + ':test'}: no line with a word")
    start = time.perf_counter()
    model = fstpunct.load(args.lang)
    print(f"{args.lang}: {len(lines)} lines; load {time.perf_counter() - start:.2f} s wall, "
          f"RSS {rss_mib():.0f} MiB")
    wall, cpu = time.perf_counter(), time.process_time()
    model.restore(lines[0], text=True, lowercase=True)
    print(f"first call {time.perf_counter() - wall:.2f} s wall, {time.process_time() - cpu:.2f} s "
          f"CPU, RSS {rss_mib():.0f} MiB")
    for k in range(args.warm_up):
        model.restore(lines[k % len(lines)], text=True, lowercase=True)
    before = rss_mib()
    walls, cpus, each = [], [], []  # each: the first BATCH calls' outputs
    for k in range(args.calls):
        wall, cpu = time.perf_counter(), time.process_time()
        out = model.restore(lines[k % len(lines)], text=True, lowercase=True)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        if k < BATCH:
            each.append(out)

    def ms(times: list[float]) -> str:
        p95 = statistics.quantiles(times, n=20)[18] if len(times) > 1 else times[0]
        return f"median {1e3 * statistics.median(times):.1f} ms, 95th percentile {1e3 * p95:.1f} ms"
    print(f"{args.calls} calls after {args.warm_up} to warm up: CPU per call {ms(cpus)}; "
          f"wall {ms(walls)}")
    print(f"RSS {before:.0f} MiB before the timed calls, {rss_mib():.0f} MiB after; "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    batch = [lines[k % len(lines)] for k in range(min(args.calls, BATCH))]
    cpu = time.process_time()
    whole = model.restore("".join(line + "\n" for line in batch), text=True, lowercase=True)
    cpu = time.process_time() - cpu
    differ = sum(a != b for a, b in zip(whole.splitlines(keepends=True), each, strict=True))
    print(f"the first {len(batch)} of them in one call: {1e3 * cpu / len(batch):.1f} ms CPU per "
          f"line; {differ} lines differ from the calls' (quotes are written as most of a call's "
          f"input writes them)")


if __name__ == "__main__":
    main()
