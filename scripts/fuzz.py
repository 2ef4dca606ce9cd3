"""Fuzz the commands for a given number of minutes: rounds of tests/test_fuzz.py (mutated real
sentences through decode, normalise, restore and stats), each with a fresh hypothesis seed,
until the time is up. Prints the examples run and the rounds that found a crash (hypothesis
shrinks each to a minimal failing input, shown in the round's log).

    python scripts/fuzz.py --minutes 10 [--examples 200] [--log results/tmp/fuzz.log]
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TEST = Path(__file__).parents[1] / "tests" / "test_fuzz.py"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, required=True, help="how long to fuzz")
    ap.add_argument("--examples", type=int, default=200, help="examples a round (200)")
    ap.add_argument("--log", default="results/tmp/fuzz.log", help="the failing rounds' output")
    args = ap.parse_args()
    deadline = time.time() + 60 * args.minutes
    rounds = crashes = examples = 0
    with tempfile.NamedTemporaryFile("r", suffix=".count") as count:
        env = {**os.environ, "FSTPUNCT_FUZZ_EXAMPLES": str(args.examples),
               "FSTPUNCT_FUZZ_LOG": count.name}
        while time.time() < deadline:
            seed = random.randrange(2**32)
            run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                  str(TEST), f"--hypothesis-seed={seed}"],
                                 env=env, capture_output=True, text=True)
            rounds += 1
            if run.returncode:
                crashes += 1
                Path(args.log).parent.mkdir(parents=True, exist_ok=True)
                with open(args.log, "a", encoding="utf-8") as log:
                    log.write(f"=== seed {seed}\n{run.stdout}\n{run.stderr}\n")
        examples = sum(1 for _ in open(count.name))
    print(f"{args.minutes:g} minutes: {rounds} rounds, {examples} examples, {crashes} rounds "
          f"with a crash" + (f" (see {args.log})" if crashes else ""))
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
