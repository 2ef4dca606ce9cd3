#!/usr/bin/env bash
# Table 3 analog: per-slot test perplexity, Attach (identity channel) vs +NC (trained channel),
# with the +NC direction chosen per language by dev perplexity.
# Usage: scripts/table3.sh [ITERATIONS] [LANG ...]   (models go to models/<lang>-{attach,ltr,rtl})
set -euo pipefail
cd "$(dirname "$0")/.."
export FSTPUNCT_UD_DIR="${FSTPUNCT_UD_DIR:-$(cd .. && pwd)/shared/ud}" OPENBLAS_NUM_THREADS=1
FP=.venv/bin/fstpunct
ITER="${1:-10}"; shift || true
LANGS=("${@:-es zh ar hi en}")
ppl() { "$FP" perplexity --model "$1" --lang "$2" --split "$3" | sed 's/.*perplexity //'; }
echo "| lang | Attach | +NC ltr (dev) | +NC rtl (dev) | dir | +NC (test) |"
echo "|---|---|---|---|---|---|"
for lang in ${LANGS[@]}; do
  for setup in "attach --init identity" "ltr --direction ltr" "rtl --direction rtl"; do
    set -- $setup
    name=$1; shift
    [ -f "models/$lang-$name/model.json" ] || "$FP" train --lang "$lang" --iterations "$ITER" "$@" -o "models/$lang-$name" 2>/dev/null
  done
  attach=$(ppl "models/$lang-attach" "$lang" test)
  ltr=$(ppl "models/$lang-ltr" "$lang" dev); rtl=$(ppl "models/$lang-rtl" "$lang" dev)
  dir=$(python3 -c "print('ltr' if $ltr <= $rtl else 'rtl')")
  echo "| $lang | $attach | $ltr | $rtl | $dir | $(ppl "models/$lang-$dir" "$lang" test) |"
done
