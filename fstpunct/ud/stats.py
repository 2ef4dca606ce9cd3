"""Corpus statistics: the paper's Table 2 columns plus slot strings and lifted arcs."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .slots import depunctuate, raw_slots
from .tree import has_crossing_arcs, projectivize
from .treebank import Sentence

__all__ = ["CorpusStats", "collect"]


@dataclass
class CorpusStats:
    """Counts over one file or split. Raw forms, syntactic words only (see shared/ud/README)."""

    name: str
    sentences: int = 0
    words: int = 0
    punct: int = 0
    omitted: int = 0
    nonprojective: int = 0
    lifted: int = 0
    punct_types: set[str] = field(default_factory=set)
    slot_strings: set[tuple[str, ...]] = field(default_factory=set)

    @property
    def percent_punct(self) -> float:
        return 100.0 * self.punct / self.words if self.words else 0.0

    def add(self, sent: Sentence) -> None:
        _, heads, with_deps = depunctuate(sent)
        self.sentences += 1
        self.words += len(sent.words)
        punct = [w.form for w in sent.words if w.is_punct]
        self.punct += len(punct)
        self.punct_types.update(punct)
        self.slot_strings.update(raw_slots(sent))
        self.omitted += with_deps > 0
        self.lifted += projectivize(heads)[1]
        self.nonprojective += has_crossing_arcs(heads)

    def row(self) -> dict[str, object]:
        return {"file": self.name, "sentences": self.sentences, "words": self.words,
                "% punct": round(self.percent_punct, 1), "omitted": self.omitted,
                "non-projective": self.nonprojective, "lifted arcs": self.lifted,
                "punct types": len(self.punct_types), "slot strings": len(self.slot_strings)}


def collect(name: str, sentences: Iterable[Sentence]) -> CorpusStats:
    """The statistics of ``sentences`` (read once, streamed) under the label ``name``."""
    stats = CorpusStats(name)
    for sent in sentences:
        stats.add(sent)
    return stats
