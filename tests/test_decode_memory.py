"""What a decode keeps in memory for the rest of its run (issue 23: a decode's page faults follow
the memory it holds): its slot cache keeps no dense closures beside the stacks, and the model's
language check does not keep the first sentences once it has looked at them."""
import gc
import itertools
import weakref

import fstpunct
import fstpunct.api.model as api_model
from fstpunct.apps.decode import chunk_inference
from fstpunct.ud.release import split_source


def test_decode_keeps_no_dense_closures():
    model = fstpunct.load("en").punct
    sentences = itertools.islice(split_source("en", "dev").sentences(), 40)
    for _, _, inference in chunk_inference(model, sentences, 20):
        inference.viterbi_all()
        inference.log_probs()
    slots = list(inference.slots._slots.values())
    assert slots and all(slot.closure is None for slot in slots)


def test_the_language_check_does_not_keep_the_sentences(monkeypatch):
    monkeypatch.setattr(api_model, "_WATCHED", 3)
    model = fstpunct.load("en")
    refs = []

    def sentences():  # handed out one by one, kept by nothing but the check
        for sent in itertools.islice(split_source("en", "dev").sentences(), 6):
            refs.append(weakref.ref(sent))
            yield sent

    for k, sent in enumerate(model._watched(sentences())):
        del sent
        gc.collect()
        if k >= 2:  # checked once the third has come; the k-th is still the generator's
            assert all(r() is None for r in refs[:k]), k
    assert k == 5
