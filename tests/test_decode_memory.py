"""What a decode keeps in memory for the rest of its run (issue 23: a decode's page faults follow
the memory it holds): its slot cache keeps no dense closures beside the stacks, and the model's
language check does not keep the first sentences once it has looked at them."""
import gc
import itertools
import os
import subprocess
import sys
import weakref
from pathlib import Path

import pytest
from conftest import treebank

import fstpunct
import fstpunct.api.model as api_model
from fstpunct.apps.decode import chunk_inference

SAMPLE = Path(__file__).parents[1] / "data" / "sample.conllu"


def test_decode_keeps_no_dense_closures():
    model = fstpunct.load("en").punct
    sentences = itertools.islice(treebank("en", "dev").sentences(), 40)
    for _, _, inference in chunk_inference(model, sentences, 20):
        inference.viterbi_all()
        inference.log_probs()
    slots = list(inference.slots._slots.values())
    assert slots and all(slot.closure is None for slot in slots)


def test_the_language_check_does_not_keep_the_sentences(monkeypatch):
    monkeypatch.setattr(api_model, "_WATCHED", 3)
    model = fstpunct.load("en")
    dev = treebank("en", "dev")
    refs = []

    def sentences():  # handed out one by one, kept by nothing but the check
        for sent in itertools.islice(dev.sentences(), 6):
            refs.append(weakref.ref(sent))
            yield sent

    for k, sent in enumerate(model._watched(sentences())):
        del sent
        gc.collect()
        if k >= 2:  # checked once the third has come; the k-th is still the generator's
            assert all(r() is None for r in refs[:k]), k
    assert k == 5


@pytest.mark.parametrize("run", ["annotate", "scored"])
def test_a_chunk_is_not_kept_while_the_next_is_built(run, monkeypatch):
    """When a chunk's Inference is made, no earlier chunk's is alive (decode and perplexity)."""
    import fstpunct.apps.decode as decode
    made: list[weakref.ref] = []
    alive: list[int] = []

    def recorded(*args, **kwargs):
        alive.append(sum(r() is not None for r in made))
        inference = decode_inference(*args, **kwargs)
        made.append(weakref.ref(inference))
        return inference

    decode_inference = decode.Inference
    monkeypatch.setattr(decode, "Inference", recorded)
    model = fstpunct.load("en").punct
    sentences = itertools.islice(treebank("en", "dev").sentences(), 30)
    gc.disable()  # as the command runs: freed by reference counts alone, not by a collection
    try:
        assert len(list(getattr(decode, run)(model, sentences, chunk=10))) == 30
    finally:
        gc.enable()
    assert alive == [0, 0, 0]


def test_token_chains_keep_no_copies_of_their_lattices_arcs():
    model = fstpunct.load("en").punct
    sentences = itertools.islice(treebank("en", "dev").sentences(), 40)
    for _, _, inference in chunk_inference(model, sentences, 40, chains=8):
        inference.viterbi_and_log_probs()
    chained = list(inference.slots._chained.values())
    assert chained
    for slot in chained:
        shape, lat = slot.stack.shape, slot.lattice
        assert shape.col is lat.dst and all(
            kept is arcs for kept, arcs in zip(shape._arcs, (lat.token, lat.src, lat.dst)))


_GROWING_BLOCKS = """
import resource, sys
import numpy as np
from fstpunct.parallel.heap import settle
if sys.argv[1] == "settled":
    settle()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for k in range(32):  # each block a little larger than the last one freed (as chunks' arrays)
    np.ones((1 << 17) + 4096 * k)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
@pytest.mark.parametrize("environment", [
    {}, {"MALLOC_TRIM_THRESHOLD_": "65536"}, {"MALLOC_TOP_PAD_": "131072"},
    {"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072"}])
def test_settled_heap_reuses_freed_blocks(environment):
    """With glibc's adaptive thresholds every block larger than the last one freed is mapped
    afresh and faults all its pages (~256 per 1 MiB block); settled (as ``fstpunct decode``
    runs), a freed block is reused; thresholds the environment fixed are left as they are."""
    def faults(mode: str) -> int:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
        run = subprocess.run([sys.executable, "-c", _GROWING_BLOCKS, mode], check=True,
                             capture_output=True, text=True, env={**env, **environment})
        return int(run.stdout)

    plain, settled = faults("plain"), faults("settled")
    assert plain > 32 * 200
    assert (settled > 32 * 200) if environment else (settled < plain / 4)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_the_environment_fixes_the_thresholds_by_any_malloc_variable_or_tunable(monkeypatch):
    """Any of the thresholds, the top pad or the mapped blocks' maximum, as a variable or as a
    tunable, turns the adaptive thresholds off; the thresholds put back are the tunables'."""
    from fstpunct.parallel import heap

    for name in (*heap.FIXING, "GLIBC_TUNABLES"):
        monkeypatch.delenv(name, raising=False)
    assert not heap.fixed_thresholds()
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.rtld.nns=2")
    assert not heap.fixed_thresholds()
    for name in (*heap.FIXING, *heap.FIXING_TUNABLES):
        with monkeypatch.context() as m:
            if name.startswith("glibc."):
                m.setenv("GLIBC_TUNABLES", f"glibc.rtld.nns=2:{name}=65536")
            else:
                m.setenv(name, "65536")
            assert heap.fixed_thresholds(), name
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.malloc.trim_threshold=65536")
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "262144")
    assert heap.environment_thresholds() == {heap.M_TRIM_THRESHOLD: 65536,
                                             heap.M_MMAP_THRESHOLD: 262144}
    # glibc reads sizes in base 0 (strtoul): hexadecimal and octal too; a value not parsed
    # whole is taken as glibc's default (an approximation: glibc may read its leading digits)
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.malloc.trim_threshold=0x10000")
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "0400000")
    assert heap.environment_thresholds() == {heap.M_TRIM_THRESHOLD: 65536,
                                             heap.M_MMAP_THRESHOLD: 131072}
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "lots")
    assert heap.environment_thresholds()[heap.M_MMAP_THRESHOLD] == heap.GLIBC_DEFAULTS[
        heap.M_MMAP_THRESHOLD]


_SETTLING = """
import sys
import fstpunct
from fstpunct.parallel import heap
heap.mallopt = lambda settings: print("settled", flush=True)  # what settle() would set
out = sys.argv[1]
fstpunct.load("en").decode(open(sys.argv[2]).read())  # the library
from fstpunct.cli.main import console, main
main(["decode", "--model", "en", sys.argv[2], "-o", out, "--quiet"])  # main() from Python
print("then the console script", flush=True)
sys.argv = ["fstpunct", "decode", "--model", "en", sys.argv[2], "-o", out, "--quiet"]
sys.exit(console())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
def test_only_the_decode_console_script_settles_the_heap(tmp_path):
    """The setting lasts for the process: the library and :func:`fstpunct.cli.main.main` (which
    a Python program may call and go on) leave the heap alone; the console script settles it
    for ``fstpunct decode``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    run = subprocess.run([sys.executable, "-c", _SETTLING, str(tmp_path / "out.conllu"),
                          str(SAMPLE)], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["then the console script", "settled"]


def test_the_decode_console_script_collects_no_garbage_until_main_returns(monkeypatch):
    """The console script keeps the cyclic collector off while ``fstpunct decode``'s
    :func:`~fstpunct.cli.main.main` runs (its imports and the model's loading), not for other
    commands, and turns it back on when main returns."""
    from fstpunct.cli import main as cli
    from fstpunct.parallel import heap
    seen = []
    monkeypatch.setattr(heap, "settle", lambda: None)  # the process's heap left alone
    monkeypatch.setattr(cli, "main", lambda: seen.append(gc.isenabled()) or 1)  # 1: no os._exit
    for command in ("decode", "stats"):
        monkeypatch.setattr(sys, "argv", ["fstpunct", command])
        assert cli.console() == 1 and gc.isenabled()
    assert seen == [False, True]
