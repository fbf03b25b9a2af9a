#!/bin/sh
# bench/run.sh — the body of `make bench`: toytrans and PyTorch on the same model file,
# measured in one run, into one table (stdout and RESULTS).
#
#   sh bench/run.sh TOYTRANS TOYTRANS_BENCH [RESULTS]
#
# RESULTS is the Markdown file the table goes to, default build/bench/results.md; `make
# bench UPDATE=1` gives bench/results.md, the committed one.
#
# Environment: BENCH_REPS (repetitions per figure, default 5), BENCH_TRAIN_STEPS
# (optimiser steps timed per training figure, default 200), BENCH_MODEL (default
# models/en-de.db), BENCH_SENTENCES (default data/test.tsv), BENCH_OUT (the JSON files,
# default build/bench).
#
# OpenBLAS: Debian's OpenBLAS 0.3.21 does not know every recent CPU and then falls back
# to a slow generic kernel unless OPENBLAS_CORETYPE names one; this machine's environment
# may set OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE for that reason. Both PyTorch (through
# libblas.so.3) and the sgemm comparison use OpenBLAS, so each setting run.sh knows of is
# tried — unset, as the environment has it, and the core type that matches this CPU's
# vector unit — and the fastest one whose PyTorch translations still match is used for
# the whole run. The table says which.
set -eu

TOYTRANS=$1
BENCH=$2
RESULTS=${3:-build/bench/results.md}
REPS=${BENCH_REPS:-5}
STEPS=${BENCH_TRAIN_STEPS:-200}
MODEL=${BENCH_MODEL:-models/en-de.db}
SENTENCES=${BENCH_SENTENCES:-data/test.tsv}
OUT=${BENCH_OUT:-build/bench}
PY=/usr/bin/python3
mkdir -p "$OUT"

# ---- the OpenBLAS settings to try ----
env_core=${OPENBLAS_CORETYPE:-}
env_l2=${OPENBLAS_L2_SIZE:-}
if grep -qw avx512f /proc/cpuinfo; then native=SkylakeX
elif grep -qw avx2 /proc/cpuinfo; then native=Haswell
else native=
fi
settings="unset"
[ -n "$env_core$env_l2" ] && settings="$settings environment"
[ -n "$native" ] && [ "$native" != "$env_core" ] && settings="$settings $native"

# run_with SETTING COMMAND...: COMMAND under that OpenBLAS setting.
run_with() {
    s=$1; shift
    case $s in
    unset) env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$@" ;;
    environment) env OPENBLAS_CORETYPE="$env_core" OPENBLAS_L2_SIZE="$env_l2" "$@" ;;
    *) env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE="$s" "$@" ;;
    esac
}

# ---- choose: a short PyTorch greedy pass and training run under each setting ----
echo "bench: choosing the OpenBLAS setting for PyTorch (tried: $settings)" >&2
best= best_score=0 tried=
for s in $settings; do
    if run_with "$s" $PY bench/torch_ref.py --model "$MODEL" --toytrans "$TOYTRANS" \
        --sentences "$SENTENCES" --limit 100 --reps 1 --threads 1 --train-steps 10 \
        --beam 0 --json "$OUT/choose-$s.json" 2>"$OUT/choose-$s.log"; then
        score=$($PY -c 'import json,sys; j=json.load(open(sys.argv[1]));
print(j["greedy_sentences_per_s"] * j["train_tokens_per_s"])' "$OUT/choose-$s.json")
        tried="$tried $s"
        echo "  $s: score $score (greedy sentences/s x training tokens/s)" >&2
        if $PY -c 'import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)' \
            "$score" "$best_score"; then
            best=$s best_score=$score
        fi
    else
        tried="$tried $s(translations differ)"
        echo "  $s: PyTorch's translations differ from toytrans's; not used" >&2
    fi
done
if [ -z "$best" ]; then
    echo "bench: PyTorch does not reproduce toytrans's translations under any OpenBLAS" \
         "setting; see $OUT/choose-*.log" >&2
    exit 1
fi
echo "bench: using OpenBLAS setting '$best'" >&2

# ---- the measurements ----
echo "bench: toytrans ($REPS repetitions)" >&2
reverse=""
[ -f models/de-en.db ] && reverse="--reverse models/de-en.db"
# $reverse is unquoted on purpose: empty, or an option and its value.
# shellcheck disable=SC2086
run_with "$best" "$BENCH" --model "$MODEL" --sentences "$SENTENCES" --toytrans "$TOYTRANS" \
    --train data/train.tsv --train-steps "$STEPS" --reps "$REPS" $reverse \
    --json "$OUT/toytrans.json"
for t in 1 2; do
    echo "bench: PyTorch, $t thread(s)" >&2
    beam=4
    [ "$t" = 2 ] && beam=0
    run_with "$best" $PY bench/torch_ref.py --model "$MODEL" --toytrans "$TOYTRANS" \
        --sentences "$SENTENCES" --reps "$REPS" --threads "$t" --train-steps "$STEPS" \
        --beam "$beam" --json "$OUT/torch-$t.json"
done
# Training at batch 128 (2 threads); its translation figures repeat torch-2.json's.
echo "bench: PyTorch, 2 threads, training at batch 128" >&2
run_with "$best" $PY bench/torch_ref.py --model "$MODEL" --toytrans "$TOYTRANS" \
    --sentences "$SENTENCES" --reps 1 --threads 2 --train-steps "$STEPS" --train-batch 128 \
    --beam 0 --json "$OUT/torch-2-b128.json"

# ---- the table ----
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
params=$("$TOYTRANS" info --model "$MODEL" 2>/dev/null | sed -n 's/^ *parameters *\([0-9,]*\).*/\1 parameters/p' | head -n 1)
$PY - "$OUT/env.json" <<EOF
import json, sys
json.dump({"date": "$(date -u '+%Y-%m-%d %H:%M UTC')", "cpu": "$cpu", "cores": $(nproc),
           "cc": "$(${CC:-cc} --version | head -n 1)", "chosen": "$best",
           "tried": "$tried".split(), "why": "the fastest whose translations match",
           "model": "$MODEL", "params": "$params", "sentences": "$SENTENCES",
           "reps": $REPS}, open(sys.argv[1], "w"))
EOF
mkdir -p "$(dirname "$RESULTS")"
$PY bench/report.py "$OUT" "$RESULTS"
# Files through the command as a whole process, against BASELINE's build when given.
echo "bench: files, toytrans translate as a whole process" >&2
{
    echo
    echo "## Files: \`toytrans translate\` as a whole process"
    echo
    # shellcheck disable=SC2086
    BENCH_REPS=$REPS sh bench/files.sh "$TOYTRANS" ${BASELINE:-}
} >>"$RESULTS"
