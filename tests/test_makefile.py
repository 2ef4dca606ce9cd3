"""The Makefile targets a user types: ``make help`` lists them, ``make grammars`` compiles."""
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")


def make(*args):
    return subprocess.run(["make", "--no-print-directory", *args], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout


def test_make_help_lists_the_targets():
    out = make("help")
    for target in ("all", "install", "grammars", "test", "lint", "bench", "clean"):
        assert f"make {target} " in out


def test_make_grammars_compiles_every_rule_file():
    """``grammars`` is also the rule files' folder: without a phony target, ``make grammars``
    said 'Nothing to be done' and compiled nothing. Dry run (-n) of a forced build (-B)."""
    out = make("-n", "-B", "grammars")
    rules = sorted((ROOT / "grammars").glob("*.rules"))
    assert rules
    for path in rules:
        assert f"compile grammars/{path.name} -o build/{path.stem}.fst" in out
