"""Hand-made learner/corrected pairs for the correction tests (invented English sentences):
learners who leave out the commas of a relative clause. conftest.py's ``hand_corrector`` is
trained on :func:`learner_pairs`."""
from __future__ import annotations

from fstpunct.fst.grammar import load_grammar
from fstpunct.model.punct import PunctModel, Settings
from fstpunct.model.train import em, initial_model
from fstpunct.ud.slots import SlotSentence, to_slots
from fstpunct.ud.treebank import Sentence, read_conllu

GRAMMAR = "grammars/en.rules"

# (form, head, deprel); punctuation has deprel punct
RELATIVE = [("Peter", 6, "nsubj"), (",", 4, "punct"), ("who", 4, "nsubj"),
            ("runs", 1, "acl:relcl"), (",", 4, "punct"), ("is", 0, "root"),
            ("here", 6, "advmod"), (".", 6, "punct")]
PLAIN = [("We", 2, "nsubj"), ("left", 0, "root"), ("early", 2, "advmod"), (".", 2, "punct")]


def conll(rows: list[tuple[str, int, str]], sent_id: str, drop: tuple[int, ...] = ()
          ) -> str:
    """CoNLL-U of ``rows`` without the tokens at positions ``drop`` (heads renumbered)."""
    keep = [k for k in range(len(rows)) if k not in drop]
    new = {k + 1: j for j, k in enumerate(keep, 1)}
    lines = [f"# sent_id = {sent_id}", "# text = " + " ".join(rows[k][0] for k in keep)]
    for j, k in enumerate(keep, 1):
        form, head, rel = rows[k]
        upos = "PUNCT" if rel == "punct" else "PRON" if form in ("who", "We") else "NOUN"
        lines.append("\t".join([str(j), form, "_", upos, "_", "_", str(new.get(head, 0)),
                                rel, "_", "_"]))
    return "\n".join(lines) + "\n\n"


def sentences(text: str) -> list[Sentence]:
    """The sentences of CoNLL-U ``text``."""
    return list(read_conllu(text.splitlines(keepends=True)))


def bare(sent: Sentence) -> str:
    """The sentence's CoNLL-U without jackknife's fold comments."""
    return "".join(line for line in sent.text().splitlines(keepends=True)
                   if not line.startswith(("# jackknife_fold", "# jackknife_outer_fold")))


def learner_pairs(copies: int
                  ) -> tuple[PunctModel, list[SlotSentence], list[SlotSentence]]:
    """Learners who leave out the commas of a relative clause, and their corrections:
    ``copies`` relative and plain sentences each, and a learner model (2 EM iterations) on
    the learners' side."""
    learner_text = "".join(conll(RELATIVE, f"r{k}", drop=(1, 4)) for k in range(copies))
    learner_text += "".join(conll(PLAIN, f"p{k}") for k in range(copies))
    gold_text = "".join(conll(RELATIVE, f"r{k}") for k in range(copies))
    gold_text += "".join(conll(PLAIN, f"p{k}") for k in range(copies))
    originals = [to_slots(s) for s in sentences(learner_text)]
    fixed = [to_slots(s) for s in sentences(gold_text)]
    start = initial_model(originals, load_grammar(GRAMMAR), settings=Settings(lexical=0))
    learner, _ = em(start, start.prepare(originals), 2)
    return learner, originals, fixed
