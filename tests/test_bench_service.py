"""bench/service_bench.py on a few lines of text: one model, a call per line, its figures."""
from __future__ import annotations

import re

import pytest
from script_module import BENCH, load_script

from fstpunct import Model

service_bench = load_script("service_bench", BENCH)


def test_a_call_per_line_and_its_figures(tmp_path, capsys) -> None:
    text = tmp_path / "lines.txt"
    text.write_text("we bought apples pears and plums\n\n?!\nat the market in oxford england\n",
                    encoding="utf-8")  # a line of punctuation only is not a line with a word
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


def test_every_call_is_readmes_recipe_text_without_case(tmp_path, monkeypatch, capsys) -> None:
    """README's service recipe calls restore(line, text=True, lowercase=True); the bench called
    it with lowercase=None (the case not known: both taggers read)."""
    seen = []
    restore = Model.restore

    def spy(self, data, **options):
        seen.append(options)
        return restore(self, data, **options)
    monkeypatch.setattr(Model, "restore", spy)
    text = tmp_path / "lines.txt"
    text.write_text("we bought apples pears and plums\n", encoding="utf-8")
    service_bench.main(["--file", str(text), "--calls", "2", "--warm-up", "1"])
    capsys.readouterr()
    # the first call, 1 to warm up, 2 timed, then the 2 lines in one call (compared with the
    # timed calls' outputs, not restored again one by one)
    assert seen == [{"text": True, "lowercase": True}] * 5


@pytest.mark.parametrize("options, text, words", [
    (["--calls", "0"], "a line\n", "--calls: must be a whole number of at least 1"),
    (["--warm-up", "-1"], "a line\n", "--warm-up: must be 0 or more"),
    ([], "\n?!\n", "no line with a word"),
])
def test_bad_options_and_files_are_one_error_and_exit_2(options, text, words, tmp_path,
                                                        capsys) -> None:
    """--calls 0 and a file without a word used to end in an IndexError's traceback."""
    path = tmp_path / "lines.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SystemExit) as e:
        service_bench.main(["--file", str(path), *options])
    assert e.value.code == 2 and words in capsys.readouterr().err


def test_a_test_split_without_a_word_is_named_in_its_error(monkeypatch, capsys) -> None:
    """Without --file the error named the file as None."""
    monkeypatch.setattr(service_bench, "read_one", lambda spec: [])
    with pytest.raises(SystemExit) as e:
        service_bench.main(["--lang", "es"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "es:test: no line with a word" in err and "None" not in err
