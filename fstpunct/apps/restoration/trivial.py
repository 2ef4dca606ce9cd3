"""The trivial restoration baseline (paper §6.1): the language's full stop at the end, attached
to the root, and nothing else."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...fst.default_grammar import language_grammar
from ...ud.slots import depunctuate
from ...ud.treebank import Sentence
from . import Insertion

__all__ = ["Trivial"]


@dataclass(frozen=True)
class Trivial:
    """Restores only ``mark`` in the last slot; :meth:`for_language` picks the full stop."""

    mark: str = "."

    @classmethod
    def for_language(cls, lang: str, ud_dir: str | None = None) -> Trivial:
        """The full stop of ``lang``'s grammar (``fullstop`` of its rule file, else the default
        grammar's: the point that most often ends a training sentence)."""
        return cls(language_grammar(lang, ud_dir).full_stop)

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
