#!/bin/sh
# bench/honesty.sh — how often each of `toytrans translate`'s warnings fires on right and
# on wrong translations (docs/honesty.md prints these tables). A translation is right
# when it is an exact match of the reference; wrong and silent when it is not and no
# warning fired. Measured with `toytrans eval --warnings`, which translates as translate
# does (the same translator, grammar check and read-back) and counts:
#   (a) the shipped models over data/honesty.tsv, per group (in-grammar, near-grammar,
#       other-words) and in all;
#   (b) the shipped models over data/test.tsv (1,800 sentences inside the grammar): every
#       warning here is a false alarm unless the translation is wrong;
#   (c) an under-trained checkpoint of the shipped configuration (HONESTY_STEPS steps,
#       default 600, one thread) over data/test.tsv, read back by the shipped de-en model;
#   (d) the read-back alone at several margins (HONESTY_MARGINS), over (a), (b) and (c):
#       what chose READBACK_MARGIN.
#
#   sh bench/honesty.sh [BIN]        (or: make honesty-measure)
#
# Environment: HONESTY_MODEL (models/en-de.db), HONESTY_REVERSE (models/de-en.db),
# HONESTY_STEPS (600), HONESTY_MARGINS ("3 4 4.5 5 6 8"), HONESTY_DIR (build/honesty).
# Prints Markdown to stdout.
set -eu

BIN=${1:-build/release/toytrans}
MODEL=${HONESTY_MODEL:-models/en-de.db}
REVERSE=${HONESTY_REVERSE:-models/de-en.db}
STEPS=${HONESTY_STEPS:-600}
MARGINS=${HONESTY_MARGINS:-3 4 4.5 5 6 8}
DIR=${HONESTY_DIR:-build/honesty}
mkdir -p "$DIR"

# eval_warnings OUT MODEL TSV [ARGS...]: eval --warnings's report into OUT. Exit 4 (a
# source the model cannot take) still reports; anything else stops the measurement.
eval_warnings() {
    out=$1 model=$2 tsv=$3
    shift 3
    code=0
    "$BIN" eval --model "$model" --test "$tsv" --warnings --read-back-model "$REVERSE" "$@" \
        >"$out" 2>"$out.err" || code=$?
    if [ "$code" -ne 0 ] && [ "$code" -ne 4 ]; then
        echo "honesty: eval of $tsv failed with exit $code" >&2
        cat "$out.err" >&2
        exit 1
    fi
}

# rows REPORT LABEL: the report's warning tables as Markdown rows, one per construction
# (LABEL before it), joining the two tables by their first column.
rows() {
    awk -v label="$2" '
        /^warnings \(/ { part = 1; getline; next }
        /^each warning/ { part = 2; getline; next }
        part == 1 && NF == 7 {
            order[++n] = $1
            sent[$1] = $2; right[$1] = $3; wrong[$1] = $4
            warned[$1] = $5; silent[$1] = $6; alarms[$1] = $7
        }
        part == 2 && NF == 16 {
            kinds[$1] = $2 "/" $4 " | " $5 "/" $7 " | " $8 "/" $10 " | " $11 "/" $13 " | " $14 "/" $16
        }
        END {
            for (i = 1; i <= n; i++) {
                c = order[i]
                pct = wrong[c] > 0 ? sprintf("%.1f%%", 100 * silent[c] / wrong[c]) : "-"
                fa = right[c] > 0 ? sprintf("%.1f%%", 100 * alarms[c] / right[c]) : "-"
                printf "| %s | %s | %s | %s | %s | %s | %s (%s) | %s (%s) | %s |\n", label, c,
                       sent[c], right[c], wrong[c], warned[c], silent[c], pct, alarms[c], fa,
                       kinds[c]
            }
        }' "$1"
}

header() {
    echo "| models and sentences | group | sentences | right | wrong | wrong, warned | wrong, silent (of wrong) | right, warned (of right) | unknown word | not translated | outside grammar | read-back | min_prob < 0.5 |"
    echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
}

# The checkpoint: the shipped model's settings (the Makefile's MODEL_SETTINGS), one
# thread, stopped early. Training is deterministic, so the same steps give the same file.
UNDER=$DIR/under-$STEPS.db
"$BIN" train --train data/train.tsv --valid data/valid.tsv --lexicon data/lexicon.tsv \
    --out "$UNDER" --force --epochs 7 --batch 32 --lr 0.001 --warmup 1000 \
    --label-smoothing 0.02 --d-model 128 --heads 4 --enc-layers 2 --dec-layers 2 \
    --d-ff 512 --max-len 40 --name-augment 0.3 --seed 1 --threads 1 --stop-after "$STEPS" \
    >"$DIR/train.log" 2>&1 ||
    { echo "honesty: training the checkpoint failed (see $DIR/train.log)" >&2; exit 1; }

eval_warnings "$DIR/a.txt" "$MODEL" data/honesty.tsv
eval_warnings "$DIR/b.txt" "$MODEL" data/test.tsv
eval_warnings "$DIR/c.txt" "$UNDER" data/test.tsv

echo "Each warning's cell: wrong translations it flagged / right ones it flagged."
echo
header
rows "$DIR/a.txt" "(a) $MODEL, data/honesty.tsv"
rows "$DIR/b.txt" "(b) $MODEL, data/test.tsv" | tail -n 1
rows "$DIR/c.txt" "(c) $STEPS steps, data/test.tsv" | tail -n 1

echo
echo "The read-back alone, by margin (nats): wrong translations flagged / right ones flagged."
echo
echo "| margin | (a) in-grammar | (a) near-grammar | (a) other-words | (a) all | (b) data/test.tsv | (c) $STEPS steps, data/test.tsv |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
# readback_cells REPORT [all]: the read-back column, every row or the "all" row only.
readback_cells() {
    awk -v only="${2-}" '/^each warning/ { on = 1; getline; next }
        on && NF == 16 && (only == "" || $1 == only) { printf "%s | ", $11 "/" $13 }' "$1"
}
for m in $MARGINS; do
    eval_warnings "$DIR/a-$m.txt" "$MODEL" data/honesty.tsv --read-back-margin "$m"
    eval_warnings "$DIR/b-$m.txt" "$MODEL" data/test.tsv --read-back-margin "$m"
    eval_warnings "$DIR/c-$m.txt" "$UNDER" data/test.tsv --read-back-margin "$m"
    echo "| $m | $(readback_cells "$DIR/a-$m.txt")$(readback_cells "$DIR/b-$m.txt" all)$(readback_cells "$DIR/c-$m.txt" all)"
done
