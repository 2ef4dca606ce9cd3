"""A tiny UD release for the tests, in both layouts, written by the ``toy_ud`` fixture of
conftest.py: ``UD_Toy/xx-ud-{train,dev,test}.conllu`` is the old layout (UD 1.x: no language
code in the folder name, no ``# sent_id`` or other comments) and
``UD_Toy-New/xx_new-ud-test.conllu`` the current one. Invented German-like sentences (CC0) from
three templates, generated here so that no treebank file is committed."""
from __future__ import annotations

from pathlib import Path

Row = tuple[str, str, int, str]  # FORM, UPOS, HEAD, DEPREL


def quoted(word: str, verb: str, pron: str) -> list[Row]:
    """„Ja“, sagte er."""
    return [("„", "PUNCT", 2, "punct"), (word, "INTJ", 5, "ccomp"), ("“", "PUNCT", 2, "punct"),
            (",", "PUNCT", 2, "punct"), (verb, "VERB", 0, "root"), (pron, "PRON", 5, "nsubj"),
            (".", "PUNCT", 5, "punct")]


def bracketed(word: str, verb: str, pron: str) -> list[Row]:
    """er sagte (Ja) an."""
    return [(pron, "PRON", 2, "nsubj"), (verb, "VERB", 0, "root"), ("(", "PUNCT", 4, "punct"),
            (word, "ADV", 2, "advmod"), (")", "PUNCT", 4, "punct"),
            ("an", "ADP", 2, "compound:prt"), (".", "PUNCT", 2, "punct")]


def joined(pron: str, verb: str, pron2: str, verb2: str) -> list[Row]:
    """ich meinte, du gehst."""
    return [(pron, "PRON", 2, "nsubj"), (verb, "VERB", 0, "root"), (",", "PUNCT", 5, "punct"),
            (pron2, "PRON", 5, "nsubj"), (verb2, "VERB", 2, "parataxis"),
            (".", "PUNCT", 2, "punct")]


def conllu(rows: list[Row], comments: tuple[str, ...] = ()) -> str:
    """One sentence as CoNLL-U (LEMMA, XPOS, FEATS, DEPS and MISC ``_``)."""
    return "".join(f"# {c}\n" for c in comments) + "".join(
        f"{k}\t{form}\t_\t{upos}\t_\t_\t{head}\t{rel}\t_\t_\n"
        for k, (form, upos, head, rel) in enumerate(rows, 1)) + "\n"


SAID = [("Ja", "sagte", "er"), ("Nein", "rief", "sie"), ("Gut", "meinte", "ich"),
        ("Heute", "kam", "wir"), ("Morgen", "schrieb", "man")]

FILES: dict[str, str] = {
    "UD_Toy/xx-ud-dev.conllu": conllu(joined("ich", "meinte", "du", "gehst"))
    + conllu(quoted(*SAID[3])),
    "UD_Toy/xx-ud-test.conllu": conllu(bracketed(*SAID[4]))
    + conllu(joined("wir", "kam", "ihr", "bleibt")),
    "UD_Toy/xx-ud-train.conllu": "".join(conllu(quoted(*s)) for s in SAID)
    + "".join(conllu(bracketed(*s)) for s in SAID)
    + conllu(joined("er", "sagte", "sie", "weint")) + conllu(joined("sie", "rief", "er", "lacht")),
    "UD_Toy-New/xx_new-ud-test.conllu":
        conllu(joined("man", "schrieb", "es", "regnet"), ("sent_id = new-1", "text = x"))
        + conllu(quoted(*SAID[1]), ("sent_id = new-2", "text = y")),
}


def write_release(folder: Path) -> Path:
    """The toy release under ``folder``; returns ``folder``."""
    for name, text in FILES.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder
