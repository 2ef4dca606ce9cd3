"""Where the slot stage of a decode spends its time and memory (issue 23): CPU seconds
(``time.process_time``) and minor page faults (``getrusage``'s ``ru_minflt``: first touches
of memory) of each part, in one process, as ``fstpunct decode`` runs it on en_ewt test
(:func:`fstpunct.apps.decode.annotate`: chunks of 500 sentences, one slot cache of sum and max
slots holding the punctemes the candidates need, token chains for rare strings, the heap
settled and the collector frozen and off, as the command runs).

Parts are inclusive; indented ones run inside the part above them: looking slots up (building
a surface string's slots — its topology, the compiled composition and the final state dropped,
weighting it, the closures, the product stacks, the token chains, the slots themselves — and
extending a slot's stacks: its own product stacks, charged there, and the stacks merged), the
rest of each chunk's forest (its layout with the candidates, the kernels' stacks and their
transposes). Usage: python bench/slot_profile.py [--model M] [FILE]
"""
from __future__ import annotations

import gc
import os
import resource
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.options import file_and_model, treebank_file  # noqa: E402
from fstpunct.api import load  # noqa: E402
from fstpunct.apps import decode  # noqa: E402
from fstpunct.dp import chains, stacks  # noqa: E402
from fstpunct.dp import forest as dp_forest  # noqa: E402
from fstpunct.fst import lattice  # noqa: E402
from fstpunct.model import punct  # noqa: E402
from fstpunct.ud.treebank import read_file  # noqa: E402

SECONDS: Counter[str] = Counter()
FAULTS: Counter[str] = Counter()
CALLS: Counter[str] = Counter()
RUNNING: Counter[str] = Counter()  # the parts running now (calls in progress of each)

BUILD, EXTEND = "  build a string's slots", "  extend a slot's stacks"

PARTS = ((punct.SlotCache, "get", "slot lookups"),
         (punct.SlotCache, "_build", BUILD),
         (lattice.LatticeBuilder, "lattices", "    lattices"),
         (lattice.LatticeBuilder, "_compose", "      topology"),
         (lattice._compose, "compose_linear", "        composition (compiled)"),
         (lattice._compose, "without_final", "        final state dropped (compiled)"),
         (lattice._sparse, "combine_arcs", "      arcs combined (compiled)"),
         (punct.SlotCache, "_closure", "    closures"),
         (lattice.Lattice, "backoff_arcs", "      rate·A"),
         (lattice._sparse, "max_star", "      max: Floyd–Warshall (compiled)"),
         (lattice._sparse, "strong_components", "      sum: components (compiled)"),
         (punct, "product_stacks", "    product stacks", BUILD),
         (lattice._sparse, "string_products", "      string products (compiled)",
          "    product stacks"),
         (chains.ChainShape, "__init__", "    token chains' shapes"),
         (punct.SlotCache, "_slot", "    slots"),
         (punct.SlotCache, "_extend", EXTEND),
         (punct, "product_stacks", "    its product stacks", EXTEND),
         (lattice._sparse, "string_products", "      its string products (compiled)",
          "    its product stacks"),
         (punct, "merged", "    stacks merged"),
         (punct.Inference, "forest", "chunks' forests (with the lookups)"),
         (punct.Inference, "_candidate_arrays", "  candidates (compiled)"),
         (dp_forest.KernelStack, "of", "  kernels' stacks"),
         (stacks._Transposes, "transposes", "    transposes"))


def charged(owner: object, name: str, label: str, within: str | None = None) -> None:
    """Charge the CPU time and faults of ``owner.name`` to ``label`` (inclusive; only its calls
    made inside part ``within``, if given: a function called by two parts is listed under each;
    nothing where the tree run has no such function: an older tree, for comparisons)."""
    function: Callable | None = getattr(owner, name, None)
    if function is None:
        return

    def run(*args, **kwargs):
        if within is not None and not RUNNING[within]:
            return function(*args, **kwargs)
        RUNNING[label] += 1
        start, faults = time.process_time(), resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        try:
            return function(*args, **kwargs)
        finally:
            SECONDS[label] += time.process_time() - start
            FAULTS[label] += resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
            CALLS[label] += 1
            RUNNING[label] -= 1

    setattr(owner, name, run)


def main() -> None:
    args = file_and_model(__doc__).parse_args()
    path = treebank_file(args.file)
    for owner, name, label, *within in PARTS:
        charged(owner, name, label, *within)
    try:  # as the command does (a tree from before fstpunct.parallel.heap: as it ran)
        from fstpunct.parallel.heap import settle
        settle()
    except ImportError:
        pass
    model = load(args.model).punct
    gc.freeze()
    gc.disable()
    start, faults = time.process_time(), resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in decode.annotate(model, read_file(path)):
        pass
    spent = time.process_time() - start
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    print(f"load average {os.getloadavg()[0]:.1f}; decode's chunks in all (reading to MISC "
          f"items) {spent:.3f} s, {faults:,} faults; per part: CPU seconds, minor faults, calls")
    for _, _, label, *_ in PARTS:
        if CALLS[label]:
            print(f"  {label:42s} {SECONDS[label]:6.3f} s {FAULTS[label]:7,} {CALLS[label]:5}")
        else:
            print(f"  {label:42s}      — (not in this tree, or not called)")


if __name__ == "__main__":
    main()
