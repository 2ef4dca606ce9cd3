"""bench/line_buffered_bench.py on a few lines: one call against line by line, its figures."""
from __future__ import annotations

import re

import pytest
from conftest import treebank
from script_module import BENCH, load_script

import fstpunct

line_buffered_bench = load_script("line_buffered_bench", BENCH)


def test_one_call_against_line_by_line(capsys) -> None:
    treebank("en", "test")  # the bench reads it: skipped without it (conftest), but under CI
    line_buffered_bench.main(["--lines", "3", "--runs", "1"])
    out = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"en test, 3 lines; load average before [\d.]+ [\d.]+ [\d.]+", out[0])
    for row, name in zip(out[1:3], ["one call (without the option)",
                                    "line by line (restore_lines, --line-buffered)"]):
        assert re.fullmatch(re.escape(name) + r": CPU [\d.]+ s, \d+ answers/s; wall [\d.]+ s, "
                            r"\d+ answers/s", row), row
    assert re.fullmatch(r"lines whose answers differ: [0-3]; load average after [\d.]+ [\d.]+ "
                        r"[\d.]+", out[3]) and len(out) == 4


def test_an_answer_lost_by_one_way_is_an_error(monkeypatch) -> None:
    """The count of differing answers was taken over zip(), which stopped at the shorter list:
    a lost answer read as "none differ"."""
    treebank("en", "test")
    restore_lines = fstpunct.Model.restore_lines
    monkeypatch.setattr(fstpunct.Model, "restore_lines",
                        lambda self, lines: iter(list(restore_lines(self, lines))[:-1]))
    with pytest.raises(ValueError, match="shorter"):
        line_buffered_bench.main(["--lines", "3", "--runs", "1"])


def test_a_test_split_without_a_word_is_one_error_and_exit_2(monkeypatch, capsys) -> None:
    """It ended in an IndexError's traceback (at the warm-up call's first line)."""
    monkeypatch.setattr(line_buffered_bench, "lines_of", lambda lang, file, lower: [])
    with pytest.raises(SystemExit) as e:
        line_buffered_bench.main(["--lang", "es"])
    assert e.value.code == 2 and "es:test: no line with a word" in capsys.readouterr().err
