"""One Attach M-step on en_ewt train from fixed expected counts, for paired A/B timings and for
checking that θ is bitwise unchanged by an exact speed-up (and by the number of threads).

``prepare COUNTS.npz``: the initial model of ``fstpunct train --lang en`` and one E-step on 2
local workers; saves θ₀, the prior's centre, the expected Attach counts, the E-step's log Z and
its expected channel-arc counts.
``fit COUNTS.npz THETA.npy [ITERATIONS [THREADS]]``: featurises en_ewt train again
(deterministic), runs :func:`fstpunct.model.mstep.fit` (at most ITERATIONS L-BFGS iterations,
default ``fstpunct train``'s, on THREADS threads, default 2) from the saved θ₀ and counts,
saves θ (compare two with ``cmp``) and prints the M-step's wall and CPU seconds and its
objective evaluations as JSON.
``same A B``: whether two such files (``.npz`` or ``.npy``) hold the same arrays bit for bit
(prints their names, an ``.npy``'s "array"; exit 1 if not): with ``prepare`` and ``fit``, one
EM iteration's log-likelihood, expected counts and θ compared across two builds.
Wrong arguments, or a file that cannot be read or written: one line on stderr, exit 2.

Run: FSTPUNCT_UD_DIR=/work/shared/ud .venv/bin/python bench/mstep_bench.py prepare|fit|same ...
"""
from __future__ import annotations

import inspect
import json
import os
import sys
import time
from pathlib import Path
from zipfile import BadZipFile

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the CLI sets it, before numpy loads BLAS

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fstpunct.errors import FstpunctError
from fstpunct.fst.grammar import load_grammar
from fstpunct.model import mstep
from fstpunct.model.attach import AttachData
from fstpunct.model.punct import Settings
from fstpunct.model.train import ATTACH_ITERATIONS, initial_model
from fstpunct.ud.release import split_source
from fstpunct.ud.slots import to_slots


def _model():
    sents = [s for s in map(to_slots, split_source("en", "train").sentences()) if s.trainable]
    grammar = load_grammar(Path(__file__).resolve().parents[1] / "grammars" / "en.rules")
    return sents, initial_model(sents, grammar, "nunberg", None, Settings())


def prepare(out: str) -> None:
    from fstpunct.model.train import expected_counts, share_batch
    from fstpunct.parallel import LocalPool

    sents, model = _model()
    batch = model.prepare(sents)
    with LocalPool(2) as pool:
        share_batch(pool, batch, model)
        counts = expected_counts(pool, model, batch)
    np.savez(out, theta=model.theta, targets=counts.targets,
             center=model.attach.init_theta(model.settings.token_cost), log_z=counts.log_z,
             arc_counts=counts.arc_counts)


def fit(counts: str, out: str, iterations: str = str(ATTACH_ITERATIONS), threads: str = "2"
        ) -> None:
    saved = _arrays(counts)
    if not {"theta", "targets", "center"} <= saved.keys():
        raise Unreadable(f"{counts}: not a file of prepare (no theta, targets or center)")
    theta0, targets, center = saved["theta"], saved["targets"], saved["center"]
    sents, model = _model()
    data = AttachData.build(model.attach, sents)
    evaluations = []
    start, cpu = time.perf_counter(), time.process_time()
    theta = mstep.fit(theta0, data, targets, model.settings.l2, int(iterations), center,
                      int(threads), evaluations.append)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    np.save(out, theta)
    print(json.dumps({"m_step": round(seconds, 3), "cpu": round(cpu, 3),
                      "evaluations": len(evaluations), "threads": int(threads),
                      "weights": len(theta)}))


class Unreadable(Exception):
    """A file that is not numpy's, or not the one a command needs."""


def _arrays(path: str) -> dict[str, np.ndarray]:
    """The arrays a saved file holds: an .npz's by name, an .npy's as "array"."""
    try:
        loaded = np.load(path)  # not numpy's (pickled objects, text): ValueError
        if not isinstance(loaded, np.lib.npyio.NpzFile):
            return {"array": loaded}
        with loaded:
            return dict(loaded)
    except (ValueError, BadZipFile) as err:
        raise Unreadable(f"{path}: {err}") from None


def same(a: str, b: str) -> int:
    first, second = _arrays(a), _arrays(b)
    differ = sorted(name for name in first.keys() | second.keys()
                    if name not in first or name not in second
                    or first[name].dtype != second[name].dtype
                    or first[name].shape != second[name].shape
                    or first[name].tobytes() != second[name].tobytes())
    print(f"differ: {', '.join(differ)}" if differ else
          f"bitwise equal: {', '.join(sorted(first))}")
    return 1 if differ else 0


COMMANDS = {"prepare": prepare, "fit": fit, "same": same}
USAGE = ("usage: mstep_bench.py prepare COUNTS.npz | fit COUNTS.npz THETA.npy [ITERATIONS "
         "[THREADS]] | same A B")


def _fits(command, args: list[str]) -> bool:
    """Whether ``args`` are the right number of arguments for ``command`` (fit's counts
    digits)."""
    try:
        inspect.signature(command).bind(*args)
    except TypeError:
        return False
    return command is not fit or all(x.isdigit() for x in args[2:])


def main(argv: list[str]) -> int:
    """Run the command of ``argv``; its exit status (``same``: 1 if the files differ). Wrong
    arguments or a file that cannot be read or written: one line on stderr, 2."""
    command = COMMANDS.get(argv[0]) if argv else None
    if command is None or not _fits(command, argv[1:]):
        print(USAGE, file=sys.stderr)
        return 2
    try:
        return command(*argv[1:]) or 0
    except (OSError, Unreadable, FstpunctError) as err:  # unreadable, not numpy's or prepare's
        print(f"mstep_bench.py: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
