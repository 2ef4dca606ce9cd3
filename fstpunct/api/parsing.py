"""Parsing what users hold, as ``fstpunct parse`` does: a parser's trees (Ma, Zhang & Zhu
2014), or, through :meth:`fstpunct.Model.parse`, the tree a punctuation model prefers among the
parser's k best (Jones 1994)."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..errors import refuse_count
from .data import Data, rewrite

if TYPE_CHECKING:  # the parser brings scipy and tqdm: imported when a parser is used
    from ..parser import Model as ParserModel

__all__ = ["load_parser", "parse"]


def load_parser(parser: str | os.PathLike[str] | ParserModel) -> ParserModel:
    """``parser`` loaded: a folder of ``fstpunct parser train``, or a loaded
    :class:`fstpunct.parser.Model` as it is."""
    from ..parser import Model as ParserModel
    return parser if isinstance(parser, ParserModel) else ParserModel.load(parser)


def parse(data: Data, parser: str | os.PathLike[str] | ParserModel, *,
          beam: int | None = None) -> Any:
    """Every sentence of ``data`` parsed by ``parser`` (a folder of ``fstpunct parser train``
    or a loaded :class:`fstpunct.parser.Model`; CLI ``fstpunct parse --model DIR``) with beam
    ``beam`` (``--beam``; default: the parser's own), as ``fstpunct parse`` parses it: HEAD
    and DEPREL replaced (HEAD may be ``_`` in the input), every other line and column kept,
    punctuation the parser's mode leaves out attached to a neighbour; a sentence whose UPOS is
    ``_`` is refused (the parser's features read it). ``data`` and the
    answer: as :class:`fstpunct.Model`'s methods take and give them."""
    from ..apps.text import refuse_untagged
    from ..parser import parse as parse_sentence
    refuse_count(1, beam=beam)  # before the parser loads
    model = load_parser(parser)
    return rewrite(data, lambda sents: (parse_sentence(model, s, beam) for s in refuse_untagged(
        sents, "a parser reads tagged sentences: give every word its UPOS (fstpunct decode "
               "--lang L tags them; parse --punct-model M tags them with M's tagger)")),
                   tree=False)
