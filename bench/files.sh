#!/bin/sh
# bench/files.sh — `toytrans translate` on a file, as a whole process: sentences per
# second at several --batch and --threads settings, beam 4, the read-back's cost, one
# sentence's latency (load included) and peak memory, side by side in one run, against a
# baseline binary when one is given (a build of an earlier commit: the same-run A/B).
#
#   sh bench/files.sh BIN [BASELINE_BIN]
#
# Environment: BENCH_MODEL (default models/en-de.db), BENCH_SENTENCES (default
# data/test.tsv; its source column), BENCH_REPS (default 3: the median is shown, and the
# spread of the runs as the noise). Prints a Markdown table on stdout.
set -eu
BIN=$1
BASE=${2-}
MODEL=${BENCH_MODEL:-models/en-de.db}
SENTENCES=${BENCH_SENTENCES:-data/test.tsv}
REPS=${BENCH_REPS:-3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/toytrans-files.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cut -f1 "$SENTENCES" >"$TMP/src.txt"
N=$(wc -l <"$TMP/src.txt")

# The runs go round the settings REPS times (one run of each setting per round), so that
# a clock that drifts during the bench (this machine's moved by 15 % in an hour) moves
# every setting's runs alike and the ratios between rows stay fair.
#
# add LABEL BIN ARGS...: a setting of the next table (ARGS split on blanks).
add() {
    label=$1
    bin=$2
    shift 2
    printf '%s\t%s\t%s\n' "$label" "$bin" "$*" >>"$TMP/settings"
}

# table: REPS rounds over the settings added, on $TMP/src.txt; then a table row per
# setting, in order: median seconds, sentences/s, the runs' spread, peak RSS. The time
# is the wall clock around the run in nanoseconds (time's %e has hundredths of a
# second: 2-4 % of a 0.25 s run); the peak memory is time's %M.
table() {
    tab=$(printf '\t')
    i=0
    while [ "$i" -lt "$REPS" ]; do
        k=0
        while IFS="$tab" read -r label bin args; do
            k=$((k + 1))
            t0=$(date +%s%N)
            # shellcheck disable=SC2086 # args is several flags
            /usr/bin/time -f '%M' -o "$TMP/t" "$bin" translate --model "$MODEL" $args \
                <"$TMP/src.txt" >/dev/null 2>"$TMP/err" || true
            t1=$(date +%s%N)
            echo "$(((t1 - t0) / 1000)) $(cat "$TMP/t")" >>"$TMP/times.$k"
        done <"$TMP/settings"
        i=$((i + 1))
    done
    k=0
    while IFS="$tab" read -r label bin args; do
        k=$((k + 1))
        sort -n "$TMP/times.$k" | awk -v label="$label" -v n="$N" '
            { t[NR] = $1 / 1e6; m[NR] = $2 }
            END {
                med = t[int((NR + 1) / 2)]; if (med <= 0) med = 0.001
                rss = 0; for (i = 1; i <= NR; i++) if (m[i] > rss) rss = m[i]
                printf "| %s | %.3f | %.0f | %.3f–%.3f | %.0f |\n", label, med, n / med, t[1], t[NR], rss / 1024
            }'
        rm -f "$TMP/times.$k"
    done <"$TMP/settings"
    : >"$TMP/settings"
}

: >"$TMP/settings"
echo "| $N sentences of $SENTENCES, one process each | seconds (median of $REPS) | sentences/s | spread (s) | peak RSS (MiB) |"
echo "| --- | ---: | ---: | ---: | ---: |"
if [ -n "$BASE" ]; then
    add "baseline: one sentence at a time" "$BASE" --no-read-back
fi
add "--batch 1" "$BIN" --no-read-back --batch 1
for b in 16 32 64 128; do
    add "--batch $b" "$BIN" --no-read-back --batch "$b"
done
add "--threads 2 (default batch)" "$BIN" --no-read-back --threads 2
add "--batch 32 --threads 2" "$BIN" --no-read-back --batch 32 --threads 2
if [ -n "$BASE" ]; then
    add "baseline: --beam 4" "$BASE" --no-read-back --beam 4
fi
add "--beam 4 --batch 1" "$BIN" --no-read-back --beam 4 --batch 1
add "--beam 4 (default batch)" "$BIN" --no-read-back --beam 4
add "--beam 4 --batch 32" "$BIN" --no-read-back --beam 4 --batch 32
add "read-back on, default batch (the defaults)" "$BIN"
table

# One sentence, load included: the latency a person typing waits.
echo "This is an example" >"$TMP/src.txt"
N=1
echo
echo "| one sentence, load included | seconds (median of $REPS) | | spread (s) | peak RSS (MiB) |"
echo "| --- | ---: | ---: | ---: | ---: |"
if [ -n "$BASE" ]; then
    add "baseline" "$BASE" --no-read-back
fi
add "this build (default batch)" "$BIN" --no-read-back
table
