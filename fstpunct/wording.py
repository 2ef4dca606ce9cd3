"""Wording of the messages a user reads: a count with its noun in agreement."""
from __future__ import annotations

__all__ = ["counted"]


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun`` in agreement: ``1 sentence``, ``0 sentences``, ``2 sentences``
    (``plural``: the plural where it is not ``noun`` + ``s``)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
