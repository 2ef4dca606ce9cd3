"""``fstpunct draw``: small pictures of the model for a person (``draw channel ...``)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import graphviz

from ..apps.decode import bracketed
from ..errors import InputError
from ..fst.channel import DIRECTIONS, Channel
from ..model.punct import Inference
from ..model.store import load_model
from ..show.draw import (
    RENDER_SUFFIXES,
    SOURCE_SUFFIXES,
    channel_graph,
    lattice_graph,
    tree_graph,
    write_graph,
)
from ..ud.slots import SlotSentence, to_slots
from ..ud.treebank import Sentence, read_file

HELP = ("Draw part of a model with Graphviz: 'draw channel' shows the channel restricted to a "
        "few symbols, 'draw lattice' one slot's lattice of underlying strings, 'draw tree' a "
        "sentence's Viterbi underlying tree. Writes .svg, .png or .pdf (needs the dot program), "
        "or .dot source; "
        "without -o the .dot source goes to stdout.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    what = parser.add_subparsers(dest="what", metavar="WHAT", required=True)
    p = what.add_parser("channel", help="the channel's states and arcs among a few symbols",
                        description="The channel restricted to the given symbols: states "
                                    "'pending a', arcs 'window : output / probability'.")
    p.add_argument("fst", metavar="CHANNEL.fst", help="a compiled channel, e.g. build/en.fst")
    p.add_argument("--symbols", required=True,
                   help="space-separated symbols to show, e.g. ', . ” ( )'")
    p.add_argument("--min-prob", type=float, default=0.01,
                   help="hide arcs less probable than this (default 0.01)")
    p.add_argument("--direction", choices=DIRECTIONS,
                   help="scan direction, if CHANNEL.json is missing")
    _output(p)
    p.set_defaults(graph=_channel)
    p = what.add_parser("lattice", help="one slot's lattice over underlying strings",
                        description="The WFSA accepting each underlying string u of one slot "
                                    "with weight p(x | u), x the slot's surface punctuation.")
    _sentence(p)
    p.add_argument("--slot", type=int, required=True, metavar="I",
                   help="slot I lies between word I and word I+1 (0 = sentence start)")
    p.add_argument("--min-prob", type=float, default=0.01,
                   help="hide arcs less probable than this (default 0.01)")
    _output(p)
    p.set_defaults(graph=_lattice)
    p = what.add_parser("tree", help="a sentence's Viterbi underlying tree T′")
    _sentence(p)
    _output(p)
    p.set_defaults(graph=_tree)


def _sentence(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default="en", help="model folder or bundled name (default en)")
    parser.add_argument("--sentence", required=True, metavar="FILE:N",
                        help="sentence N (counting from 1) or sent_id N of a CoNLL-U file")


def _load_sentence(spec: str) -> Sentence:
    path, _, which = spec.rpartition(":")
    if not path or not which:
        raise InputError(f"--sentence {spec!r}: expected FILE:N")
    for k, sent in enumerate(read_file(path), 1):
        if which == str(k) if which.isdigit() else which == sent.sent_id:
            return sent
    raise InputError(f"{path}: has no sentence {which}")


def _inference(args: argparse.Namespace) -> tuple[Inference, SlotSentence]:
    model = load_model(args.model)
    slots = to_slots(_load_sentence(args.sentence))
    return Inference(model, model.prepare([slots])), slots


def _output(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", metavar="FILE",
                        help=f"picture to write: {' '.join(RENDER_SUFFIXES + SOURCE_SUFFIXES)}")


def _channel(args: argparse.Namespace) -> graphviz.Digraph:
    channel = Channel.load(args.fst, args.direction)
    return channel_graph(channel, args.symbols.split(), args.min_prob)


def _lattice(args: argparse.Namespace) -> graphviz.Digraph:
    inference, slots = _inference(args)
    surfaces = inference.batch.surfaces[0]
    if not 0 <= args.slot < len(surfaces):
        raise InputError(f"--slot {args.slot}: the sentence has slots 0..{len(surfaces) - 1}")
    x = surfaces[args.slot]
    caption = (f"slot {args.slot} of {args.sentence}: surface '{' '.join(x) or 'ε'}', between "
               f"'{slots.words[args.slot - 1] if args.slot else '<s>'}' and "
               f"'{slots.words[args.slot] if args.slot < slots.n else '</s>'}'")
    return lattice_graph(inference.builder, inference.weights, x, caption, args.min_prob)


def _tree(args: argparse.Namespace) -> graphviz.Digraph:
    inference, slots = _inference(args)
    pairs, score = inference.viterbi(0)
    caption = f"{args.sentence}: {bracketed(slots, pairs)}  (log score {score:.2f})"
    return tree_graph(slots, pairs, caption)


def run(args: argparse.Namespace) -> int:
    graph = args.graph(args)
    if args.output is None:
        sys.stdout.write(graph.source)
        return 0
    written, rendered = write_graph(graph, args.output)
    if written != Path(args.output):
        print(f"fstpunct draw: the Graphviz 'dot' program is missing, so wrote {written} "
              f"instead of {args.output}; install it (apt-get install graphviz) for pictures",
              file=sys.stderr)
    return 0
