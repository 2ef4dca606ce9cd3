"""Progress on stderr: a bar on a terminal, a plain line now and then in a log, never escapes.

tqdm draws bars with carriage returns (and cursor escapes for nested bars), which turn a log
file into noise; so a bar is drawn only when stderr is a terminal, and a log gets a line every
:data:`INTERVAL` seconds (``decode: 1500 sentences, 31 s``) on long runs and nothing on short
ones.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

__all__ = ["INTERVAL", "on_terminal", "progress"]

INTERVAL = 30.0  # seconds between two lines in a log
T = TypeVar("T")


def on_terminal() -> bool:
    """Whether stderr is a terminal (draw bars) rather than a file or pipe (do not)."""
    return sys.stderr.isatty()


def progress(items: Iterable[T], desc: str, unit: str = "sentences", total: int | None = None,
             quiet: bool = False, interval: float = INTERVAL) -> Iterator[T]:
    """``items``, counted on stderr as they are used: a tqdm bar on a terminal, else a line
    every ``interval`` seconds; nothing when ``quiet``."""
    if quiet:
        yield from items
        return
    if on_terminal():
        from tqdm import tqdm  # slow to import: only for a bar
        yield from tqdm(items, desc=desc, unit=f" {unit}", total=total, file=sys.stderr)
        return
    start = last = time.monotonic()
    of = f" of {total}" if total is not None else ""
    for count, item in enumerate(items, 1):
        yield item
        now = time.monotonic()
        if now - last >= interval:
            last = now
            print(f"{desc}: {count}{of} {unit}, {now - start:.0f} s", file=sys.stderr,
                  flush=True)
