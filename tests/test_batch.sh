#!/bin/sh
# test_batch.sh — batched translation changes nothing but the speed: a sentence's tokens,
# log-probabilities and attention weights (translate --json prints every float with the
# digits that give back its bits) are the same for any --batch and any --threads, for
# greedy decoding and beam search, and bad lines inside a batch are reported as they are
# one at a time, with the lines around them translated.
#
#   sh tests/test_batch.sh BIN [RUNNER]
#
# Uses the shipped model, models/en-de.db, on the sources of data/test.tsv (the first 40
# under a RUNNER such as valgrind). Prints "ok - ..." or "FAIL - ..." per check and ends
# with "N passed, M failed"; exits 1 if any failed.

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: sh tests/test_batch.sh BIN [RUNNER]" >&2
    exit 2
fi
BIN=$1
RUNNER=${2-}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/toytrans-batch.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' HUP INT TERM
OUT=$TMP/stdout
ERR=$TMP/stderr
passed=0
failed=0
CODE=0
# shellcheck source=tests/cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

MODEL=models/en-de.db
if [ ! -f "$MODEL" ]; then
    echo "test_batch.sh: $MODEL is missing (make model trains it)" >&2
    exit 1
fi
N=1800
[ -n "$RUNNER" ] && N=40
SRC=$TMP/src.txt
cut -f1 data/test.tsv | sed -n "1,${N}p" >"$SRC"
# A block with bad lines among good ones: invalid UTF-8, an empty line, a line longer
# than the model takes, and a name.
MIXED=$TMP/mixed.txt
{
    sed -n '1,5p' "$SRC"
    printf 'the cat \377 sleeps\n'
    printf '\n'
    i=0
    line=""
    while [ $i -lt 60 ]; do line="$line the cat"; i=$((i + 1)); done
    echo "$line"
    echo "Anna reads the book."
    sed -n '6,12p' "$SRC"
} >"$MIXED"

# same DESC REF ARGS...: translate --json of $SRC with ARGS is byte for byte REF.
same() {
    desc=$1
    ref=$2
    shift 2
    run_in "$SRC" translate --model "$MODEL" --no-read-back --json "$@"
    if [ "$CODE" -ne 0 ]; then
        fail "$desc" "exit $CODE"
        show "$ERR"
    elif cmp -s "$OUT" "$ref"; then
        pass "$desc"
    else
        fail "$desc" "output differs from --batch 1: $(cmp "$OUT" "$ref" 2>&1 | head -1)"
    fi
}

REF=$TMP/ref.jsonl
run_in "$SRC" translate --model "$MODEL" --no-read-back --json --batch 1
cp "$OUT" "$REF"
if [ "$CODE" -eq 0 ] && [ "$(wc -l <"$REF")" -eq "$N" ]; then
    pass "--batch 1: $N JSON lines"
else
    fail "--batch 1: $N JSON lines" "exit $CODE, $(wc -l <"$REF") lines"
fi
for b in 7 32 64; do
    same "greedy --batch $b equals --batch 1, every float" "$REF" --batch "$b"
done
for t in 2 3; do
    same "greedy --batch 32 --threads $t equals --batch 1" "$REF" --batch 32 --threads "$t"
done
# From a file on several threads, each block is decoded while the one before it is
# written: at --batch 2 the blocks are 16 lines, so there are many of them.
same "greedy --batch 2 --threads 2 (blocks decoded while the last is written) equals --batch 1" \
    "$REF" --batch 2 --threads 2
# The default batch is the measured one, and the same again.
same "greedy, default batch, equals --batch 1" "$REF"

BREF=$TMP/beam.jsonl
sed -n '1,200p' "$SRC" >"$TMP/src200.txt"
run_in "$TMP/src200.txt" translate --model "$MODEL" --no-read-back --json --beam 4 --batch 1
cp "$OUT" "$BREF"
SRC_ALL=$SRC
SRC=$TMP/src200.txt
same "--beam 4 --batch 32 --threads 2 equals --batch 1" "$BREF" --beam 4 --batch 32 --threads 2
same "--beam 4 --batch 5 equals --batch 1" "$BREF" --beam 4 --batch 5
SRC=$SRC_ALL

# The read-back (the reverse model beside the model) reads a block back in batches too:
# its readings, scores and warnings are the same, bit for bit, as one sentence at a time.
# The honesty set's sentences make it warn (reads back as ...), test.tsv's agree; with
# --strict, lines left out of a block's output must not shift the others' read-backs.
RB=$TMP/readback.txt
NRB=300 EVERY=1
if [ -n "$RUNNER" ]; then # valgrind: fewer lines (every 20th of the set), one batched run
    NRB=15 EVERY=20
fi
{
    grep -v '^#' data/honesty.tsv | cut -f1 | awk -v k="$EVERY" 'NR % k == 0'
    sed -n "1,${NRB}p" "$SRC"
} >"$RB"
# rb_same ARGS...: translate --read-back --json of $RB with ARGS is $TMP/rb1.*, exit $rcode.
rb_same() {
    run_in "$RB" translate --model "$MODEL" --read-back --json "$@"
    if [ "$CODE" -eq "$rcode" ] && cmp -s "$OUT" "$TMP/rb1.out" &&
        cmp -s "$ERR" "$TMP/rb1.err"; then
        pass "read-back $*: the same JSON, warnings and exit code as --batch 1"
    else
        fail "read-back $*: the same JSON, warnings and exit code as --batch 1" \
            "exit $CODE vs $rcode; $(cmp "$OUT" "$TMP/rb1.out" 2>&1 | head -1)"
        show "$ERR"
    fi
}
for extra in "" "--strict"; do
    # shellcheck disable=SC2086 # $extra is one flag or none
    run_in "$RB" translate --model "$MODEL" --read-back --json --batch 1 $extra
    cp "$OUT" "$TMP/rb1.out"
    cp "$ERR" "$TMP/rb1.err"
    rcode=$CODE
    if [ -z "$extra" ]; then
        want='"agrees":false'
    else
        want='"error"' # lines refused among the read-back ones
    fi
    if grep -q "$want" "$TMP/rb1.out" && grep -q '"agrees":true' "$TMP/rb1.out"; then
        pass "read-back $extra: readings that agree, and $want"
    else
        fail "read-back $extra: readings that agree, and $want" "exit $CODE"
        show "$ERR"
    fi
    # shellcheck disable=SC2086
    rb_same $extra --batch 7 --threads 2
    if [ -z "$RUNNER" ]; then
        # shellcheck disable=SC2086
        rb_same $extra --batch 32
    fi
done

# bad_same DESC FILE ARGS...: translate of FILE with ARGS gives the same output, messages
# and exit code as --batch 1 (bad lines are reported as they are one at a time, the lines
# around them translated); $OUT and $ERR keep the batched run's.
bad_same() {
    desc=$1
    file=$2
    shift 2
    run_in "$file" translate --model "$MODEL" --no-read-back --batch 1
    cp "$OUT" "$TMP/bad1.out"
    cp "$ERR" "$TMP/bad1.err"
    code1=$CODE
    run_in "$file" translate --model "$MODEL" --no-read-back "$@"
    if [ "$CODE" -eq "$code1" ] && cmp -s "$OUT" "$TMP/bad1.out" &&
        cmp -s "$ERR" "$TMP/bad1.err"; then
        pass "$desc: same output, messages and exit code ($CODE) as one at a time"
    else
        fail "$desc: same output, messages and exit code as one at a time" \
            "exit $CODE vs $code1"
        show "$ERR"
    fi
}

bad_same "bad lines in a batch" "$MIXED" --batch 4 --threads 2
expect_in "the invalid line is named in a batch too" "$ERR" "line 6"
if [ "$(wc -l <"$OUT")" -eq "$(wc -l <"$MIXED")" ]; then
    pass "one output line per input line in a batch"
else
    fail "one output line per input line in a batch" "$(wc -l <"$OUT") lines"
fi

# The same across blocks that overlap (16 lines each at --batch 2 on two threads).
cat "$MIXED" "$MIXED" "$MIXED" >"$TMP/mixed3.txt"
bad_same "bad lines in overlapping blocks" "$TMP/mixed3.txt" --batch 2 --threads 2
expect_in "the invalid line of the third block is named" "$ERR" "line 38"
# Output that cannot be written stops the run with exit 5, a block decoding behind it.
if [ -w /dev/full ]; then
    # shellcheck disable=SC2086 # $RUNNER is a command with its flags, or nothing
    $RUNNER "$BIN" translate --model "$MODEL" --no-read-back --batch 2 --threads 2 \
        <"$SRC" >/dev/full 2>"$ERR"
    CODE=$?
    expect_code "overlapping blocks > /dev/full: exit 5" 5
fi

# eval translates in batches too: the same translations.
paste "$SRC" "$SRC" | sed -n '1,300p' >"$TMP/test.tsv"
run eval --model "$MODEL" --test "$TMP/test.tsv" --hyp-out "$TMP/hyp1.txt" --batch 1
run eval --model "$MODEL" --test "$TMP/test.tsv" --hyp-out "$TMP/hyp32.txt" --batch 32 \
    --threads 2
if [ "$CODE" -eq 0 ] && cmp -s "$TMP/hyp1.txt" "$TMP/hyp32.txt"; then
    pass "eval --batch 32 --threads 2: the same translations as --batch 1"
else
    fail "eval --batch 32 --threads 2: the same translations as --batch 1" "exit $CODE"
fi

# eval --warnings reads back in batches too: the same tables (the time line aside).
grep -v '^#' data/honesty.tsv | awk -v k="$EVERY" 'NR % k == 0' >"$TMP/honesty.tsv"
run eval --model "$MODEL" --test "$TMP/honesty.tsv" --warnings --batch 1
grep -v '^time:' "$OUT" >"$TMP/warn1.txt"
code1=$CODE
run eval --model "$MODEL" --test "$TMP/honesty.tsv" --warnings --batch 7 --threads 2
grep -v '^time:' "$OUT" >"$TMP/warn7.txt"
if [ "$CODE" -eq 0 ] && [ "$code1" -eq 0 ] && grep -q "each warning" "$TMP/warn1.txt" &&
    cmp -s "$TMP/warn1.txt" "$TMP/warn7.txt"; then
    pass "eval --warnings --batch 7 --threads 2: the same tables as --batch 1"
else
    fail "eval --warnings --batch 7 --threads 2: the same tables as --batch 1" \
        "exit $CODE and $code1; $(cmp "$TMP/warn1.txt" "$TMP/warn7.txt" 2>&1 | head -1)"
fi

# inspect reads several texts in batches too: the same JSON, every float, the encoder's
# weights included (a batch of 64 runs the encoder in chunks, src/nn/transformer.h).
sed -n '1,50p' "$SRC" >"$TMP/src50.txt"
run_in "$TMP/src50.txt" inspect --model "$MODEL" --json --encoder --self --batch 1
cp "$OUT" "$TMP/inspect1.json"
for args in "--batch 16 --threads 2" "--batch 64"; do
    # shellcheck disable=SC2086 # $args is several flags
    run_in "$TMP/src50.txt" inspect --model "$MODEL" --json --encoder --self $args
    if [ "$CODE" -eq 0 ] && grep -q '"encoder_attention"' "$OUT" &&
        cmp -s "$OUT" "$TMP/inspect1.json"; then
        pass "inspect --encoder --self $args: the same JSON as --batch 1"
    else
        fail "inspect --encoder --self $args: the same JSON as --batch 1" "exit $CODE"
    fi
done

# A program that writes a line down a pipe and waits for its translation gets it, though
# the block is not full and the pipe stays open.
mkfifo "$TMP/fifo"
# shellcheck disable=SC2086 # $RUNNER is a command with its flags, or nothing
$RUNNER "$BIN" translate --model "$MODEL" --no-read-back <"$TMP/fifo" >"$TMP/piped.out" \
    2>/dev/null &
pid=$!
exec 3>"$TMP/fifo"
echo "This is an example" >&3
i=0
while [ $i -lt 600 ] && ! grep -q . "$TMP/piped.out"; do
    sleep 0.1
    i=$((i + 1))
done
if [ "$(cat "$TMP/piped.out")" = "Das ist ein Beispiel" ]; then
    pass "a line down a pipe is answered while the pipe stays open"
else
    fail "a line down a pipe is answered while the pipe stays open" \
        "after $((i / 10)) s: '$(cat "$TMP/piped.out")'"
fi
exec 3>&-
wait "$pid"

# check decodes its prefix-less cases in batches: the same report, golden numbers
# included.
run check --model "$MODEL" data/regression.tsv --golden tests/golden/en-de.jsonl --batch 1
cp "$OUT" "$TMP/check1.txt"
code1=$CODE
run check --model "$MODEL" data/regression.tsv --golden tests/golden/en-de.jsonl --batch 7 \
    --threads 3
if [ "$CODE" -eq "$code1" ] && cmp -s "$OUT" "$TMP/check1.txt"; then
    pass "check --batch 7 --threads 3: the same report as --batch 1 (exit $CODE)"
else
    fail "check --batch 7 --threads 3: the same report as --batch 1" "exit $CODE vs $code1"
fi

# An n-best list is one sentence's search, decoded one at a time whatever --threads says:
# the same lists as on one thread (on two, the lists were once taken from a block decoded
# ahead, which keeps no hypotheses: one line, scored 0).
run translate --model "$MODEL" --no-read-back --n-best 3 --beam 3 "This is an example" \
    "The dog sees the cat."
cp "$OUT" "$TMP/nbest1.txt"
run translate --model "$MODEL" --no-read-back --n-best 3 --beam 3 --threads 2 \
    "This is an example" "The dog sees the cat."
if [ "$CODE" -eq 0 ] && [ "$(wc -l <"$OUT")" -eq 6 ] && cmp -s "$OUT" "$TMP/nbest1.txt"; then
    pass "--n-best 3 --threads 2: the same lists as one thread"
else
    fail "--n-best 3 --threads 2: the same lists as one thread" \
        "exit $CODE, $(wc -l <"$OUT") lines: $(head -1 "$OUT")"
fi

# Usage errors name the flag.
run translate --model "$MODEL" --batch 0 "hi"
expect_code "--batch 0 is a usage error" 2
expect_in "--batch 0 names the flag" "$ERR" "--batch"
run translate --model "$MODEL" --threads 0 "hi"
expect_code "--threads 0 is a usage error" 2

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
