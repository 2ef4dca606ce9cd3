"""``fstpunct restore``: strip a sentence's punctuation and restore it (paper §6.1)."""
from __future__ import annotations

import argparse
import functools
from collections.abc import Iterable, Iterator

from ..api.parsing import load_parser
from ..apps.restoration.crf import CrfModel
from ..apps.restoration.exact import EXACT_DECODERS
from ..apps.restoration.generative import DECODERS
from ..apps.restoration.trivial import Trivial, is_model_folder, is_path
from ..apps.text import needs_pipeline, restored_text, tokeniser
from ..errors import InputError, ModelError, check_stream_seed, refuse_missing
from ..files import is_stdio
from ..model.store import bundled, is_bundled, model_path
from ..parser.pipeline import Pipeline, load_pipeline
from ..progress import progress
from ..ud.text import line_by_line
from ..ud.treebank import Sentence
from .arguments import (
    add_io_arguments,
    add_quiet_argument,
    add_width_argument,
    at_least,
    positive,
    probability,
)
from .model_option import MODEL_HELP
from .note import noted
from .pool_option import add_pool_arguments, check_pool_options, chosen_pool
from .text_option import (
    add_text_arguments,
    model_and_input,
    model_and_text,
    read_input,
    text_reader,
    write_each,
    write_output,
)

HELP = ("Restore punctuation: remove any punctuation from the input, take its tree as given "
        "(or parse it with --parser) and insert the punctuation a method predicts, as tokens "
        "with UPOS PUNCT and relation punct; '# text' is rebuilt. With --text, from plain "
        "sentences: tagged, parsed and restored.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_io_arguments(parser)
    method = parser.add_mutually_exclusive_group()
    method.add_argument("--model", help="the punctuation model (the exact minimum-Bayes-risk "
                        "choice under it, --decoder; or MBR over samples, --samples): "
                        + MODEL_HELP)
    method.add_argument("--crf", metavar="DIR", help="use a CRF tagger (fstpunct crf train)")
    method.add_argument("--trivial", metavar="LANG|FILE|DIR",
                        help="the trivial baseline: a full stop at the end, nothing else; "
                             "LANG's (its rule file, else the default grammar of its standard "
                             "train split), a rule file's (fullstop) or a model folder's (of "
                             "the grammar model.json records); a path has a '/' (./NAME), "
                             "ends .rules or, as --model's, is a bare name that is no "
                             "language, of a folder or file here")
    parser.add_argument("--parser", metavar="DIR", action="append", default=[],
                        help="parse the depunctuated words with this parser model first "
                             "(a 'removed'-mode parser) instead of keeping the input's tree; "
                             "repeat it for an ensemble: the output has the first parser's "
                             "tree, and --model mixes the distributions of every parser's "
                             "tree (with --samples: splits the samples among them); library: "
                             "Model.restore's parsers=, one keyword for them all")
    parser.add_argument("--beam", type=positive, help="parser beam (default: each parser's)")
    parser.add_argument("--decoder", choices=sorted(EXACT_DECODERS),
                        help="exact decoder (no sampling): 'slot': every slot's least-risk "
                             "string; 'balanced': the least expected edit distance whose "
                             "paired marks balance (default: balanced with --text and no "
                             "--model, else slot)")
    parser.add_argument("--mix-crf", metavar="DIR",
                        help="mix the model's slot distributions with this CRF's slot "
                             "marginals (fstpunct crf train) and choose under the mixture "
                             "(exact decoders only; default: with --text and no --model, the "
                             "language's bundled text/ CRF where dev chose a mixture)")
    parser.add_argument("--mix-weight", type=probability, metavar="W",
                        help="the model's weight in the mixture, the CRF's 1 − W (default: "
                             "the one chosen on dev with the bundled text/ CRF, else 0.5); "
                             "1: the model alone, no mixing")
    parser.add_argument("--samples", type=int,
                        help="sample this many (T′, x) per sentence and choose by --mbr "
                             "instead (the paper: 1000)")
    parser.add_argument("--mbr", choices=sorted(DECODERS),
                        help="with --samples: 'sentence': the best sampled x (the paper); "
                             "'slot': the best string of every slot separately (default "
                             "sentence)")
    parser.add_argument("--seed", type=int,
                        help="random seed of --samples, 0 to 2**32 - 1 (default 0)")
    parser.add_argument("--lang", metavar="CODE",
                        help="the input's language (picks its bundled model, which it must "
                             "have, when no method is given, and the tagger and parser of "
                             "--text, or of CoNLL-U sentences without UPOS or a tree; with "
                             "--crf, by default the CRF's language; not with --model, which "
                             "names the model)")
    add_width_argument(parser, "the model's own forms (--crf, --trivial: the CRF's, the rule "
                               "file's)")
    add_quiet_argument(parser)
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="restore chunks of 256 sentences in this many local processes "
                             "(default 1)")
    add_pool_arguments(parser)
    parser.add_argument("--line-buffered", action="store_true",
                        help="with --text, to stdout: answer each line, and flush stdout, "
                             "before reading the next (for a process that writes a line and "
                             "waits for its answer), as if each line were restored alone: "
                             "width and quotes decided per line, not once for the input (with "
                             "--samples, though, sentence k draws from the stream of sentence "
                             "k of one whole-text call, not of a one-line call); costs "
                             "CPU, as sentences are no longer restored in chunks (README, "
                             "'Lines'); library: Model.restore_lines")
    add_text_arguments(parser, "restore plain text (unpunctuated; any punctuation in it is "
                               "replaced), tagged and parsed by the bundled tagger and parser of "
                               "the model (or --tagger, --parser), restored by the language's "
                               "text/ model (trained on such trees) where it has one, mixed with "
                               "its bundled CRF where dev chose that, unless --model is given")


def run(args: argparse.Namespace) -> int:
    at_least(1, samples=args.samples)
    check_stream_seed(args.seed, "--seed")  # at least 0, one 32-bit word of the streams
    check_pool_options(args)  # all before the parsers load and the note on the language
    if args.line_buffered:
        _check_line_buffered(args)
    # the model's options, None unless given: not ignored in silence by --crf or --trivial
    model_options = {"decoder": args.decoder, "samples": args.samples, "mbr": args.mbr,
                     "seed": args.seed, "mix_crf": args.mix_crf, "mix_weight": args.mix_weight}
    given = {name: value for name, value in model_options.items() if value is not None}
    if given and (args.trivial or args.crf):
        raise InputError(f"{', '.join('--' + name.replace('_', '-') for name in given)}: only "
                         "with --model, not with --crf or --trivial")
    refuse_missing({"--parser": args.parser, "--tagger": args.tagger})  # used or not
    # --trivial LANG (a language's name), or a model folder (its tagger/ and parser/ the text's)
    named = args.trivial if args.trivial and not is_path(args.trivial) else None
    folder = args.trivial if args.trivial and is_model_folder(args.trivial) else None
    if args.trivial or args.crf:
        _check_method_lang(args, named, folder)
    elif args.line_buffered:  # the model chosen (--lang checked) before the parsers load
        model, reader = model_and_text(args)
    else:
        model, sentences = model_and_input(args)
    parsers = [load_parser(p) for p in args.parser]  # --beam: checked by its type
    for p in parsers:  # here, as Model.restore does: --trivial and --crf do not call it
        p.expect_mode("removed", "restoration with a parser")
    with chosen_pool(args) as pool:
        pipeline = None  # --crf's or --trivial's, read only when a sentence needs it
        needed: list[Sentence] = []  # the model's: the first sentence its pipeline analyses
        if args.trivial or args.crf:
            method = (Trivial.load(args.trivial, args.ud_dir) if args.trivial
                      else CrfModel.load(args.crf))
            # the tagger and parser of text: --trivial LANG's or a model folder's own (--lang
            # is refused with either), else --lang, else the CRF's or the rule file's
            # language, else English
            own = method.language if isinstance(method, Trivial) else method.meta.get("lang")
            lang = named or args.lang or own or "en"
            tokenise = tokeniser(lang)  # at every punctuation character

            @functools.cache  # read once, though --line-buffered restores a line at a time
            def pipeline() -> Pipeline:
                if not folder:  # (an explicit --lang: refused before, by _check_method_lang)
                    _check_pipeline_lang(args, "the rule file's language" if args.trivial
                                         else "the CRF's language (crf train --lang)", lang)
                # lang names a language (typed as --lang, or the CRF's, the rule file's, "en"):
                # its bundled pipeline is meant, not a local folder of that name, so no warning;
                # a model folder's tagger/ and parser/, as --model's (Trivial.load read its
                # grammar)
                source = folder or model_path(lang, warn=False)
                return load_pipeline(source, args.lowercase_input, args.tagger,
                                     parsers[0] if parsers else None, args.beam)
            if args.line_buffered:
                write_each(line_by_line(text_reader(args, tokenise), lambda sents: restored_text(
                    sents, method, parsers, args.beam, pipeline, True, width=args.width),
                    args.format == "conllu"))
                return 0
            # marks of either width, as the model's restore (fstpunct.ud.width)
            sentences = read_input(args, tokenise)
            out = restored_text(progress(sentences, "restore", quiet=args.quiet), method,
                                parsers, args.beam, pipeline, args.text, pool=pool,
                                width=args.width)
        elif args.line_buffered:
            write_each(noted(args, model.restore_lines(
                reader, format=args.format, parsers=parsers, beam=args.beam,
                lowercase=args.lowercase_input, tagger=args.tagger, text_model=not args.model,
                width=args.width, **given)))
            return 0
        else:
            # CoNLL-U is parsed by --parser if given, else by the pipeline (restored_text)
            read = _needing(sentences, not parsers, needed)
            out = model.restore(progress(read, "restore", quiet=args.quiet),
                                parsers=parsers, beam=args.beam, pool=pool, text=args.text,
                                format="conllu", lowercase=args.lowercase_input,
                                tagger=args.tagger, text_model=not args.model,
                                width=args.width, **given)
        write_output(args, out, sentences)
    if args.text:
        return 0
    # CoNLL-U that needed no tagger or parser (each sentence had UPOS, and a tree or --parser
    # to parse it): the options of the pipeline were unused, as is known only now (a refusal
    # before the run would refuse input without trees too); --lang picked the model, if any
    if pipeline is None and not needed:
        _note_unused_pipeline(args, None)
    elif pipeline is not None and not pipeline.cache_info().currsize:
        _note_unused_pipeline(args, args.lang)
    return 0


def _needing(sentences: Iterable[Sentence], parse: bool, needed: list[Sentence]
             ) -> Iterator[Sentence]:
    """``sentences``, the first that :func:`~fstpunct.apps.text.needs_pipeline` (``parse``)
    put in ``needed``."""
    for sent in sentences:
        if not needed and needs_pipeline(sent, parse):
            needed.append(sent)
        yield sent


def _note_unused_pipeline(args: argparse.Namespace, lang: str | None) -> None:
    """Leave the note that the options given to pick the tagger and parser of text (``lang``,
    --lang's if it picked no model; --tagger, --lowercase-input or --cased-input) were used
    for nothing, naming each, if any was given."""
    unused = [f"{name} {value}" for name, value in (("--lang", lang),
                                                    ("--tagger", args.tagger)) if value is not None]
    if args.lowercase_input is not None:
        unused.append("--lowercase-input" if args.lowercase_input else "--cased-input")
    if unused:
        picks = "it picks" if len(unused) == 1 else "they pick"
        args.note = (f"{args.prog}: note: {', '.join(unused)}: used for nothing: no sentence "
                     f"needed the tagger or parser {picks}")


def _check_method_lang(args: argparse.Namespace, named: str | None, folder: str | None
                       ) -> None:
    """--lang's refusals with --crf or --trivial, in one line before the parsers load, a pool
    opens or the input is read: not with --trivial LANG of another language (``named``) or a
    model folder (``folder``; the text's tagger and parser are theirs), nor a language without
    a bundled tagger and parser unless --tagger and --parser are given (used for a sentence
    without a tree, else for nothing). The CRF's or the rule file's own language is checked at
    the first sentence that needs them."""
    if args.lang is None:
        return
    if named and args.lang != named:
        raise InputError(f"--lang {args.lang}: not with --trivial {named}, whose language is "
                         "the text's (its tagger and parser)")
    if folder:
        raise InputError(f"--lang {args.lang}: not with --trivial {folder}, a model "
                         "folder, whose tagger/ and parser/ are the text's")
    _check_pipeline_lang(args, "--lang", args.lang)


def _check_pipeline_lang(args: argparse.Namespace, told: str, lang: str) -> None:
    """Refuse a language ``lang`` (``told``: where it comes from) that has no bundled tagger
    and parser, unless --tagger and --parser are given."""
    if not is_bundled(lang) and not (args.tagger and args.parser):
        raise ModelError(f"no bundled tagger and parser for {told} {lang!r}: give --lang with "
                         f"one of {', '.join(bundled())}, or --tagger DIR and --parser DIR")


def _check_line_buffered(args: argparse.Namespace) -> None:
    """--line-buffered's refusals, in one line before any work: it reads plain text and writes
    stdout, a line at a time in this process."""
    if not args.text:
        raise InputError("--line-buffered: only with --text (plain text, one sentence a line)")
    if not is_stdio(args.output):
        raise InputError("--line-buffered: answers on stdout, not in -o FILE (a file is "
                         "written whole at the end)")
    if args.jobs > 1 or args.scheduler or args.dask_workers:
        raise InputError("--line-buffered: a line at a time in this process, not with --jobs, "
                         "--scheduler or --dask-workers")
