"""Check that every commit the results name can be followed in this repository.

A commit reference is a token of exactly 7 hex digits with at least one digit (all-letter
tokens are words such as "defaced"; a 7-digit number would be written 1,234,567, and md5s in
these files are 8, 12 or 32 digits long, so none trips this). Each must be a commit
in the repository or an old hash of RESULTS.md's table "Commits run on before a rebase".
Usage: python scripts/check_commits.py [FILE ...] (default: RESULTS.md, README.md,
results/*.md); prints file:line for each stray hash, exit 1 if there is one.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

COMMIT = re.compile(r"(?<![0-9A-Za-z_/#-])(?<![0-9][.,])([0-9a-f]{7})(?![0-9A-Za-z_])(?![.,][0-9])")
APPENDIX = "## Commits run on before a rebase"
ROW = re.compile(r"^\| `([0-9a-f]{7})` \|")


def references(line: str) -> list[str]:
    """The commit references of a line: 7-hex tokens with a digit."""
    return [h for h in COMMIT.findall(line) if re.search("[0-9]", h)]


def appendix_hashes(results: Path) -> set[str]:
    """The old hashes listed in RESULTS.md's appendix table (its rows' first cells)."""
    lines = results.read_text(encoding="utf-8").splitlines()
    if APPENDIX not in lines:
        return set()
    old = set()
    for line in lines[lines.index(APPENDIX) + 1:]:
        if line.startswith("## "):
            break
        if m := ROW.match(line):
            old.add(m.group(1))
    return old


def commits(hashes: set[str]) -> set[str]:
    """Those of hashes that name a commit of this repository (one git call)."""
    ordered = sorted(hashes)
    out = subprocess.run(["git", "cat-file", "--batch-check"], check=True, capture_output=True,
                         text=True, input="".join(f"{h}^{{commit}}\n" for h in ordered)).stdout
    return {h for h, row in zip(ordered, out.splitlines(), strict=True)
            if row.split()[1:2] == ["commit"]}


def main(argv: list[str]) -> int:
    shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], check=True,
                             capture_output=True, text=True).stdout.strip()
    if shallow == "true":
        print("check_commits: skipped, a shallow clone lacks the history the results cite")
        return 0
    files = [Path(f) for f in argv] or [Path("RESULTS.md"), Path("README.md"),
                                         *sorted(Path("results").glob("*.md"))]
    found = [(f, n, h) for f in files
             for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
             for h in references(line)]
    known = commits({h for _, _, h in found}) | appendix_hashes(Path("RESULTS.md"))
    stray = [(f, n, h) for f, n, h in found if h not in known]
    for f, n, h in stray:
        print(f"{f}:{n}: {h} is no commit of this repository and not in RESULTS.md's table "
              f'"{APPENDIX[3:]}"')
    return 1 if stray else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
