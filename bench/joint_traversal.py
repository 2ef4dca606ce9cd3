"""What decode's one compiled traversal (Viterbi and the inside pass together,
:func:`fstpunct.dp.forest.viterbi_and_log_partition`) costs against each pass alone (issue 23):
CPU seconds (``time.process_time``, the least of ``--repeat`` runs per chunk, summed over the
chunks) over the forests of en_ewt test as ``fstpunct decode`` builds them (chunks of 500
sentences, one slot cache with token chains for rare strings), and whether each pass alone
gives the joint traversal's values bit for bit (Viterbi's choices, scores and statuses, the
inside pass's log Z and statuses; compared on the timed runs' own results, each pass's last).
The inside pass gives each sentence's ``# punct_logprob`` (log p(x | T), a sum over every T′),
so decode needs it beside Viterbi.
Usage: python bench/joint_traversal.py [--model M] [--repeat K] [FILE]
"""
from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from bench.options import file_and_model, treebank_file  # noqa: E402
from fstpunct.api import load  # noqa: E402
from fstpunct.apps.decode import CHAINED_USES, chunk_inference  # noqa: E402
from fstpunct.cli.arguments import positive  # noqa: E402
from fstpunct.dp import _forest  # noqa: E402
from fstpunct.dp.forest import Forest  # noqa: E402
from fstpunct.ud.treebank import read_file  # noqa: E402


def least(run: Callable[[], tuple], repeat: int) -> tuple[float, tuple]:
    """The least CPU seconds of ``repeat`` calls of ``run``, and the last call's result."""
    spent = []
    for _ in range(repeat):
        start = time.process_time()
        out = run()
        spent.append(time.process_time() - start)
    return min(spent), out


def passes(total: Forest, best: Forest) -> dict[str, Callable[[], tuple]]:
    """The three compiled runs over a chunk's real-semiring and max-product forests."""
    sums, maxima = (list(total.stacks), list(total.vectors)), (list(best.stacks),
                                                                list(best.vectors))
    return {"joint": partial(_forest.run_pair, total, *sums, *maxima),
            "Viterbi alone": partial(_forest.run, best, *maxima, True, True),
            "inside alone": partial(_forest.run, total, *sums, False, False)}


def main() -> None:
    parser = file_and_model(__doc__)
    parser.add_argument("--repeat", type=positive, default=7)
    args = parser.parse_args()
    path = treebank_file(args.file)
    model = load(args.model).punct
    spent = {"joint": 0.0, "Viterbi alone": 0.0, "inside alone": 0.0}
    same = True
    for _, _, inference in chunk_inference(model, read_file(path), chains=CHAINED_USES):
        best, _, _ = inference.forest(True)
        total, _, _ = inference.forest(False)
        outs = {}
        for name, run in passes(total, best).items():
            seconds, outs[name] = least(run, args.repeat)
            spent[name] += seconds
        joint, alone, inside = outs["joint"], outs["Viterbi alone"], outs["inside alone"]
        same &= (joint[4].tobytes() == alone[2].tobytes()
                 and joint[2].tobytes() == alone[0].tobytes() and bool(np.all(joint[3] == alone[1]))
                 and joint[0].tobytes() == inside[0].tobytes()
                 and bool(np.all(joint[1] == inside[1])))
    print(f"load average {os.getloadavg()[0]:.1f}; CPU seconds, least of {args.repeat} runs "
          "per chunk, summed:")
    for name, seconds in spent.items():
        print(f"  {name:14s} {seconds:.4f} s")
    print(f"  the inside pass adds {spent['joint'] - spent['Viterbi alone']:.4f} s to Viterbi; "
          f"each pass alone gives the joint values bitwise: {same}")


if __name__ == "__main__":
    main()
