#!/bin/sh
# bench/coverage.sh — measures the "not translated" warning of `toytrans translate`
# (docs/honesty.md): for each threshold, how many correct translations it flags (false
# alarms) and how many wrong ones (detections), on
#   (a) the shipped model over data/test.tsv,
#   (b) an under-trained checkpoint of the same configuration (COVERAGE_STEPS steps,
#       default 600, one thread, a few seconds) over data/test.tsv,
#   (c) the shipped model over tests/fixtures/outside_grammar.tsv, sentences the corpus
#       grammar does not make, with hand-written references.
# A translation is correct when it equals the reference byte for byte. Only the
# coverage warning is counted here; lines with words not in the vocabulary are also
# counted apart, since they are warned about in any case.
#
#   sh bench/coverage.sh [BIN]        (or: make coverage-measure; UPDATE=1 also writes
#                                      the table into docs/honesty.md)
#
# Environment: COVERAGE_MODEL (default models/en-de.db), COVERAGE_STEPS (600),
# COVERAGE_THRESHOLDS ("0.05 0.1 0.15 0.2 0.25 0.3 0.4"), COVERAGE_DIR (build/coverage:
# the checkpoint and the scratch files), COVERAGE_PARTS ("a b c": the rows measured;
# "a c" needs no checkpoint and takes seconds, which is what tests/test_honesty.sh
# compares with docs/honesty.md). Prints one Markdown table to stdout. The read-back is
# off: it changes no coverage warning, and would triple the time.
set -eu

BIN=${1:-build/release/toytrans}
MODEL=${COVERAGE_MODEL:-models/en-de.db}
STEPS=${COVERAGE_STEPS:-600}
THRESHOLDS=${COVERAGE_THRESHOLDS:-0.05 0.1 0.15 0.2 0.25 0.3 0.4}
DIR=${COVERAGE_DIR:-build/coverage}
PARTS=${COVERAGE_PARTS:-a b c}
mkdir -p "$DIR"

# has PART: PART is one of the rows asked for.
has() {
    case " $PARTS " in *" $1 "*) return 0 ;; esac
    return 1
}

# The checkpoint: the shipped model's settings (the Makefile's MODEL_SETTINGS), one
# thread, stopped early. Training is deterministic, so the same steps give the same file.
UNDER=$DIR/under-$STEPS.db
! has b || "$BIN" train --train data/train.tsv --valid data/valid.tsv --out "$UNDER" --force \
    --epochs 7 --batch 32 --lr 0.001 --warmup 1000 --label-smoothing 0.02 \
    --d-model 128 --heads 4 --enc-layers 2 --dec-layers 2 --d-ff 512 --max-len 40 \
    --name-augment 0.3 --seed 1 --threads 1 --stop-after "$STEPS" >"$DIR/train.log" 2>&1 ||
    { echo "coverage: training the checkpoint failed (see $DIR/train.log)" >&2; exit 1; }

# measure LABEL MODEL TSV: one table row per threshold.
measure() {
    label=$1 model=$2 tsv=$3
    cut -f1 "$tsv" >"$DIR/src.txt"
    cut -f2 "$tsv" >"$DIR/ref.txt"
    for t in $THRESHOLDS; do
        # Exit 0 or 4 only (4: a line could not be translated, which is counted too).
        code=0
        "$BIN" translate --model "$model" --no-read-back --coverage-min "$t" <"$DIR/src.txt" \
            >"$DIR/hyp.txt" 2>"$DIR/warn.txt" || code=$?
        if [ "$code" -ne 0 ] && [ "$code" -ne 4 ]; then
            echo "coverage: translate failed with exit $code" >&2
            cat "$DIR/warn.txt" >&2
            exit 1
        fi
        sed -n 's/^toytrans translate: line \([0-9]*\): not translated: .*/\1/p' \
            "$DIR/warn.txt" >"$DIR/flagged.txt"
        sed -n 's/^toytrans translate: line \([0-9]*\): not in the vocabulary: .*/\1/p' \
            "$DIR/warn.txt" >"$DIR/unknown.txt"
        paste "$DIR/hyp.txt" "$DIR/ref.txt" | awk -F '\t' -v label="$label" -v t="$t" \
            -v flagged="$DIR/flagged.txt" -v unknown="$DIR/unknown.txt" '
            BEGIN {
                while ((getline n < flagged) > 0) f[n] = 1
                while ((getline n < unknown) > 0) u[n] = 1
            }
            {
                ok = $1 == $2
                if (ok) { good++; if (NR in f) fa++ } else { bad++; if (NR in f) det++ }
                if (NR in u) unk++
                if (!ok && ((NR in f) || (NR in u))) either++
            }
            END {
                printf "| %s | %s | %d | %d | %d | %d | %.1f%% | %d | %d |\n", label, t, good,
                       fa, bad, det, bad ? 100 * det / bad : 0, unk, either
            }'
    done
}

echo "| model and sentences | threshold | correct | correct flagged | wrong | wrong flagged | detected | lines with unknown words | wrong, flagged by either warning |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
! has a || measure "(a) $MODEL, data/test.tsv" "$MODEL" data/test.tsv
! has b || measure "(b) $STEPS steps, data/test.tsv" "$UNDER" data/test.tsv
! has c || measure "(c) $MODEL, outside the grammar" "$MODEL" tests/fixtures/outside_grammar.tsv
