"""Plain-text tables for command output."""
from __future__ import annotations

from collections.abc import Sequence

__all__ = ["format_table"]


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]], tsv: bool = False,
                 numeric: bool = False) -> str:
    """Rows as tab-separated lines, or as space-aligned columns (with ``numeric``, every column
    but the first is right-aligned)."""
    table = [tuple(header), *map(tuple, rows)]
    if tsv:
        return "\n".join("\t".join(row) for row in table)
    widths = [max(len(row[k]) for row in table) for k in range(len(header))]
    return "\n".join(
        "  ".join(cell.rjust(w) if numeric and k else cell.ljust(w)
                  for k, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip()
        for row in table)
