"""The ``fstpunct`` command line: one subcommand per module in :mod:`fstpunct.cli`."""
from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from collections.abc import Sequence

from .. import __version__
from ..errors import FstpunctError

# Subcommand name -> module of fstpunct.cli, in the order ``--help`` lists them.
COMMANDS = {"stats": "stats", "compile": "compile", "rules": "rules", "draw": "draw",
            "train": "train", "perplexity": "perplexity", "decode": "decode",
            "normalise": "normalise", "restore": "restore", "crf": "crf", "score": "score",
            "parser": "parser_train", "parse": "parse", "models": "models"}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of the subcommand ``only`` alone: only its module is
    imported then, and with it only what it needs (some commands need scipy, tqdm or graphviz,
    slow to import)."""
    parser = argparse.ArgumentParser(
        prog="fstpunct",
        description="Punctuation as underlying marks on syntactic constituents, "
                    "rendered on the surface by a weighted finite-state transducer.")
    parser.add_argument("--version", action="version", version=f"fstpunct {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module_name in COMMANDS.items():
        if only is not None and name != only:
            continue
        module = importlib.import_module(f"fstpunct.cli.{module_name}")
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # the first word that is not an option names the subcommand (the top level has no options
    # with values); anything else (--help, a typo) gets the whole parser
    command = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser(command if command in COMMANDS else None).parse_args(argv)
    warnings.showwarning = lambda message, *_, **__: print(
        f"fstpunct {args.command}: warning: {message}", file=sys.stderr)
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
