"""A rephrased sentence as valid CoNLL-U: tokens renumbered, heads remapped, ``# text`` rebuilt.

Words keep their input lines (FORM, LEMMA, UPOS, FEATS, DEPREL, other MISC items). Multiword
tokens keep their range line when all their words remain, adjacent and in order; empty nodes
and DEPS are dropped (an enhanced graph cannot follow a reordered tree: DEPS becomes ``_``).
Spacing is rebuilt, since a word's neighbours change: two tokens that were neighbours in the
input keep the input's spacing; elsewhere no space before closing and point marks
nor after opening ones (:mod:`fstpunct.ud.spacing`), none at all when the input had none
(Chinese), and a space between all tokens when the input writes its marks apart from the words
(UD 1.4 Chinese: a space on both sides of every mark); ``SpaceAfter=No`` says so in MISC and
``# text`` follows it.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...ud.spacing import NO_SPACE_AFTER, NO_SPACE_BEFORE
from ...ud.treebank import Line, Sentence, rebuild
from .. import decode

__all__ = ["OutToken", "assemble", "origin_name"]

_DROPPED_MISC = frozenset({"SpaceAfter", *decode.MISC_KEYS})
_DROPPED_COMMENTS = ("sent_id", "text", "underlying", "punct_logprob", "rephrased_from",
                     "rephrase")


@dataclass(frozen=True)
class OutToken:
    """One output token: its ten fields (ID and HEAD rewritten on output), its input ID
    (None for a new token), the input ID of its head, and the symbol that decides spacing."""

    fields: tuple[str, ...]
    old_id: int | None
    head: int
    symbol: str


def origin_name(sent: Sentence) -> str:
    """The sentence's sent_id, or its file and line when it has none."""
    return sent.sent_id or f"{sent.path}:{sent.lineno}"


def _input_spaces(sent: Sentence) -> dict[int, bool]:
    """Whether the input has a space after each word (a multiword token's: after its last)."""
    out = {w.id: w.space_after for w in sent.words}
    for ln in sent.lines:
        a, dash, b = ln.id.partition("-")
        if dash:
            out.update({w: False for w in range(int(a), int(b))})
            out[int(b)] = "SpaceAfter=No" not in ln.fields[9].split("|")
    return out


def _marks_apart(sent: Sentence, spaces: dict[int, bool]) -> bool:
    """Whether the input writes its marks apart: it has a place where a mark that takes no
    space before it (:data:`NO_SPACE_BEFORE`) follows a token or one that takes none after it
    (:data:`NO_SPACE_AFTER`) precedes one, and a space at every such place (``spaces``:
    :func:`_input_spaces`)."""
    words, seen = sent.words, False
    for left, right in zip(words, words[1:]):
        if right.form in NO_SPACE_BEFORE or left.form in NO_SPACE_AFTER:
            if not spaces[left.id]:
                return False
            seen = True
    return seen


def _spaces(tokens: Sequence[OutToken], sent: Sentence) -> list[bool]:
    """Whether a space follows each token: as in the input between two tokens that were
    neighbours there, else by the rule of the module docstring."""
    words = sent.words
    spaced = len(words) < 2 or any(w.space_after for w in words[:-1])
    before = _input_spaces(sent)
    apart = _marks_apart(sent, before)
    out = []
    for tok, nxt in zip(tokens, [*tokens[1:], None]):
        a, b = tok.fields[0], nxt.fields[0] if nxt is not None else ""
        if nxt is not None and a.isdigit() and b.isdigit() and int(b) == int(a) + 1:
            out.append(before[int(a)])
        else:
            out.append(spaced and nxt is not None and (apart or nxt.symbol not in NO_SPACE_BEFORE
                                                       and tok.symbol not in NO_SPACE_AFTER))
    return out


def _misc(misc: str, space: bool, last: bool) -> str:
    kept = [m for m in misc.split("|") if m != "_" and m.split("=")[0] not in _DROPPED_MISC]
    if not space and not last:
        kept.append("SpaceAfter=No")
    return "|".join(kept) or "_"


def assemble(sent: Sentence, tokens: Sequence[OutToken], comments: Sequence[str]) -> Sentence:
    """The output sentence: ``tokens`` in order; ``comments[0]`` (the new ``# sent_id``),
    the input's other comments (not those replaced), ``# text``, then ``comments[1:]``."""
    new_id = {t.old_id: k for k, t in enumerate(tokens, 1) if t.old_id is not None}
    new_id[0] = 0
    space = _spaces(tokens, sent)
    ranges: dict[int, Line] = {}  # position of a kept range's first word -> its line
    for ln in sent.lines:
        a, dash, b = ln.id.partition("-")
        if dash:
            first, last = int(a), int(b)
            at = new_id.get(first)
            if at and all(new_id.get(w) == at + w - first for w in range(first, last + 1)):
                ranges[at] = ln
    lines: list[Line] = []
    text: list[str] = []
    in_range_until = 0
    for k, (tok, sp) in enumerate(zip(tokens, space), 1):
        if k in ranges:
            rng_line = ranges[k]
            a, _, b = rng_line.id.partition("-")
            end = k + int(b) - int(a)
            fields = list(rng_line.fields)
            fields[0] = f"{k}-{end}"
            fields[9] = _misc(fields[9], space[end - 1], end == len(tokens))
            lines.append(Line(fields, rng_line.lineno))
            text.append(fields[1] + (" " if space[end - 1] else ""))
            in_range_until = end
        fields = list(tok.fields)
        fields[0], fields[6], fields[8] = str(k), str(new_id[tok.head]), "_"
        inside = k <= in_range_until
        fields[9] = _misc(fields[9], True if inside else sp, inside or k == len(tokens))
        lines.append(Line(fields, 0))
        if not inside:
            text.append(fields[1] + (" " if sp else ""))
    kept = [c for c in sent.comments if _comment_key(c) not in _DROPPED_COMMENTS]
    text_line = f"# text = {''.join(text).strip()}"
    return rebuild(sent, [*comments[:1], *kept, text_line, *comments[1:]], lines)


def _comment_key(comment: str) -> str:
    """The key of a ``# key = value`` comment ('' for other comments)."""
    body = comment.lstrip("#").strip()
    key, eq, _ = body.partition("=")
    return key.strip() if eq else ""
