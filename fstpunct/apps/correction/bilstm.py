"""The paper's discriminative corrector: a BiLSTM-CRF over slots that reads the current punctuation.

Slot i (between word i and word i+1; n+1 slots) is read as the embeddings of the two words
around it (lower-cased forms seen at least twice in training, else ``<unk>``), their UPOS and
the learner's string in the slot; a bidirectional LSTM over the slots gives each slot's label
scores, and a linear-chain CRF (a transition score per pair of labels, start and end scores)
is trained by maximum likelihood and decoded by Viterbi. The labels are the CRF corrector's
(:func:`~fstpunct.apps.correction.crf.labels`: the corrected string if seen twice, else
:data:`OTHER`, keep the learner's string; with ``keep``, :data:`OTHER` wherever the
annotators kept it). Unlike the CRF corrector it does not read the tree. Needs torch (the
``bilstm`` extra), imported only when a model is built or loaded.
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...errors import InputError, check_seed
from ...files import model_folder, model_target, read_meta, write_json
from ...ud.slots import SlotSentence
from ..restoration import Insertion
from ..restoration.crf import MIN_COUNT, OTHER, slot_tags
from .crf import labels, string_marginals, tag_insertions

__all__ = ["BilstmCorrector", "crf_log_partition", "crf_marginals", "crf_viterbi", "train"]

FORMAT = "fstpunct-bilstm-corrector 1"
FILES = ("net.pt", "meta.json")  # what train writes: all a folder it replaces may hold
KIND = "a BiLSTM-CRF corrector"
UNK, BOS, EOS = "<unk>", "<s>", "</s>"


def _torch():
    try:
        import torch
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise InputError("the BiLSTM-CRF corrector needs torch (pip install "
                         "'fstpunct[bilstm]')") from e
    return torch


def crf_log_partition(emissions, transitions, start, end):
    """log Σ_y exp(score(y)) of a linear chain: ``emissions`` (T, L), ``transitions`` (L, L)
    from row label to column label, ``start``/``end`` (L)."""
    torch = _torch()
    alpha = start + emissions[0]
    for t in range(1, emissions.shape[0]):
        alpha = torch.logsumexp(alpha[:, None] + transitions, dim=0) + emissions[t]
    return torch.logsumexp(alpha + end, dim=0)


def crf_score(emissions, transitions, start, end, y: Sequence[int]):
    """The score of the label sequence ``y``."""
    s = start[y[0]] + emissions[0, y[0]] + end[y[-1]]
    for t in range(1, len(y)):
        s = s + transitions[y[t - 1], y[t]] + emissions[t, y[t]]
    return s


def crf_marginals(emissions, transitions, start, end):
    """p(y_t = l) of every position t and label l (T, L), by forward-backward."""
    torch = _torch()
    alphas = [start + emissions[0]]
    for t in range(1, emissions.shape[0]):
        alphas.append(torch.logsumexp(alphas[-1][:, None] + transitions, dim=0) + emissions[t])
    betas = [end]
    for t in range(emissions.shape[0] - 1, 0, -1):
        betas.append(torch.logsumexp(transitions + (emissions[t] + betas[-1])[None, :], dim=1))
    alpha, beta = torch.stack(alphas), torch.stack(betas[::-1])
    return torch.exp(alpha + beta - torch.logsumexp(alphas[-1] + end, dim=0))


def crf_viterbi(emissions, transitions, start, end) -> list[int]:
    """The label sequence of highest score (ties: the lower label index)."""
    delta = start + emissions[0]
    back = []
    for t in range(1, emissions.shape[0]):
        scores = delta[:, None] + transitions
        best = scores.argmax(dim=0)
        back.append(best)
        delta = scores.max(dim=0).values + emissions[t]
    y = [int((delta + end).argmax())]
    for best in reversed(back):
        y.append(int(best[y[-1]]))
    return y[::-1]


def _inputs(ss: SlotSentence) -> list[list[str]]:
    """Per slot: left word, left UPOS, right word, right UPOS, the learner's string."""
    words = [BOS] + [w.lower() for w in ss.words] + [EOS]
    upos = [BOS] + list(ss.upos) + [EOS]
    return [[words[i], upos[i], words[i + 1], upos[i + 1], x]
            for i, x in enumerate(slot_tags(ss))]


def _net(vocab: dict[str, list[str]], n_labels: int, dims: dict[str, int]):
    torch = _torch()
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.word = nn.Embedding(len(vocab["word"]), dims["word"])
            self.upos = nn.Embedding(len(vocab["upos"]), dims["tag"])
            self.x = nn.Embedding(len(vocab["x"]), dims["tag"])
            width = 2 * dims["word"] + 3 * dims["tag"]
            self.lstm = nn.LSTM(width, dims["hidden"], batch_first=True, bidirectional=True)
            self.out = nn.Linear(2 * dims["hidden"], n_labels)
            self.transitions = nn.Parameter(torch.zeros(n_labels, n_labels))
            self.start = nn.Parameter(torch.zeros(n_labels))
            self.end = nn.Parameter(torch.zeros(n_labels))

        def forward(self, ids):  # ids: (T, 5) -> emissions (T, L)
            e = torch.cat([self.word(ids[:, 0]), self.upos(ids[:, 1]), self.word(ids[:, 2]),
                           self.upos(ids[:, 3]), self.x(ids[:, 4])], dim=1)
            h, _ = self.lstm(e[None])
            return self.out(h[0])

    return Net()


class BilstmCorrector:
    """A trained BiLSTM-CRF corrector: its vocabularies, labels and network."""

    def __init__(self, meta: dict[str, Any], net) -> None:
        self.meta = meta
        self.net = net.eval()
        self.index = {k: {s: j for j, s in enumerate(v)} for k, v in meta["vocab"].items()}
        self.labels: list[str] = meta["labels"]

    @classmethod
    def load(cls, folder: str | Path) -> BilstmCorrector:
        torch = _torch()
        path = Path(folder)
        meta = read_meta(path / "meta.json", FORMAT, KIND, name=folder)
        net = _net(meta["vocab"], len(meta["labels"]), meta["dims"])
        net.load_state_dict(torch.load(path / "net.pt", weights_only=True))
        return cls(meta, net)

    def ids(self, ss: SlotSentence):
        """The slots' input ids (unknown words, tags and strings as ``<unk>``)."""
        torch = _torch()
        kinds = ("word", "upos", "word", "upos", "x")
        return torch.tensor([[self.index[k].get(v, 0) for k, v in zip(kinds, row)]
                             for row in _inputs(ss)], dtype=torch.long)

    def correct(self, ss: SlotSentence) -> list[Insertion]:
        """The corrected string of every slot as insertions (:data:`OTHER` keeps the
        learner's string)."""
        torch = _torch()
        with torch.no_grad():
            y = crf_viterbi(self.net(self.ids(ss)), self.net.transitions, self.net.start,
                            self.net.end)
        return tag_insertions(slot_tags(ss), [self.labels[k] for k in y])

    def marginals(self, ss: SlotSentence) -> list[dict[tuple[str, ...], float]]:
        """Every slot's marginal distribution over corrected strings (:data:`OTHER` read as
        the learner's string), as :meth:`~.crf.CrfCorrector.marginals`."""
        torch = _torch()
        with torch.no_grad():
            m = crf_marginals(self.net(self.ids(ss)), self.net.transitions, self.net.start,
                              self.net.end).tolist()
        return string_marginals(slot_tags(ss), [list(zip(self.labels, row)) for row in m])


def train(sources: Sequence[SlotSentence], golds: Sequence[SlotSentence], output: str | Path,
          epochs: int = 8, keep: bool = False, seed: int = 1, dims: dict[str, int] | None = None,
          lr: float = 2e-3, info: dict[str, Any] | None = None) -> BilstmCorrector:
    """Train on (learner, corrected) slot sentences of the same words (Adam, one sentence per
    step, the pairs shuffled each epoch with ``seed``; one thread, deterministic) and write
    the model to ``output``: checked before training (a new or empty folder, or such a
    corrector's holding nothing else); if something is put into it while training runs, the
    model is written to a new folder beside it and :class:`~fstpunct.errors.SavedAside` names
    it (:func:`~fstpunct.files.model_folder`)."""
    if len(sources) != len(golds) or not sources:
        raise InputError("the BiLSTM-CRF corrector needs as many corrected sentences as "
                         "sources (>0)")
    seed = check_seed(seed)
    model_target(output, FILES, KIND)
    torch = _torch()
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    dims = dims or {"word": 50, "tag": 16, "hidden": 64}
    counts = Counter(t for g in golds for t in slot_tags(g))
    known = {t for t, c in counts.items() if c >= MIN_COUNT}
    rows = [_inputs(s) for s in sources]
    words = Counter(r[k] for rs in rows for r in rs for k in (0, 2))
    vocab = {"word": [UNK] + sorted(w for w, c in words.items() if c >= MIN_COUNT),
             "upos": [UNK] + sorted({r[k] for rs in rows for r in rs for k in (1, 3)}),
             "x": [UNK] + sorted({r[4] for rs in rows for r in rs})}
    names = sorted(known | {OTHER})
    label_id = {t: j for j, t in enumerate(names)}
    meta = {"format": FORMAT, "keep_tag": keep, "labels": names, "vocab": vocab, "dims": dims,
            "training": {**(info or {}), "pairs": len(sources), "epochs": epochs,
                         "seed": seed, "lr": lr}}
    model = BilstmCorrector(meta, _net(vocab, len(names), dims))
    data = [(model.ids(s), [label_id[t] for t in labels(s, g, known, keep)])
            for s, g in zip(sources, golds)]
    net = model.net.train()
    optimiser = torch.optim.Adam(net.parameters(), lr=lr)
    order = list(range(len(data)))
    shuffle = random.Random(seed)
    for _ in range(epochs):
        shuffle.shuffle(order)
        for k in order:
            ids, y = data[k]
            em = net(ids)
            loss = (crf_log_partition(em, net.transitions, net.start, net.end)
                    - crf_score(em, net.transitions, net.start, net.end, y))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    net.eval()
    with model_folder(Path(output), FILES, KIND) as tmp:
        torch.save(net.state_dict(), tmp / "net.pt")
        write_json(tmp / "meta.json", meta, atomic=False)
    return BilstmCorrector.load(output)
