"""``restore --text --line-buffered`` and ``Model.restore_lines``: each line answered before the
next is read, as a one-line call of ``Model.restore`` answers it (width and quotes per line; with
``samples``, sentence k draws from stream k, as in one call on the whole text)."""
from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

import fstpunct
from fstpunct.cli.main import main
from fstpunct.errors import ConlluError

ROOT = Path(__file__).parents[1]
# zh: line 1 full-width, line 3 half-width, line 5 no marks (the model's forms, half-width, on
# its own; in one call, the first line's width for all)
ZH = ["我们 在 市场 买 了 苹果 ， 梨 和 李子 。\n", "\n", "他 说 , 明天 会 下雨 .\n", "  \n",
      "我们 明天 去 北京\n"]


@pytest.fixture(scope="module")
def zh() -> fstpunct.Model:
    return fstpunct.load("zh")


def test_each_line_is_answered_as_a_call_of_its_own(zh):
    """Line for line what restore gives each line alone: blank lines as blank lines, and width
    decided per line (one call on the whole text writes the last line in the first's width)."""
    alone = [zh.restore(line, text=True) for line in ZH]
    assert list(zh.restore_lines(ZH)) == alone
    assert alone[1] == alone[3] == "\n"
    whole = zh.restore("".join(ZH), text=True).splitlines(keepends=True)
    assert whole[0] == alone[0] and whole[2] != alone[2] and whole[4] != alone[4]


def test_no_line_is_pulled_before_the_answer_to_the_one_before(zh):
    pulled = []

    def lines():
        for k, line in enumerate(ZH, 1):
            pulled.append(k)
            yield line
    answers = zh.restore_lines(lines())
    assert pulled == []  # options checked, nothing read
    for k in range(1, len(ZH) + 1):
        next(answers)
        assert pulled == list(range(1, k + 1))
    assert next(answers, None) is None


def test_with_samples_sentence_k_draws_from_stream_k_as_in_one_call(zh):
    """With ``samples`` one restorer serves every line: sentence k draws from the stream
    (seed, k), as in one call on the whole text (lines without marks: one width either way),
    not from (seed, 0) as each one-line call does, which answers a line alike every time."""
    line = "他 说 明天 会 下雨 我们 不 去 了\n"
    lines = [line, "\n", *[line] * 4]
    options = {"samples": 1, "seed": 1}
    answers = list(zh.restore_lines(lines, **options))
    assert answers == zh.restore("".join(lines), text=True, **options).splitlines(keepends=True)
    assert answers[1] == "\n" and len(set(answers[2:])) > 1
    assert zh.restore(lines[0], text=True, **options) == answers[0]


def test_conllu_answers_and_blank_text(zh):
    """In CoNLL-U a blank line's answer is empty (the next sentence's # newpar); text of blank
    lines only comes back as text, and is "no sentences" as CoNLL-U."""
    answers = list(zh.restore_lines(ZH, format="conllu"))
    assert answers[1] == answers[3] == ""
    assert "# sent_id = 3" in answers[2] and "# newpar" in answers[2]
    assert answers[4].endswith("\n\n")
    assert list(zh.restore_lines([" \n", "\n"])) == ["\n", "\n"]
    with pytest.raises(ConlluError, match="no sentences"):
        list(zh.restore_lines([" \n"], format="conllu"))
    with pytest.raises(TypeError, match="iterable of strings"):
        zh.restore_lines("我们 去 北京")
    with pytest.raises(TypeError, match="pool"):
        zh.restore_lines(ZH, pool=None)
    # a keyword restore does not take: named as restore_lines', not a private method's
    with pytest.raises(TypeError, match=r"^restore_lines\(\) got an unexpected keyword "
                                        r"argument 'sampels'$"):
        zh.restore_lines(ZH, sampels=3)


def test_the_command_answers_as_the_library(tmp_path, capsys, zh):
    path = tmp_path / "in.txt"
    path.write_text("".join(ZH), encoding="utf-8")
    assert main(["restore", "--text", "--lang", "zh", "--format", "text", "--line-buffered",
                 str(path)]) == 0
    assert capsys.readouterr().out == "".join(zh.restore(line, text=True) for line in ZH)
    assert list(zh.restore_lines(path)) == list(zh.restore_lines(ZH))  # a Path is read


def test_the_trivial_baseline_answers_each_line_as_alone(tmp_path, capsys):
    """--trivial (restored outside the Model): each line as the command gives it alone."""
    trivial = ["restore", "--text", "--format", "text", "--trivial", "zh"]
    alone = []
    for k, line in enumerate(ZH):
        (tmp_path / f"{k}.txt").write_text(line, encoding="utf-8")
        assert main([*trivial, str(tmp_path / f"{k}.txt")]) == 0
        alone.append(capsys.readouterr().out)
    (tmp_path / "in.txt").write_text("".join(ZH), encoding="utf-8")
    assert main([*trivial, "--line-buffered", str(tmp_path / "in.txt")]) == 0
    assert capsys.readouterr().out == "".join(alone)
    assert main([*trivial, str(tmp_path / "in.txt")]) == 0
    assert capsys.readouterr().out != "".join(alone)  # one width for the whole text


@pytest.mark.parametrize("options, refused", [
    ([], "only with --text"),
    (["--text", "-o", "out.conllu"], "not in -o FILE"),
    (["--text", "--jobs", "2"], "not with --jobs"),
    (["--text", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler or --dask-workers"),
    (["--text", "--dask-workers", "2"], "--scheduler or --dask-workers"),
])
def test_refusals(options, refused, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["restore", "--lang", "en", "--line-buffered", *options]) == 2
    err = capsys.readouterr().err
    assert refused in err and len(err.strip().splitlines()) == 1


class _Pipe:
    """``restore --text --line-buffered`` with ``options`` in a child process on pipes: write a
    line, then read the child's answer a line at a time, each within ``timeout`` seconds (a
    silent child, or a partial line, is a failed assertion naming what came, not a wait for
    pytest-timeout); a child that does not end 60 s after its input is closed is killed."""

    def __init__(self, *options: str, timeout: float = 120) -> None:
        command = [sys.executable, "-c", "import sys; from fstpunct.cli.main import main; "
                   "sys.exit(main(sys.argv[1:]))", "restore", "--text", "--line-buffered",
                   *options]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     bufsize=0, env={**os.environ, "PYTHONPATH": str(ROOT)})
        self.timeout, self.pending = timeout, b""

    def write(self, line: bytes) -> None:
        self.proc.stdin.write(line)  # type: ignore[union-attr]

    def readline(self) -> bytes:
        """The child's next line of stdout, line end included."""
        fd = self.proc.stdout.fileno()  # type: ignore[union-attr]
        deadline = time.monotonic() + self.timeout
        while b"\n" not in self.pending:
            ready, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0))
            assert ready, f"no whole line in {self.timeout} s; so far {self.pending!r}"
            chunk = os.read(fd, 1 << 16)
            assert chunk, f"the command ended; so far {self.pending!r}"
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line + b"\n"

    def end(self) -> None:
        """Close stdin: the command writes nothing more and ends with exit 0."""
        out, _ = self.proc.communicate(timeout=60)
        assert self.pending + out == b"" and self.proc.returncode == 0

    def __enter__(self) -> _Pipe:
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.kill()  # (nothing once it has ended) else Popen's exit would wait for it
        self.proc.__exit__(*exc)


def test_a_pipe_is_answered_line_by_line():
    """The command on a pipe: line 1's sentence written before line 2 is (without the option
    it reads ahead, and this test would fail at its timeout), then line 2's, then the end."""
    with _Pipe("--lang", "en") as pipe:
        def answer(line: bytes) -> list[bytes]:
            """The CoNLL-U block the command writes for ``line``."""
            pipe.write(line)
            rows = [pipe.readline()]
            while rows[-1] != b"\n":
                rows.append(pipe.readline())
            return rows
        first = answer(b"we bought apples pears and plums\n")
        assert b"# sent_id = 1\n" in first and b"apples" in b"".join(first)
        assert b"# sent_id = 2\n" in answer(b"she left early\n")
        pipe.end()


def test_a_pipe_is_answered_line_by_line_by_the_crf(zh, tmp_path, capsys):
    """--crf on a pipe: each line's answer, as the command gives the line alone, written
    before the next line is (without the option this test fails at its timeout)."""
    crf = ["--format", "text", "--crf", str(zh.folder / "text" / "crf")]
    lines = ZH[:3]  # a sentence, a blank line, a sentence of the other width
    alone = []
    for k, line in enumerate(lines):
        (tmp_path / f"{k}.txt").write_text(line, encoding="utf-8")
        assert main(["restore", "--text", *crf, str(tmp_path / f"{k}.txt")]) == 0
        alone.append(capsys.readouterr().out.encode())
    with _Pipe(*crf) as pipe:
        for line, expected in zip(lines, alone, strict=True):
            pipe.write(line.encode())
            assert pipe.readline() == expected
        pipe.end()
