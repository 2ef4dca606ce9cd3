"""The ``fstpunct`` command line: one subcommand per module in :mod:`fstpunct.cli`."""
from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import os
import sys
import warnings
from collections.abc import Sequence
from typing import NoReturn

from .. import __version__
from ..errors import FstpunctError
from ..files import Terminated, end_on_signals, writing
from .note import print_note

# Subcommand name -> module of fstpunct.cli, in the order ``--help`` lists them.
COMMANDS = {"stats": "stats", "compile": "compile", "rules": "rules", "draw": "draw",
            "show": "show", "train": "train", "perplexity": "perplexity", "decode": "decode",
            "normalise": "normalise", "restore": "restore", "correct": "correct", "crf": "crf",
            "score": "score", "parser": "parser", "tagger": "tagger", "parse": "parse",
            "rephrase": "rephrase", "models": "models"}


class OneLineParser(argparse.ArgumentParser):
    """argparse's parser (every subcommand's too) refusing in one line, as every other refusal
    of the command line: ``fstpunct decode: error: argument --beam: ... (see 'fstpunct decode
    --help')``, exit 2 (argparse's own printed its usage lines first)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of the subcommand ``only`` alone: only its module is
    imported then, and with it only what it needs (some commands need scipy, tqdm or graphviz,
    slow to import)."""
    parser = OneLineParser(
        prog="fstpunct",
        description="Punctuation as underlying marks on syntactic constituents, "
                    "rendered on the surface by a weighted finite-state transducer.",
        epilog="BLAS runs on one thread (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS and "
               "MKL_NUM_THREADS default to 1; set them to override): parallel work runs in "
               "processes (--jobs), and more BLAS threads only cost CPU time here.")
    parser.add_argument("--version", action="version", version=f"fstpunct {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module_name in COMMANDS.items():
        if only is not None and name != only:
            continue
        module = importlib.import_module(f"fstpunct.cli.{module_name}")
        # a help string is %-formatted by argparse, a description is not
        p = sub.add_parser(name, help=module.HELP.replace("%", "%%"), description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every failure the user can fix is one line on stderr and exit 2, an
    interrupt exits 130 (Ctrl-C), 143 (SIGTERM) or 129 (a hangup), a closed output pipe exits
    quietly; files being written are removed, previous outputs untouched
    (:mod:`fstpunct.files`)."""
    argv = _stdin_sentence(sys.argv[1:] if argv is None else argv)
    command = _command(argv)  # anything but a command's name (--help, a typo): the whole parser
    try:  # importing a command's modules takes a moment: Ctrl-C there is no traceback either
        parser = build_parser(command if command in COMMANDS else None)
        args, unknown = parser.parse_known_args(argv)
    except KeyboardInterrupt:
        return 130
    chosen = _chosen(parser, args)
    if unknown:  # refused by the (sub)command given them, not by the top level
        chosen.error(f"unrecognized arguments: {' '.join(unknown)}")
    args.prog = chosen.prog  # every error, warning and note line begins with it: fstpunct crf train
    warnings.showwarning = lambda message, *_, **__: print(
        f"{args.prog}: warning: {message}", file=sys.stderr)
    try:
        with end_on_signals():
            status = int(args.run(args) or 0)
            sys.stdout.flush()  # a full disk or closed pipe shows here, not at exit
        print_note(args)  # a note on the model chosen that no sentence's reading printed
        return status
    except FstpunctError as e:
        print(f"{args.prog}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Terminated as e:
        return 128 + e.signum
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except OSError as e:  # e.g. stdout on a full disk: no file named, the error's own words
        where = f"{e.filename}: " if e.filename else ""
        print(f"{args.prog}: error: {where}{e.strerror or e}", file=sys.stderr)
        _silence_stdout()
        return 2


def _command(argv: Sequence[str]) -> str | None:
    """The first word of ``argv`` that is not an option: the subcommand's name, if it is one
    (the top level has no options with values)."""
    return next((a for a in argv if not a.startswith("-")), None)


def _stdin_sentence(argv: Sequence[str]) -> list[str]:
    """``argv`` of ``draw`` with ``--sentence -:N`` (stdin's sentence N) given as
    ``--sentence=-:N``, and so of any prefix argparse takes for it (``--sent -:N``, the user's
    own word kept): argparse takes a word beginning with '-' for an option and refuses it as a
    value ('expected one argument'). Any other command's argv is left as it is, and a ``-:N``
    anywhere else is still refused ('unrecognized arguments: -:N')."""
    if _command(argv) != "draw":
        return list(argv)
    out: list[str] = []
    for arg in argv:
        if out and len(out[-1]) > 2 and "--sentence".startswith(out[-1]) and arg.startswith("-:"):
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def _chosen(parser: argparse.ArgumentParser, args: argparse.Namespace
            ) -> argparse.ArgumentParser:
    """The parser of the (sub)subcommand ``args`` ran (``fstpunct parser train``'s)."""
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            return parser
        parser = subs[0].choices[getattr(args, subs[0].dest)]


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush of what is still buffered
    cannot fail again (the reader has gone, or the disk is full)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout replaced by a test's capture
        pass


def console() -> int:
    """The ``fstpunct`` console script: :func:`main` on ``sys.argv``. After a run that succeeded
    and left nothing to finish (no output being written, no other thread alive) it ends the
    process as the interpreter's exit would — the ``atexit`` handlers run, then stdout and
    stderr flushed — but without its teardown, which only frees every object (after a decode of
    en_ewt test: the slot cache, the model, the modules; ~45 M instructions); else it returns
    the status for ``sys.exit``, as before.

    For ``fstpunct decode`` it first settles glibc's malloc thresholds
    (:func:`fstpunct.parallel.heap.settle`). Here, not in :func:`main` or the command's ``run``:
    the setting lasts for the process (glibc's thresholds cannot become adaptive again), and a
    Python program calling :func:`main` goes on after it. It also keeps the cyclic garbage
    collector off until :func:`main` returns, as decode's ``run`` keeps it off while decoding:
    the command's imports and the model's loading make objects that live for the whole run, and
    the collections they would set off only walk them (about 20 M instructions of a decode of
    en_ewt test)."""
    decoding = _command(sys.argv[1:]) == "decode"
    collecting = gc.isenabled()
    if decoding:
        from ..parallel.heap import settle
        settle()  # freed arrays reused, not unmapped: pages fault once (fstpunct.parallel.heap)
        gc.disable()
    try:
        status = main()
    finally:
        if collecting:  # (for a caller that goes on in this process)
            gc.enable()
    if status == 0 and not writing() and _only_thread():
        # atexit's public API cannot do this: it only registers, and handlers run last in,
        # first out, so a handler calling os._exit, registered here, would run before the
        # others and skip them; registered when console() starts, it would still skip those
        # registered before (by a program calling console(), a sitecustomize). CPython's
        # _run_exitfuncs runs them all, in the interpreter's order, and clears them.
        atexit._run_exitfuncs()
        if _flushed():
            os._exit(status)
    return status


def _only_thread() -> bool:
    """Whether the main thread is the only Python thread (else the interpreter's exit would
    wait for the others)."""
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


def _flushed() -> bool:
    """Flush stdout and stderr; False if one fails (the interpreter's exit reports it then)."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None and not stream.closed:
                stream.flush()
    except (OSError, ValueError):
        return False
    return True


if __name__ == "__main__":
    sys.exit(console())
