"""The bundled models as a table (``fstpunct models``), and their recorded test perplexity.

Everything is read from the model folders: the language is the folder's name, the training data
and direction come from ``model.json`` and ``channel.json``, the test perplexity from the
``evaluation`` that :func:`evaluate` stores in ``model.json`` (the per-slot perplexity on the
language's standard test split, with the command that reproduces it).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..fst.channel import sidecar_direction
from ..model.store import bundled, model_path, model_size, read_record, record_evaluation
from ..ud.release import split_source
from .model import load

__all__ = ["ModelInfo", "bundled_models", "evaluate"]


@dataclass(frozen=True)
class ModelInfo:
    """One bundled model, a row of ``fstpunct models``: ``name`` (= its language code),
    ``data`` (its training files, one ``"LANG train: PATH"`` each) and ``sentences`` (how many
    it was trained on; None: not recorded), the channel's ``direction`` (``ltr``/``rtl``), its
    test ``perplexity`` (per slot; None: not measured) and the data it was measured on
    (``evaluated_on``), and its ``size`` on disk in bytes."""

    name: str
    data: tuple[str, ...]
    sentences: int | None
    direction: str
    perplexity: float | None
    evaluated_on: str | None
    size: int

    @property
    def language(self) -> str:
        """The language code (a bundled model is named by its language)."""
        return self.name


def _info(name: str) -> ModelInfo:
    meta = read_record(name)
    folder = model_path(name)
    test = meta.get("evaluation", {}).get("test", {})
    record = meta.get("record", {})
    return ModelInfo(name, tuple(record.get("data", ())), record.get("sentences"),
                     sidecar_direction(folder / "channel.fst"), test.get("perplexity"),
                     test.get("data"), model_size(folder))


def bundled_models() -> list[ModelInfo]:
    """A :class:`ModelInfo` for every bundled model, in order of name (what ``fstpunct
    models`` lists)."""
    return [_info(name) for name in bundled()]


def evaluate(name: str, ud_dir: str | None = None) -> ModelInfo:
    """Measure a bundled model's per-slot perplexity on its language's standard test split
    and record it in its ``model.json``."""
    source = split_source(name, "test", ud_dir)
    result = load(name).perplexity(source.sentences())
    record_evaluation(name, {"test": {
        "data": f"{source.name}: {source.path.name}" + (
            f" sentences {source.first}-{source.last}" if source.first else ""),
        "sentences": result.sentences, "slots": result.slots,
        "log_prob": round(result.log_prob, 4), "perplexity": round(result.value, 4),
        "command": f"fstpunct perplexity --model {name} --lang {name} --split test"}})
    return _info(name)
