"""The ``fstpunct`` command line: one subcommand per module in :mod:`fstpunct.commands`."""
from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from . import __version__
from .errors import FstpunctError

# Subcommand modules, in the order ``--help`` lists them.
COMMANDS = ("stats", "compile", "rules", "draw", "train", "perplexity", "decode", "restore",
            "crf", "score", "parser_train", "parse")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fstpunct",
        description="Punctuation as underlying marks on syntactic constituents, "
                    "rendered on the surface by a weighted finite-state transducer.")
    parser.add_argument("--version", action="version", version=f"fstpunct {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        module = importlib.import_module(f"fstpunct.commands.{name}")
        p = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except FstpunctError as e:
        print(f"fstpunct {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
