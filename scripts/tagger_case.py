"""Which tagger for text whose case is not known (issue 22, text in): accuracy of a cased and a
lower-case tagger on a split's words (punctuation removed) as they are, lower-cased, and on the
sentences that have no capital letter, which is how ``restore --text`` chooses by default
(:meth:`fstpunct.parser.pipeline.Pipeline.tagger_for`).

    FSTPUNCT_UD_DIR=../shared/ud .venv/bin/python scripts/tagger_case.py \\
        [--lang en] [--split dev] [--tagger DIR] [--tagger-lc DIR]

Default taggers: the bundled ones of the language, else models/tagger-LANG[-lc].
"""
from __future__ import annotations

import argparse
from pathlib import Path

from fstpunct.model.store import BUNDLED
from fstpunct.parser.tagger import Tagger, accuracy, depunctuated
from fstpunct.ud.release import split_source


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lang", default="en")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--tagger")
    parser.add_argument("--tagger-lc")
    args = parser.parse_args()
    data = [d for d in (depunctuated(s) for s in split_source(args.lang, args.split).sentences())
            if d[0]]
    lower = [([w.lower() for w in words], tags) for words, tags in data]
    uncased = [d for d in data if not any(c.isupper() for w in d[0] for c in w)]
    words = sum(len(w) for w, _ in data)
    print(f"{args.lang} {args.split}: {len(data)} sentences, {words} words; {len(uncased)} "
          "sentences without a capital letter")
    for name, given in (("tagger", args.tagger), ("tagger-lc", args.tagger_lc)):
        bundled = BUNDLED / args.lang / name
        folder = Path(given) if given else bundled if bundled.is_dir() else \
            Path("models") / f"tagger-{args.lang}{name[6:]}"
        tagger = Tagger.load(folder)
        print(f"  {name} ({folder}): as written {accuracy(tagger, data):.4f}, lower-cased "
              f"{accuracy(tagger, lower):.4f}, sentences without capitals "
              f"{accuracy(tagger, uncased):.4f}")


if __name__ == "__main__":
    main()
