"""The faster parts of a decode against their readable references: the candidate arrays of an
Inference (``candidate_arrays`` against the numpy passes), on random models (tilted or not,
slots holding random punctemes so that candidates are dropped) and on the bundled English
model over en_ewt dev; a channel's scan arcs as arrays (``Channel.arc_table`` against
``Channel.arcs``)."""
import gc
import itertools
from pathlib import Path

import numpy as np
import pytest
from conftest import treebank
from hypothesis import given, settings
from hypothesis import strategies as st
from test_model import corpora, make_model

import fstpunct
from fstpunct.fst.channel import END, Channel
from fstpunct.model.punct import Inference, SlotCache, _node_spans
from fstpunct.ud.slots import to_slots

SAMPLE = Path(__file__).parents[1] / "data" / "sample.conllu"


def assert_same_candidates(inference: Inference, slots_of: dict) -> None:
    """Compiled and reference candidate arrays of every node of the batch, bit for bit."""
    batch = inference.batch
    surfaces = tuple(dict.fromkeys(x for surface in batch.surfaces for x in surface))
    index = {x: k for k, x in enumerate(surfaces)}
    ends = np.array([[index[batch.surfaces[s][i]], index[batch.surfaces[s][k]]]
                     for s in range(len(batch))
                     for i, k in _node_spans(batch.sentences[s])], dtype=np.intp).reshape(-1, 2)
    slots = [slots_of[x] for x in surfaces]
    for part in (range(batch.data.n_nodes), range(batch.data.n_nodes // 2, batch.data.n_nodes)):
        got = inference._candidate_arrays(part, ends[part.start:part.stop], slots)
        want = inference._candidate_arrays_reference(part, ends[part.start:part.stop], slots)
        for a, b in zip(got, want):
            assert a.dtype == np.intp or a.dtype == b.dtype
            assert a.tobytes() == b.astype(a.dtype).tobytes()


@settings(max_examples=40, deadline=None)
@given(corpora(), st.sampled_from(["ltr", "rtl"]), st.integers(0, 10**6),
       st.sampled_from([0.0, 0.7, float("inf")]), st.sampled_from([0.0, 0.3]))
def test_candidate_arrays_match_the_numpy_passes(sentences, direction, seed, tilt, share):
    if not sentences:
        return
    model = make_model(sentences, direction, seed)
    cache = SlotCache(model, subset=True)
    inference = Inference(model, model.prepare(sentences), tilt, slots=cache)
    rng = np.random.default_rng(seed)
    width = len(model.vocab.punctemes)
    slots_of = {x: cache.get(x, False, rng.random(width) < share if share else None)
                for x in {x for surface in inference.batch.surfaces for x in surface}}
    assert_same_candidates(inference, slots_of)


def test_candidate_arrays_on_en_dev():
    model = fstpunct.load("en").punct
    sentences = [to_slots(s) for s in itertools.islice(treebank("en", "dev").sentences(),
                                                       120)]
    cache = SlotCache(model, paired=True, subset=True)
    inference = Inference(model, model.prepare(sentences), slots=cache)
    inference.forest(True)  # the slots as decoding builds them
    layout = inference._layout_cache
    assert_same_candidates(inference, dict(zip(layout.surfaces, layout.found.slots)))


def arcs_as_table(channel: Channel) -> list[tuple[int, ...]]:
    """:meth:`Channel.arcs` as rows of :class:`ArcTable` (symbol indices, −1 for none)."""
    index = {s: k for k, s in enumerate(channel.symbols)}
    return [(a.src, a.dst, -1 if a.ilabel == END else index[a.ilabel],
             -1 if a.olabel is None else index[a.olabel], *(a.param or (-1, -1, -1)))
            for a in channel.arcs()]


@pytest.mark.parametrize("direction", ["ltr", "rtl"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_arc_table_is_arcs(direction, seed):
    rng = np.random.default_rng(seed)
    symbols = ["∘", "<abbv>", "<unk>", ",", ".", "“", "”"][:3 + seed * 2]
    channel = Channel.random(symbols, direction, rng)
    phi = channel.phi * (rng.random(channel.phi.shape) < 0.6)  # some edits impossible
    phi[..., 0] += channel.mask[..., 0] * (phi.sum(axis=2) == 0)  # every pair keeps a way out
    for c in (channel, Channel(symbols, direction, phi / phi.sum(axis=2, keepdims=True))):
        table = c.arc_table()
        assert np.column_stack([table.src, table.dst, table.ilabel, table.olabel,
                                table.param]).tolist() == [list(a) for a in arcs_as_table(c)]


@pytest.mark.parametrize("lang", ["en", "ar", "zh"])
def test_arc_table_of_bundled_channels(lang):
    channel = fstpunct.load(lang).punct.channel
    table = channel.arc_table()
    assert np.column_stack([table.src, table.dst, table.ilabel, table.olabel,
                            table.param]).tolist() == [list(a) for a in arcs_as_table(channel)]


@pytest.mark.parametrize("mode", ["conllu", "posteriors", "text"])
def test_decoding_makes_no_reference_cycles_per_sentence(mode):
    """``fstpunct decode`` runs with the cycle collector off (cli/decode.py): what cyclic garbage
    a decode leaves must not grow with the input (CoNLL-U with trees leaves none), or memory
    would."""
    model = fstpunct.load("en")
    sentences = list(itertools.islice(treebank("en", "dev").sentences(), 90))
    data = [" ".join(w.form for w in s.words) for s in sentences] if mode == "text" \
        else sentences

    def garbage(n: int) -> int:
        gc.collect()
        gc.disable()
        try:
            list(model.decode(data[:n], posteriors=3 if mode == "posteriors" else 0,
                              text=mode == "text", format="conllu"))
            return gc.collect()
        finally:
            gc.enable()

    garbage(5)  # caches filled
    assert garbage(30) == garbage(90)
    if mode != "text":
        assert garbage(90) == 0


@pytest.mark.parametrize("good", [True, False])
def test_decode_command_restores_the_cycle_collector(tmp_path, good):
    """``fstpunct decode`` turns the collector off and freezes the model for its run only: a
    caller in the same process finds it on and nothing frozen afterwards, after a run that
    failed midway on bad input too."""
    from fstpunct.cli.main import main

    text = SAMPLE.read_text(encoding="utf-8")
    if not good:  # a sentence near the end with a word whose HEAD is out of range
        lines = text.rstrip("\n").split("\n")
        last = max(k for k, line in enumerate(lines) if line[:1].isdigit())
        fields = lines[last].split("\t")
        fields[6] = "99"
        lines[last] = "\t".join(fields)
        text = "\n".join(lines) + "\n\n"
    source = tmp_path / "in.conllu"
    source.write_text(text, encoding="utf-8")
    assert gc.isenabled() and gc.get_freeze_count() == 0
    status = main(["decode", "--model", "en", str(source), "-o", str(tmp_path / "out.conllu")])
    assert status == (0 if good else 2)
    assert gc.isenabled() and gc.get_freeze_count() == 0
