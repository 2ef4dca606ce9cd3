"""bench/service_bench.py on a few lines of text: one model, a call per line, its figures."""
from __future__ import annotations

import re

from script_module import BENCH, load_script

service_bench = load_script("service_bench", BENCH)


def test_a_call_per_line_and_its_figures(tmp_path, capsys) -> None:
    text = tmp_path / "lines.txt"
    text.write_text("we bought apples pears and plums\n\nat the market in oxford england\n",
                    encoding="utf-8")
    service_bench.main(["--file", str(text), "--calls", "3", "--warm-up", "1"])
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("en: 2 lines; load ") and out[1].startswith("first call ")
    assert re.fullmatch(r"3 calls after 1 to warm up: CPU per call median [\d.]+ ms, 95th "
                        r"percentile [\d.]+ ms; wall median [\d.]+ ms, 95th percentile "
                        r"[\d.]+ ms", out[2])
    assert re.fullmatch(r"RSS \d+ MiB before the timed calls, \d+ MiB after; load average "
                        r"[\d.]+ [\d.]+ [\d.]+", out[3])
    assert re.fullmatch(r"the first 3 of them in one call: [\d.]+ ms CPU per line; 0 lines "
                        r"differ from the calls' \(quotes are written as most of a call's input "
                        r"writes them\)", out[4]) and len(out) == 5
