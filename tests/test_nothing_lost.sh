#!/bin/sh
# test_nothing_lost.sh — no command loses what it reads or what it does not own, and no
# read is unbounded: outputs that would replace an input (by device and inode, standard
# input included), an SQLite file or a locked model; line readers that stop at the line
# limit instead of holding a whole line in memory; Ctrl-C during loading.
#
#   sh tests/test_nothing_lost.sh BIN [RUNNER]
#
# As tests/test_cli.sh: "ok - ..." or "FAIL - ..." per check, "N passed, M failed" at the
# end, exit 1 if any check failed.

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: sh tests/test_nothing_lost.sh BIN [RUNNER]" >&2
    exit 2
fi
BIN=$1
ABS_BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
RUNNER=${2-}
if [ ! -x "$BIN" ]; then
    echo "test_nothing_lost.sh: '$BIN' is not an executable" >&2
    exit 2
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/toytrans-lost.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' HUP INT TERM

OUT=$TMP/stdout
ERR=$TMP/stderr
passed=0
failed=0
CODE=0

# shellcheck source=tests/cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

# same_bytes DESC A B: files A and B are byte for byte the same.
same_bytes() {
    if cmp -s "$2" "$3"; then
        pass "$1"
    else
        fail "$1" "$2 changed"
    fi
}

TINYDB=tests/fixtures/tiny.db
ABS_TINY=$(pwd)/$TINYDB
printf 'This is an example\tDas ist ein Beispiel\nThe dog is big.\tDer Hund ist gro\303\237.\nthe dog is small\tDer Hund ist klein\n' >"$TMP/c.tsv"
TINY="--d-model 8 --heads 2 --d-ff 16 --max-len 12"

# ---------------------------------------------------------------------------------------
# check --golden G --update: G is an output like any other.

W=$TMP/check
mkdir -p "$W"
cp "$TINYDB" "$W/m.db"
cp "$TINYDB" "$W/m.orig"
# The case passes: its expectation is what tiny.db says.
printf 'the dog\t%s\n' "$("$BIN" translate --model "$TINYDB" "the dog" 2>/dev/null)" >"$W/cases.tsv"
cp "$W/cases.tsv" "$W/cases.orig"
run check "$W/cases.tsv" --model "$W/m.db" --golden "$W/m.db" --update
expect_code "check --golden the model --update: exit 2" 2
expect_in "check --golden the model --update: names both" "$ERR" \
    "--golden $W/m.db is the same file as --model $W/m.db"
same_bytes "check --golden the model --update: the model unchanged" "$W/m.db" "$W/m.orig"
cp "$W/m.orig" "$W/m.db"
run check "$W/cases.tsv" --model "$W/m.db" --golden "$W/cases.tsv" --update
expect_code "check --golden the case file --update: exit 2" 2
expect_in "check --golden the case file --update: names both" "$ERR" "is the same file as FILE"
same_bytes "check --golden the case file --update: the cases unchanged" "$W/cases.tsv" \
    "$W/cases.orig"
cp "$TINYDB" "$W/other.db"
run check "$W/cases.tsv" --model "$W/m.db" --golden "$W/other.db" --update
expect_code "check --golden another model --update: exit 2" 2
expect_in "check --golden another model --update: says --force" "$ERR" "--force replaces it"
same_bytes "check --golden another model --update: unchanged" "$W/other.db" "$TINYDB"
run check "$W/cases.tsv" --model "$W/m.db" --golden "$W/other.db" --update --force
expect_code "check --golden another model --update --force: exit 0" 0
expect_first_line "check --golden another model --update --force: now JSON lines" \
    "$W/other.db" "{"
# A model that a training run writes is locked: not replaced even with --force.
cp "$TMP/c.tsv" "$W/c.tsv"
rm -f "$W/t.db"
# shellcheck disable=SC2086
$RUNNER "$BIN" train --train "$W/c.tsv" --out "$W/t.db" $TINY --epochs 100000 \
    --checkpoint-every 1 >/dev/null 2>&1 &
trainer=$!
n=0
while [ ! -f "$W/t.db" ] && [ $n -lt 200 ]; do
    sleep 0.1
    n=$((n + 1))
done
sleep 0.5
run check "$W/cases.tsv" --model "$W/m.db" --golden "$W/t.db" --update --force
expect_code "check --golden a model being trained --update --force: exit 5" 5
expect_in "check --golden a model being trained: says it is being written" "$ERR" \
    "being written by another process"
kill -INT "$trainer" 2>/dev/null
wait "$trainer"
expect_first_line "check --golden a model being trained: still a database" "$W/t.db" \
    "SQLite format 3"

# ---------------------------------------------------------------------------------------
# vocab --lists DIR and corpus --out-dir DIR: their files are outputs like any other.

W=$TMP/lists
mkdir -p "$W"
cp "$TMP/c.tsv" "$W/en.tsv"
# shellcheck disable=SC2086
(cd "$W" && $RUNNER "$ABS_BIN" vocab --train en.tsv --out v.db --lists . >"$OUT" 2>"$ERR")
CODE=$?
expect_code "vocab --train en.tsv --lists .: exit 2" 2
expect_in "vocab --train en.tsv --lists .: names both" "$ERR" \
    "--lists ./en.tsv is the same file as --train en.tsv"
same_bytes "vocab --train en.tsv --lists .: the corpus unchanged" "$W/en.tsv" "$TMP/c.tsv"
if [ -e "$W/v.db" ]; then
    fail "vocab --train en.tsv --lists .: no model written" "v.db exists"
else
    pass "vocab --train en.tsv --lists .: no model written"
fi
rm -f "$W/en.tsv"
# shellcheck disable=SC2086
(cd "$W" && $RUNNER "$ABS_BIN" vocab --train "$TMP/c.tsv" --out en.tsv --lists . >"$OUT" 2>"$ERR")
CODE=$?
expect_code "vocab --out en.tsv --lists .: exit 2" 2
expect_in "vocab --out en.tsv --lists .: names both" "$ERR" \
    "--out en.tsv and --lists ./en.tsv are the same file"
if [ -e "$W/en.tsv" ]; then
    fail "vocab --out en.tsv --lists .: nothing written" "en.tsv exists"
else
    pass "vocab --out en.tsv --lists .: nothing written"
fi
# An existing model at --out, replaced with --force: the list would then replace it.
"$BIN" vocab --train "$TMP/c.tsv" --out "$W/de.tsv" >/dev/null 2>&1
cp "$W/de.tsv" "$W/de.orig"
run vocab --train "$TMP/c.tsv" --out "$W/de.tsv" --lists "$W" --force
expect_code "vocab --out de.tsv --lists DIR --force (de.tsv exists): exit 2" 2
same_bytes "vocab --out de.tsv --lists DIR --force: the old model unchanged" "$W/de.tsv" \
    "$W/de.orig"
rm -f "$W/de.tsv" "$W/de.orig"
printf 'keep\n' >"$W/target.tsv"
ln -s target.tsv "$W/en.tsv"
run vocab --train "$TMP/c.tsv" --out "$W/v.db" --lists "$W"
expect_code "vocab --lists DIR with a link at en.tsv: exit 2" 2
expect_in "vocab --lists DIR with a link at en.tsv: says --force" "$ERR" "is a symbolic link"
if [ -L "$W/en.tsv" ] && [ "$(cat "$W/target.tsv")" = keep ]; then
    pass "vocab --lists DIR with a link at en.tsv: the link and its target unchanged"
else
    fail "vocab --lists DIR with a link at en.tsv: the link and its target unchanged" "changed"
fi
rm -f "$W/v.db"
run vocab --train "$TMP/c.tsv" --out "$W/v.db" --lists "$W" --force
expect_code "vocab --lists DIR with a link at en.tsv, --force: exit 0" 0
if [ ! -L "$W/en.tsv" ] && [ "$(cat "$W/target.tsv")" = keep ]; then
    pass "vocab --lists DIR --force: the link replaced, its target not"
else
    fail "vocab --lists DIR --force: the link replaced, its target not" "no"
fi

mkdir -p "$W/lx"
cp data/lexicon.tsv "$W/lx/train.tsv"
run corpus --lexicon "$W/lx/train.tsv" --out-dir "$W/lx" --train 20 --valid 5 --test 5
expect_code "corpus --lexicon DIR/train.tsv --out-dir DIR: exit 2" 2
expect_in "corpus --lexicon DIR/train.tsv --out-dir DIR: names both" "$ERR" \
    "is the same file as --lexicon $W/lx/train.tsv"
same_bytes "corpus --lexicon DIR/train.tsv --out-dir DIR: the lexicon unchanged" \
    "$W/lx/train.tsv" data/lexicon.tsv
cp "$TINYDB" "$W/lx/test.tsv"
run corpus --out-dir "$W/lx" --train 20 --valid 5 --test 5
expect_code "corpus --out-dir over an SQLite file: exit 2" 2
same_bytes "corpus --out-dir over an SQLite file: unchanged" "$W/lx/test.tsv" "$TINYDB"
run corpus --out-dir "$W/lx" --train 20 --valid 5 --test 5 --force
expect_code "corpus --out-dir over an SQLite file, --force: exit 0" 0
if [ "$(wc -l <"$W/lx/test.tsv")" -eq 5 ]; then
    pass "corpus --force: the SQLite file replaced by the test split"
else
    fail "corpus --force: the SQLite file replaced by the test split" "$(head -c 40 "$W/lx/test.tsv")"
fi

# ---------------------------------------------------------------------------------------
# '-' as an input is standard input: compared with the outputs by device and inode too.

W=$TMP/stdin
mkdir -p "$W"
cp "$TMP/c.tsv" "$W/test.tsv"
run_in "$W/test.tsv" eval --model "$TINYDB" --test - --hyp-out "$W/test.tsv"
expect_code "eval --test - --hyp-out test.tsv < test.tsv: exit 2" 2
expect_in "eval --test - --hyp-out test.tsv < test.tsv: names both" "$ERR" \
    "--hyp-out $W/test.tsv is the same file as --test -"
same_bytes "eval --test - --hyp-out test.tsv < test.tsv: the test file unchanged" \
    "$W/test.tsv" "$TMP/c.tsv"
run_in "$W/test.tsv" eval --model "$TINYDB" --test - --hyp-out "$W/hyp.txt"
expect_code "eval --test - --hyp-out another file: exit 0" 0
run_in "$W/test.tsv" vocab --train - --out "$W/v.db" --lists "$W"
expect_code "vocab --train - --lists DIR < DIR/test.tsv: exit 0 (not a list)" 0
cp "$TMP/c.tsv" "$W/en.tsv"
rm -f "$W/v.db"
run_in "$W/en.tsv" vocab --train - --out "$W/v.db" --lists "$W" --force
expect_code "vocab --train - --lists DIR < DIR/en.tsv, --force: exit 2" 2
same_bytes "vocab --train - --lists DIR < DIR/en.tsv: the corpus unchanged" "$W/en.tsv" \
    "$TMP/c.tsv"

# ---------------------------------------------------------------------------------------
# translate --n-best: a line that cannot be translated still gets its (empty) entry, as
# the help promises; inspect --svg and --html compared as files, not names.

printf 'the dog\n\377\nthe cat\n' >"$W/nbest.txt"
run_in "$W/nbest.txt" translate --model "$TINYDB" --n-best 2
expect_code "translate --n-best with invalid UTF-8 on line 2: exit 4" 4
if [ "$(cut -d' ' -f1 "$OUT" | tr '\n' ' ')" = "0 0 1 2 2 " ]; then
    pass "translate --n-best: the failing line has its index"
else
    fail "translate --n-best: the failing line has its index" "$(cut -d' ' -f1 "$OUT" | tr '\n' ' ')"
fi
expect_in "translate --n-best: the failing line's entry is empty" "$OUT" "1 |||  ||| F0= 0 ||| 0"
run translate --model "$TINYDB" --n-best 1 --strict "the dog" "the zebra"
expect_code "translate --n-best --strict with an unknown word: exit 4" 4
expect_in "translate --n-best --strict: the refused argument has its empty entry" "$OUT" \
    "1 |||  ||| F0= 0 ||| 0"

W=$TMP/inspect
mkdir -p "$W"
# shellcheck disable=SC2086
(cd "$W" && $RUNNER "$ABS_BIN" inspect --model "$ABS_TINY" --html x1 --svg ./x1 "the dog" \
    >"$OUT" 2>"$ERR")
CODE=$?
expect_code "inspect --html x1 --svg ./x1: exit 2" 2
expect_in "inspect --html x1 --svg ./x1: names both" "$ERR" "are the same file"
if [ -e "$W/x1" ]; then
    fail "inspect --html x1 --svg ./x1: nothing written" "x1 exists"
else
    pass "inspect --html x1 --svg ./x1: nothing written"
fi
printf 'old\n' >"$W/target.html"
ln -s target.html "$W/link.html"
run inspect --model "$TINYDB" --html "$W/target.html" --svg "$W/link.html" --force "the dog"
expect_code "inspect --svg a link to the --html file, --force: exit 2" 2

# ---------------------------------------------------------------------------------------
# A symbolic link to a directory on the way to a model is followed; only the model file
# itself is refused as a link (docs/model-format.md).

mkdir -p "$TMP/real"
ln -s "$TMP/real" "$TMP/wlink"
cp "$TINYDB" "$TMP/real/m.db"
cp "$TMP/c.tsv" "$TMP/real/c.tsv"
run translate --model "$TMP/wlink/m.db" "the dog"
expect_code "translate --model through a linked directory: exit 0" 0
run info --model "$TMP/wlink/m.db"
expect_code "info --model through a linked directory: exit 0" 0
run eval --model "$TMP/wlink/m.db" --test "$TMP/wlink/c.tsv"
expect_code "eval --model through a linked directory: exit 0" 0
TOYTRANS_MODEL=$TMP/wlink/m.db run translate "the dog"
expect_code "\$TOYTRANS_MODEL through a linked directory: exit 0" 0
# shellcheck disable=SC2086
run train --train "$TMP/wlink/c.tsv" --out "$TMP/wlink/t.db" $TINY --epochs 1
expect_code "train --out through a linked directory: exit 0" 0
run train --out "$TMP/wlink/t.db" --resume --epochs 2
expect_code "train --resume through a linked directory: exit 0" 0
expect_in "train --resume through a linked directory: trained on" "$OUT" "trained, 2 steps"
ln -s m.db "$TMP/real/link.db"
run info --model "$TMP/wlink/link.db"
expect_code "info --model a link to a model: exit 3 (refused)" 3
expect_in "info --model a link to a model: says so" "$ERR" "is a symbolic link"

# ---------------------------------------------------------------------------------------
# Bounded reads: a line is read up to the line limit (65536 bytes) and no further, so an
# endless line (/dev/zero) is refused at once in little memory; Ctrl-C while a corpus is
# read ends the run with exit 130 at once. Each run is bounded by `timeout` and, without
# RUNNER (valgrind and sanitizers need more address space), by `ulimit -v`.

# The address-space limit only where the binary runs under it at all: not under a RUNNER,
# and not for a sanitizer build (ASan reserves terabytes of shadow memory at start).
LIMIT_VM=0
if [ -z "$RUNNER" ] && (ulimit -v 200000 && "$BIN" --version) >/dev/null 2>&1; then
    LIMIT_VM=1
fi

# bounded SECONDS ARGS...: run under a time limit, and a 200 MB address-space limit when
# the binary can run under one (LIMIT_VM).
bounded() {
    limit=$1
    shift
    if [ "$LIMIT_VM" = 1 ]; then
        (ulimit -v 200000 && timeout "$limit" "$BIN" "$@" >"$OUT" 2>"$ERR")
    else
        # shellcheck disable=SC2086
        timeout "$limit" $RUNNER "$BIN" "$@" >"$OUT" 2>"$ERR"
    fi
    CODE=$?
}

if command -v timeout >/dev/null 2>&1; then
    W=$TMP/bounded
    mkdir -p "$W"
    # shellcheck disable=SC2086
    bounded 20 train --train /dev/zero --out "$W/z.db" $TINY
    expect_code "train --train /dev/zero: exit 4 at once" 4
    expect_in "train --train /dev/zero: names the file, the line and the limit" "$ERR" \
        "/dev/zero:1: more than the 65536 bytes a line may have"
    bounded 20 eval --model "$TINYDB" --test /dev/zero
    expect_code "eval --test /dev/zero: exit 4 at once" 4
    expect_in "eval --test /dev/zero: the limit, not a NUL byte after gigabytes" "$ERR" \
        "/dev/zero:1: more than the 65536 bytes"
    bounded 20 vocab --train /dev/zero --out "$W/v.db"
    expect_code "vocab --train /dev/zero: exit 4 at once" 4
    printf 'the dog\t' >"$W/cases.tsv"
    head -c 200000 /dev/zero | tr '\0' a >>"$W/cases.tsv"
    bounded 20 check "$W/cases.tsv" --model "$TINYDB"
    expect_code "check with a 200 KB case line: exit 4" 4
    expect_in "check with a 200 KB case line: names the file and line" "$ERR" "cases.tsv:1: more than"
    # A resume reads the corpus its file names (meta train_corpus).
    # shellcheck disable=SC2086
    "$BIN" train --train "$TMP/c.tsv" --out "$W/r.db" $TINY --epochs 1 >/dev/null 2>&1
    if command -v python3 >/dev/null 2>&1 &&
        python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE meta SET value = '/dev/zero' WHERE key = 'train_corpus'\"); c.execute(\"DELETE FROM meta WHERE key = 'content_fnv1a64'\"); c.commit()" "$W/r.db"; then
        bounded 20 train --out "$W/r.db" --resume --epochs 2
        expect_code "train --resume of a run on /dev/zero: exit 4 at once" 4
        expect_in "train --resume of a run on /dev/zero: names it" "$ERR" "/dev/zero:1: more than"
    fi
    # translate: the bad line is refused and the next one still translated.
    { echo "the dog"; head -c 30000000 /dev/zero; printf '\nthe dog\n'; } >"$W/zero-line.txt"
    if [ "$LIMIT_VM" = 1 ]; then
        (ulimit -v 200000 && timeout 20 "$BIN" translate --model "$TINYDB" <"$W/zero-line.txt" \
            >"$OUT" 2>"$ERR")
    else
        # shellcheck disable=SC2086
        timeout 60 $RUNNER "$BIN" translate --model "$TINYDB" <"$W/zero-line.txt" >"$OUT" 2>"$ERR"
    fi
    CODE=$?
    expect_code "translate, a 30 MB line of NULs: exit 4" 4
    expect_in "translate, a 30 MB line of NULs: refused as too long" "$ERR" \
        "line 2: more than the 65536 bytes a line may have"
    if [ "$(sed -n 1p "$OUT")" = "$(sed -n 3p "$OUT")" ] && [ -n "$(sed -n 3p "$OUT")" ]; then
        pass "translate, a 30 MB line of NULs: the line after it translated"
    else
        fail "translate, a 30 MB line of NULs: the line after it translated" "$(wc -l <"$OUT") lines"
    fi
    rm -f "$W/zero-line.txt"
    # Ctrl-C while an endless corpus is read (each line skipped as too long): exit 130
    # at once, and no model written.
    # shellcheck disable=SC2086
    timeout 30 sh -c 'exec timeout --preserve-status -s INT 2 "$@"' sh $RUNNER "$BIN" \
        train --train /dev/zero --skip-bad-lines --out "$W/int.db" $TINY >"$OUT" 2>"$ERR"
    CODE=$?
    expect_code "train --train /dev/zero --skip-bad-lines, Ctrl-C after 2 s: exit 130" 130
    expect_in "train interrupted while reading: says so" "$ERR" "interrupted"
    if [ -e "$W/int.db" ]; then
        fail "train interrupted while reading: no model written" "int.db exists"
    else
        pass "train interrupted while reading: no model written"
    fi
    # bleu: the same line limit, and a line at the limit costs little.
    { echo "der Hund"; head -c 16000000 /dev/zero | tr '\0' a; echo; } >"$W/hyp-big.txt"
    printf 'der Hund\nder Hund\n' >"$W/ref2.txt"
    bounded 20 bleu "$W/hyp-big.txt" "$W/ref2.txt"
    expect_code "bleu with a 16 MB line: exit 4 at once" 4
    expect_in "bleu with a 16 MB line: names the file, the line and the limit" "$ERR" \
        "hyp-big.txt:2: more than the 65536 bytes a line may have"
    { head -c 65537 /dev/zero | tr '\0' a; echo; } >"$W/hyp-65537.txt"
    printf 'a\n' >"$W/ref1.txt"
    bounded 20 bleu "$W/hyp-65537.txt" "$W/ref1.txt"
    expect_code "bleu with a line of 65537 bytes: exit 4" 4
    awk 'BEGIN { for (i = 0; i < 32767; i++) printf "a "; print "a" }' >"$W/hyp-max.txt"
    bounded 20 bleu "$W/hyp-max.txt" "$W/hyp-max.txt"
    expect_code "bleu with a line of 65536 bytes (32768 words), 200 MB at most: exit 0" 0
    expect_in "bleu with a line of 65536 bytes: scores it" "$OUT" "= 100.00 100.0/100.0/100.0/100.0"
    rm -f "$W/hyp-big.txt"
else
    echo "# skipped: bounded reads (no timeout command)"
fi

# ---------------------------------------------------------------------------------------
# The attention rollout behind the coverage report is linear in the layers and quadratic
# in the source, never cubic: 2,000 words through a model with max_len 4096 take well
# under a second (minutes when the rollout was a product of S × S matrices), with the
# rollout computed (--coverage-min above every word, --json) or skipped.

if command -v timeout >/dev/null 2>&1; then
    W=$TMP/rollout
    mkdir -p "$W"
    printf 'the dog is big\tder Hund ist gro\303\237\n' >"$W/c.tsv"
    "$BIN" init --train "$W/c.tsv" --out "$W/long.db" --max-len 4096 --d-model 8 --heads 2 \
        --d-ff 16 >/dev/null 2>&1
    words=$(awk 'BEGIN { for (i = 0; i < 2000; i++) printf "dog "; print "dog" }')
    limit=20
    [ -n "$RUNNER" ] && limit=600
    for flags in "--coverage-min 0.9" "--coverage-min 0" "--json"; do
        # shellcheck disable=SC2086
        timeout "$limit" $RUNNER "$BIN" translate --model "$W/long.db" $flags "$words" \
            >"$OUT" 2>"$ERR"
        CODE=$?
        expect_code "translate $flags, 2,000 words, max_len 4096: done within ${limit} s" 0
    done
    expect_in "translate --json: coverage_rollout still there" "$OUT" '"coverage_rollout":[0'
fi

echo "$passed passed, $failed failed"
if [ "$failed" -ne 0 ]; then
    exit 1
fi
exit 0
