"""The UDPipe 1 peer for the parser (issue 4): train UDPipe 1's parser alone on a standard train
split with gold tags, parse the test split, and score it with our scorer.

UDPipe 1 (``ufal.udpipe``, optional extra ``bench``) is trained as
``Trainer.train("morphodita_parsito", train, dev, "none", "none", PARSER)``: no tokenizer, no
tagger, and the parser with UDPipe 1's default options unless ``--parser-options`` says otherwise
(projective arc-standard system, dynamic oracle, a 200-unit network over UPOS, FEATS, form and
relation embeddings, no pre-trained form embeddings, 10 iterations, dev-based early stopping).
The parser reads the gold UPOS (and, with the defaults, the gold FEATS) of its input; HEAD,
DEPREL and DEPS are blanked in the test input before parsing. Scores are our
:func:`fstpunct.parser.score` (the CoNLL 2018 script on gold tokens): words (punctuation
excluded), punctuation, all tokens.

    FSTPUNCT_UD_DIR=../shared/ud OPENBLAS_NUM_THREADS=1 nice -n 5 .venv/bin/python \\
        bench/udpipe_peer.py --model results/tmp/udpipe-en.model [--json]

The model is trained (about 35 minutes of one core on en_ewt) only when ``--model`` does not exist
yet or with ``--retrain``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from fstpunct.parser import score
from fstpunct.ud.release import split_source
from fstpunct.ud.treebank import Sentence, read_conllu

try:
    from ufal import udpipe
except ImportError:  # pragma: no cover - benchmark-only dependency
    sys.exit("ufal.udpipe is not installed: pip install -e '.[bench]'")


def _text(sents: list[Sentence], blank_tree: bool = False) -> str:
    """CoNLL-U text; with ``blank_tree`` HEAD, DEPREL and DEPS of every line set to ``_``."""
    if not blank_tree:
        return "".join(s.text() for s in sents)
    out = []
    for s in sents:
        out += [c + "\n" for c in s.comments]
        for ln in s.lines:
            f = list(ln.fields)
            f[6] = f[7] = f[8] = "_"
            out.append("\t".join(f) + "\n")
        out.append("\n")
    return "".join(out)


def _sentences(text: str) -> udpipe.Sentences:
    fmt = udpipe.InputFormat.newConlluInputFormat()
    fmt.setText(text)
    out, err = udpipe.Sentences(), udpipe.ProcessingError()
    s = udpipe.Sentence()
    while fmt.nextSentence(s, err):
        out.append(s)
        s = udpipe.Sentence()
    if err.occurred():
        sys.exit(f"UDPipe cannot read the data: {err.message}")
    return out


def load(path: str | Path) -> udpipe.Model:
    """A UDPipe model from its file."""
    model = udpipe.Model.load(str(path))
    if model is None:
        sys.exit(f"{path}: not a UDPipe model")
    return model


def timed_parse(model: udpipe.Model, gold: list[Sentence]) -> tuple[list[Sentence], float, float]:
    """UDPipe's parses of ``gold`` (its tree blanked; tags and features kept), with the wall and
    CPU seconds of parsing (CoNLL-U in and out, in one call on this thread)."""
    pipeline = udpipe.Pipeline(model, "conllu", udpipe.Pipeline.NONE, udpipe.Pipeline.DEFAULT,
                               "conllu")
    err = udpipe.ProcessingError()
    text = _text(gold, blank_tree=True)
    t0, c0 = time.perf_counter(), time.process_time()
    parsed = pipeline.process(text, err)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    if err.occurred():
        sys.exit(f"UDPipe parsing failed: {err.message}")
    return list(read_conllu(parsed.splitlines(keepends=True), "<udpipe>")), seconds, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="UDPipe model file (trained if missing)")
    ap.add_argument("--lang", default="en", help="standard split (default: en)")
    ap.add_argument("--parser-options", default="",
                    help="UDPipe parser options (default: UDPipe 1's defaults)")
    ap.add_argument("--retrain", action="store_true", help="train even if --model exists")
    ap.add_argument("--json", action="store_true", help="one JSON line instead of a report")
    args = ap.parse_args()

    model_path = Path(args.model)
    train_seconds = None
    if args.retrain or not model_path.exists():
        train = list(split_source(args.lang, "train").sentences())
        dev = list(split_source(args.lang, "dev").sentences())
        err = udpipe.ProcessingError()
        t0 = time.perf_counter()
        blob = udpipe.Trainer.train("morphodita_parsito", _sentences(_text(train)),
                                    _sentences(_text(dev)), "none", "none",
                                    args.parser_options, err)
        train_seconds = time.perf_counter() - t0
        if err.occurred():
            sys.exit(f"UDPipe training failed: {err.message}")
        model_path.parent.mkdir(parents=True, exist_ok=True)
        model_path.write_bytes(blob)
    model = load(model_path)

    gold = list(split_source(args.lang, "test").sentences())
    system, seconds, cpu = timed_parse(model, gold)
    s = score(gold, system)
    row = {"system": "UDPipe 1 " + ".".join(str(x) for x in (
               udpipe.Version.current().major, udpipe.Version.current().minor,
               udpipe.Version.current().patch)),
           "parser_options": args.parser_options or "(defaults)",
           "split": f"{args.lang} test", "word_uas": round(s.words.uas, 2),
           "word_las": round(s.words.las, 2), "punct_uas": round(s.punct.uas, 2),
           "all_uas": round(s.tokens.uas, 2), "all_las": round(s.tokens.las, 2),
           "sentences": s.sentences, "parse_seconds": round(seconds, 2),
           "sent_per_s": round(s.sentences / seconds, 1),
           "sent_per_cpu_s": round(s.sentences / cpu, 1),
           "train_seconds": None if train_seconds is None else round(train_seconds),
           "model_mb": round(model_path.stat().st_size / 1e6, 1)}
    if args.json:
        print(json.dumps(row))
        return
    for k, v in row.items():
        print(f"{k:16} {v}")


if __name__ == "__main__":
    main()
