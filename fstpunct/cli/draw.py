"""``fstpunct draw``: small pictures of the model for a person (``draw channel ...``)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import graphviz

from ..api import Model
from ..api.data import one_sentence
from ..errors import InputError, ModelError
from ..files import output
from ..fst.channel import DIRECTIONS, Channel, NoDirection
from ..model.store import is_bundled, model_path
from ..show.channel import channel_graph
from ..show.dot import RENDER_SUFFIXES, SOURCE_SUFFIXES, write_graph
from ..ud.release import read_one, resolve_one
from ..ud.treebank import Sentence
from .arguments import add_ud_dir_argument, at_least, output_file, probability
from .model_option import add_model_arguments, chosen_model

HELP = ("Draw part of a model: 'draw channel' shows the channel restricted to a few symbols, "
        "'draw lattice' the most probable paths of one slot's lattice of underlying strings "
        "(Graphviz: .svg, .png, .pdf with the dot program, or .dot source), 'draw tree' a "
        "sentence's Viterbi underlying tree in word order (.svg). Without -o the picture's "
        "source goes to stdout.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    what = parser.add_subparsers(dest="what", metavar="WHAT", required=True)
    p = what.add_parser("channel", help="the channel's states and arcs among a few symbols",
                        description="The channel restricted to the given symbols: states "
                                    "'pending ⟨a⟩', arcs 'window → output / probability', "
                                    "each mark between angle brackets (a mark of several, "
                                    "none a letter, with its characters a thin space apart: "
                                    "⟨- -⟩).")
    p.add_argument("fst", metavar="CHANNEL.fst",
                   help="a compiled channel, e.g. build/en.fst, or a model (a folder of "
                        "fstpunct train or a bundled name, en): its channel.fst")
    p.add_argument("--symbols", required=True,
                   help="space-separated symbols to show, e.g. ', . ” ( )'")
    p.add_argument("--min-prob", type=probability, default=0.01, metavar="P",
                   help="hide arcs less probable than this (default 0.01)")
    p.add_argument("--direction", choices=DIRECTIONS,
                   help="scan direction, if CHANNEL.json is missing")
    _output(p, RENDER_SUFFIXES + SOURCE_SUFFIXES)
    p.set_defaults(graph=_channel)
    p = what.add_parser("lattice", help="the most probable paths of one slot's lattice",
                        description="The WFSA accepting each underlying string u of one slot "
                                    "with weight p(x | u), x the slot's surface punctuation: its "
                                    "K most probable paths in the sentence (posteriors "
                                    "estimated from samples of T′) merged into one automaton, "
                                    "or with --full the whole lattice if it is small.")
    _sentence(p)
    p.add_argument("--slot", type=int, required=True, metavar="I",
                   help="slot I lies between word I and word I+1 (0 = sentence start)")
    p.add_argument("--paths", type=int, metavar="K",
                   help="draw the K most probable paths (default 10; not with --full)")
    p.add_argument("--samples", type=int, metavar="N",
                   help="samples of T′ that estimate the posteriors (default 1000; not with "
                        "--full)")
    p.add_argument("--full", action="store_true",
                   help="draw the whole lattice (refused above 60 states or 200 arcs)")
    p.add_argument("--min-prob", type=probability, metavar="P",
                   help="with --full: hide arcs less probable than this (default 0.01)")
    _output(p, RENDER_SUFFIXES + SOURCE_SUFFIXES)
    p.set_defaults(graph=_lattice)
    p = what.add_parser("tree", help="a sentence's Viterbi underlying tree T′ in word order",
                        description="Words in sentence order with the dependency arcs above, "
                                    "underlying punctemes at constituent edges coloured by "
                                    "what the channel did to them, surface punctuation below.")
    _sentence(p)
    _output(p, (".svg",))
    p.set_defaults(graph=_tree)


def _sentence(parser: argparse.ArgumentParser) -> None:
    add_model_arguments(parser)
    parser.add_argument("--sentence", required=True, metavar="FILE:N",
                        help="sentence N (counting from 1) or sent_id N of a CoNLL-U file, "
                             "'-' (stdin) or split ('en:dev:5')")
    add_ud_dir_argument(parser)


def _output(parser: argparse.ArgumentParser, suffixes: tuple[str, ...]) -> None:
    parser.add_argument("-o", "--output", metavar="FILE", type=output_file,
                        help=f"picture to write: {' '.join(suffixes)}")


def _load_sentence(args: argparse.Namespace) -> tuple[Model, Sentence, str]:
    """The sentence ``--sentence`` names, the model (``--model``, else its language's) and
    what the picture calls the sentence: ``--sentence`` as given, but ``sentence N of standard
    input`` for ``-:N`` (a sent_id quoted: ``sentence 'weblog-123' of standard input``)."""
    path, _, which = args.sentence.rpartition(":")
    if not path or not which:
        raise InputError(f"--sentence {args.sentence!r}: expected FILE:N")
    try:
        sentences = read_one(path, args.ud_dir)
    except InputError:
        if not _one_split(args.sentence, args.ud_dir):
            raise
        raise InputError(f"--sentence {args.sentence!r}: names a split but no sentence; add "
                         f":N, the sentence's number (from 1) or sent_id: {args.sentence}:1"
                         ) from None
    sent = one_sentence(sentences, which, path)
    shown = which if which.isdigit() else f"'{which}'"  # a sent_id, not a number
    name = f"sentence {shown} of standard input" if path == "-" else args.sentence
    return chosen_model(args, path, iter([sent]))[0], sent, name


def _one_split(spec: str, ud_dir: str | None) -> bool:
    """Whether ``spec`` names one split (``en:dev``): --sentence given it without its :N."""
    try:
        resolve_one(spec, ud_dir)
    except InputError:
        return False
    return True


def _channel(args: argparse.Namespace) -> graphviz.Digraph:
    path = Path(args.fst)
    model = path.is_dir() or (is_bundled(args.fst) and not path.exists())
    if model:
        path = model_path(args.fst) / "channel.fst"  # a model's channel
    try:
        channel = Channel.load(path, args.direction)
    except NoDirection as e:  # a bare .fst's direction unread: say the option that gives it
        if model:
            raise
        raise ModelError(f"{e}; or pass --direction ltr|rtl") from e
    return channel_graph(channel, args.symbols.split(), args.min_prob)


def _lattice(args: argparse.Namespace) -> graphviz.Digraph:
    at_least(1, paths=args.paths, samples=args.samples)  # the library checks them too,
    at_least(0, slot=args.slot)  # and the slot's range (before the note on the language)
    model, sent, name = _load_sentence(args)
    return model.draw_lattice([sent], args.slot, paths=args.paths, samples=args.samples,
                              full=args.full, min_prob=args.min_prob, name=name)


def _tree(args: argparse.Namespace) -> str:
    _check_svg(args.output)
    model, sent, name = _load_sentence(args)
    return model.draw_tree([sent], name=name)


def _check_svg(path: str | None) -> None:
    suffix = Path(path or "-.svg").suffix.lower()
    if suffix != ".svg":
        raise InputError(f"{path}: draw tree writes .svg, not {suffix or 'a file without suffix'}")


def run(args: argparse.Namespace) -> int:
    picture = args.graph(args)
    if isinstance(picture, str):  # an SVG document
        with output(args.output) as f:
            f.write(picture)
        return 0
    if args.output is None:
        sys.stdout.write(picture.source)
        return 0
    written, _ = write_graph(picture, args.output)
    if written != Path(args.output):
        print(f"{args.prog}: warning: the Graphviz 'dot' program is missing, so wrote {written} "
              f"instead of {args.output}; install it (apt-get install graphviz) for pictures",
              file=sys.stderr)
    return 0
