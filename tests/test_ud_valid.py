"""The official UD validator (udtools' udvalidate) accepts what decode, normalise and restore
write, at the highest level their input passes, for a sample of every shared treebank."""
import itertools
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import missing

from fstpunct.cli.main import main
from fstpunct.errors import InputError
from fstpunct.model.store import BUNDLED
from fstpunct.ud.release import ud_root
from fstpunct.ud.tree import attaches_projectively, lift_to_projective
from fstpunct.ud.treebank import read_file

UDVALIDATE = shutil.which("udvalidate", path=str(Path(sys.executable).parent)) or \
    shutil.which("udvalidate")


def sample_files() -> list[Path]:
    """One file per treebank of the UD release (dev where there is one); none without one."""
    try:
        root = ud_root()
    except InputError:
        return []
    return sorted(p for p in root.glob("UD_*/*-ud-*.conllu")
                  if "-dev" in p.name or ("-test" in p.name and not p.with_name(
                      p.name.replace("-test", "-dev")).exists()))


FILES = sample_files()
SENTENCES = 5  # of each file
COMMANDS = [["decode"], ["normalise"], ["restore", "--samples", "20", "--quiet"]]


def passes(path: Path, lang: str, level: int) -> bool:
    return subprocess.run([UDVALIDATE, "--quiet", "--lang", lang, "--level", str(level),
                           str(path)], capture_output=True).returncode == 0


def highest_level(path: Path, lang: str) -> int:
    """The highest level passed (a level's tests include those of the levels below it)."""
    return next((k for k in range(5, 0, -1) if passes(path, lang, k)), 0)


@pytest.mark.skipif(UDVALIDATE is None, reason="udtools (the dev extra) is not installed")
@pytest.mark.usefixtures("ud")  # without UD_* folders one case (None), which skips (fails under CI)
@pytest.mark.parametrize("source", FILES or [None],
                         ids=[p.name.split("-ud-")[0] for p in FILES] or ["no-UD"])
def test_outputs_pass_the_validator_at_the_inputs_level(source, tmp_path, capsys):
    if source is None:  # a release found, its files in UD 1.x's flat layout only (ud: no files)
        missing(f"needs the UD treebanks: no UD_*/*-ud-*.conllu under {ud_root()}")
    code = source.name.split("-ud-")[0]
    lang = code.split("_")[0]
    sample = tmp_path / f"{code}.conllu"
    sample.write_text("".join(s.text() for s in itertools.islice(read_file(source), SENTENCES)),
                      encoding="utf-8")
    level = highest_level(sample, lang)
    # UD 1.4 Chinese (the paper's zh data) is in the version 1 format: level 1 only
    assert level >= (1 if code == "zh" else 3 if code == "en_ewt" else 2)
    model = lang if (BUNDLED / lang / "model.json").is_file() else "en"
    for command in COMMANDS:
        out = tmp_path / f"{command[0]}.conllu"
        assert main([*command, "--model", model, str(sample), "-o", str(out)]) == 0
        assert passes(out, lang, level), (command, level, subprocess.run(
            [UDVALIDATE, "--lang", lang, "--level", str(level), str(out)],
            capture_output=True, text=True).stdout[-2000:])


def test_attaches_projectively():
    # 1 <- 2 -> 4, 3 -> 2 (a comma at 3 under 2), 2 the root
    heads = [2, 0, 2, 2]
    assert all(attaches_projectively(heads, d) for d in (1, 3, 4))
    assert not attaches_projectively([2, 0, 1, 2], 3)  # 3 under 1 spans 2, not below 1
    assert not attaches_projectively([3, 0, 2, 1, 2], 4)  # the arc 3 -> 1 spans 2 above 4


def test_lift_keeps_the_nearest_projective_ancestor():
    # words 1..5: 2 root, 1 <- 2, 3 <- 2, 4 <- 5, 5 <- 3; a mark at 6 preferred under 4
    heads = [2, 0, 2, 5, 3, 4]
    assert lift_to_projective(heads, 6, 2) == 5 and heads[5] == 5  # 4 spans 5, its head
    # a mark at 2 between 1 and 3 preferred under 4 (spans 3, which is not below 4)
    heads = [3, 4, 0, 3]
    assert not attaches_projectively(heads, 2)
    assert lift_to_projective(heads, 2, 1) == 3 and attaches_projectively(heads, 2)
