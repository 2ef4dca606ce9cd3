"""How long ``draw lattice`` takes for every slot of the first 50 sentences of each shared test
split (issue 21: under 5 s each), with the language's bundled model.

Per slot it times what ``fstpunct draw lattice`` does after loading the model: one sampling run
of the sentence's T′ (1000 samples), the slot's 10 most probable paths, the graph and its
rendering to SVG by ``dot``. The sampling run is shared by the sentence's slots here (the
command repeats it per call), so each slot is charged the whole run: ``slot`` = sampling +
paths + graph + rendering, the command's time less start-up and model loading (``load``).
Writes one TSV row per language to stdout: sentences, slots, median / 95th percentile / max
slot seconds, slots over 5 s, model load seconds, and the slot of the maximum.

    nice -n 10 .venv/bin/python scripts/lattice_times.py > results/lattice_times.tsv
"""
from __future__ import annotations

import argparse
import itertools
import sys
import time

import numpy as np

from fstpunct.model.punct import Inference
from fstpunct.model.store import BUNDLED, load_model
from fstpunct.show.lattice import paths_graph, sample_slots, slot_paths
from fstpunct.ud.release import LANGUAGES, split_source
from fstpunct.ud.slots import to_slots


def language_times(lang: str, sentences: int, ud_dir: str | None) -> list[str]:
    start = time.perf_counter()
    model = load_model(lang)
    load = time.perf_counter() - start
    times: list[float] = []
    worst = ""
    source = split_source(lang, "test", ud_dir)
    for k, sent in enumerate(itertools.islice(source.sentences(), sentences), 1):
        start = time.perf_counter()
        slots = to_slots(sent)
        inference = Inference(model, model.prepare([slots]))
        sampled = sample_slots(inference, 0)
        shared = time.perf_counter() - start
        for i in range(slots.n + 1):
            start = time.perf_counter()
            paths = slot_paths(inference, 0, i, 10, sampled[i])
            paths_graph(inference.builder, inference.weights, paths, f"slot {i}").pipe(
                format="svg")
            times.append(shared + time.perf_counter() - start)
            if times[-1] == max(times):
                worst = f"{sent.sent_id or k}:{i}"
    t = np.array(times)
    return [lang, str(min(sentences, k)), str(len(t)), f"{np.median(t):.2f}",
            f"{np.percentile(t, 95):.2f}", f"{t.max():.2f}", str(int((t >= 5).sum())),
            f"{load:.2f}", worst]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=50)
    parser.add_argument("--ud-dir")
    parser.add_argument("--langs", nargs="+", default=list(LANGUAGES))
    args = parser.parse_args()
    print("\t".join(["lang", "sentences", "slots", "median_s", "p95_s", "max_s", "over_5s",
                     "load_s", "max_at"]), flush=True)
    for lang in args.langs:
        if not (BUNDLED / lang / "model.json").is_file():
            print(f"{lang}: no bundled model, skipped", file=sys.stderr)
            continue
        print("\t".join(language_times(lang, args.sentences, args.ud_dir)), flush=True)


if __name__ == "__main__":
    main()
