"""Model folders: what ``fstpunct train`` writes and every other command loads.

A model is a folder::

    channel.fst    the channel φ as an OpenFst machine with symbol tables (fstinfo/fstprint read it)
    channel.json   its direction and alphabet (see fstpunct.fst.channel)
    attach.json    vocabularies, symmetric pairs and the feature index
    attach.npz     the Attach weights θ (contexts × pair features)
    model.json     settings and the record of how the model was trained
    edits.npy      expected counts of every edit φ[a, b, e] on the training data (final E-step)

``--model en`` names a model shipped inside the package (``fstpunct/models/en``); anything else is a
path to a folder.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelError
from ..files import atomic_folder
from ..fst.channel import Channel
from .attach import AttachModel
from .punct import PunctModel, Settings

__all__ = ["FORMAT", "load_edit_counts", "load_model", "model_path", "read_record", "save_model"]

FORMAT = 1
BUNDLED = Path(__file__).parents[1] / "models"


def model_path(name: str | Path) -> Path:
    """A bundled model's folder by name, else ``name`` as a path."""
    bundled = BUNDLED / str(name)
    if not Path(name).exists() and (bundled / "model.json").is_file():
        return bundled
    return Path(name)


def save_model(model: PunctModel, folder: str | Path, record: dict[str, Any],
               edit_counts: np.ndarray | None = None) -> Path:
    """Write the model folder whole: built beside ``folder``, then put in its place."""
    folder = Path(folder)
    try:
        with atomic_folder(folder) as tmp:
            if edit_counts is not None:
                np.save(tmp / "edits.npy", edit_counts)
            model.channel.save(tmp / "channel.fst")
            side = {"direction": model.channel.direction,
                    "symbols": list(model.channel.symbols)}
            (tmp / "channel.json").write_text(
                json.dumps(side, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
            model.attach.save(tmp / "attach", model.theta)
            meta = {"format": FORMAT, "settings": model.settings.to_dict(), "record": record}
            (tmp / "model.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1) + "\n",
                                            encoding="utf-8")
    except OSError as e:
        raise ModelError(f"{folder}: cannot write model: {e.strerror or e}") from e
    return folder


def read_record(name: str | Path) -> dict[str, Any]:
    folder = model_path(name)
    try:
        meta = json.loads((folder / "model.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ModelError(f"{folder}: not a fstpunct model (model.json unreadable: {e})") from e
    if meta.get("format") != FORMAT:
        raise ModelError(f"{folder}: model format {meta.get('format')} is not {FORMAT}")
    return meta


def load_model(name: str | Path) -> PunctModel:
    """Load a model folder (or a bundled model by name)."""
    folder = model_path(name)
    if not folder.is_dir():
        raise ModelError(f"no model {str(name)!r}: not a folder, and not a bundled model "
                         f"({', '.join(sorted(p.name for p in BUNDLED.glob('*'))) or 'none'})")
    meta = read_record(folder)
    attach, theta = AttachModel.load(folder / "attach")
    channel = Channel.load(folder / "channel.fst")
    # models saved before the token cost or lexical contexts existed were trained without them
    settings = Settings(**{"token_cost": 0.0, "lexical": 0, **meta["settings"]})
    return PunctModel(attach, theta, channel, settings)


def load_edit_counts(name: str | Path) -> np.ndarray:
    """The expected edit counts a model was trained with (``edits.npy``)."""
    path = model_path(name) / "edits.npy"
    try:
        return np.load(path)
    except OSError as e:
        raise ModelError(f"{path}: no expected edit counts in this model ({e})") from e
