"""The note a command leaves on stderr about the model it chose (``--model`` not given): printed
when the work reads its first sentence, or at the end of a run that never did, so that a
refusal before is its one line (:func:`~.model_option.chosen_model` leaves it in ``args.note``).
Light: :mod:`.main` imports it."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import TypeVar

__all__ = ["noted", "print_note"]

T = TypeVar("T")


def noted(args: argparse.Namespace, sentences: Iterator[T]) -> Iterator[T]:
    """``sentences``, the note :func:`~.model_option.chosen_model` left in ``args`` printed when
    the first is pulled."""
    for sent in sentences:
        print_note(args)
        yield sent


def print_note(args: argparse.Namespace) -> None:
    """Print the note left in ``args``, if it has not been printed."""
    note = getattr(args, "note", None)
    if note:
        print(note, file=sys.stderr)
        args.note = None
