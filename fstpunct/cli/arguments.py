"""Arguments shared by several commands."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..errors import InputError, Refused, check_seed, refuse_below, refuse_unused
from ..ud.release import LANGUAGES, SPLITS, Source, resolve, split_source
from ..ud.width import WIDTHS
from .model_option import add_model_arguments

UD_DIR_HELP = ("UD release folder where split names are looked up (default: $FSTPUNCT_UD_DIR, "
               "else $UD_DIR, else ./ud or ../shared/ud)")


def add_ud_dir_argument(parser: argparse.ArgumentParser) -> None:
    """--ud-dir: the UD release folder of split names (:func:`fstpunct.ud.release.ud_root`)."""
    parser.add_argument("--ud-dir", metavar="DIR", help=UD_DIR_HELP)


def add_held_out_arguments(parser: argparse.ArgumentParser, lang_help: str) -> None:
    """FILE..., --lang, --split and --ud-dir: the held-out data of the perplexity commands
    (:func:`held_out_sources`)."""
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="CoNLL-U files ('-' = stdin) or split names ('zh:dev')")
    parser.add_argument("--lang", choices=LANGUAGES, help=lang_help)
    parser.add_argument("--split", choices=SPLITS,
                        help="with --lang: which split (default test)")
    add_ud_dir_argument(parser)


def held_out_sources(args: argparse.Namespace) -> list[Source]:
    """--lang's --split (default test), else the FILEs (stdin without any). --lang with FILEs
    and --split without --lang are errors (one of them would be ignored)."""
    if args.lang and args.files:
        raise InputError("give FILEs or --lang (its standard split), not both; a FILE may "
                         "name a split: 'zh:dev'")
    if args.split and not args.lang:
        raise InputError("--split goes with --lang; a FILE may name a split: 'zh:dev'")
    if args.lang:
        return [split_source(args.lang, args.split or "test", args.ud_dir)]
    stdin_once(args.files)
    return [src for f in args.files or ["-"] for src in resolve(f, args.ud_dir)]


def stdin_once(specs: Sequence[str | None], names: Sequence[str] = ()) -> None:
    """An InputError if ``-`` (stdin) is named more than once: the second would read an
    exhausted stream ('no sentences'), or two would read alternate sentences of one stream.
    ``names``: what to call each of ``specs`` (the error says which inputs are stdin, also one
    that is stdin by default)."""
    stdin = [i for i, spec in enumerate(specs) if spec == "-"]
    if len(stdin) < 2:
        return
    if names:
        raise InputError(f"{' and '.join(names[i] for i in stdin)} cannot both be stdin ('-'); "
                         "name files")
    raise InputError("'-' (stdin) is named more than once; it can be read once: name files for "
                     "the others")


def positive(text: str) -> int:
    """An option's value that must be a whole number of at least 1 (argparse ``type``)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}")
    return value


def option(name: str) -> str:
    """The option that gives the library's parameter ``name``: ``page_size``, ``--page-size``."""
    return "--" + name.replace("_", "-")


@contextmanager
def as_options() -> Iterator[None]:
    """The library's refusals of values (:class:`~fstpunct.errors.Refused`) in the ``with``
    block, of parameters the options give as they are, naming the options
    (:func:`option`): ``--token-cost must be at most 1000, not 1001.0``."""
    try:
        yield
    except Refused as error:
        raise error.renamed(option) from error


def at_least(least: int, **options: float | None) -> None:
    """Refuse an option's value below ``least``, not a number (NaN) or infinite, in one line,
    before the command does any work (:func:`~fstpunct.errors.refuse_below`'s InputError;
    None: not given); ``page_size=0`` names ``--page-size``."""
    refuse_below(least, **{option(name): value for name, value in options.items()})


def within(least: float, most: float, **options: float | None) -> None:
    """:func:`at_least`, and refuse a value above ``most`` too."""
    for name, value in options.items():
        if value is not None and not least <= value <= most:
            raise InputError(f"{option(name)} must be from {least} to {most}, not {value}")


def output_file(text: str) -> str:
    """An option's value that names a file to write (argparse ``type``): not a folder, and in
    a folder that exists, refused before any work (writing refuses them too, later)."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: is a folder; name a file to write")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: no folder {path.parent} to write it in")
    return text


def probability(text: str) -> float:
    """An option's value that must be a number from 0 to 1 (argparse ``type``)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a probability from 0 to 1, not {text!r}")
    return value


#: why both trainers refuse --lang with --train (as :func:`fstpunct.train_tagger` does):
#: --lang names the splits that --train replaces, its dev split too (dev from another treebank
#: than --train's would choose the epoch, unasked), and a parser records no language
LANG_WITH_TRAIN = "names the standard splits to train on; with --train, give dev with --dev"


def add_trainer_arguments(parser: argparse.ArgumentParser, model: str, *, epochs: int,
                          epochs_note: str, lowercase: str, seed: int, without_dev: str
                          ) -> None:
    """A trainer's (``model``: parser, tagger) --epochs (default ``epochs``; ``epochs_note``
    follows it), --lowercase (``lowercase``: how the case-free model is used), --seed (default
    ``seed``), --lang, or --train FILE... and --dev FILE instead of its splits
    (``without_dev``: what --train without --dev does), --ud-dir, --quiet and -o DIR; checked
    by :func:`check_trainer_arguments`."""
    parser.add_argument("--epochs", type=positive, default=epochs, metavar="N",
                        help=f"epochs to train (default {epochs}{epochs_note})")
    parser.add_argument("--lowercase", action="store_true",
                        help=f"case-free {model}: words lower-cased in training and {lowercase}")
    parser.add_argument("--seed", type=int, default=seed, help=f"shuffling seed (default {seed})")
    parser.add_argument("--lang", help="the language whose standard train and dev splits to "
                                       "train on (default: en; not with --train)")
    parser.add_argument("--train", nargs="+", metavar="FILE",
                        help="train on these files, read in turn, instead of --lang's train: "
                             "each a CoNLL-U file, '-' or a split such as en:train")
    parser.add_argument("--dev", metavar="FILE",
                        help=f"dev .conllu, '-' or split instead of --lang's dev ({without_dev})")
    add_ud_dir_argument(parser)
    add_quiet_argument(parser, "nothing on stderr but errors (no bar of each epoch on a "
                               "terminal, no line per epoch)")
    add_model_output_argument(parser)


def check_trainer_arguments(args: argparse.Namespace) -> None:
    """A trainer's (parser, tagger) refusals of :func:`add_trainer_arguments`' options, in one
    wording for both, before anything is read: --lang with --train (:data:`LANG_WITH_TRAIN`)
    and a --seed that is not a whole number of at least 0 (--epochs' type refuses below 1)."""
    refuse_unused({"--lang": bool(args.lang and args.train)}, LANG_WITH_TRAIN)
    check_seed(args.seed, "--seed")


def trainer_log(args: argparse.Namespace) -> Callable[[str], None]:
    """A trainer's (parser, tagger) log of its lines (one per epoch): stderr, or nothing with
    --quiet (:func:`add_trainer_arguments`); each caller turns the trainer's bars off with
    --quiet itself (``progress=not args.quiet``)."""
    if args.quiet:
        return lambda _: None
    return lambda line: print(line, file=sys.stderr, flush=True)


def add_model_output_argument(parser: argparse.ArgumentParser) -> None:
    """-o DIR (required): the model folder a command writes."""
    parser.add_argument("-o", "--output", required=True, metavar="DIR",
                        help="model folder to write")


def add_width_argument(parser: argparse.ArgumentParser, own: str = "the model's own forms"
                       ) -> None:
    """--width: the width of the punctuation marks a command writes (:mod:`fstpunct.ud.width`);
    ``own``: the forms written when the input's marks show no width."""
    parser.add_argument("--width", choices=WIDTHS, default="input",
                        help="write the marks full-width (，。；：？！（）) or half-width "
                             "(, . ; : ? ! ( )); input (default): as the input's "
                             "punctuation is written (the width most of the marks with a twin "
                             "show in its first sentences that have any, the whole input's, "
                             f"not per document), else in {own}; quotes, whatever the width, "
                             "straight (\" ') or curly (“ ” ‘ ’) as the input's are, likewise; "
                             "to find these, the command reads up to 1,000 sentences ahead "
                             "(stdin too) before its first output")


def add_quiet_argument(parser: argparse.ArgumentParser,
                       help: str = "no progress report on stderr") -> None:
    """--quiet: no progress on stderr (:func:`fstpunct.progress.progress`); ``help`` its text
    in --help."""
    parser.add_argument("--quiet", action="store_true", help=help)


def add_io_arguments(parser: argparse.ArgumentParser, output: str = "OUT.conllu") -> None:
    """IN.conllu (a file, stdin or a standard split), -o ``output`` and --ud-dir: the
    arguments of the commands that rewrite a corpus."""
    parser.add_argument("input", nargs="?", default="-", metavar="IN.conllu",
                        help="input file (default: stdin), or one split of a UD folder: "
                             "'es:dev' (a standard split), 'en_ewt-test'")
    parser.add_argument("-o", "--output", metavar=output, type=output_file,
                        help="output file (default: stdout)")
    add_ud_dir_argument(parser)


def add_corpus_arguments(parser: argparse.ArgumentParser, output: str = "OUT.conllu") -> None:
    """:func:`add_io_arguments`, --model and --lang: the arguments of the commands that
    rewrite a corpus with a punctuation model chosen for its language."""
    add_io_arguments(parser, output)
    add_model_arguments(parser)
