"""The command line of the benchmarks that time one model over one CoNLL-U file
(decode_profile, joint_traversal, slot_profile): the file, by default en_ewt's test split, and
``--model``, by default the bundled en; each script adds its own options."""
from __future__ import annotations

import argparse


def file_and_model(doc: str) -> argparse.ArgumentParser:
    """A parser described by the first line of ``doc`` (the script's docstring), taking the
    CoNLL-U ``file`` (:func:`treebank_file`) and ``--model``."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("file", nargs="?", help="CoNLL-U (default: en_ewt test)")
    parser.add_argument("--model", default="en")
    return parser


def treebank_file(file: str | None) -> str:
    """``file``, or en_ewt's test split (in ``$FSTPUNCT_UD_DIR``) where none is given."""
    if file:
        return file
    from fstpunct.ud.release import find_treebank  # here: once the script has set its path
    return str(find_treebank("en_ewt", "test"))
