#!/bin/sh
# bench/honesty.sh — how often each of `toytrans translate`'s warnings fires on right and
# on wrong translations (docs/honesty.md prints these tables). A translation is right
# when it is an exact match of the reference; wrong and silent when it is not and no
# warning fired. Measured with `toytrans eval --warnings`, which translates as translate
# does (the same translator, grammar check and read-back) and counts:
#   (a) the shipped models over data/honesty.tsv, per group (in-grammar, near-grammar,
#       other-words, phrase: the third column, whatever groups it names) and in all;
#   (b) the shipped models over data/test.tsv (1,855 sentences inside the grammar): every
#       warning here is a false alarm unless the translation is wrong;
#   (c) an under-trained checkpoint of the shipped configuration (HONESTY_STEPS steps,
#       default 600, one thread) over data/test.tsv, read back by the shipped de-en model;
#   (d) the read-back alone at several margins (HONESTY_MARGINS), over (a), (b) and (c):
#       what chose READBACK_MARGIN.
#
#   sh bench/honesty.sh [BIN]        (or: make honesty-measure; UPDATE=1 also writes the
#                                     tables into docs/honesty.md)
#
# Environment: HONESTY_MODEL (models/en-de.db), HONESTY_REVERSE (models/de-en.db),
# HONESTY_STEPS (600), HONESTY_MARGINS ("3 4 4.5 5 6 8"), HONESTY_DIR (build/honesty),
# HONESTY_PARTS ("a b c": the rows, and the read-back table's columns, measured; "a b"
# needs no checkpoint: with two margins, what tests/test_honesty.sh compares with
# docs/honesty.md in seconds). Prints Markdown to stdout.
set -eu

BIN=${1:-build/release/toytrans}
MODEL=${HONESTY_MODEL:-models/en-de.db}
REVERSE=${HONESTY_REVERSE:-models/de-en.db}
STEPS=${HONESTY_STEPS:-600}
MARGINS=${HONESTY_MARGINS:-3 4 4.5 5 6 8}
DIR=${HONESTY_DIR:-build/honesty}
PARTS=${HONESTY_PARTS:-a b c}
mkdir -p "$DIR"

# has PART: PART is one of the parts asked for.
has() {
    case " $PARTS " in *" $1 "*) return 0 ;; esac
    return 1
}

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
! has c || "$BIN" train --train data/train.tsv --valid data/valid.tsv --lexicon data/lexicon.tsv \
    --out "$UNDER" --force --epochs 7 --batch 32 --lr 0.001 --warmup 1000 \
    --label-smoothing 0.02 --d-model 128 --heads 4 --enc-layers 2 --dec-layers 2 \
    --d-ff 512 --max-len 40 --name-augment 0.3 --seed 1 --threads 1 --stop-after "$STEPS" \
    >"$DIR/train.log" 2>&1 ||
    { echo "honesty: training the checkpoint failed (see $DIR/train.log)" >&2; exit 1; }

! has a || eval_warnings "$DIR/a.txt" "$MODEL" data/honesty.tsv
! has b || eval_warnings "$DIR/b.txt" "$MODEL" data/test.tsv
! has c || eval_warnings "$DIR/c.txt" "$UNDER" data/test.tsv

echo "Each warning's cell: wrong translations it flagged / right ones it flagged."
echo
header
! has a || rows "$DIR/a.txt" "(a) $MODEL, data/honesty.tsv"
! has b || rows "$DIR/b.txt" "(b) $MODEL, data/test.tsv" | tail -n 1
! has c || rows "$DIR/c.txt" "(c) $STEPS steps, data/test.tsv" | tail -n 1

echo
echo "The read-back alone, by margin (nats): wrong translations flagged / right ones flagged."
echo
# The columns of the parts measured, in order: a row of the full table starts with the
# row the parts a and b give.
head="| margin |"
rule="| ---: |"
# (a)'s columns: the groups of data/honesty.tsv as the report lists them (in the order
# they first appear, "all" last), one cell each from readback_cells below.
if has a; then
    groups=$(awk '/^each warning/ { on = 1; getline; next } on && NF == 16 { print $1 }' \
        "$DIR/a.txt")
    for g in $groups; do
        head="$head (a) $g |"
        rule="$rule ---: |"
    done
fi
! has b || { head="$head (b) data/test.tsv |"; rule="$rule ---: |"; }
! has c || { head="$head (c) $STEPS steps, data/test.tsv |"; rule="$rule ---: |"; }
echo "$head"
echo "$rule"
# readback_cells REPORT [all]: the read-back column, every row or the "all" row only.
readback_cells() {
    awk -v only="${2-}" '/^each warning/ { on = 1; getline; next }
        on && NF == 16 && (only == "" || $1 == only) { printf " %s |", $11 "/" $13 }' "$1"
}
for m in $MARGINS; do
    row="| $m |"
    if has a; then
        eval_warnings "$DIR/a-$m.txt" "$MODEL" data/honesty.tsv --read-back-margin "$m"
        row="$row$(readback_cells "$DIR/a-$m.txt")"
    fi
    if has b; then
        eval_warnings "$DIR/b-$m.txt" "$MODEL" data/test.tsv --read-back-margin "$m"
        row="$row$(readback_cells "$DIR/b-$m.txt" all)"
    fi
    if has c; then
        eval_warnings "$DIR/c-$m.txt" "$UNDER" data/test.tsv --read-back-margin "$m"
        row="$row$(readback_cells "$DIR/c-$m.txt" all)"
    fi
    echo "$row"
done
