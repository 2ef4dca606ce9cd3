"""Test-wide settings: hypothesis checks values, not time (speed is measured by the benchmarks
in bench/), so no example fails for being slow on a busy machine; under CI (``CI`` set) its
examples are derandomised, so a CI run is reproducible and a red one can be re-run as it was
(local runs keep drawing fresh examples; ``scripts/fuzz.py --minutes N`` searches further)."""
import os
from pathlib import Path

import pytest
from hypothesis import settings
from toy_release import write_release

settings.register_profile("fstpunct", deadline=None, derandomize=bool(os.environ.get("CI")))
settings.load_profile("fstpunct")


@pytest.fixture(scope="session")
def toy_ud(tmp_path_factory) -> Path:
    """A tiny UD release in both layouts (see toy_release.py)."""
    return write_release(tmp_path_factory.mktemp("ud"))
