"""The trivial restoration baseline (paper §6.1): the language's full stop at the end, attached
to the root, and nothing else."""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ...errors import InputError, ModelError, warn_user
from ...files import has_separator
from ...fst.default_grammar import is_language, language_grammar, model_grammar
from ...fst.grammar import load_grammar
from ...model.store import read_record
from ...ud.slots import depunctuate
from ...ud.treebank import Sentence
from . import Insertion

__all__ = ["Trivial", "is_model_folder", "is_path"]


def is_path(text: str) -> bool:
    """Whether ``text`` (given to :meth:`Trivial.load`) names a path, a rule file or a model
    folder, by --model's rule: a name with a separator (``./NAME``,
    :func:`~fstpunct.files.has_separator`) or ending ``.rules``, or a bare name that is no
    language (:func:`~fstpunct.fst.default_grammar.is_language`) of a file or folder here;
    any other name is a language code, even where a folder of that name exists
    (:meth:`Trivial.load` warns then)."""
    return has_separator(text) or text.endswith(".rules") or \
        not is_language(text) and Path(text).exists()


def is_model_folder(text: str) -> bool:
    """Whether ``text`` (given to :meth:`Trivial.load`) names a punctuation model's folder: a
    path (:func:`is_path`) of a folder; any other path is a rule file."""
    return is_path(text) and Path(text).is_dir()


@dataclass(frozen=True)
class Trivial:
    """Restores only ``mark`` in the last slot; :meth:`for_language` and :meth:`load` pick the
    full stop (``language``: the grammar's, where it was read from one)."""

    mark: str = "."
    language: str | None = None

    @classmethod
    def for_language(cls, lang: str, ud_dir: str | None = None) -> Trivial:
        """The full stop of ``lang``'s grammar (``fullstop`` of its rule file, else the default
        grammar's: the point that most often ends a training sentence)."""
        return cls(language_grammar(lang, ud_dir).full_stop, lang)

    @classmethod
    def load(cls, given: str | os.PathLike[str], ud_dir: str | None = None) -> Trivial:
        """The full stop of ``given``: a language code (:meth:`for_language`), a rule file (its
        ``fullstop``) or a punctuation model's folder (of the grammar its ``model.json``
        records: :func:`~fstpunct.fst.default_grammar.model_grammar`); :func:`is_path` tells
        them apart."""
        text = os.fspath(given)
        path = Path(text)
        if not is_path(text):
            if path.exists():  # as --model's bundled name (fstpunct.model.store.model_path)
                kind = "folder" if path.is_dir() else "file"
                warn_user(f"{text!r} is the language, not the local {kind} {text} (write "
                          f"./{text} for the {kind})")
            try:
                return cls.for_language(text, ud_dir)
            except InputError as e:
                hint = (f" (the folder or file: write ./{text})" if path.exists() else
                        " (or a model folder or rule file of it, a path such as ./NAME)")
                raise InputError(f"{e}{hint}") from None
        if not path.is_dir():  # a path (above) that is no folder: a rule file
            grammar = load_grammar(text)  # (named as given: ./NAME keeps its ./)
            return cls(grammar.full_stop, grammar.language)
        grammar = model_grammar(read_record(text).get("record"))
        if grammar is None:
            raise ModelError(f"{text}: its model.json records no grammar, so no full stop "
                             "(give the trivial baseline a rule file or a language)")
        return cls(grammar.full_stop, grammar.language)

    @property
    def tokens(self) -> tuple[str]:
        """The marks it writes, in their own width (:mod:`fstpunct.ud.width`)."""
        return (self.mark,)

    def restore(self, sent: Sentence, alternatives: Sequence[Sentence] = ()) -> list[Insertion]:
        _, heads, _ = depunctuate(sent)
        out: list[Insertion] = [() for _ in range(len(heads) + 1)]
        if heads:
            out[-1] = ((self.mark, heads.index(0) + 1),)
        return out
