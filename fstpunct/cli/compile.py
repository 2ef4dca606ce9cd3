"""``fstpunct compile``: a rule file → the initial channel as an OpenFst ``.fst`` + JSON sidecar."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import InputError
from ..fst.channel import DIRECTIONS, writable_sidecar
from ..fst.grammar import load_grammar
from ..wording import counted

HELP = ("Expand a punctuation rule file (grammars/*.rules) and write its channel as an OpenFst "
        "transducer OUT.fst (log64 arcs, symbol tables), with OUT.json beside it recording "
        "direction, symbols, symmetric pairs, the source grammar and OUT.fst's SHA-256 (an "
        "OUT.json beside another OUT.fst is refused).")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("grammar", metavar="GRAMMAR", help="a rule file, e.g. grammars/en.rules")
    parser.add_argument("-o", "--output", required=True, metavar="OUT.fst",
                        help="the channel to write (its folder is created)")
    parser.add_argument("--direction", choices=DIRECTIONS,
                        help="override the grammar's scan direction")


def run(args: argparse.Namespace) -> int:
    grammar = load_grammar(args.grammar)
    out = Path(args.output)
    side = writable_sidecar(out)  # a channel named like its sidecar: refused before the mkdir
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"{out.parent}: cannot create folder: {e.strerror or e}") from e
    channel = grammar.compile(out, args.direction)
    arcs = len(channel.arcs())
    print(f"{out}: {grammar.language} {channel.direction} channel, "
          f"{counted(len(channel.symbols), 'symbol')}, {counted(len(grammar.rules), 'rule')}, "
          f"{counted(arcs, 'arc')} (+ {side})",
          file=sys.stderr)
    return 0
