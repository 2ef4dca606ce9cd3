"""Slot lattices kept between runs (:mod:`fstpunct.model.slotstore`): the slots read back are
bitwise those built (every array, the stacks' transposes, which are token chains), a decode
is byte-identical with the file absent, present, damaged, stale or unwritable, and a file
that is not this model's or code's, or fails its checks, is ignored and replaced."""
import io
import itertools
from pathlib import Path

import pytest
from conftest import treebank

import fstpunct
from fstpunct.apps import decode
from fstpunct.apps.decode import _slot_cache, annotate
from fstpunct.dp.chains import TokenChains
from fstpunct.dp.stacks import DenseStack
from fstpunct.model import slotstore
from fstpunct.model.slotstore import CACHE_ENV, SlotStore, cache_folder
from fstpunct.ud.treebank import read_file, write_conllu

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample.conllu"


@pytest.fixture(scope="module")
def model():
    return fstpunct.load("en").punct


@pytest.fixture(scope="module")
def sentences():
    return list(itertools.islice(treebank("en", "dev").sentences(), 600))


def decoded(model, sentences) -> str:
    out = io.StringIO()
    write_conllu(annotate(model, sentences, chunk=200), out)
    return out.getvalue()


def same_arrays(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def assert_same_slot(built, read):
    for name in ("start", "final", "token", "src", "dst", "weight"):
        assert same_arrays(getattr(built.lattice, name), getattr(read.lattice, name)), name
    assert built.lattice.maximum == read.lattice.maximum
    for name in ("closure", "possible", "entry", "built"):
        assert same_arrays(getattr(built, name), getattr(read, name)), name
    rows, again = built.sparse.rows, read.sparse.rows
    for x, y in zip((rows.indptr, rows.indices, rows.data), (again.indptr, again.indices,
                                                              again.data)):
        assert same_arrays(x, y)
    assert all(same_arrays(x, y) for x, y in zip(built.sparse.transposes,
                                                 read.sparse.transposes))
    assert type(built.stack) is type(read.stack)
    if isinstance(built.stack, TokenChains):
        assert same_arrays(built.stack.weight, read.stack.weight)
        assert same_arrays(built.stack.shape.ptr, read.stack.shape.ptr)
    if isinstance(built.stack, DenseStack):
        assert same_arrays(built.stack.mats, read.stack.mats)


def test_cache_folder(monkeypatch, tmp_path):
    monkeypatch.setenv(CACHE_ENV, "")
    assert cache_folder() is None
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    assert cache_folder() == tmp_path
    monkeypatch.delenv(CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_folder() == tmp_path / "xdg" / "fstpunct"


def test_slots_read_back_bitwise(model, sentences, monkeypatch, tmp_path):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    plain = decoded(model, sentences)
    files = list(tmp_path.glob("slots-*.bin"))
    assert len(files) == 1
    built = _slot_cache(model, True, decode.CHAINED_USES)  # the same slots built again
    for batch in (sentences[k:k + 200] for k in range(0, len(sentences), 200)):
        decode.inference_of(model, batch, built)[1].viterbi_and_log_probs()
    cache = _slot_cache(model, True, decode.CHAINED_USES, kept=True)
    store = cache.store
    assert not store.stale and store.entries()
    kinds = {False: 0, True: 0}
    for (surface, chained) in store.entries():
        read = store.slots(surface, chained)
        assert read
        for maximum, slot in read.items():
            assert_same_slot((built._chained if chained else built._slots)[surface, maximum],
                             slot)
            kinds[chained] += 1
    assert kinds[False] and kinds[True]  # stacks and token chains both
    assert decoded(model, sentences) == plain
    assert files[0].stat().st_mtime_ns == list(tmp_path.glob("slots-*.bin"))[0].stat().st_mtime_ns


def test_decode_the_same_with_or_without_the_file(model, sentences, monkeypatch, tmp_path):
    sample = list(read_file(SAMPLE))
    monkeypatch.setenv(CACHE_ENV, "")
    off, off_sample = decoded(model, sentences), decoded(model, sample)
    assert not any(tmp_path.iterdir())
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    decoded(model, sentences[:300])
    assert decoded(model, sentences) == off  # half read, half built (and written)
    assert decoded(model, sentences) == off  # all read
    assert decoded(model, sample) == off_sample


def damage(path: Path, where: float) -> None:
    data = bytearray(path.read_bytes())
    k = int(len(data) * where)
    data[k] ^= 0x40
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["array", "header", "truncated", "other", "fingerprint"])
def test_bad_files_are_ignored_and_replaced(how, model, sentences, monkeypatch, tmp_path):
    monkeypatch.setenv(CACHE_ENV, "")
    off = decoded(model, sentences)
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    decoded(model, sentences)
    (path,) = tmp_path.glob("slots-*.bin")
    good = path.read_bytes()
    if how == "array":  # a byte of the arrays: that string fails its check
        damage(path, 0.9)
    elif how == "header":
        damage(path, 0.00001)
    elif how == "truncated":
        path.write_bytes(good[:len(good) // 2])
    elif how == "other":
        path.write_text("not a slot file\n")
    else:  # the code changed: another fingerprint
        monkeypatch.setattr(slotstore, "_code_stamp", lambda: ["changed"])
    cache = _slot_cache(model, True, decode.CHAINED_USES, kept=True)
    if how != "array":
        assert cache.store.stale and not cache.store.entries()
    assert decoded(model, sentences) == off
    cache = _slot_cache(model, True, decode.CHAINED_USES, kept=True)
    assert not cache.store.stale
    assert all(cache.store.slots(*entry) for entry in cache.store.entries())
    if how == "fingerprint":
        assert path.read_bytes() != good


def test_unwritable_folder(model, sentences, monkeypatch, tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv(CACHE_ENV, str(blocked / "cache"))
    monkeypatch.setenv(CACHE_ENV, "")
    off = decoded(model, sentences[:100])
    monkeypatch.setenv(CACHE_ENV, str(blocked / "cache"))
    assert decoded(model, sentences[:100]) == off
    assert list(tmp_path.iterdir()) == [blocked]


def test_limit(model, sentences, monkeypatch, tmp_path):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(slotstore, "LIMIT", 1)
    decoded(model, sentences[:100])
    cache = _slot_cache(model, True, decode.CHAINED_USES, kept=True)
    assert len(cache.store.entries()) == 1  # the most recent string alone


def test_only_decodes_keep_slots(model, monkeypatch, tmp_path):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    assert _slot_cache(model, True).store is None
    assert isinstance(_slot_cache(model, True, kept=True).store, SlotStore)
