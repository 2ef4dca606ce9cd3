"""``fstpunct decode``: reconstruct every sentence's underlying punctuation (Viterbi T′)."""
from __future__ import annotations

import argparse
import gc

from ..apps.text import refuse_hidden_posteriors, underlying
from ..errors import refuse_missing
from ..progress import progress
from .arguments import add_corpus_arguments, add_quiet_argument, at_least, positive
from .pool_option import add_pool_arguments, check_pool_options, chosen_pool
from .text_option import add_text_arguments, model_and_input, write_output

HELP = ("Annotate CoNLL-U with the most probable underlying punctuation: PunctL/PunctR in MISC "
        "for every word, '# underlying' and '# punct_logprob' for every sentence; everything "
        "else is copied unchanged. With --text, from punctuated plain sentences.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_corpus_arguments(parser)
    parser.add_argument("--posteriors", type=int, default=0, metavar="K",
                        help="also list the K most probable (l, r) pairs per word (PunctPost; "
                             "CoNLL-U output only)")
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="decode chunks of 500 sentences in this many local processes "
                             "(default 1)")
    add_pool_arguments(parser)
    add_text_arguments(parser, "decode punctuated plain text: marks the model knows are split "
                               "off the words, the words tagged without them and parsed (by the "
                               "bundled parser without them, the marks attached after), decoded "
                               "by the language's text/ model where it has one and --model is "
                               "not given (--format text: each sentence's T′ as a line)",
                       "each sentence's T′ (its '# underlying') a line")
    parser.add_argument("--parser", metavar="DIR",
                        help="parser for sentences without a tree (default: the model's "
                             "bundled 'removed'-mode parser/ or parser-lc/); any punctuation "
                             "mode, as the sentences keep their marks: a 'removed'-mode parser "
                             "leaves them out and attaches them after, the others read them, "
                             "as tokens or as properties of the neighbouring words")
    parser.add_argument("--beam", type=positive, help="parser beam (default: the parser's)")
    add_quiet_argument(parser)


def run(args: argparse.Namespace) -> int:
    at_least(0, posteriors=args.posteriors)  # the library checks it too, after loading
    refuse_hidden_posteriors(args.posteriors, args.format)  # the library is given conllu
    check_pool_options(args)  # before the note on the input's language
    refuse_missing({"--tagger": args.tagger, "--parser": args.parser})  # used or not
    model, sentences = model_and_input(args)
    # the command owns the collector's state for its whole run, not the library's lazy decode
    # (its caller's code would run with the collector off between sentences)
    gc.freeze()  # the loaded model outlives the run: no collection during it need walk it
    collecting = gc.isenabled()
    gc.disable()  # decoding makes no reference cycles (tests/test_decode_compiled.py)
    try:
        with chosen_pool(args) as pool:
            out = model.decode(sentences, posteriors=args.posteriors, pool=pool, text=args.text,
                               format="conllu", lowercase=args.lowercase_input,
                               tagger=args.tagger, parser=args.parser, beam=args.beam,
                               text_model=not args.model)
            write_output(args, progress(out, "decode", quiet=args.quiet), sentences, underlying)
    finally:
        if collecting:  # (for a caller that goes on in this process)
            gc.enable()
        gc.unfreeze()
    return 0
