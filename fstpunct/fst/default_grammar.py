"""The default grammar: an initial channel for any language, from its training data alone.

Without a rule file for a language, ``fstpunct train`` writes one (:func:`default_rules`) from the
punctuation the training sentences show and the Unicode character database, assuming nothing
about the language:

* **Inventory**: every punctuation token seen at least :data:`MIN_COUNT` times in the training
  slots (rarer ones are the model's unknown token anyway), after straight quotes are made
  directional (``"`` → ``“``/``”``, ``'`` → ``‘``/``’``; :func:`fstpunct.ud.slots.quote_symbols`).
* **Points**, classed by character name and category, one strength level each, weakest first
  (Nunberg's order, taken as language-independent): comma (``COMMA``: ``,`` ``،`` ``、`` ``，``) <
  dash (category Pd: ``-`` ``–`` ``—``) < semicolon (``SEMICOLON``) < colon (``COLON``) <
  full stop (``FULL STOP``, ``QUESTION MARK``, ``EXCLAMATION MARK``, ``ELLIPSIS``, ``DANDA``;
  not the inverted ``¿ ¡``). A token of several characters (``...``, ``--``, ``?!``) is a point
  when all its characters fall in one class.
* **Symmetric pairs**: an opening bracket (Ps) with the closing one (Pe) of the mirrored name
  (``LEFT`` ↔ ``RIGHT``) or else the next code point, an initial quote (Pi) with its final quote
  (Pf) likewise (``“ ”``, ``‘ ’``, ``« »``, ``‹ ›``), when both are in the inventory. An opening
  mark left without a partner (the low quotes ``„ ‚``, which Unicode files as Ps) pairs with the
  quote or bracket that most often comes next after it in the same sentence, if that happens for
  at least half of its occurrences (German ``„ “``). A mark is in at most one pair.
* **Rules** (expanded like any rule file, :mod:`fstpunct.fst.grammar`): point absorption (the
  stronger of two adjacent points absorbs the weaker, equal points merge; two different marks of
  one level keep both); bracket absorption (a comma or dash next to the inner side of a bracket or
  quote is absorbed by it); the sentence boundary ``∘`` absorbs an initial comma, semicolon or
  colon; an abbreviation's dot absorbs a full stop (``<abbv> .`` → ``<abbv>``). No quote
  transposition and no ranking within the full-stop level: EM learns what the data show.
* **Full stop** (what the trivial restoration baseline writes): the point most often ending a
  training sentence.
* **Direction**: none is assumed; ``fstpunct train`` trains both and keeps the one with the
  better dev perplexity (the rule file says ``ltr`` as a placeholder).

:func:`language_grammar` gives a language's grammar: its rule file in ``grammars/`` if there is
one, else the default grammar of its standard training split.
"""
from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from ..errors import InputError
from ..ud.release import LANGUAGES, split_source
from ..ud.slots import ABBV, SlotSentence, to_slots
from .grammar import Grammar, load_grammar, parse_grammar

__all__ = ["GRAMMARS", "LEVELS", "MIN_COUNT", "default_grammar", "default_rules", "full_stop",
           "inventory", "is_language", "language_grammar", "model_grammar", "point_class",
           "symmetric_pairs"]

GRAMMARS = Path(__file__).resolve().parents[1] / "grammars"  # shipped with the package
MIN_COUNT = 5  # as fstpunct.model.vocab: rarer tokens are the model's unknown token
LEVELS = ("comma", "dash", "semicolon", "colon", "stop")  # weakest first
_STOP_NAMES = ("FULL STOP", "QUESTION MARK", "EXCLAMATION MARK", "ELLIPSIS", "DANDA")
_OPENING, _CLOSING = {"Ps": "Pe", "Pi": "Pf"}, {"Pe", "Pf"}


def _char_class(ch: str) -> str | None:
    name, category = unicodedata.name(ch, ""), unicodedata.category(ch)
    if category in ("Ps", "Pe", "Pi", "Pf") or name.startswith("INVERTED"):
        return None
    if "SEMICOLON" in name:
        return "semicolon"
    if "COLON" in name:
        return "colon"
    if "COMMA" in name:
        return "comma"
    if category == "Pd":
        return "dash"
    if any(k in name for k in _STOP_NAMES):
        return "stop"
    return None


def point_class(token: str) -> str | None:
    """The strength class (one of :data:`LEVELS`) of a punctuation token, or None."""
    classes = {_char_class(ch) for ch in token}
    return classes.pop() if len(classes) == 1 else None


def inventory(sentences: Sequence[SlotSentence], min_count: int = MIN_COUNT) -> Counter[str]:
    """Counts of the punctuation tokens seen at least ``min_count`` times in the slots."""
    counts = Counter(t for s in sentences for slot in s.slots for t in slot if t != ABBV)
    return Counter({t: c for t, c in counts.items() if c >= min_count})


def _mirror(ch: str) -> str | None:
    """The closing partner Unicode implies for an opening bracket or initial quote."""
    want = _OPENING.get(unicodedata.category(ch))
    if want is None:
        return None
    name = unicodedata.name(ch, "")
    candidates = []
    if "LEFT" in name:
        try:
            candidates.append(unicodedata.lookup(name.replace("LEFT", "RIGHT")))
        except KeyError:
            pass
    candidates.append(chr(ord(ch) + 1))
    return next((c for c in candidates if unicodedata.category(c) == want), None)


def _is_bracket(token: str) -> bool:
    return len(token) == 1 and unicodedata.category(token) in ("Ps", "Pe", "Pi", "Pf")


def symmetric_pairs(sentences: Sequence[SlotSentence], tokens: Sequence[str]
                    ) -> list[tuple[str, str]]:
    """Opening/closing pairs among ``tokens`` (see the module docstring), in token order."""
    known = set(tokens)
    pairs: list[tuple[str, str]] = []
    used: set[str] = set()
    for t in tokens:
        partner = _mirror(t) if len(t) == 1 else None
        if partner in known and not {t, partner} & used:
            pairs.append((t, partner))
            used |= {t, partner}
    openers = [t for t in tokens if _is_bracket(t) and t not in used
               and unicodedata.category(t) in _OPENING]
    for t in openers:
        nexts: Counter[str] = Counter()
        for s in sentences:
            marks = [m for slot in s.slots for m in slot if _is_bracket(m)]
            nexts.update(marks[k + 1] for k, m in enumerate(marks[:-1]) if m == t)
        found = [(c, m) for m, c in nexts.most_common() if m in known and m not in used | {t}
                 and unicodedata.category(m) in _CLOSING | {"Pi"}]
        occurrences = sum(m == t for s in sentences for slot in s.slots for m in slot)
        if found and 2 * found[0][0] >= occurrences:
            pairs.append((t, found[0][1]))
            used |= {t, found[0][1]}
    return pairs


def full_stop(sentences: Sequence[SlotSentence]) -> str:
    """The full-stop-class point that most often ends a sentence (``.`` if none does)."""
    ends = Counter(s.slots[-1][-1] for s in sentences
                   if s.slots and s.slots[-1] and point_class(s.slots[-1][-1]) == "stop")
    return ends.most_common(1)[0][0] if ends else "."


def _usable(token: str) -> bool:
    """Whether the rule-file format can name ``token`` as a symbol."""
    try:
        parse_grammar(f"language x\ndirection ltr\nsymbols {token}\n")
    except InputError:
        return False
    return not token.startswith("#")


def default_rules(sentences: Sequence[SlotSentence], language: str = "und") -> str:
    """The text of the default rule file for ``sentences`` (see the module docstring)."""
    counts = inventory(sentences)
    tokens = [t for t, _ in sorted(counts.items(), key=lambda tc: (-tc[1], tc[0])) if _usable(t)]
    pairs = symmetric_pairs(sentences, tokens)
    paired = {m for p in pairs for m in p}
    levels = {name: [t for t in tokens if point_class(t) == name] for name in LEVELS}
    points = [t for name in LEVELS for t in levels[name]]
    delimiters = levels["comma"] + levels["dash"]
    initial = levels["comma"] + levels["semicolon"] + levels["colon"]
    periods = [t for t in levels["stop"] if len(t) == 1 and "FULL STOP" in unicodedata.name(t)]
    others = [t for t in tokens if t not in paired and t not in points]
    lines = [f"# Default grammar generated by fstpunct.fst.default_grammar from {len(sentences)} "
             "training sentences", f"language {language}",
             "direction ltr   # placeholder: fstpunct train chooses ltr or rtl by dev perplexity",
             f"fullstop {full_stop(sentences)}"]
    lines += [f"symbols {' '.join(group)}" for group in (points, others) if group]
    lines += [f"pair {a} {b}" for a, b in pairs]
    named = {"point": points, "delimiter": delimiters, "initial": initial, "period": periods,
             "opener": [a for a, _ in pairs], "closer": [b for _, b in pairs]}
    lines += [f"class {name} = {' '.join(members)}" for name, members in named.items() if members]
    present = [levels[name] for name in LEVELS if levels[name]]
    if present:
        lines.append("strength " + " then ".join(" ".join(level) for level in present))
        lines += ["schema point absorption", "rule x:point y:point -> y when x = y"]
    if len(present) > 1:
        lines += ["rule x:point y:point -> y when x < y", "rule x:point y:point -> x when x > y"]
    if delimiters and pairs:
        lines += ["schema bracket absorption", "rule d:delimiter c:closer -> c",
                  "rule o:opener d:delimiter -> o"]
    if initial:
        lines += ["schema boundary absorption", "rule ∘ p:initial -> ∘"]
    if periods:
        lines += ["schema abbreviation", f"rule {ABBV} p:period -> {ABBV}"]
    return "\n".join(lines) + "\n"


def default_grammar(sentences: Sequence[SlotSentence], language: str = "und") -> Grammar:
    """The default grammar of ``sentences`` (path ``<default>``)."""
    return parse_grammar(default_rules(sentences, language), "<default>")


def is_language(lang: str) -> bool:
    """Whether :func:`language_grammar` knows ``lang``: it has a shipped rule file
    (``grammars/LANG.rules``) or a standard split."""
    return (GRAMMARS / f"{lang}.rules").is_file() or lang in LANGUAGES


def language_grammar(lang: str, ud_dir: str | Path | None = None) -> Grammar:
    """``grammars/LANG.rules`` if it exists, else the default grammar of LANG's standard
    training split."""
    path = GRAMMARS / f"{lang}.rules"
    if path.is_file():
        return load_grammar(path)
    if not is_language(lang):
        raise InputError(f"no rule file and no standard split for language {lang!r}")
    train = [to_slots(s) for s in split_source(lang, "train", ud_dir).sentences()]
    return default_grammar(train, lang)


def model_grammar(record: object) -> Grammar | None:
    """The grammar a model was trained from, by its ``model.json`` ``record``: a default
    grammar's lines (as ``fstpunct train`` records them), else the recorded rule file if it
    exists, else the package's grammar of its file name (the recorded path may be another
    checkout's); a rule file of some checkout's ``fstpunct/grammars`` (what the bundled models
    record) is this package's namesake first, not another checkout's copy; else None (also for
    a record that is not a JSON object: a correction model's learner saved before 1e10b99
    recorded the folder it was copied from)."""
    if not isinstance(record, dict):
        return None
    if record.get("default_grammar"):
        return parse_grammar("\n".join(record["default_grammar"]), "default grammar")
    recorded = record.get("grammar")
    if not recorded:
        return None
    own, shipped = Path(recorded), GRAMMARS / Path(recorded).name
    if own.parent.parts[-2:] == GRAMMARS.parts[-2:]:  # a shipped grammar
        own, shipped = shipped, own
    for path in (own, shipped):
        if path.is_file():
            return load_grammar(path)
    return None
