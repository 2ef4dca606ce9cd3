"""The UPOS tagger on every language's standard splits with punctuation removed (issue 22):
test accuracy of the cased and lower-cased taggers, their size and speed, and optionally the
UDPipe 1 tagger trained on the same depunctuated data as the reference.

    FSTPUNCT_UD_DIR=../shared/ud nice -n 10 .venv/bin/python scripts/tagger_table.py \\
        [--langs en,ar,es,hi,zh] [--udpipe DIR [--udpipe-options OPTS] [--only-udpipe]]
        [--save models]

Taggers are trained with 6 epochs (the epoch of best dev accuracy kept) and features seen at
least twice; with ``--save DIR`` they are written to ``DIR/tagger-LANG`` (and ``-lc``).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from fstpunct.parser.tagger import Tagger, accuracy, depunctuated, train_tagger
from fstpunct.ud.release import split_source

Data = list[tuple[tuple[str, ...], tuple[str, ...]]]


def _data(lang: str, split: str) -> Data:
    return [depunctuated(s) for s in split_source(lang, split).sentences()]


def _size(tagger: Tagger) -> int:
    with tempfile.TemporaryDirectory() as d:
        tagger.save(d)
        return sum(p.stat().st_size for p in Path(d).iterdir())


def _conllu(data: Data) -> str:
    """Depunctuated sentences as CoNLL-U with words and UPOS only (UDPipe's training input)."""
    out = []
    for words, tags in data:
        out += [f"{i}\t{w}\t_\t{t}\t_\t_\t_\t_\t_\t_\n"
                for i, (w, t) in enumerate(zip(words, tags), 1)]
        out.append("\n")
    return "".join(out)


def _udpipe(train: Data, dev: Data, test: Data, model_path: Path, options: str = "") -> float:
    """Test accuracy of UDPipe 1's tagger (MorphoDiTa; tagger ``options``, default UDPipe's;
    no lemmas or features in its input) trained on the same depunctuated data; trained only if
    ``model_path`` is missing."""
    from ufal import udpipe  # the bench extra

    def sentences(data: Data) -> udpipe.Sentences:
        fmt = udpipe.InputFormat.newConlluInputFormat()
        fmt.setText(_conllu(data))
        out, s, err = udpipe.Sentences(), udpipe.Sentence(), udpipe.ProcessingError()
        while fmt.nextSentence(s, err):
            out.append(s)
            s = udpipe.Sentence()
        return out

    if not model_path.exists():
        err = udpipe.ProcessingError()
        blob = udpipe.Trainer.train("morphodita_parsito", sentences(train), sentences(dev),
                                    "none", options, "none", err)
        if err.occurred():
            sys.exit(f"UDPipe training failed: {err.message}")
        model_path.parent.mkdir(parents=True, exist_ok=True)
        model_path.write_bytes(blob)
    model = udpipe.Model.load(str(model_path))
    pipeline = udpipe.Pipeline(model, "conllu", udpipe.Pipeline.DEFAULT, udpipe.Pipeline.NONE,
                               "conllu")
    blank = [(words, ("_",) * len(words)) for words, _ in test]
    err = udpipe.ProcessingError()
    tagged = pipeline.process(_conllu(blank), err)
    if err.occurred():
        sys.exit(f"UDPipe tagging failed: {err.message}")
    predicted = [line.split("\t")[3] for line in tagged.splitlines()
                 if line and line[0].isdigit()]
    gold = [t for _, tags in test for t in tags]
    return sum(a == b for a, b in zip(predicted, gold)) / len(gold)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--langs", default="en,ar,es,hi,zh")
    ap.add_argument("--save", type=Path)
    ap.add_argument("--udpipe", type=Path, metavar="DIR",
                    help="also the UDPipe 1 tagger, its models kept in DIR/udpipe-tagger-LANG")
    ap.add_argument("--udpipe-options", default="", metavar="OPTS",
                    help="UDPipe tagger options, e.g. 'models=1;iterations=5' (default: its own)")
    ap.add_argument("--only-udpipe", action="store_true",
                    help="train and score only the UDPipe taggers (ours as already reported)")
    args = ap.parse_args()
    print("| language | test words | accuracy | lower-cased input | UDPipe 1 | features "
          "| size (MB) | words/s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for lang in args.langs.split(","):
        train, dev, test = _data(lang, "train"), _data(lang, "dev"), _data(lang, "test")
        if args.only_udpipe:
            start = time.perf_counter()
            acc = _udpipe(train, dev, test, args.udpipe / f"udpipe-tagger-{lang}",
                          args.udpipe_options)
            print(f"| {lang} | {sum(len(w) for w, _ in test):,} | | | {acc:.4f} | | | "
                  f"({time.perf_counter() - start:.0f} s with training) |", flush=True)
            continue
        row = []
        for lowercase in (False, True):
            tagger = train_tagger(train, dev, epochs=6, min_count=2, lowercase=lowercase,
                                  log=lambda m, lang=lang: print(f"{lang}: {m}", file=sys.stderr))
            start = time.perf_counter()
            acc = accuracy(tagger, test)
            speed = sum(len(w) for w, _ in test) / (time.perf_counter() - start)
            row.append((tagger, acc, speed))
            if args.save:
                tagger.save(args.save / f"tagger-{lang}{'-lc' if lowercase else ''}")
        (tagger, acc, speed), (_, acc_lc, _) = row
        peer = ""
        if args.udpipe:
            acc_udpipe = _udpipe(train, dev, test, args.udpipe / f"udpipe-tagger-{lang}",
                                 args.udpipe_options)
            peer = f"{acc_udpipe:.4f}"
        print(f"| {lang} | {sum(len(w) for w, _ in test):,} | {acc:.4f} | {acc_lc:.4f} | {peer} | "
              f"{len(tagger.keys):,} | {_size(tagger) / 1e6:.2f} | {speed:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
