"""Where the slot lattices and stacks of a decode spend their time (issue 23): CPU seconds
(``time.process_time``) of each part, in one process, as ``fstpunct decode`` builds them for
en_ewt test (chunks of 500 sentences, one cache of sum and max slots holding the punctemes the
candidates need, extended when a later chunk needs more).

Parts (nested ones indented): building a surface string's slots — its topology (the compiled
composition), weighting it, the closures, the string products — and extending a slot's stacks
(the new products, concatenating them with the old); the kernels' transposes wherever they are
built. Usage: python bench/slot_profile.py [--model M] [FILE]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fstpunct.api import load  # noqa: E402
from fstpunct.dp import stacks  # noqa: E402
from fstpunct.fst import lattice  # noqa: E402
from fstpunct.model import punct  # noqa: E402
from fstpunct.ud.release import find_treebank  # noqa: E402
from fstpunct.ud.slots import to_slots  # noqa: E402
from fstpunct.ud.treebank import batches, read_file  # noqa: E402

SPENT: Counter[str] = Counter()


def timed(owner: object, name: str, label: str) -> None:
    """Charge the CPU time of ``owner.name`` to ``label``."""
    method: Callable = getattr(owner, name)

    def run(*args, **kwargs):
        start = time.process_time()
        try:
            return method(*args, **kwargs)
        finally:
            SPENT[label] += time.process_time() - start

    setattr(owner, name, run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file", nargs="?", help="CoNLL-U (default: en_ewt test)")
    parser.add_argument("--model", default="en")
    args = parser.parse_args()
    path = args.file or str(find_treebank("en_ewt", "test"))
    parts = ((punct.SlotCache, "_build", "build slots"),
             (lattice.LatticeBuilder, "lattices", "  weighting (with the topology)"),
             (lattice.LatticeBuilder, "_compose", "    topology (composition)"),
             (lattice.Lattice, "closure", "  closures"),
             (punct.SlotCache, "_extend", "extend slots"),
             (punct, "merged", "  concatenating"),
             (lattice, "_string_products", "string products (building and extending)"),
             (stacks._Transposes, "transposes", "kernels' transposes"))
    for owner, name, label in parts:
        timed(owner, name, label)
    model = load(args.model).punct
    cache = punct.SlotCache(model, paired=True, subset=True)
    inferences = [punct.Inference(model, model.prepare([to_slots(s) for s in chunk]),
                                  slots=cache) for chunk in batches(read_file(path), 500)]
    start = time.process_time()
    for inference in inferences:
        for maximum in (True, False):
            inference.forest(maximum)
    SPENT["forests of every chunk, in all"] = time.process_time() - start
    print(f"load average {os.getloadavg()[0]:.1f}; CPU seconds, "
          f"{len({x for x, _ in cache._slots})} distinct slot strings")
    for label in [label for *_, label in parts] + ["forests of every chunk, in all"]:
        print(f"  {label:42s} {SPENT[label]:6.3f} s")


if __name__ == "__main__":
    main()
