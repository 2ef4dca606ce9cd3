"""``fstpunct draw``: small pictures of the model for a person (``draw channel ...``)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import graphviz

from ..channel import DIRECTIONS, Channel
from ..draw import RENDER_SUFFIXES, SOURCE_SUFFIXES, channel_graph, write_graph

NAME = "draw"
HELP = ("Draw part of a model with Graphviz: 'draw channel' shows the channel restricted to a "
        "few symbols. Writes .svg, .png or .pdf (needs the dot program), or .dot source; "
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


def _output(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", metavar="FILE",
                        help=f"picture to write: {' '.join(RENDER_SUFFIXES + SOURCE_SUFFIXES)}")


def _channel(args: argparse.Namespace) -> graphviz.Digraph:
    channel = Channel.load(args.fst, args.direction)
    return channel_graph(channel, args.symbols.split(), args.min_prob)


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
