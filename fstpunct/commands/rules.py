"""``fstpunct rules``: a rule file's expanded rewrite rules as a table."""
from __future__ import annotations

import argparse

from ..channel import EDITS, Channel
from ..grammar import Grammar, load_grammar

NAME = "rules"
HELP = ("Print the rewrite rules a rule file expands to: window, edit, result, the initial "
        "probability of that edit, schema and source line.")

HEADER = ("window", "edit", "result", "p", "schema", "line")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("grammar", metavar="GRAMMAR", help="a rule file, e.g. grammars/en.rules")
    parser.add_argument("--tsv", action="store_true", help="tab-separated output")


def rule_rows(grammar: Grammar, channel: Channel) -> list[tuple[str, ...]]:
    """One row per expanded rule, with its probability under ``channel``."""
    return [(f"{r.a} {r.b}", r.edit, " ".join(r.result),
             f"{channel.phi[channel.index(r.a), channel.index(r.b), EDITS.index(r.edit)]:.3f}",
             r.schema, f"{grammar.path}:{r.line}")
            for r in grammar.rules]


def format_table(header: tuple[str, ...], rows: list[tuple[str, ...]], tsv: bool) -> str:
    """Rows as tab-separated lines, or as space-aligned columns."""
    table = [header, *rows]
    if tsv:
        return "\n".join("\t".join(row) for row in table)
    widths = [max(len(row[k]) for row in table) for k in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
                     for row in table)


def run(args: argparse.Namespace) -> int:
    grammar = load_grammar(args.grammar)
    print(format_table(HEADER, rule_rows(grammar, grammar.channel()), args.tsv))
    return 0
