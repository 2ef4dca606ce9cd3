"""Train the dependent-ordering model of every language on its standard train split and write
it beside the bundled punctuation model (``fstpunct/models/<lang>/order.json`` and ``.npz``)
or under ``--out`` (``<out>/order-<lang>``).

    python scripts/order_models.py [--langs en es zh ar hi] [--out models]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from fstpunct import __version__
from fstpunct.apps.rephrase.order import train_order
from fstpunct.apps.rephrase.permute import families
from fstpunct.ud.release import read_one, split_source

BUNDLED = Path(__file__).parents[1] / "fstpunct" / "models"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--langs", nargs="+", default=["en", "es", "zh", "ar", "hi"])
    parser.add_argument("--out", help="folder for order-<lang> (default: the bundled models)")
    parser.add_argument("--l2", type=float, default=1.0)
    args = parser.parse_args()
    for lang in args.langs:
        start = time.time()
        sentences = list(read_one(f"{lang}:train"))
        record = {"fstpunct": __version__, "data": [str(split_source(lang, "train").path)],
                  "sentences": len(sentences),
                  "command": "python scripts/order_models.py " + " ".join(sys.argv[1:])}
        model = train_order((f for s in sentences for f in families(s)), l2=args.l2,
                            record=record)
        path = Path(args.out) / f"order-{lang}" if args.out else BUNDLED / lang / "order"
        model.save(path)
        print(f"{lang}: {len(sentences)} sentences, {model.record['steps']} choices, "
              f"{len(model.features)} features, NLL {model.record['neg_log_likelihood']:.1f}, "
              f"{time.time() - start:.0f} s -> {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
