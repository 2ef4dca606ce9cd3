"""Orphaned and doubled punctuation: what naive deletion leaves behind (issue 20, item 4).

:func:`problems` lists what is wrong with a sentence's tokens: a sentence-initial separator
(``, ; :`` and their Arabic and CJK forms), two adjacent points one of which is a separator
(``, .``, ``, ,``, ``. ,``, ``, ...``), an empty pair (``( )``, ``“ ”``), an unbalanced bracket or
directional quote (Unicode Ps/Pe, ``“ ” ‘ ’ « »``), an odd number of straight ``"``.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Sequence

__all__ = ["SEPARATORS", "TERMINALS", "is_terminal", "problems", "unmatched"]

SEPARATORS = frozenset({",", ";", ":", "،", "؛", "，", "；", "：", "、"})
TERMINALS = frozenset(".?!…。？！।॥؟۔")  # the characters of sentence-final points


def is_terminal(token: str) -> bool:
    """Whether ``token`` is a sentence-final point: made of :data:`TERMINALS` only (``.``,
    ``...``, ``?!``, ``!!!``, ``。`` …)."""
    return bool(token) and set(token) <= TERMINALS
_QUOTES = {"“": "”", "‘": "’", "«": "»"}


def _closer(token: str) -> str | None:
    """The closing partner of an opening bracket or quote (None if ``token`` opens nothing)."""
    if token in _QUOTES:
        return _QUOTES[token]
    if len(token) == 1 and unicodedata.category(token) == "Ps":
        name = unicodedata.name(token, "")
        for left, right in (("LEFT", "RIGHT"), ("OPENING", "CLOSING")):
            if left in name:
                try:
                    return unicodedata.lookup(name.replace(left, right))
                except KeyError:
                    return None
    return None


def _closes(token: str) -> bool:
    return token in _QUOTES.values() or (len(token) == 1 and
                                         unicodedata.category(token) == "Pe")


def _point(token: str) -> bool:
    return token in SEPARATORS or is_terminal(token)


def problems(tokens: Sequence[str]) -> list[str]:
    """The kinds of ill-formed punctuation in ``tokens`` (empty: well-formed)."""
    found: list[str] = []
    if tokens and tokens[0] in SEPARATORS:
        found.append("initial separator")
    if any(_point(a) and _point(b) and (a in SEPARATORS or b in SEPARATORS)
           for a, b in zip(tokens, tokens[1:])):
        found.append("doubled point")
    if any(_closer(a) == b for a, b in zip(tokens, tokens[1:])):
        found.append("empty pair")
    if unmatched(tokens):
        found.append("unbalanced")
    return found


def unmatched(tokens: Sequence[str]) -> list[int]:
    """Positions of the brackets and directional quotes without a partner (each closing mark
    pairs with the nearest open mark when that is its partner), and of the last straight
    ``"`` when there is an odd number of them."""
    stack: list[tuple[str, int]] = []
    out: list[int] = []
    for k, t in enumerate(tokens):
        closer = _closer(t)
        if closer is not None:
            stack.append((closer, k))
        elif _closes(t):
            if stack and stack[-1][0] == t:
                stack.pop()
            else:
                out.append(k)
    straight = [k for k, t in enumerate(tokens) if t == '"']
    return sorted(out + [k for _, k in stack] + straight[len(straight) // 2 * 2:])
