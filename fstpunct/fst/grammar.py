"""Punctuation rule files (``grammars/*.rules``) and their expansion into an initial channel.

A rule file is read top-down, one directive per line; ``#`` starts a comment (at the start of a
line or of a whitespace-separated token, so ``#`` itself cannot be a symbol)::

    language en                      # required, once
    direction rtl                    # required, once: ltr | rtl (see fstpunct.fst.channel)
    mass 0.9                         # optional, once: probability a listed edit gets (default 0.9)
    fullstop .                       # optional, once: the mark ending a plain sentence (default .)
    symbols , ; : . ? !              # declare marks (any number of lines)
    pair ( )                         # a symmetric pair, opening then closing; declares both
    class point = , ; : . ? !        # a named set of declared symbols
    strength , then ; then : then .  # one strength scale, weakest first; marks on a level tie
    schema point absorption          # names the rules that follow (free text)
    rule x:point y:point -> y when x < y   [mass 0.8]

A ``rule`` has a two-token window and a result. A window term is a declared symbol, ``var:class``
(each member of the class in turn) or a bare class name (its own variable). The result names
which tokens of the window survive, which fixes the edit: both in order = KEEP, the right one =
LEFT (the left is absorbed), the left one = RIGHT, both reversed = SWAP. ``when`` compares two
variables: ``<``/``>`` by strength, ``=``/``!=`` by identity. Every window may be given one edit.

The compiler adds ``∘``, ``<abbv>`` and ``<unk>`` to the alphabet. Expansion gives every listed
window its edit with probability ``mass`` and spreads the rest evenly over the window's other
allowed edits; unlisted windows give KEEP that mass. Errors raise
:class:`~fstpunct.errors.GrammarError` with the file and line.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import GrammarError, InputError
from ..files import is_stdio, read_text
from ..ud.slots import BOUNDARY
from .channel import (
    DIRECTIONS,
    EDITS,
    KEEP,
    LEFT,
    RIGHT,
    SPECIALS,
    SWAP,
    Channel,
    structural_mask,
)

__all__ = ["Rule", "Grammar", "load_grammar", "parse_grammar", "DEFAULT_MASS"]

DEFAULT_MASS = 0.9
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_BINDING = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):([A-Za-z_][A-Za-z0-9_]*)\Z")
_KEYWORDS = {"when", "mass", "then"}
_RESERVED = {"$", "<eps>", "->"}
_COMPARISONS = ("<", ">", "=", "!=")


@dataclass(frozen=True)
class Rule:
    """One expanded rewrite: window ``a b`` undergoes ``edit`` with probability ``mass``."""

    a: str
    b: str
    edit: str
    line: int
    schema: str
    mass: float

    @property
    def result(self) -> tuple[str, ...]:
        """The window after the edit."""
        return {"KEEP": (self.a, self.b), "LEFT": (self.b,), "RIGHT": (self.a,),
                "SWAP": (self.b, self.a)}[self.edit]


@dataclass
class Grammar:
    """A compiled rule file: alphabet (specials first), symmetric pairs and expanded rules."""

    path: str
    language: str
    direction: str
    symbols: tuple[str, ...]
    pairs: list[tuple[str, str]]
    rules: list[Rule]
    mass: float = DEFAULT_MASS
    full_stop: str = "."  # what the trivial restoration baseline writes at the end

    def __repr__(self) -> str:
        return (f"<Grammar {Path(self.path).name}: {self.language}, {self.direction}, "
                f"{len(self.symbols)} symbols, {len(self.pairs)} pairs, {len(self.rules)} rules>")

    def channel(self, extra_symbols: Iterable[str] = (), direction: str | None = None) -> Channel:
        """The initial channel: the grammar's alphabet plus ``extra_symbols`` (all KEEP-biased)."""
        known = set(self.symbols)
        symbols = [*self.symbols, *(s for s in dict.fromkeys(extra_symbols) if s not in known)]
        index = {s: k for k, s in enumerate(symbols)}
        mask = structural_mask(symbols)
        n = len(symbols)
        chosen = np.full((n, n), KEEP)
        mass = np.full((n, n), self.mass)
        for r in self.rules:
            chosen[index[r.a], index[r.b]] = EDITS.index(r.edit)
            mass[index[r.a], index[r.b]] = r.mass
        others = mask.sum(axis=2) - 1
        rest = np.where(others > 0, (1.0 - mass) / np.maximum(others, 1), 0.0)
        phi = mask * rest[:, :, None]
        rows, cols = np.indices((n, n))
        phi[rows, cols, chosen] = np.where(others > 0, mass, 1.0)
        return Channel(symbols, direction or self.direction, phi)

    def compile(self, path: str | Path, direction: str | None = None) -> Channel:
        """Write the initial channel to ``path`` (OpenFst) and its JSON sidecar beside it, the
        two as a pair (:meth:`Channel.save`; a ``path`` ending in ``.json``, which the sidecar
        would overwrite, is refused)."""
        channel = self.channel(direction=direction)  # writes nothing: save refuses first
        meta = {"language": self.language, "direction": channel.direction,
                "symbols": list(channel.symbols), "pairs": [list(p) for p in self.pairs],
                "grammar": self.path, "mass": self.mass, "rules": len(self.rules),
                "note": "phi[a, b, edit] is recovered from the arcs; rtl machines read u and "
                        "write x reversed (see fstpunct.fst.channel)"}
        channel.save(path, meta)
        return channel


@dataclass
class _Term:
    """A window term: a literal symbol (``var`` None) or a variable ranging over a class."""

    values: tuple[str, ...]
    var: str | None = None


@dataclass
class _Parser:
    """Line-by-line reader: inventories first (symbols, pairs, classes), rules expand at once."""

    path: str
    language: str | None = None
    direction: str | None = None
    mass: float | None = None
    fullstop: str | None = None
    symbols: dict[str, None] = field(default_factory=dict)
    pairs: list[tuple[str, str]] = field(default_factory=list)
    classes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    strength: dict[str, int] = field(default_factory=dict)
    schema: str = "rule"
    rules: dict[tuple[str, str], Rule] = field(default_factory=dict)
    lineno: int = 0

    def error(self, message: str) -> GrammarError:
        return GrammarError(message, self.path, self.lineno)

    # ------------------------------------------------------------------ directives
    def once(self, name: str, tokens: list[str]) -> str:
        if getattr(self, name) is not None:
            raise self.error(f"'{name}' given twice")
        if len(tokens) != 1:
            raise self.error(f"'{name}' takes one value")
        return tokens[0]

    def do_language(self, tokens: list[str]) -> None:
        self.language = self.once("language", tokens)

    def do_direction(self, tokens: list[str]) -> None:
        value = self.once("direction", tokens)
        if value not in DIRECTIONS:
            raise self.error(f"direction must be ltr or rtl, not {value!r}")
        self.direction = value

    def do_fullstop(self, tokens: list[str]) -> None:
        self.fullstop = self.once("fullstop", tokens)

    def do_mass(self, tokens: list[str]) -> None:
        if self.rules:
            raise self.error("'mass' must come before the first rule")
        self.mass = self.parse_mass(self.once("mass", tokens))

    def parse_mass(self, text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if not 0.0 < value <= 1.0:
            raise self.error(f"mass must be a number in (0, 1], not {text!r}")
        return value

    def declare(self, sym: str) -> None:
        if sym in SPECIALS:
            raise self.error(f"{sym} is added by the compiler; do not declare it")
        if sym in _RESERVED or _IDENT.match(sym) or _BINDING.match(sym):
            raise self.error(f"{sym!r} cannot be a symbol (reserved, or looks like a name)")
        if sym in self.symbols:
            raise self.error(f"symbol {sym} declared twice")
        self.symbols[sym] = None

    def do_symbols(self, tokens: list[str]) -> None:
        if not tokens:
            raise self.error("'symbols' needs at least one symbol")
        for sym in tokens:
            self.declare(sym)

    def do_pair(self, tokens: list[str]) -> None:
        if len(tokens) != 2 or tokens[0] == tokens[1]:
            raise self.error("'pair' takes two different symbols: opening closing")
        paired = {s for p in self.pairs for s in p}
        for sym in tokens:
            if sym in paired:
                raise self.error(f"{sym} is already in a pair")
            if sym not in self.symbols:
                self.declare(sym)
        self.pairs.append((tokens[0], tokens[1]))

    def known(self, sym: str) -> str:
        if sym not in self.symbols and sym not in SPECIALS:
            raise self.error(f"unknown symbol {sym!r} (declare it with 'symbols' or 'pair' above)")
        return sym

    def do_class(self, tokens: list[str]) -> None:
        if len(tokens) < 3 or tokens[1] != "=":
            raise self.error("expected: class NAME = SYMBOL ...")
        name, members = tokens[0], tokens[2:]
        if not _IDENT.match(name) or name in _KEYWORDS:
            raise self.error(f"bad class name {name!r}")
        if name in self.classes:
            raise self.error(f"class {name} defined twice")
        if len(set(members)) != len(members):
            raise self.error(f"class {name} lists a symbol twice")
        self.classes[name] = tuple(self.known(s) for s in members)

    def do_strength(self, tokens: list[str]) -> None:
        if self.strength:
            raise self.error("'strength' given twice")
        levels: list[list[str]] = [[]]
        for tok in tokens:
            if tok == "then":
                levels.append([])
            else:
                levels[-1].append(self.known(tok))
        if not all(levels):
            raise self.error("expected: strength WEAKEST ... then ... then STRONGEST")
        for level, members in enumerate(levels):
            for sym in members:
                if sym in self.strength:
                    raise self.error(f"{sym} appears twice in 'strength'")
                self.strength[sym] = level

    def do_schema(self, tokens: list[str]) -> None:
        if not tokens:
            raise self.error("'schema' needs a name")
        self.schema = " ".join(tokens)

    # ------------------------------------------------------------------ rules
    def term(self, tok: str) -> _Term:
        bound = _BINDING.match(tok)
        var, cls = (bound.group(1), bound.group(2)) if bound else (tok, tok)
        if bound or _IDENT.match(tok):
            if cls not in self.classes:
                raise self.error(f"unknown class {cls!r}")
            if var in _KEYWORDS:
                raise self.error(f"{var!r} cannot be a variable")
            return _Term(self.classes[cls], var)
        return _Term((self.known(tok),))

    def refs(self, tok: str, window: tuple[_Term, _Term]) -> set[int]:
        if _IDENT.match(tok):
            found = {k for k, t in enumerate(window) if t.var == tok}
            if not found:
                raise self.error(f"result names {tok!r}, which is not a variable of this window")
            return found
        found = {k for k, t in enumerate(window) if t.var is None and t.values[0] == tok}
        if not found:
            raise self.error(f"result token {tok!r} is not in the window")
        return found

    def edit(self, result: list[str], window: tuple[_Term, _Term]) -> int:
        refs = [self.refs(tok, window) for tok in result]
        if len(refs) == 1:
            return LEFT if 1 in refs[0] else RIGHT
        if len(refs) == 2 and 0 in refs[0] and 1 in refs[1]:
            return KEEP
        if len(refs) == 2 and 1 in refs[0] and 0 in refs[1]:
            return SWAP
        raise self.error("the result must be the window (KEEP), its right token (LEFT), "
                         "its left token (RIGHT) or both reversed (SWAP)")

    def condition(self, tokens: list[str],
                  window: tuple[_Term, _Term]) -> Callable[[dict[str, str]], bool]:
        names = {t.var for t in window if t.var}
        if len(tokens) != 3 or tokens[1] not in _COMPARISONS \
                or not {tokens[0], tokens[2]} <= names or tokens[0] == tokens[2]:
            raise self.error("expected: when VAR (< | > | = | !=) VAR, naming both variables")
        left, op, right = tokens

        def holds(binding: dict[str, str]) -> bool:
            x, y = binding[left], binding[right]
            if op in ("=", "!="):
                return (x == y) == (op == "=")
            for sym in (x, y):
                if sym not in self.strength:
                    raise self.error(f"{sym} has no strength (add it to the 'strength' line)")
            sx, sy = self.strength[x], self.strength[y]
            return sx < sy if op == "<" else sx > sy
        return holds

    def do_rule(self, tokens: list[str]) -> None:
        if len(tokens) < 4 or tokens[2] != "->":
            raise self.error("expected: rule A B -> RESULT [when X OP Y] [mass M]")
        mass = self.mass if self.mass is not None else DEFAULT_MASS
        if tokens[-2] == "mass":
            mass = self.parse_mass(tokens[-1])
            tokens = tokens[:-2]
        result, cond_tokens = tokens[3:], []
        if "when" in result:
            k = result.index("when")
            result, cond_tokens = result[:k], result[k + 1:]
        window = (self.term(tokens[0]), self.term(tokens[1]))
        if window[0].var and window[0].var == window[1].var:
            raise self.error(f"both window terms are called {window[0].var!r}; "
                             "name them, e.g. x:class y:class")
        edit = self.edit(result, window)
        holds = self.condition(cond_tokens, window) if cond_tokens else None
        matched = 0
        for a in window[0].values:
            for b in window[1].values:
                binding = {t.var: s for t, s in zip(window, (a, b), strict=True) if t.var}
                if holds is None or holds(binding):
                    self.add(a, b, edit, mass)
                    matched += 1
        if not matched:
            raise self.error("this rule matches no window")

    def add(self, a: str, b: str, edit: int, mass: float) -> None:
        if a == b:  # RIGHT and SWAP are indistinguishable from LEFT and KEEP here
            edit = {RIGHT: LEFT, SWAP: KEEP}.get(edit, edit)
        if b == BOUNDARY or (a == BOUNDARY and edit in (LEFT, SWAP)):
            raise self.error(f"window {a} {b} cannot be {EDITS[edit]}: "
                             f"{BOUNDARY} is never absorbed, moved or preceded")
        rule = Rule(a, b, EDITS[edit], self.lineno, self.schema, mass)
        old = self.rules.get((a, b))
        if old is None:
            self.rules[(a, b)] = rule
        elif (old.edit, old.mass) != (rule.edit, rule.mass):
            raise self.error(f"window {a} {b} already gets {old.edit} "
                             f"(mass {old.mass}) from line {old.line}")

    # ------------------------------------------------------------------ driver
    def feed(self, lineno: int, line: str) -> None:
        self.lineno = lineno
        tokens = line.split()
        cut = next((k for k, tok in enumerate(tokens) if tok.startswith("#")), len(tokens))
        tokens = tokens[:cut]
        if not tokens:
            return
        handler = getattr(self, f"do_{tokens[0]}", None)
        if handler is None:
            raise self.error(f"unknown directive {tokens[0]!r} (expected language, direction, "
                             "mass, fullstop, symbols, pair, class, strength, schema or rule)")
        handler(tokens[1:])

    def finish(self) -> Grammar:
        self.lineno = 0
        for name in ("language", "direction"):
            if getattr(self, name) is None:
                raise GrammarError(f"missing '{name}' line", self.path)
        return Grammar(
            path=self.path, language=self.language or "", direction=self.direction or "",
            symbols=(*SPECIALS, *self.symbols), pairs=list(self.pairs),
            rules=list(self.rules.values()),
            mass=self.mass if self.mass is not None else DEFAULT_MASS,
            full_stop=self.fullstop or ".")


def parse_grammar(text: str, path: str = "<string>") -> Grammar:
    """Parse rule-file text (``path`` is only used in error messages)."""
    parser = _Parser(path)
    for lineno, line in enumerate(text.splitlines(), 1):
        parser.feed(lineno, line)
    return parser.finish()


def load_grammar(path: str | Path) -> Grammar:
    """Read (as every input file is read: :func:`fstpunct.files.read_text`) and expand a rule
    file; ``-`` is refused (a rule file is a file: standard input is the data's)."""
    if is_stdio(path):
        raise InputError(f"{path}: a rule file is read from a file, not from standard input")
    return parse_grammar(read_text(path), str(path))
