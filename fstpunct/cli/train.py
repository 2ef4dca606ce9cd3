"""``fstpunct train``: EM on a language's training split, saved as a model folder."""
from __future__ import annotations

import argparse
import os
import sys
import time

from tqdm import tqdm

from ..api.training import train
from ..errors import check_seed, refuse_count
from ..fst.channel import DIRECTIONS
from ..model.punct import Settings
from ..model.train import ATTACH_ITERATIONS, INITS, check_iterations
from ..progress import on_terminal
from ..ud.release import LANGUAGES
from .arguments import add_model_output_argument, add_ud_dir_argument, as_options, stdin_once
from .pool_option import add_pool_arguments, check_pool_options, chosen_pool

HELP = ("Train the punctuation model (Attach weights θ and channel φ) by EM with posterior "
        "regularisation on a language's standard training split or on CoNLL-U files, and save "
        "it as a model folder. Without a rule file for the language the initial channel comes "
        "from the default grammar (fstpunct.fst.default_grammar), and the channel direction is "
        "chosen by dev perplexity.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    data = parser.add_mutually_exclusive_group(required=True)
    data.add_argument("--lang", choices=LANGUAGES, help="train on this language's train split")
    data.add_argument("--train", nargs="+", metavar="FILE",
                      help="train on these CoNLL-U files or splits ('en:train'; one split each)")
    parser.add_argument("--dev", nargs="+", metavar="FILE",
                        help="dev CoNLL-U files (default with --lang: its dev split): the "
                             "direction is chosen on them where the grammar gives none, and "
                             "their perplexity is recorded")
    parser.add_argument("--grammar", help="rule file for the initial channel and the symmetric "
                                          "pairs, or 'default': the default grammar built "
                                          "from the training data (default: "
                                          "grammars/LANG.rules if it exists, else 'default'; "
                                          "LANG: --lang, or the language the --train files' "
                                          "UD names tell, en_ewt-ud-train.conllu or en:train)")
    parser.add_argument("--init", choices=INITS, default="nunberg",
                        help="initial channel: the grammar's rules (nunberg), random, or "
                             "identity (the Attach ablation: channel fixed, never re-estimated)")
    parser.add_argument("--direction", choices=DIRECTIONS,
                        help="channel scan direction (default: the rule file's; with the "
                             "default grammar, the one with the lower dev perplexity)")
    parser.add_argument("--iterations", type=int, default=10, metavar="N",
                        help="EM iterations (default 10)")
    parser.add_argument("--patience", type=int, metavar="K",
                        help="stop EM once K iterations in a row have not lowered the dev "
                             "perplexity (0: at the first), and keep the iteration with the "
                             "lowest (needs dev sentences; default: run every iteration and "
                             "keep the last)")
    parser.add_argument("--attach-iterations", type=int, default=ATTACH_ITERATIONS, metavar="N",
                        help="L-BFGS iterations of each Attach M-step (default %(default)s)")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), metavar="N",
                        help="E-step worker processes (default: 2, or the machine's cores "
                             "if fewer)")
    add_pool_arguments(parser)
    parser.add_argument("--xi", type=float, default=Settings.xi,
                        help="posterior-regularisation strength ξ (default %(default)s)")
    parser.add_argument("--l2", type=float, default=Settings.l2,
                        help="L2 coefficient on θ (default %(default)s)")
    parser.add_argument("--token-cost", type=float, default=Settings.token_cost, metavar="C",
                        help="prior preference for fewer underlying marks: θ's L2 prior is "
                             "centred where every pair scores −C per underlying token, so "
                             "marks the channel would absorb are not hypothesised for free "
                             "(default %(default)s, as the bundled models; 0 centres it on the "
                             "uniform distribution; at most 1000)")
    parser.add_argument("--lexical", type=int, default=Settings.lexical, metavar="K",
                        help="word features (the node's word and the words beside its slots) "
                             "for the K most frequent words of training (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed for --init random (default 0)")
    add_ud_dir_argument(parser)
    add_model_output_argument(parser)


def run(args: argparse.Namespace) -> int:
    stdin_once([*(args.train or ()), *(args.dev or ())])  # before any other check
    check_seed(args.seed, "--seed")
    with as_options():  # checked before anything is read, as are the pool's (opened later)
        settings = Settings(xi=args.xi, l2=args.l2, token_cost=args.token_cost,
                            lexical=args.lexical)
        check_iterations(args.iterations, args.attach_iterations)
        if args.patience is not None:
            refuse_count(0, patience=args.patience)
    check_pool_options(args)
    shown = on_terminal()  # in a log: a plain line per iteration instead
    bars: list[tqdm] = []  # the EM bar and the E-step bar, opened when EM starts
    label = ["EM"]
    begun = [0.0]

    def start(direction: str | None, sentences: int) -> None:
        if not bars:
            begun[0] = time.time()
            bars.extend(tqdm(total=total, desc=desc, unit=unit, leave=leave, file=sys.stderr,
                             disable=not shown)
                        for total, desc, unit, leave in ((args.iterations + 1, "EM", "it", True),
                                                         (0, "E-step", "sent", False)))
        bar, inner = bars
        bar.reset()
        inner.reset(total=sentences)
        label[0] = f"EM {direction}" if direction else "EM"
        bar.set_description(label[0])

    def report(it: int, objective: float, log_likelihood: float) -> None:
        bar, inner = bars
        bar.set_postfix(objective=f"{objective:.1f}", loglik=f"{log_likelihood:.1f}")
        bar.update(1)
        if not shown:
            print(f"{label[0]} iteration {it}: objective {objective:.1f}, log-likelihood "
                  f"{log_likelihood:.1f}, {time.time() - begun[0]:.0f} s", file=sys.stderr,
                  flush=True)
        inner.reset()
        if it < args.iterations:  # the M-step runs until the next E-step reports progress
            inner.set_description("M-step (L-BFGS), then E-step")

    def progress(sentences: int) -> None:
        inner = bars[1]
        if inner.n == 0:
            inner.set_description("E-step", refresh=False)
        inner.update(sentences)

    def log(line: str) -> None:
        while bars:  # the line after training ('saved ...') comes below the closed bars
            bars.pop().close()
        print(line, file=sys.stderr, flush=True)

    try:
        train(args.output, args.train or (), lang=args.lang, dev=args.dev or (),
              grammar=args.grammar, init=args.init, direction=args.direction,
              iterations=args.iterations, attach_iterations=args.attach_iterations,
              settings=settings, seed=args.seed, pool=lambda: chosen_pool(args),
              patience=args.patience,
              ud_dir=args.ud_dir, command="fstpunct " + " ".join(sys.argv[1:]), log=log,
              started=start, report=report, progress=progress)
    finally:
        while bars:
            bars.pop().close()
    return 0
