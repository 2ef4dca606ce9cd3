"""CoNLL-U text without trees, for the tests of tagging and parsing what comes without."""
from __future__ import annotations


def unparsed(text: str, upos: bool = False) -> str:
    """``text`` with HEAD, DEPREL and DEPS ``_`` on every word (and UPOS, unless ``upos``)."""
    out = []
    for line in text.split("\n"):
        fields = line.split("\t")
        if len(fields) == 10 and fields[0].isdigit():
            fields[6:9] = ["_", "_", "_"]
            if not upos:
                fields[3] = "_"
        out.append("\t".join(fields))
    return "\n".join(out)
