"""Finding treebanks in a Universal Dependencies release, and the project's standard splits.

The UD root is the folder holding ``UD_<Language>-<Name>/<code>-ud-<split>.conllu`` (an official
release or ``../shared/ud``) or the old layout of releases 1.x, ``UD_<Language>/<code>-ud-<split>
.conllu`` (e.g. ``UD_Chinese/zh-ud-train.conllu``, whose sentences have no ``# sent_id``). It
comes from ``--ud-dir``, else ``$FSTPUNCT_UD_DIR``, else ``$UD_DIR``, else the first of ``./ud``
and ``../shared/ud`` that exists.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..files import has_separator
from .treebank import Sentence, read_file

__all__ = ["LANGUAGES", "SPLITS", "Source", "find_treebank", "names_file", "read_one", "resolve",
           "resolve_one", "split_source", "ud_root"]

SPLITS = ("train", "dev", "test")

# language -> split -> (treebank code, file split, first sentence, last sentence);
# 1-based, inclusive.
_STANDARD: dict[str, dict[str, tuple[str, str, int | None, int | None]]] = {
    "en": {"train": ("en_ewt", "train", None, None), "dev": ("en_ewt", "dev", None, None),
           "test": ("en_ewt", "test", None, None)},
    "es": {"train": ("es_gsd", "dev", None, None), "dev": ("es_gsd", "test", 1, 213),
           "test": ("es_gsd", "test", 214, 427)},
    # UD 1.4 Chinese (old release layout UD_Chinese/zh-ud-*.conllu): the paper's own data
    "zh": {"train": ("zh", "train", None, None), "dev": ("zh", "dev", None, None),
           "test": ("zh", "test", None, None)},
    "ar": {"train": ("ar_pud", "test", 1, 800), "dev": ("ar_pud", "test", 801, 900),
           "test": ("ar_pud", "test", 901, 1000)},
    "hi": {"train": ("hi_pud", "test", 1, 800), "dev": ("hi_pud", "test", 801, 900),
           "test": ("hi_pud", "test", 901, 1000)},
    **{lang: {"train": (f"{lang}_pud", "test", 1, 800), "dev": (f"{lang}_pud", "test", 801, 900),
              "test": (f"{lang}_pud", "test", 901, 1000)}
       for lang in ("de", "fr", "it", "pt", "ru")},
}
LANGUAGES = tuple(_STANDARD)


@dataclass(frozen=True)
class Source:
    """A readable set of sentences: the file ``path`` (``name``: how messages name it,
    ``"en dev"``), or only its sentences ``first``..``last`` (numbered from 1, both included;
    None: from its first, to its last)."""

    path: Path
    name: str
    first: int | None = None
    last: int | None = None

    def sentences(self, tree: bool | None = True) -> Iterator[Sentence]:
        """The file's sentences (those numbered ``first``..``last`` if given), read as
        :func:`~fstpunct.ud.treebank.read_file` reads them (``tree``)."""
        for k, sent in enumerate(read_file(self.path, tree), 1):
            if self.first is not None and k < self.first:
                continue
            if self.last is not None and k > self.last:
                return
            yield sent


def ud_root(ud_dir: str | Path | None = None) -> Path:
    """The UD root folder (see module docstring); raises InputError if none is found."""
    for candidate, origin in ((ud_dir, "ud_dir (--ud-dir)"),
                              (os.environ.get("FSTPUNCT_UD_DIR"), "$FSTPUNCT_UD_DIR"),
                              (os.environ.get("UD_DIR"), "$UD_DIR")):
        if candidate:
            root = Path(candidate)
            if not root.is_dir():  # named by where it came from: a variable set long ago
                why = "is not a folder" if root.exists() else "does not exist"
                raise InputError(f"{origin}: UD folder {root} {why}")
            return root
    for root in (Path("ud"), Path("..") / "shared" / "ud"):
        if root.is_dir():
            return root
    raise InputError("no UD folder: pass --ud-dir DIR or set FSTPUNCT_UD_DIR to a UD release")


def find_treebank(code: str, split: str, ud_dir: str | Path | None = None) -> Path:
    """The file ``<code>-ud-<split>.conllu`` under the UD root, e.g. ``en_ewt``, ``train``."""
    root = ud_root(ud_dir)
    name = f"{code}-ud-{split}.conllu"
    hits = sorted(root.glob(f"UD_*/{name}")) or sorted(root.glob(name))
    if not hits:
        raise InputError(f"treebank file {name} not found under {root}")
    return hits[0]


def split_source(lang: str, split: str, ud_dir: str | Path | None = None) -> Source:
    """The project's standard split ``split`` of language ``lang`` (see shared/ud/README.md)."""
    if lang not in _STANDARD:
        raise InputError(f"unknown language {lang!r}; known: {', '.join(LANGUAGES)}")
    if split not in SPLITS:
        raise InputError(f"unknown split {split!r}; known: {', '.join(SPLITS)}")
    code, file_split, first, last = _STANDARD[lang][split]
    return Source(find_treebank(code, file_split, ud_dir), f"{lang} {split}", first, last)


def names_file(spec: str) -> bool:
    """Whether ``spec`` names a file rather than a split: ``-`` (stdin), a name ending in
    ``.conllu``, or any existing path but a folder (a regular file, a FIFO, ``/dev/stdin``,
    a shell's ``<(...)``)."""
    path = Path(spec)
    return spec == "-" or path.suffix == ".conllu" or (path.exists() and not path.is_dir())


def resolve(spec: str, ud_dir: str | Path | None = None) -> list[Source]:
    """Turn a user's spec into sources: a path, ``en`` (its three splits), ``en:dev``,
    ``en_ewt`` (every file of that treebank) or ``en_ewt-dev``; a treebank code is read in
    either release layout (``UD_English-EWT/en_ewt-ud-dev.conllu``, or UD 1.x's
    ``UD_Chinese/zh-ud-dev.conllu``, whose code ``zh`` is also a language, so only a code that
    is not one, e.g. ``xx-dev``)."""
    path = Path(spec)
    if names_file(spec):
        if spec != "-" and not path.exists():
            raise InputError(f"{spec}: no such file")
        return [Source(path, spec)]
    lang, _, split = spec.partition(":")
    if lang in _STANDARD:
        return [split_source(lang, s, ud_dir) for s in ([split] if split else SPLITS)]
    if path.is_dir():  # not looked up as a treebank code: that message would not say why
        raise InputError(f"{spec}: is a folder; name a CoNLL-U file, a split ('en:dev') or a "
                         "treebank code")
    if ":" in spec and lang and not has_separator(lang):  # LANG:SPLIT of a
        # language without standard splits (not a path with a colon, nor ':dev')
        raise InputError(f"{spec!r}: no standard splits for language {lang!r} (they are for "
                         f"{', '.join(LANGUAGES)}); a treebank's split is named like en_ewt-dev")
    code, _, split = spec.partition("-")
    splits = [split] if split else SPLITS
    root = ud_root(ud_dir)
    found = [source for s in splits for source in _split_files(root, code, s)]
    if found:
        return found
    have = sorted({p.name[len(code) + 4:-len(".conllu")]
                   for p in root.glob(f"UD_*/{code}-ud-*.conllu")})
    if have:  # the treebank is there, without that split (or a file's stem: xx-ud-test)
        raise InputError(f"treebank {code!r} has no split {split!r} under {root} (it has: "
                         f"{', '.join(have)}; name one like {code}-{have[0]})")
    if "_" in code:
        raise InputError(f"treebank {code!r} not found under {root}")
    raise InputError(f"{spec!r} is neither a file, a language ({', '.join(LANGUAGES)}) "
                     f"nor a treebank code like en_ewt or zh (none under {root})")


def _split_files(root: Path, code: str, split: str) -> list[Source]:
    """The file of treebank ``code``'s ``split``, else its parts, in name order (a large
    treebank ships its train file in parts: ``cs_pdt-ud-train-c.conllu``,
    ``de_hdt-ud-train-a-1.conllu``), each named by its file's split (``cs_pdt train-c``)."""
    files = sorted(root.glob(f"UD_*/{code}-ud-{split}.conllu"))[:1] or \
        sorted(root.glob(f"UD_*/{code}-ud-{split}-*.conllu"))
    return [Source(p, f"{code} {p.name[len(code) + 4:-len('.conllu')]}") for p in files
            if p.parent == files[0].parent]  # one treebank's folder


def read_one(spec: str, ud_dir: str | Path | None = None,
             tree: bool | None = True) -> Iterator[Sentence]:
    """The sentences of one input: ``-`` (stdin), a file, or a spec of :func:`resolve` that
    names exactly one split (``es:dev``, ``en_ewt-test``); ``tree``: see
    :func:`~fstpunct.ud.treebank.read_conllu`."""
    if spec == "-":
        return read_file("-", tree)
    return resolve_one(spec, ud_dir).sentences(tree)


def resolve_one(spec: str, ud_dir: str | Path | None = None) -> Source:
    """The one source of a spec of :func:`resolve` that names exactly one file or split (a
    language or treebank code alone, which names all three splits, is refused, and so is a
    split in parts: the refusal names the parts to give)."""
    found = resolve(spec, ud_dir)
    if len(found) != 1:
        parts = [s.name.replace(" ", "-", 1) for s in found]  # cs_pdt train-a: cs_pdt-train-a
        in_parts = spec.partition("-")[2] in SPLITS and all(p.startswith(f"{spec}-")
                                                              for p in parts)  # cs_pdt-train
        hint = (f"name its parts: {' '.join(parts)}" if in_parts
                else "name one split (e.g. en:dev, en_ewt-dev)")
        raise InputError(f"{spec!r} names {len(found)} files ({', '.join(s.name for s in found)})"
                         f"; {hint}")
    return found[0]
