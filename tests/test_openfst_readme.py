"""The README's OpenFst example runs as shown with the OpenFst command-line tools, and its figures
are the channel's own (Channel.prob, Channel.best_path). Skipped only where the tools are absent
(Debian/Ubuntu: apt-get install libfst-tools; .ci/run installs it)."""
import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from fstpunct.fst.channel import Channel

ROOT = Path(__file__).parents[1]
TOOLS = ("fstsymbols", "fstcompile", "fstcompose", "fstshortestdistance", "fstproject",
         "fstrmepsilon", "fstinfo", "fstmap", "fstshortestpath", "fsttopsort", "fstprint")
pytestmark = pytest.mark.skipif(any(shutil.which(t) is None for t in TOOLS),
                                reason="OpenFst command-line tools (libfst-tools) not installed")


def example() -> tuple[str, str]:
    """The section's shell block and the output block after it."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## The OpenFst files", 1)[1].split("\n## ", 1)[0]
    script, shown = re.findall(r"```(?:sh|text)\n(.*?)```", section, re.S)[:2]
    return script, shown


def test_the_readme_example_prints_what_it_shows(tmp_path):
    script, shown = example()
    (tmp_path / "fstpunct").symlink_to(ROOT / "fstpunct")
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout == shown


def test_its_figures_are_the_channels():
    channel = Channel.load(ROOT / "fstpunct" / "models" / "en" / "channel.fst")
    _, shown = example()
    lines = shown.splitlines()
    distance = float(next(ln for ln in lines if ln.startswith("0\t")).split("\t")[1])
    assert distance == pytest.approx(-math.log(channel.prob(["”", "."], [".", "”"])), abs=1e-6)
    path = [ln.split("\t") for ln in lines if ln.count("\t") >= 2]
    u = [arc[2] for arc in path if arc[2] != "$"][::-1]  # read back to front
    assert u == [".", "<unk>", "”"]
    best = channel.best_path(u, [".", "”"])
    assert sum(float(arc[3]) for arc in path if len(arc) > 3) == \
        pytest.approx(-math.log(best.prob), abs=1e-6)
