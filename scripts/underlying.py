"""How much underlying punctuation a decode hypothesises: the phantom-mark check.

    fstpunct decode --model M en_ewt-dev -o dev.conllu
    python scripts/underlying.py dev.conllu [more.conllu ...]

Reads ``fstpunct decode`` output (the Viterbi T′ in each word's ``PunctL``/``PunctR``) and
prints, per file: surface punctuation tokens, underlying tokens (every puncteme token of T′),
their ratio, and the marks of slot 0 — the left punctemes of the constituents that start the
sentence, which ``∘`` absorbs when they do not surface (a phantom initial ``:`` is the flaw this
measures) — counted by mark and split into those that surface and those that do not.
"""
from __future__ import annotations

import argparse
from collections import Counter

from fstpunct.apps.decode import read_misc_value
from fstpunct.ud.slots import to_slots
from fstpunct.ud.tree import spans
from fstpunct.ud.treebank import read_file


def puncteme(misc: dict[str, str], key: str) -> tuple[str, ...]:
    """The tokens of a word's underlying puncteme ``key`` (none for ε and the backoff)."""
    return read_misc_value(misc.get(key, "ε")) or ()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    for path in args.files:
        surface = underlying = 0
        initial: Counter[tuple[str, bool]] = Counter()
        for sent in read_file(path):
            slots = to_slots(sent)
            lines = {ln.id: ln for ln in sent.lines}
            miscs = [dict(item.split("=", 1) for item in lines[str(i)].fields[9].split("|")
                          if "=" in item) for i in slots.word_ids]
            surface += sum(map(len, slots.slots))
            underlying += sum(len(puncteme(m, "PunctL")) + len(puncteme(m, "PunctR"))
                              for m in miscs)
            for (i, _), m in zip(spans(slots.heads) if slots.n else [], miscs):
                if i == 0:
                    initial.update((t, t in slots.slots[0]) for t in puncteme(m, "PunctL"))
        phantom = Counter({t: c for (t, seen), c in initial.items() if not seen})
        print(f"{path}: surface {surface}, underlying {underlying} "
              f"({underlying / max(surface, 1):.3f} per surface token); slot-0 marks "
              f"{sum(initial.values())}, not surfacing {sum(phantom.values())}: "
              + ", ".join(f"{t} {c}" for t, c in phantom.most_common(6)))


if __name__ == "__main__":
    main()
