"""Test-wide settings: hypothesis checks values, not time (speed is measured by the benchmarks
in bench/), so no example fails for being slow on a busy machine."""
from hypothesis import settings

settings.register_profile("fstpunct", deadline=None)
settings.load_profile("fstpunct")
