"""bench/instructions.py's reading of a callgrind out file (not valgrind itself)."""
from __future__ import annotations

import pytest
from script_module import BENCH, load_script

instructions = load_script("instructions", BENCH)

# the head and tail of a callgrind out file as valgrind 3.19 writes them (cut)
OUT = """# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  python -c import sys
part: 1

desc: I1 cache:
positions: line
events: Ir
summary: 3086123456

ob=(1) /usr/bin/python3.11
fl=(1) ???
fn=(1) main
0 12
totals: 3086123457
"""


def test_total_is_the_totals_line() -> None:
    assert instructions.total_instructions(OUT) == 3086123457


def test_summary_when_no_totals() -> None:
    head = OUT.split("totals:")[0]
    assert instructions.total_instructions(head) == 3086123456


def test_first_event_of_several() -> None:
    text = "events: Ir Dr Dw\nsummary: 100 20 3\n"
    assert instructions.total_instructions(text) == 100


def test_no_total_refused() -> None:
    with pytest.raises(ValueError, match="no 'totals:' or 'summary:'"):
        instructions.total_instructions("events: Ir\nfn=(1) main\n0 12\n")
