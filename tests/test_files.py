"""Outputs appear whole or not at all; inputs open one way; the CLI's exit statuses."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fstpunct.cli.main import main
from fstpunct.errors import InputError
from fstpunct.files import atomic_folder, open_input, output

SAMPLE = Path(__file__).parents[1] / "data" / "sample.conllu"
UD = Path(os.environ.get("FSTPUNCT_UD_DIR", Path(__file__).parents[2] / "shared" / "ud"))
EWT_DEV = UD / "UD_English-EWT" / "en_ewt-ud-dev.conllu"
PREVIOUS = "previous content\n"


def fstpunct(*args):
    return subprocess.Popen([sys.executable, "-m", "fstpunct.cli.main", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def leftovers(folder):
    return [p.name for p in Path(folder).iterdir() if p.name.startswith(".")]


def test_output_appears_only_when_complete(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text(PREVIOUS)
    with pytest.raises(RuntimeError):
        with output(target) as f:
            f.write("half")
            raise RuntimeError
    assert target.read_text() == PREVIOUS and leftovers(tmp_path) == []
    with output(target) as f:
        f.write("a\r\nb\n")
        assert target.read_text() == PREVIOUS
    assert target.read_bytes() == b"a\r\nb\n" and leftovers(tmp_path) == []


def test_output_keeps_permissions_and_refuses_folders(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text(PREVIOUS)
    target.chmod(0o640)
    with output(target) as f:
        f.write("new")
    assert target.stat().st_mode & 0o777 == 0o640
    with pytest.raises(InputError, match="is a folder"):
        with output(tmp_path):
            pass
    with pytest.raises(InputError, match="cannot write"):
        with output(tmp_path / "missing" / "out.txt"):
            pass


def test_atomic_folder_replaces_whole_or_not_at_all(tmp_path):
    target = tmp_path / "model"
    target.mkdir()
    (target / "model.json").write_text(PREVIOUS)
    with pytest.raises(KeyboardInterrupt):
        with atomic_folder(target) as tmp:
            (tmp / "new.json").write_text("x")
            raise KeyboardInterrupt
    assert [p.name for p in target.iterdir()] == ["model.json"] and leftovers(tmp_path) == []
    with atomic_folder(target) as tmp:
        (tmp / "new.json").write_text("x")
    assert [p.name for p in target.iterdir()] == ["new.json"] and leftovers(tmp_path) == []


@pytest.mark.parametrize("command", [["train", "--direction", "rtl"], ["crf", "train", "--lang",
                                     "en"], ["parser", "train", "--dev", str(SAMPLE)]])
def test_a_folder_of_other_things_is_never_replaced(tmp_path, capsys, command):
    """Checked before training: -o naming e.g. a source folder would have deleted it."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "todo.txt").write_text(PREVIOUS)
    with pytest.raises(InputError, match="holds no model"):
        with atomic_folder(folder):
            pass
    assert main([*command, "--train", str(SAMPLE), "-o", str(folder)]) == 2
    assert "notes: a folder that holds no model" in capsys.readouterr().err
    assert [p.name for p in folder.iterdir()] == ["todo.txt"] and leftovers(tmp_path) == []
    assert main([*command, "--train", str(SAMPLE), "-o", "/proc/fstpunct-model"]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_open_input_names_and_refuses(tmp_path):
    with pytest.raises(InputError, match="is a folder"):
        open_input(tmp_path)
    with pytest.raises(InputError, match="cannot read"):
        open_input(tmp_path / "missing.conllu")
    f = tmp_path / "x.txt"
    f.write_bytes(b"\xef\xbb\xbfa\r\nb\xff\n")
    lines, name = open_input(f)
    assert name == str(f) and list(lines) == ["a\r\n", "b\udcff\n"]
    f.write_bytes("a\n".encode("utf-16"))
    with pytest.raises(InputError, match="UTF-16"):
        list(open_input(f)[0])


@pytest.mark.parametrize("command", [["decode"], ["normalise"],
                                     ["restore", "--trivial", "en", "--quiet"]])
def test_output_may_name_the_input(tmp_path, command):
    expected, same = tmp_path / "expected.conllu", tmp_path / "same.conllu"
    same.write_bytes(SAMPLE.read_bytes())
    assert main([*command, str(SAMPLE), "-o", str(expected)]) == 0
    assert main([*command, str(same), "-o", str(same)]) == 0
    assert same.read_bytes() == expected.read_bytes() and leftovers(tmp_path) == []


def test_bad_input_halfway_leaves_the_target(tmp_path, capsys):
    bad = tmp_path / "bad.conllu"
    bad.write_text(SAMPLE.read_text(encoding="utf-8") + "1\tx\n\n", encoding="utf-8")
    target = tmp_path / "out.conllu"
    target.write_text(PREVIOUS)
    assert main(["decode", "--model", "en", str(bad), "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{bad}:" in err
    assert target.read_text() == PREVIOUS and leftovers(tmp_path) == []


def _default_signals() -> None:
    """In the child before it starts: SIGINT and SIGTERM as a terminal gives them. A shell
    without job control starts background jobs (a suite run with '&') with SIGINT ignored, the
    child inherits that, and Python then installs no KeyboardInterrupt handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_interrupt_leaves_the_target(tmp_path, signum, status):
    """The input comes through a pipe that stays open, so the command cannot finish (nor
    rename its output) before the signal lands: it is waiting for the rest of its input."""
    target = tmp_path / "out.conllu"
    target.write_text(PREVIOUS)
    proc = subprocess.Popen([sys.executable, "-m", "fstpunct.cli.main", "decode", "--model",
                             "en", "-", "-o", str(target)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_default_signals)
    try:
        proc.stdin.write(SAMPLE.read_bytes())  # some sentences, not the end of the input
        proc.stdin.flush()
        deadline = time.time() + 300
        while not leftovers(tmp_path) and time.time() < deadline and proc.poll() is None:
            time.sleep(0.05)  # wait until the temporary file is being written
        writing = bool(leftovers(tmp_path)) and proc.poll() is None
        proc.send_signal(signum if writing else signal.SIGKILL)
        returncode = proc.wait(timeout=300)  # stdin still open: only the signal ends it
    finally:
        if proc.poll() is None:
            proc.kill()
        _, err = proc.communicate()
    assert writing, f"no temporary file while decode was running: {err!r}"
    assert returncode == status, err
    assert target.read_text() == PREVIOUS and leftovers(tmp_path) == []


def test_two_writers_leave_one_complete_output(tmp_path):
    target = tmp_path / "out.conllu"
    a, b = tmp_path / "a.conllu", tmp_path / "b.conllu"
    assert main(["decode", str(SAMPLE), "-o", str(a)]) == 0
    assert main(["decode", str(SAMPLE), "--posteriors", "3", "-o", str(b)]) == 0
    procs = [fstpunct("decode", SAMPLE, "-o", target),
             fstpunct("decode", SAMPLE, "--posteriors", "3", "-o", target)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    assert target.read_bytes() in (a.read_bytes(), b.read_bytes())


def test_full_disk_on_stdout_is_one_line():
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "fstpunct.cli.main", "decode",
                               "--model", "en", str(SAMPLE)],
                              stdout=full, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "No space left" in proc.stderr


def test_closed_pipe_is_quiet():
    proc = fstpunct("decode", EWT_DEV)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0 and err == b""


@pytest.mark.parametrize("command", [["decode", "--model", "en"], ["restore", "--trivial", "en"],
                                     ["stats"]])
def test_unusable_paths_are_one_line(tmp_path, command, capsys):
    args = [str(SAMPLE), "-o", str(tmp_path)] if command != ["stats"] else [str(tmp_path)]
    assert main([*command, *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(tmp_path) in err


def test_ctrl_c_while_the_command_loads_is_130_without_a_traceback(monkeypatch, capsys):
    from fstpunct.cli import main as main_module

    def interrupted(only=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(main_module, "build_parser", interrupted)
    assert main(["decode", str(SAMPLE)]) == 130
    assert capsys.readouterr().err == ""
