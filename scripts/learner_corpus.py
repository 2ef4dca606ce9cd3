"""The Treebank of Learner English with its words, and its punctuation-corrected twin (issue 19).

    python scripts/learner_corpus.py --tle ../shared/ud/UD_English-ESL --fce ../shared/fce \\
        -o learner/

The TLE (``UD_English-ESL``) ships its trees without words; its ``# sent_id`` names a document
and sentence index of the old FCE release, whose ids the BEA-2019 FCE JSON does not use. So
every TLE sentence is found in the FCE scripts by content alone:

1. Each FCE script (its two answers, in file order) is tokenised Penn-Treebank style
   (:func:`tokenize`, with character offsets) and split into sentences (:func:`sentence_starts`).
2. A TLE sentence's *shape* is its tokens' classes: word, comma, other punctuation (from its
   XPOS). Every TLE document is matched to the script where most of its sentences' shapes occur
   as whole sentences (a vote weighted by how rare each shape is).
3. Within that script each TLE sentence takes the occurrence of its shape (anywhere, not only at
   sentence starts) that best fits, scored by how many of its words have a Penn tag that
   UD_English-EWT's training words take (:class:`Lexicon`) and by sentence boundaries at both
   ends; the occurrences of one document must follow its sentence order.

An aligned sentence is *verified* when every token's punctuation/word status and XPOS agree with
the TLE tree: punctuation forms against their XPOS (``,`` ``.`` ``:`` quotes, brackets, HYPH),
words against the lexicon (a known word must have a tag EWT gives it).

The corrected twin applies the FCE edits that fall inside the sentence. A sentence is
*isomorphic* (its depunctuated tree is kept) when every edit touches punctuation only or
replaces one word by one word (an edit without a correction, and edits that add, remove, merge
or split words, are not); its corrected punctuation is then written into the TLE tree: marks
that stay keep their heads, a new mark attaches to the word that heads the constituent starting
right after it (the root for the sentence's last slot). Words replaced one for one take their
corrected form; their tree and tags stay the learner's (the TLE v2 annotates only the original).

The other sentences give *punctuation-only* pairs (:func:`correct_punctuation`): the learner's
words and tree with only the edits that change nothing but punctuation, where the rest of the
sentence's edits leave its punctuation alone.

With ``--parser P --tagger T`` the FCE sentences outside the TLE (each script's own sentences
that overlap no aligned TLE sentence, in every FCE file) give pairs too, for training only
(issue 19): each is tokenised as above, its words tagged by T (:mod:`fstpunct.parser.tagger`,
trained on the learner train sentences if T does not exist) and the punctuated sentence parsed
by the tokens-mode parser P; the tree stands in for the TLE's and the sentence goes through the
same isomorphic / punctuation-only rules and new-mark attachment. Each such sentence names its
FCE script (``# fce_document``, also its sent_id's document), its FCE file (``# fce_split``)
and, when the script holds TLE sentences, their document (``# tle_document``, the fold key of
``correction.py cv``; the TLE spreads most documents' sentences over its three splits).
Sentences that cannot be analysed are counted by reason.

Outputs (under ``-o``; FCE-derived, never to be committed): ``en_esl-ud-SPLIT.conllu`` (every
aligned TLE sentence, with forms, ``SpaceAfter=No`` and ``# text``), ``en_cesl-ud-SPLIT.conllu``
(the isomorphic subset, corrected), ``en_pesl-ud-SPLIT.conllu`` (the punctuation-only pairs of
the other verified sentences); with ``--parser``, ``en_xesl``, ``en_xcesl``, ``en_xpesl`` the
same for the sentences outside the TLE, SPLIT their FCE file; and ``report.json`` (also: how
many TLE documents of each split come from each FCE file); the per-split tables go to stdout.

    python scripts/learner_corpus.py --tle ../shared/ud/UD_English-ESL --fce ../shared/fce \\
        -o learner/ --parser models/esl-parser --tagger models/esl-tagger
"""
from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from fstpunct.errors import FstpunctError
from fstpunct.files import output
from fstpunct.parser import Model as ParserModel
from fstpunct.parser import parse
from fstpunct.parser.tagger import Tagger, depunctuated, train_tagger
from fstpunct.ud.treebank import read_conllu, read_file

SPLITS = ("train", "dev", "test")


def _fail(message: str) -> NoReturn:
    """Bad input: one line on stderr, exit status 2."""
    print(f"learner_corpus: {message}", file=sys.stderr)
    raise SystemExit(2)

# Penn-Treebank-style tokens, in order of preference (offsets are kept: the edits are offsets).
_TOKEN = re.compile(r"""
    (?P<ellipsis>\.{2,}|…)
  | (?P<abbrev>[A-Za-z](?:\.[A-Za-z])+\.?|(?:Mr|Mrs|Ms|Dr|St|etc|Jr|Sr)\.)
  | (?P<cause>'cause\b|[oO]'clock\b)
  | (?P<gonna>(?:[gG]on|[wW]an|[gG]ot)(?=(?:na|ta)\b))
  | (?P<number>\d+(?:[.,:]\d+)+)
  | (?P<cannot>[Cc]an(?=not\b))
  | (?P<neg>[A-Za-z]+?(?=[nN][’'][tT]\b)|[nN][’'][tT]\b)
  | (?P<clitic>(?<=[A-Za-z])[’'](?:[sSmMdD]|re|RE|ve|VE|ll|LL)\b)
  | (?P<possessive>(?<=[sS])[’'](?!\w))
  | (?P<compound>[^\W_]+(?:[-/][^\W_]+)+)
  | (?P<word>[^\W_]+)
  | (?P<punct>(?P<mark>[^\w\s])(?P=mark)*)
""", re.VERBOSE)
_PART = re.compile(r"[^\W_]+|[-/]")

PUNCT_CHARS = frozenset(".,;:!?\"'()[]{}-–—…‘’“”/*")  # UD PUNCT; £ $ % & are SYM (words here)
_FINAL = {".", "!", "?"}           # first characters of sentence-final tokens
_CLOSERS = {'"', "'", ")", "]", "’", "”"}


@dataclass(frozen=True)
class Token:
    """A token of an FCE text and its character offsets."""

    text: str
    start: int
    end: int
    is_punct: bool


def tokenize(text: str, start: int = 0, end: int | None = None,
             compounds: bool = True) -> list[Token]:
    """The Penn-Treebank-style tokens of ``text[start:end]`` (``cannot`` = ``can not``,
    ``don't`` = ``do n't``, ``it's`` = ``it 's``, ``gonna`` = ``gon na``, the ``'`` of a
    plural possessive a word); ``compounds``: ``well-known`` and ``s/he`` one token (the TLE
    keeps most so, but splits some at the hyphen)."""
    end = len(text) if end is None else end
    out = []
    for m in _TOKEN.finditer(text, start, end):
        if m.lastgroup == "compound" and not compounds:
            out += [Token(p.group(), p.start(), p.end(), not p.group()[0].isalnum())
                    for p in _PART.finditer(text, m.start(), m.end())]
        else:
            punct = m.lastgroup == "punct" and all(c in PUNCT_CHARS for c in m.group())
            out.append(Token(m.group(), m.start(), m.end(), punct or m.lastgroup == "ellipsis"))
    return out


def sentence_starts(text: str, tokens: Sequence[Token]) -> set[int]:
    """Indices of the tokens that start a sentence: the first, any after a line break, and any
    after a final ``.``/``!``/``?`` (and closing quotes or brackets) that is not lower-case."""
    starts = {0} if tokens else set()
    for k in range(1, len(tokens)):
        prev, tok = tokens[k - 1], tokens[k]
        if "\n" in text[prev.end:tok.start]:
            starts.add(k)
            continue
        j = k - 1
        while j > 0 and tokens[j].text in _CLOSERS:
            j -= 1
        if tokens[j].text[0] in _FINAL and tokens[j].is_punct and not tok.text[0].islower():
            starts.add(k)
    return starts


def shape_of_tokens(tokens: Sequence[Token]) -> str:
    """One character per token: ``w`` word, ``p`` punctuation."""
    return "".join("p" if t.is_punct else "w" for t in tokens)


@dataclass
class View:
    """A script's tokens under one tokenisation, its sentence starts and its shape."""

    tokens: list[Token]
    starts: set[int]
    shape: str

    @classmethod
    def of(cls, text: str, compounds: bool) -> View:
        tokens = tokenize(text, compounds=compounds)
        return cls(tokens, sentence_starts(text, tokens), shape_of_tokens(tokens))

    def sentences(self) -> Iterable[tuple[int, int]]:
        """(first, end) token indices of the script's own sentences."""
        bounds = sorted(self.starts) + [len(self.tokens)]
        return zip(bounds, bounds[1:])


@dataclass
class Script:
    """One FCE exam script: its answers joined by a blank line, their edits in its offsets,
    and two views (compounds kept whole, then split)."""

    id: str
    split: str
    text: str
    edits: list[tuple[int, int, str | None, str]]
    views: list[View] = field(default_factory=list)

    def prepare(self) -> None:
        self.views = [View.of(self.text, True), View.of(self.text, False)]


def read_fce(folder: Path) -> list[Script]:
    """Every script of ``fce-{train,dev,test}.json`` (consecutive answers with one id)."""
    scripts: list[Script] = []
    for split in SPLITS:
        path = folder / f"fce-{split}.json"
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                try:
                    d = json.loads(line)
                except ValueError as e:
                    _fail(f"{path}:{lineno}: not JSON ({e})")
                edits = [(s, e, c, code) for _, es in d["edits"] for s, e, c, code in es]
                if scripts and scripts[-1].id == d["id"] and scripts[-1].split == split:
                    last = scripts[-1]
                    shift = len(last.text) + 2
                    last.text += "\n\n" + d["text"]
                    last.edits += [(s + shift, e + shift, c, code) for s, e, c, code in edits]
                else:
                    scripts.append(Script(d["id"], split, d["text"], edits))
    for s in scripts:
        s.prepare()
    return scripts


@dataclass
class TleSentence:
    """A TLE sentence: its comments and token lines (ten fields each)."""

    split: str
    comments: list[str]
    rows: list[list[str]]

    @property
    def sent_id(self) -> str:
        return next(c.split("=", 1)[1].strip() for c in self.comments
                    if c.startswith("# sent_id"))

    @property
    def document(self) -> str:
        return self.sent_id.rsplit("-", 1)[0]

    @property
    def order(self) -> tuple[int, str]:
        """The sentence index (``12``, or ``4a`` for a sentence the TLE split in two)."""
        m = re.fullmatch(r"(\d+)(\D*)", self.sent_id.rsplit("-", 1)[1])
        if m is None:
            _fail(f"sent_id {self.sent_id}: no sentence index at its end")
        return int(m.group(1)), m.group(2)

    @property
    def punct(self) -> list[bool]:
        return [r[3] == "PUNCT" or r[7] == "punct" for r in self.rows]

    @property
    def shape(self) -> str:
        return "".join("p" if p else "w" for p in self.punct)


def read_tle(folder: Path) -> list[TleSentence]:
    out: list[TleSentence] = []
    for split in SPLITS:
        path = folder / f"en_esl-ud-{split}.conllu"
        comments: list[str] = []
        rows: list[list[str]] = []
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line:
                    if rows:
                        out.append(TleSentence(split, comments, rows))
                    comments, rows = [], []
                elif line.startswith("#"):
                    comments.append(line)
                else:
                    fields = line.split("\t")
                    if len(fields) != 10 or not fields[0].isdigit():
                        _fail(f"{path}:{lineno}: expected a word line of 10 fields")
                    rows.append(fields)
        if rows:
            out.append(TleSentence(split, comments, rows))
    return out


_PUNCT_XPOS = {",": {",", ";", "...", "…", ".."}, ".": {".", "!", "?", "..", "...", "…"},
               ":": {":", ";", "-", "--", "...", "…", "..", "–", "—"},
               "``": {'"', "'", "“", "‘", "``"}, "''": {'"', "'", "”", "’", "''"},
               "-LRB-": {"(", "["}, "-RRB-": {")", "]"}, "HYPH": {"-", "/"}}


class Lexicon:
    """Penn tags of the words of UD_English-EWT train (lower-cased forms seen at least ``MIN``
    times; rarer forms are unknown)."""

    MIN = 3
    WORDS = 0.75  # share of known words whose tag must agree (the gap in its histogram)

    def __init__(self, ewt_train: Path) -> None:
        tags: dict[str, Counter[str]] = defaultdict(Counter)
        with open(ewt_train, encoding="utf-8") as f:
            for line in f:
                fields = line.split("\t")
                if len(fields) == 10 and fields[0].isdigit():
                    tags[fields[1].lower()][fields[4]] += 1
        self.tags = {w: set(c) for w, c in tags.items() if sum(c.values()) >= self.MIN}

    @staticmethod
    def punct_agrees(form: str, xpos: str) -> bool:
        """Whether a punctuation token of this form can have this XPOS."""
        return xpos not in _PUNCT_XPOS or form in _PUNCT_XPOS[xpos] or (
            xpos in ("``", "''") and set(form) <= set("\"'`"))

    def words(self, tle: TleSentence, tokens: Sequence[Token]) -> float:
        """The share of the known words whose TLE tag EWT gives them (1 if none is known)."""
        known = [r[4] in self.tags[t.text.lower()] for t, r, p in zip(tokens, tle.rows, tle.punct)
                 if not p and t.text.lower() in self.tags]
        return sum(known) / len(known) if known else 1.0

    def punctuation(self, tle: TleSentence, tokens: Sequence[Token]) -> bool:
        """Whether every punctuation token's form agrees with its XPOS."""
        return all(self.punct_agrees(t.text, r[4])
                   for t, r, p in zip(tokens, tle.rows, tle.punct) if p)


@dataclass
class Match:
    """Where a TLE sentence is in the FCE: script, view, first token, score, verified."""

    script: Script
    view: View
    first: int
    score: float
    verified: bool

    def tokens(self, n: int) -> list[Token]:
        return self.view.tokens[self.first:self.first + n]


def _group(script: Script) -> str:
    """The exam and sitting in an FCE id (``TR1*0102*2000*01`` -> ``0102*2000*01``)."""
    return script.id.split("*", 1)[1]


def _occurrences(script: Script, tle: TleSentence, lexicon: Lexicon, keep: int = 8
                 ) -> list[Match]:
    """The ``keep`` best places in ``script`` with ``tle``'s shape whose words agree with its
    tags (:attr:`Lexicon.WORDS`): score = n times that share, plus 2 for starting and 2 for
    ending where the script's own sentences do."""
    shape, n = tle.shape, len(tle.rows)
    found = []
    for view in script.views:
        k = view.shape.find(shape)
        while k >= 0:
            tokens = view.tokens[k:k + n]
            words = lexicon.words(tle, tokens)
            if words >= lexicon.WORDS:
                bonus = 2 * (k in view.starts) + 2 * (k + n in view.starts or
                                                       k + n == len(view.tokens))
                found.append(Match(script, view, k, n * words + bonus,
                                   lexicon.punctuation(tle, tokens)))
            k = view.shape.find(shape, k + 1)
    return sorted(found, key=lambda m: -m.score)[:keep]


def _in_order(sentences: Sequence[TleSentence], options: Sequence[Sequence[Match]]
              ) -> list[Match | None]:
    """One place (or none) per sentence of a document, in the document's sentence order and
    without overlaps, maximising the total score (a sentence left out costs its length)."""
    order = sorted(range(len(sentences)), key=lambda i: sentences[i].order)
    # best[j][c]: best total for the first j sentences (in order) ending with choice c
    states: dict[int | None, tuple[float, list[Match | None]]] = {None: (0.0, [])}
    end_of: dict[int | None, int] = {None: 0}
    for i in order:
        n = len(sentences[i].rows)
        new: dict[int | None, tuple[float, list[Match | None]]] = {}
        new_end: dict[int | None, int] = {}
        for key, (total, path) in states.items():
            cand = (total - n, path + [None])
            if key not in new or cand[0] > new[key][0]:
                new[key], new_end[key] = cand, end_of[key]
            for m in options[i]:
                if m.first < end_of[key]:
                    continue
                cand = (total + m.score, path + [m])
                if m.first not in new or cand[0] > new[m.first][0]:
                    new[m.first], new_end[m.first] = cand, m.first + n
        states, end_of = new, new_end
    best = max(states.values(), key=lambda v: v[0])[1]
    out: list[Match | None] = [None] * len(sentences)
    for i, m in zip(order, best):
        out[i] = m
    return out


def align(scripts: Sequence[Script], tle: Sequence[TleSentence], lexicon: Lexicon,
          log=print) -> dict[str, Match]:
    """Every TLE sentence's place in the FCE scripts (module docstring), by sent_id."""
    index: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for si, s in enumerate(scripts):
        view = s.views[0]
        for a, b in view.sentences():
            index[view.shape[a:b]].append((si, a))
    documents: dict[str, list[TleSentence]] = defaultdict(list)
    for t in tle:
        documents[t.document].append(t)
    votes: dict[str, Counter[int]] = {}
    for doc, sents in documents.items():
        v: Counter[int] = Counter()
        for t in sents:
            n, best = len(t.rows), {}
            for si, a in index.get(t.shape, ()):
                tokens = scripts[si].views[0].tokens[a:a + n]
                if lexicon.punctuation(t, tokens):
                    best[si] = max(best.get(si, 0.0), lexicon.words(t, tokens))
            for si, fit in best.items():
                if fit >= 0.9:
                    v[si] += fit
        votes[doc] = v
    # the TLE folder of a document names the exam sitting: learn which, from clear votes
    folders: dict[str, Counter[str]] = defaultdict(Counter)
    for doc, v in votes.items():
        top = v.most_common(2)
        if top and (len(top) == 1 or top[1][1] * 2 <= top[0][1]):
            folders[doc.split("-")[0]][_group(scripts[top[0][0]])] += 1
    group_of = {f: c.most_common(1)[0][0] for f, c in folders.items()}
    log("TLE folder -> FCE sitting: " + ", ".join(f"{f} -> {g} ({folders[f][g]} of "
                                                  f"{sum(folders[f].values())} clear votes)"
                                                  for f, g in sorted(group_of.items())))
    by_group: dict[str, list[int]] = defaultdict(list)
    for si, s in enumerate(scripts):
        by_group[_group(s)].append(si)
    # each document takes its best-voted free script of its sitting (one document a script)
    taken: dict[int, str] = {}
    ranked = sorted(documents, key=lambda d: -max(votes[d].values(), default=0))
    choice: dict[str, int] = {}
    for doc in ranked:
        group = group_of.get(doc.split("-")[0])
        allowed = by_group.get(group, range(len(scripts))) if group else range(len(scripts))
        options = [(votes[doc][si], si) for si in allowed if votes[doc][si] and si not in taken]
        if not options:  # no whole-sentence vote: the script where most shapes occur at all
            options = [(sum(scripts[si].views[0].shape.find(t.shape) >= 0
                            for t in documents[doc]), si)
                       for si in allowed if si not in taken]
        score, si = max(options, default=(0, -1))
        if score:
            taken[si], choice[doc] = doc, si
    out: dict[str, Match] = {}
    for doc, sents in documents.items():
        if doc not in choice:
            continue
        script = scripts[choice[doc]]
        placed = _in_order(sents, [_occurrences(script, t, lexicon) for t in sents])
        for t, m in zip(sents, placed):
            if m is not None:
                out[t.sent_id] = m
    return out


@dataclass
class Correction:
    """The corrected punctuation of one aligned sentence, or why it has none."""

    slots: list[list[tuple[str, str]]] | None = None  # (form, XPOS) of slots 0..n
    words: list[str] = field(default_factory=list)  # the corrected words
    text: str = ""                         # the corrected sentence, spaces collapsed
    space_after: list[bool] = field(default_factory=list)  # per corrected token
    codes: list[tuple[int, str]] = field(default_factory=list)  # (slot, FCE code) punct edits
    reason: str = ""                       # why not isomorphic


def _edits_in(script: Script, start: int, end: int, detections: bool = False
              ) -> tuple[list[tuple[int, int, str | None, str]], str]:
    """The edits to apply inside [start, end] (outer detection-only edits give way to the
    edits nested in them; a corrected edit swallows those inside it), or a reason;
    ``detections``: a detection-only edit with nothing nested is returned (correction None)
    instead of being a reason."""
    inside, crossing = [], False
    for e in script.edits:
        if start <= e[0] and e[1] <= end:
            inside.append(e)
        elif e[0] < end and e[1] > start:
            crossing = True
    if crossing:
        return [], "an edit crosses the sentence boundary"
    inside.sort(key=lambda e: (e[0], -e[1]))
    kept: list[tuple[int, int, str | None, str]] = []
    for e in inside:
        nested = [f for f in inside if f is not e and e[0] <= f[0] and f[1] <= e[1]
                  and f[1] - f[0] < e[1] - e[0]]
        if e[2] is None and not (detections and not nested):
            if not nested:
                return [], "an edit marks an error without a correction"
            continue
        if any(k[0] <= e[0] and e[1] <= k[1] and k[1] - k[0] > e[1] - e[0] for k in kept):
            continue  # inside a corrected edit already kept
        if kept and e[0] < kept[-1][1]:
            return [], "overlapping edits"
        kept.append(e)
    return kept, ""


def _xpos(t: Token, text: str) -> str:
    """The Penn tag of a punctuation token (a straight quote opens when it stands before a
    word and after a space or the start)."""
    if t.text[0] in "\"'":
        before = t.start == 0 or text[t.start - 1].isspace()
        after = t.end < len(text) and not text[t.end].isspace()
        return "``" if before and after else "''"
    return {",": ",", ".": ".", "!": ".", "?": ".", "(": "-LRB-", "[": "-LRB-", ")": "-RRB-",
            "]": "-RRB-", "“": "``", "‘": "``", "”": "''", "’": "''"}.get(t.text[0], ":")


def _words(tokens: Sequence[Token]) -> list[str]:
    return [t.text for t in tokens if not t.is_punct]


def correct(match: Match, tle: TleSentence) -> Correction:
    """The sentence with its FCE corrections, if they keep its depunctuated tree."""
    n = len(tle.rows)
    tokens = match.tokens(n)
    text, compounds = match.script.text, match.view is match.script.views[0]
    start, end = tokens[0].start, tokens[-1].end
    edits, reason = _edits_in(match.script, start, end)
    if reason:
        return Correction(reason=reason)
    words_before = [sum(not t.is_punct for t in tokens if t.end <= e[0]) for e in edits]
    codes = []
    for e, slot in zip(edits, words_before):
        # by construction: without ``detections`` _edits_in returns no detection-only edit
        # (one with nothing nested is a reason, one with nested edits gives way to them;
        # tests/test_learner_corpus.py::test_detection_only_edits_are_never_applied)
        assert e[2] is not None
        old = tokenize(text, e[0], e[1], compounds)
        new = tokenize(e[2], compounds=compounds)
        wo, wc = _words(old), _words(new)
        if len(wo) != len(wc) or (wo != wc and len(wo) != 1):
            return Correction(reason="an edit adds, removes or changes several words")
        if _marks(old) != _marks(new):
            codes.append((slot, e[3]))
    return _applied(text[start:end], start, [(a, b, str(c)) for a, b, c, _ in edits], codes,
                    compounds, len(_words(tokens)))


def _marks(tokens: Sequence[Token]) -> list[str]:
    return [t.text for t in tokens if t.is_punct]


def _applied(fixed: str, start: int, edits: Sequence[tuple[int, int, str]],
             codes: list[tuple[int, str]], compounds: bool, words: int) -> Correction:
    """The sentence text ``fixed`` (starting at offset ``start`` of its script) with
    ``edits`` (offsets, correction) applied, split into its corrected slots."""
    for e in sorted(edits, key=lambda e: -e[0]):
        fixed = fixed[:e[0] - start] + e[2] + fixed[e[1] - start:]
    new_tokens = tokenize(fixed, compounds=compounds)
    new_words = _words(new_tokens)
    if len(new_words) != words:
        return Correction(reason="the corrected text has another number of words")
    slots: list[list[tuple[str, str]]] = [[]]
    for t in new_tokens:
        if t.is_punct:
            slots[-1].append((t.text, _xpos(t, fixed)))
        else:
            slots.append([])
    collapsed = re.sub(r"\s+", " ", fixed).strip()
    space = [t.end == len(fixed) or fixed[t.end].isspace() for t in new_tokens]
    return Correction(slots, new_words, collapsed, space, codes)


def _slot_range(tokens: Sequence[Token], a: int, b: int) -> range:
    """The slots (gaps before word k; slot n after the last word) that touch the characters
    [a, b): from the words ending at or before a to the words starting before b."""
    words = [t for t in tokens if not t.is_punct]
    return range(sum(t.end <= a for t in words), sum(t.start < b for t in words) + 1)


def correct_punctuation(match: Match, tle: TleSentence) -> Correction:
    """The learner's sentence (its words, so its TLE tree) with only the FCE edits that change
    nothing but punctuation applied, if the rest of its edits leave its punctuation alone.

    An edit is a *punctuation edit* when its correction has the same words as the text it
    replaces up to case (``, the`` -> ``. The``; the learner's forms are kept) and other
    punctuation; an edit that changes case only is not applied and constrains nothing (the
    capital after a corrected full stop is often an edit of its own); every other edit is a
    *word edit* and is not applied. The sentence is refused when a word edit changes
    punctuation itself (``, and`` -> ``.``), when a detection-only edit spans punctuation (its
    correct punctuation is unknown), or when a punctuation edit touches a slot next to a word
    edit (the slots from before its first word to after its last, or its gap): such a mark
    may be there because of the word edit (a comma dropped where a conjunction is inserted),
    so neither applying it nor keeping the learner's mark is known to be right for the
    learner's words. Marks away from word edits do not depend on them, and the sentence is a
    (learner, corrected punctuation) pair on the same words and tree."""
    tokens = match.tokens(len(tle.rows))
    text, compounds = match.script.text, match.view is match.script.views[0]
    start, end = tokens[0].start, tokens[-1].end
    edits, reason = _edits_in(match.script, start, end, detections=True)
    if reason:
        return Correction(reason=reason)
    applied, codes = [], []
    marked, worded = set(), set()
    for a, b, new_text, code in edits:
        old = tokenize(text, a, b, compounds)
        slots = _slot_range(tokens, a, b)
        if new_text is None:
            if _marks(old):
                return Correction(reason="a detection-only edit spans punctuation")
            worded.update(slots)
            continue
        new = tokenize(new_text, compounds=compounds)
        if [w.lower() for w in _words(old)] == [w.lower() for w in _words(new)]:
            if _marks(old) != _marks(new):
                kept = new_text  # with the learner's forms, case included
                for t, form in reversed(list(zip([t for t in new if not t.is_punct],
                                                 _words(old)))):
                    kept = kept[:t.start] + form + kept[t.end:]
                applied.append((a, b, kept))
                codes.append((slots.start, code))
                marked.update(slots)
        elif _marks(old) != _marks(new):
            return Correction(reason="a word edit changes punctuation")
        else:
            worded.update(slots)
    if marked & worded:
        return Correction(reason="a punctuation edit beside a word edit")
    out = _applied(text[start:end], start, applied, codes, compounds, len(_words(tokens)))
    if out.slots is not None and out.words != _words(tokens):
        return Correction(reason="the corrected text has other words")
    return out


def _no_space(misc: str, space: bool) -> str:
    items = [m for m in misc.split("|") if m not in ("_", "SpaceAfter=No")]
    return "|".join(items + ([] if space else ["SpaceAfter=No"])) or "_"


def _comments(tle: TleSentence, text: str, extra: Sequence[str] = ()) -> list[str]:
    out = [f"# text = {text}" if re.match(r"#\s*text\s*=", c) else c for c in tle.comments
           if not re.fullmatch(r"#\s*error_annotation\s*=\s*", c)]
    return out + list(extra)


def learner_lines(tle: TleSentence, match: Match) -> list[str]:
    """The TLE sentence with the FCE's words (``SpaceAfter=No``, ``# text``)."""
    tokens = match.tokens(len(tle.rows))
    text = re.sub(r"\s+", " ", match.script.text[tokens[0].start:tokens[-1].end])
    rows = []
    for k, (t, r) in enumerate(zip(tokens, tle.rows)):
        space = k + 1 == len(tokens) or tokens[k + 1].start > t.end
        rows.append("\t".join([r[0], t.text] + r[2:9] + [_no_space(r[9], space)]))
    return _comments(tle, text) + rows


def _word_tree(tle: TleSentence) -> tuple[list[int], list[int]]:
    """Old IDs of the words and each word's head as an index into them (−1: root), with
    punctuation skipped on the way up."""
    punct = {int(r[0]): p for r, p in zip(tle.rows, tle.punct)}
    head = {int(r[0]): int(r[6]) for r in tle.rows}
    ids = [int(r[0]) for r, p in zip(tle.rows, tle.punct) if not p]
    where = {i: k for k, i in enumerate(ids)}
    parents = []
    for i in ids:
        h = head[i]
        while h and punct[h]:
            h = head[h]
        parents.append(where.get(h, -1))
    return ids, parents


def _constituent(parents: Sequence[int], word: int, left: bool) -> int:
    """The highest word whose subtree starts (``left``) or ends at ``word``."""
    n = len(parents)
    lo, hi = list(range(n)), list(range(n))
    for k in range(n):  # span of every subtree
        h = parents[k]
        seen = 0
        while h >= 0 and seen <= n:
            lo[h], hi[h] = min(lo[h], k), max(hi[h], k)
            h, seen = parents[h], seen + 1
    w = word
    while parents[w] >= 0 and (lo if left else hi)[parents[w]] == word:
        w = parents[w]
    return w


def _mark_head(parents: Sequence[int], i: int, xpos: str) -> int:
    """The word a new mark in slot i attaches to: the root in the last slot; a closing mark
    to the constituent ending before it, an opening one to the one starting after it; other
    marks to the one after when it lies below the one before or is a right dependent (a
    conjunct, say), else to the one before (a fronted phrase)."""
    n = len(parents)
    if i == n:
        return parents.index(-1)
    if i == 0 or xpos in ("``", "-LRB-"):
        return _constituent(parents, i, True)
    before = _constituent(parents, i - 1, False)
    if xpos in ("''", "-RRB-"):
        return before
    after = _constituent(parents, i, True)
    return after if _above(parents, before, after) or 0 <= parents[after] < i else before


def _above(parents: Sequence[int], a: int, b: int) -> bool:
    """Whether word a is an ancestor of word b."""
    h = parents[b]
    while h >= 0:
        if h == a:
            return True
        h = parents[h]
    return False


def corrected_lines(tle: TleSentence, c: Correction) -> list[str]:
    """The TLE tree with the corrected punctuation and words (module docstring)."""
    assert c.slots is not None
    ids, parents = _word_tree(tle)
    rows = {int(r[0]): r for r in tle.rows}
    old_slots: list[list[list[str]]] = [[]]
    for r, p in zip(tle.rows, tle.punct):
        if p:
            old_slots[-1].append(r)
        else:
            old_slots.append([])
    plan: list[tuple[list[str], int | None]] = []  # (fields, old id or None for new marks)
    n = len(ids)
    for i, slot in enumerate(c.slots):
        old = old_slots[i]
        matcher = difflib.SequenceMatcher(None, [r[1] for r in old],
                                                        [f for f, _ in slot], autojunk=False)
        kept = {b + k: a + k for a, b, size in matcher.get_matching_blocks() for k in range(size)}
        for j, (form, xpos) in enumerate(slot):
            if j in kept:
                plan.append((old[kept[j]][:1] + [form] + old[kept[j]][2:],
                             int(old[kept[j]][0])))
                continue
            word = _mark_head(parents, i, xpos)
            plan.append((["0", form, "_", "PUNCT", xpos, "_", str(ids[word]), "punct", "_", "_"],
                         None))
        if i < n:
            r = list(rows[ids[i]])
            r[1] = c.words[i]
            plan.append((r, ids[i]))
    new_id = {old: k for k, (_, old) in enumerate(plan, 1) if old is not None}
    head = {int(r[0]): int(r[6]) for r in tle.rows}
    out = []
    for k, ((f, _), space) in enumerate(zip(plan, c.space_after), 1):
        h = int(f[6])
        while h and h not in new_id:
            h = head[h]
        f = f[:]
        f[0], f[6] = str(k), str(new_id.get(h, 0)) if h else "0"
        f[9] = _no_space(f[9], space)
        out.append("\t".join(f))
    codes = " ".join(f"{slot}:{code}" for slot, code in c.codes)
    return _comments(tle, c.text, [f"# fce_punct_edits = {codes}"] if codes else []) + out


def _write(path: Path, blocks: Iterable[list[str]]) -> None:
    """The sentences to ``path``, whole or not at all."""
    with output(path) as f:
        for lines in blocks:
            f.write("\n".join(lines) + "\n\n")


def _unaligned_reason(t: TleSentence, doc_script: Script | None) -> str:
    if doc_script is None:
        return "its document matched no script"
    if any(v.shape.find(t.shape) >= 0 for v in doc_script.views):
        return "its shape occurs in the script, but not with words fitting its tags in order"
    return "its shape (tokens, punctuation positions) occurs nowhere in its script"


def _pair_counts() -> dict:
    """The counts of :func:`_add_pairs`, zero."""
    return {"isomorphic": 0, "with a punctuation edit": 0,
            "punctuation edits by code": Counter(), "not isomorphic": Counter(),
            "punctuation-only": 0, "punctuation-only with a punctuation edit": 0,
            "punctuation-only edits by code": Counter(), "not punctuation-only": Counter()}


# a split's files: the learner sentences, their isomorphic and their punctuation-only twins
KINDS = ("esl", "cesl", "pesl")


def _add_pairs(t: TleSentence, m: Match, r: dict, blocks: dict[str, list]) -> None:
    """The learner sentence ``t`` placed at ``m`` appended to ``blocks["esl"]``, its corrected
    twin to ``blocks["cesl"]`` (isomorphic) or ``blocks["pesl"]`` (punctuation-only) if it has
    one, counted in ``r`` (:func:`_pair_counts`)."""
    blocks["esl"].append(learner := learner_lines(t, m))
    c = correct(m, t)
    edited, by_code = "with a punctuation edit", "punctuation edits by code"
    if c.slots is not None:
        r["isomorphic"] += 1
        blocks["cesl"].append(lines := corrected_lines(t, c))
    else:
        r["not isomorphic"][c.reason] += 1
        c = correct_punctuation(m, t)
        if c.slots is None:
            r["not punctuation-only"][c.reason] += 1
            return
        r["punctuation-only"] += 1
        blocks["pesl"].append(lines := corrected_lines(t, c))
        edited, by_code = f"punctuation-only {edited}", "punctuation-only edits by code"
    if _edited(learner, lines):
        r[edited] += 1
        r[by_code].update(code for _, code in c.codes)


def _write_split(out: Path, prefix: str, split: str, blocks: dict[str, list]) -> None:
    """The learner sentences and both kinds of twins of one split (``blocks``, by kind of
    :data:`KINDS`; ``prefix``: ``""`` for the TLE's files, ``x`` for the extra sentences')."""
    for kind in KINDS:
        _write(out / f"en_{prefix}{kind}-ud-{split}.conllu", blocks[kind])


def build(tle_dir: Path, fce_dir: Path, ewt_train: Path, out: Path,
          analyse: Analyse | None = None) -> dict[str, dict]:
    """Align, correct and write every split; with ``analyse``, the FCE sentences outside the
    TLE too (:func:`extra`); returns the report."""
    scripts = read_fce(fce_dir)
    tle = read_tle(tle_dir)
    lexicon = Lexicon(ewt_train)
    matches = align(scripts, tle, lexicon, log=lambda m: print(m, file=sys.stderr))
    script_of = {t.document: matches[t.sent_id].script for t in tle if t.sent_id in matches}
    out.mkdir(parents=True, exist_ok=True)
    report: dict[str, dict] = {}
    for split in SPLITS:
        sents = [t for t in tle if t.split == split]
        blocks: dict[str, list] = {kind: [] for kind in KINDS}
        r: dict = {"TLE sentences": len(sents), "aligned": 0, "verified": 0,
                   "not aligned": Counter(), "not verified": [], **_pair_counts()}
        for t in sents:
            m = matches.get(t.sent_id)
            if m is None:
                r["not aligned"][_unaligned_reason(t, script_of.get(t.document))] += 1
                continue
            r["aligned"] += 1
            if not m.verified:
                r["not verified"].append(t.sent_id)
                continue
            r["verified"] += 1
            _add_pairs(t, m, r, blocks)
        _write_split(out, "", split, blocks)
        report[split] = r
    documents = {(t.split, t.document) for t in tle if t.document in script_of}
    report["documents"] = dict(sorted(Counter(
        f"TLE {split} -> fce-{script_of[doc].split}" for split, doc in documents).items()))
    if analyse is not None:
        report["extra"] = extra(scripts, matches, tle, analyse, out)
    return report


# (forms, whether each is punctuation) -> (UPOS, head, relation) per token
Analyse = Callable[[Sequence[str], Sequence[bool]], list[tuple[str, int, str]]]


def parsed_by(tagger: Tagger, parser: ParserModel) -> Analyse:
    """Tagging (``PUNCT`` for the punctuation tokens, the tagger's tags for the words of the
    depunctuated sentence) and parsing (the parser's own beam) as an :data:`Analyse`."""
    def analyse(forms: Sequence[str], punct: Sequence[bool]) -> list[tuple[str, int, str]]:
        tags = iter(tagger.tag([f for f, p in zip(forms, punct) if not p], punct=False))
        rows = [f"{k}\t{f}\t_\t{'PUNCT' if p else next(tags)}\t_\t_\t_\t_\t_\t_"
                for k, (f, p) in enumerate(zip(forms, punct), 1)]
        sent = parse(parser, next(read_conllu(rows + [""], "<extra>", tree=False)))
        return [(w.upos, w.head, w.deprel) for w in sent.words]
    return analyse


def _analysed(script: Script, first: int, end: int, index: int, tle_document: str | None,
              analyse: Analyse) -> tuple[TleSentence | None, str]:
    """The FCE sentence of tokens [first, end) of ``script``'s first view as a TLE-like
    sentence with the tree ``analyse`` gives it (``# sent_id`` the script's id and the
    sentence's index, ``# fce_document``, ``# fce_split`` and, if the script holds TLE
    sentences, their TLE document ``# tle_document``), or why it has none."""
    tokens = script.views[0].tokens[first:end]
    punct = [t.is_punct for t in tokens]
    if all(punct):
        return None, "no word (punctuation only)"
    try:
        arcs = analyse([t.text for t in tokens], punct)
    except FstpunctError as e:
        return None, f"not parsed: {e}"
    rows = [[str(k), t.text, "_", upos, _xpos(t, script.text) if t.is_punct else "_", "_",
             str(head), rel, "_", "_"]
            for k, (t, (upos, head, rel)) in enumerate(zip(tokens, arcs), 1)]
    comments = [f"# sent_id = {script.id}-{index}", "# text = ",
                f"# fce_document = {script.id}", f"# fce_split = {script.split}"]
    if tle_document:
        comments.append(f"# tle_document = {tle_document}")
    sent = TleSentence(script.split, comments, rows)
    if sent.punct != punct:
        return None, "a word tagged PUNCT or labelled punct by the tagger and parser"
    return sent, ""


def extra(scripts: Sequence[Script], matches: dict[str, Match], tle: Sequence[TleSentence],
          analyse: Analyse, out: Path) -> dict[str, dict]:
    """The FCE sentences outside the TLE (the script's own sentences, :func:`sentence_starts`,
    that overlap no aligned TLE sentence), tagged and parsed by ``analyse``, and their
    corrected twins, written by FCE split (``en_xesl``, ``en_xcesl``, ``en_xpesl``) and
    counted; sentences that cannot be analysed are counted by reason."""
    spans: dict[int, list[tuple[int, int]]] = defaultdict(list)
    tle_document: dict[int, str] = {}
    for t in tle:
        m = matches.get(t.sent_id)
        if m is not None:
            tokens = m.tokens(len(t.rows))
            spans[id(m.script)].append((tokens[0].start, tokens[-1].end))
            if tle_document.setdefault(id(m.script), t.document) != t.document:
                _fail(f"FCE script {m.script.id} holds sentences of two TLE documents, "
                      f"{tle_document[id(m.script)]} and {t.document}")
    report: dict[str, dict] = {}
    for split in SPLITS:
        blocks: dict[str, list] = {kind: [] for kind in KINDS}
        r: dict = {"FCE sentences": 0, "in the TLE": 0, "extra sentences": 0,
                   "of scripts with TLE sentences": 0, "not analysed": Counter(), "parsed": 0,
                   **_pair_counts()}
        for script in (s for s in scripts if s.split == split):
            view, taken = script.views[0], spans.get(id(script), [])
            for index, (a, b) in enumerate(view.sentences()):
                r["FCE sentences"] += 1
                start, end = view.tokens[a].start, view.tokens[b - 1].end
                if any(s0 < end and start < e0 for s0, e0 in taken):
                    r["in the TLE"] += 1
                    continue
                r["extra sentences"] += 1
                r["of scripts with TLE sentences"] += bool(taken)
                t, reason = _analysed(script, a, b, index, tle_document.get(id(script)),
                                      analyse)
                if t is None:
                    r["not analysed"][reason] += 1
                    continue
                r["parsed"] += 1
                _add_pairs(t, Match(script, view, a, 0.0, True), r, blocks)
        _write_split(out, "x", split, blocks)
        report[split] = r
    return report


def _tagger(folder: Path, data: Path) -> Tagger:
    """The tagger in ``folder``, or one trained on the learner train sentences of ``data``
    (depunctuated; 6 epochs, the best on dev kept, features seen twice: as
    scripts/tagger_table.py) and saved there."""
    if folder.is_dir():
        return Tagger.load(folder)
    files = [data / f"en_esl-ud-{split}.conllu" for split in ("train", "dev")]
    for path in files:
        if not path.is_file():
            _fail(f"{path}: not found (run this script without --parser first)")
    train, dev = ([depunctuated(s) for s in read_file(path)] for path in files)
    tagger = train_tagger(train, dev, epochs=6, min_count=2,
                          log=lambda m: print(f"tagger: {m}", file=sys.stderr))
    tagger.save(folder)
    return tagger


def _edited(learner: Sequence[str], corrected: Sequence[str]) -> bool:
    """Whether the corrected sentence's punctuation differs from the learner's (the lines of
    both, comments included)."""
    old = [r for r in learner if not r.startswith("#")]
    new = [r for r in corrected if not r.startswith("#")]
    return [x.split("\t")[1] for x in old] != [x.split("\t")[1] for x in new] and any(
        x.split("\t")[3] == "PUNCT" for x in old + new) and _slots(old) != _slots(new)


def _slots(rows: Sequence[str]) -> list[list[str]]:
    slots: list[list[str]] = [[]]
    for row in rows:
        f = row.split("\t")
        if f[3] == "PUNCT" or f[7] == "punct":
            slots[-1].append(f[1])
        else:
            slots.append([])
    return slots


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tle", type=Path, required=True, help="the UD_English-ESL folder")
    parser.add_argument("--fce", type=Path, required=True,
                        help="the FCE folder (fce-{train,dev,test}.json, BEA-2019 release)")
    parser.add_argument("--ewt", type=Path,
                        help="UD_English-EWT train file for the tag lexicon (default: beside "
                             "--tle)")
    parser.add_argument("-o", "--output", type=Path, required=True,
                        help="output folder (keep it out of git: FCE-derived)")
    parser.add_argument("--parser", type=Path, metavar="DIR",
                        help="also the FCE sentences outside the TLE, parsed by this tokens-mode "
                             "parser (trained on -o's en_esl-ud-train.conllu)")
    parser.add_argument("--tagger", type=Path, metavar="DIR",
                        help="with --parser: their UPOS tagger (trained on -o's learner train "
                             "sentences and saved here if DIR does not exist)")
    args = parser.parse_args()
    ewt = args.ewt or args.tle.parent / "UD_English-EWT" / "en_ewt-ud-train.conllu"
    for path in (args.tle, args.fce, ewt) + ((args.parser,) if args.parser else ()):
        if not path.exists():
            _fail(f"{path}: not found")
    if (args.parser is None) != (args.tagger is None):
        _fail("--parser and --tagger go together")
    analyse = None
    if args.parser is not None:
        try:  # a folder that is no such model: one line
            model = ParserModel.load(args.parser)
            if model.mode != "tokens":
                _fail(f"{args.parser}: a {model.mode}-mode parser; --parser needs a tokens-mode "
                      "one")
            analyse = parsed_by(_tagger(args.tagger, args.output), model)
        except FstpunctError as e:
            _fail(str(e))
    report = build(args.tle, args.fce, ewt, args.output, analyse)
    with output(args.output / "report.json") as f:
        f.write(json.dumps(report, indent=1) + "\n")
    extras = report.pop("extra", {})
    documents = report.pop("documents")
    keys = ["TLE sentences", "aligned", "verified", "isomorphic", "with a punctuation edit",
            "punctuation-only", "punctuation-only with a punctuation edit"]
    print("| split | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for split, r in report.items():
        total = r["TLE sentences"]
        cells = [str(total)] + [f"{r[k]} ({100 * r[k] / total:.1f} %)" for k in keys[1:]]
        print(f"| {split} | " + " | ".join(cells) + " |")
    for split, r in report.items():
        for key in ("not aligned", "not isomorphic", "punctuation edits by code",
                    "not punctuation-only", "punctuation-only edits by code"):
            for reason, count in sorted(r[key].items(), key=lambda kv: -kv[1]):
                print(f"{split}: {key}: {reason}: {count}")
        if r["not verified"]:
            print(f"{split}: aligned, not verified: {len(r['not verified'])} "
                  f"({', '.join(r['not verified'])})")
    print("TLE documents by FCE file: " + ", ".join(f"{k}: {v}" for k, v in documents.items()))
    if extras:
        keys = ["FCE sentences", "in the TLE", "extra sentences", "of scripts with TLE sentences",
                "parsed", "isomorphic", "with a punctuation edit", "punctuation-only",
                "punctuation-only with a punctuation edit"]
        print("\nFCE sentences outside the TLE, parsed (by FCE file):\n")
        print("| FCE file | " + " | ".join(keys) + " |")
        print("|---" * (len(keys) + 1) + "|")
        for split, r in extras.items():
            print(f"| fce-{split} | " + " | ".join(str(r[k]) for k in keys) + " |")
        for split, r in extras.items():
            for key in ("not analysed", "not isomorphic", "punctuation edits by code",
                        "not punctuation-only", "punctuation-only edits by code"):
                for reason, count in sorted(r[key].items(), key=lambda kv: -kv[1]):
                    print(f"extra fce-{split}: {key}: {reason}: {count}")


if __name__ == "__main__":
    main()
