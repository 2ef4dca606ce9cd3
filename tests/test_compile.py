"""`fstpunct compile` writes channels that OpenFst's own tools and pynini read."""
import shutil
import subprocess
from pathlib import Path

import pynini
import pytest

from fstpunct.cli.main import main
from fstpunct.errors import InputError
from fstpunct.fst.channel import Channel
from fstpunct.fst.grammar import load_grammar

GRAMMARS = sorted((Path(__file__).parents[1] / "grammars").glob("*.rules"))


@pytest.mark.parametrize("grammar", GRAMMARS, ids=lambda p: p.stem)
def test_compiled_channel_is_a_readable_openfst_machine(grammar, tmp_path):
    out = tmp_path / f"{grammar.stem}.fst"
    assert main(["compile", str(grammar), "-o", str(out)]) == 0
    fst = pynini.Fst.read(str(out))
    assert fst.input_symbols().find(2) == "∘" and fst.num_states() > 2
    channel = Channel.load(out)
    assert channel.direction == load_grammar(grammar).direction
    assert channel.phi == pytest.approx(load_grammar(grammar).channel().phi, abs=1e-12)
    if shutil.which("fstinfo") is None:
        pytest.skip("OpenFst command-line tools not installed (apt-get install libfst-tools)")
    info = subprocess.run(["fstinfo", str(out)], capture_output=True, text=True, check=True)
    assert "vector" in info.stdout and "fstpunct-channel" in info.stdout
    printed = subprocess.run(["fstprint", str(out)], capture_output=True, text=True, check=True)
    assert len(printed.stdout.splitlines()) == sum(1 for s in fst.states() for _ in fst.arcs(s)) + 1


def test_a_channel_named_like_its_sidecar_is_refused(tmp_path, capsys):
    """``-o x.json`` once wrote the channel, then its JSON sidecar over it, and said it had
    written both: now an error before anything is written."""
    out = tmp_path / "channel.json"
    assert main(["compile", str(GRAMMARS[0]), "-o", str(out)]) == 2
    assert not out.exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "channel.json" in err[0] and "sidecar" in err[0]
    inside = tmp_path / "sub" / "dir" / "channel.json"  # its folder was made before the error
    assert main(["compile", str(GRAMMARS[0]), "-o", str(inside)]) == 2
    assert "sidecar" in capsys.readouterr().err and not (tmp_path / "sub").exists()
    with pytest.raises(InputError, match="sidecar would overwrite it"):  # the library's own
        load_grammar(GRAMMARS[0]).compile(out)
    assert list(tmp_path.iterdir()) == []


def test_a_channel_to_standard_output_is_refused(tmp_path, monkeypatch, capsys):
    """``-o -`` wrote files named ``-`` and ``-.json`` (every other command's -o - is
    standard output, which cannot take compile's two files): one line, nothing written."""
    monkeypatch.chdir(tmp_path)
    assert main(["compile", str(GRAMMARS[0]), "-o", "-"]) == 2
    assert capsys.readouterr().err == (
        "fstpunct compile: error: -: a channel is written as two files, the .fst and its JSON "
        "sidecar beside it, not to standard output; name the channel .fst\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("sidecar", [True, False])
def test_a_channel_that_cannot_be_written_is_one_line(sidecar, tmp_path, monkeypatch, capsys):
    """OpenFst's error writing the machine (pynini's FstIOError, an OSError) is one line
    naming the .fst, with or without its sidecar, and leaves nothing behind."""
    class Unwritable:  # the machine's bytes are made in memory, then written (Channel.to_bytes)
        def write_to_string(self):
            raise pynini.FstIOError("Write failed: <string>")

    monkeypatch.setattr(Channel, "fst", lambda self, arc_type: Unwritable())
    out = tmp_path / "en.fst"
    if sidecar:
        assert main(["compile", str(GRAMMARS[0]), "-o", str(out)]) == 2
        err = capsys.readouterr().err
    else:
        with pytest.raises(InputError) as refused:
            load_grammar(GRAMMARS[0]).channel().save(out)
        err = f"{refused.value}\n"
    assert f"{out}: cannot write: Write failed: " in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []
