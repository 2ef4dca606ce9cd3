"""glibc's malloc thresholds, set through ``mallopt`` (ctypes; nothing happens outside glibc or
musl): the block size from which allocations are mapped afresh (``M_MMAP_THRESHOLD``) and the
free space at the heap's top beyond which it is returned to the system (``M_TRIM_THRESHOLD``).

A plain process starts with both at 128 KiB and raises them as mapped blocks are freed (up to
32 MiB mapped, 64 MiB trimmed: :data:`ADAPTIVE`). Until they are raised, and for a block larger
than the last freed one, a large array is mapped afresh and unmapped when freed, and every page
of it faults again on first touch (a costly trap on this project's virtual machines)."""
from __future__ import annotations

import ctypes
import os
import sys

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters (malloc.h)
ADAPTIVE = {M_MMAP_THRESHOLD: 32 << 20, M_TRIM_THRESHOLD: 64 << 20}
"""The values glibc's adaptive thresholds reach on 64-bit systems."""
ENVIRONMENT = {M_TRIM_THRESHOLD: "MALLOC_TRIM_THRESHOLD_",
               M_MMAP_THRESHOLD: "MALLOC_MMAP_THRESHOLD_"}
TUNABLES = {M_TRIM_THRESHOLD: "glibc.malloc.trim_threshold",
            M_MMAP_THRESHOLD: "glibc.malloc.mmap_threshold"}
FIXING = (*ENVIRONMENT.values(), "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_")
"""The variables that turn glibc's adaptive thresholds off (as the tunables of
:data:`FIXING_TUNABLES` in ``GLIBC_TUNABLES`` do)."""
FIXING_TUNABLES = (*TUNABLES.values(), "glibc.malloc.top_pad", "glibc.malloc.mmap_max")
GLIBC_DEFAULTS = {M_MMAP_THRESHOLD: 128 << 10, M_TRIM_THRESHOLD: 128 << 10}


def _tunables() -> dict[str, str]:
    """The glibc tunables ``GLIBC_TUNABLES`` sets (``name=value:name=value``): name to value."""
    items = (item.partition("=") for item in os.environ.get("GLIBC_TUNABLES", "").split(":"))
    return {name: value for name, equals, value in items if equals}


def fixed_thresholds() -> bool:
    """Whether this process's environment turned glibc's adaptive malloc thresholds off: it
    sets a variable of :data:`FIXING`, or ``GLIBC_TUNABLES`` names a tunable of
    :data:`FIXING_TUNABLES`."""
    tunables = _tunables()
    return sys.platform.startswith("linux") and (any(v in os.environ for v in FIXING)
                                                 or any(t in tunables for t in FIXING_TUNABLES))


def _size(text: str | None) -> int | None:
    """A size written as glibc reads one (``strtoul`` in base 0: decimal, ``0x`` hexadecimal,
    a leading ``0`` octal); None for none or a value this does not parse whole (glibc may then
    read its leading digits, or 0: the caller keeps glibc's default, an approximation)."""
    text = (text or "").strip()
    octal = len(text) > 1 and text[0] == "0" and text[1] not in "xX"
    try:
        return int(text, 8 if octal else 0)
    except ValueError:
        return None


def environment_thresholds() -> dict[int, int]:
    """The thresholds this process's environment fixed (parameter: bytes): ``GLIBC_TUNABLES``'s
    value, else the variable's (:data:`ENVIRONMENT`), else glibc's default."""
    tunables = _tunables()
    out = {}
    for p, v in ENVIRONMENT.items():
        size = _size(tunables.get(TUNABLES[p]))
        size = _size(os.environ.get(v)) if size is None else size
        out[p] = GLIBC_DEFAULTS[p] if size is None else size
    return out


def mallopt(settings: dict[int, int]) -> None:
    """Set each glibc malloc parameter of ``settings`` (parameter: bytes)."""
    call = getattr(ctypes.CDLL(None), "mallopt", None)  # absent outside glibc/musl
    if call is not None:
        for parameter, bytes_ in settings.items():
            call(parameter, bytes_)


def settle() -> None:
    """Unless the environment fixed them, fix the thresholds at the values the adaptive ones
    would reach (:data:`ADAPTIVE`) from now on: for a command whose large arrays come and go
    chunk after chunk (``fstpunct decode``: its candidate arrays, slot lattices and stacks), the
    memory they free is then reused, not unmapped (results/speed-history.md, "Decode's slot
    stage: session 2026-11-29 19:36–22:36")."""
    if sys.platform.startswith("linux") and not fixed_thresholds():
        mallopt(ADAPTIVE)
