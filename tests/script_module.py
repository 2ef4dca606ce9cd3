"""The scripts of scripts/ (and bench/) imported as modules, for the tests of their
functions."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).parents[1] / "scripts"
BENCH = SCRIPTS.with_name("bench")


def load_script(name: str, folder: Path = SCRIPTS) -> ModuleType:
    """``scripts/NAME.py`` (or ``folder``'s) imported as the module ``NAME`` (registered in
    ``sys.modules``: a script's dataclasses look themselves up there)."""
    spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
