#!/bin/sh
# test_honesty.sh — no silent wrong translation (docs/honesty.md): each warning of
# `toytrans translate` on the examples that once went silent, --strict, the JSON fields,
# the read-back's model choice, the German→English model as a translator of its own, and
# the measured targets on the hand-written set data/honesty.tsv:
#   - wrong translations without any warning: at most 2 % of the wrong ones;
#   - right translations of in-grammar sentences with a warning: at most 0.5 %;
#   - right translations of data/test.tsv with a warning: none;
# and that docs/honesty.md's tables are what bench/coverage.sh and bench/honesty.sh
# measure (the part of them that takes seconds).
#
#   sh tests/test_honesty.sh BIN [RUNNER]
#
# Uses the shipped models, models/en-de.db and models/de-en.db. Prints "ok - ..." or
# "FAIL - ..." per check and ends with "N passed, M failed"; exits 1 if any failed.

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: sh tests/test_honesty.sh BIN [RUNNER]" >&2
    exit 2
fi
BIN=$1
RUNNER=${2-}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/toytrans-honesty.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' HUP INT TERM
OUT=$TMP/stdout
ERR=$TMP/stderr
passed=0
failed=0
CODE=0
# shellcheck source=tests/cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

FWD=models/en-de.db
REV=models/de-en.db
for f in "$FWD" "$REV"; do
    if [ ! -f "$f" ]; then
        echo "test_honesty.sh: $f is missing (make model trains it)" >&2
        exit 1
    fi
done

# expect_line_warns DESC TEXT WHAT: translating TEXT alone warns "argument 1: WHAT".
expect_line_warns() {
    run translate --model "$FWD" "$2"
    expect_code "$1: exit 0" 0
    expect_in "$1: warns" "$ERR" "argument 1: $3"
}

# ---------------------------------------------------------------------------------------
# 1. Common words are not names (data/common-words.txt)

# (Not "Thanks!", "Hello", "Where ..." or "What ...": the phrasebook put them in the
# vocabulary.)
for s in "Oops!" "Why is the cat big?" "Two girls read the book." \
    "Could you read the letter?" "Maybe the dog is old." "Hey"; do
    expect_line_warns "'$s': a capitalised common word is not a name" "$s" \
        "not in the vocabulary:"
done
run translate --model "$FWD" "Zoe sees the dog" "This is my friend McDonald."
expect_not_in "Zoe, McDonald: names, no unknown-word warning" "$ERR" "not in the vocabulary"
expect_in "Zoe is copied" "$OUT" "Zoe sieht den Hund"

# ---------------------------------------------------------------------------------------
# 2. Outside the grammar

expect_line_warns "'not' inside a noun phrase" "This is a not very old car." \
    "outside the grammar the model learned, at \"not"
expect_line_warns "two adjectives before a noun" "The small young cat is in the house." \
    "outside the grammar the model learned, at \"young"
run translate --model "$FWD" "I don't see the dog." "lisa reads the book" "Do you see the cat?"
expect_code "in-grammar sentences: exit 0" 0
expect_not_in "in-grammar sentences, typed as people type: no grammar warning" "$ERR" \
    "outside the grammar"
run translate --model "$FWD" --no-grammar-check --no-read-back "This is a not very old car."
expect_not_in "--no-grammar-check: no grammar warning" "$ERR" "outside the grammar"

# --strict: an unknown word or a sentence outside the grammar is an error for that line.
run translate --model "$FWD" --strict "I love you" "Oops!" "This is a not very old car."
expect_code "--strict: exit 4" 4
if [ "$(sed -n 1p "$OUT")" = "Ich liebe dich" ] && [ "$(sed -n 2p "$OUT")" = "" ] &&
    [ "$(sed -n 3p "$OUT")" = "" ] && [ "$(wc -l <"$OUT")" -eq 3 ]; then
    pass "--strict: the good line translated, the two others empty"
else
    fail "--strict: the good line translated, the two others empty" "got:"
    show "$OUT"
fi

# ---------------------------------------------------------------------------------------
# 3. Read-back

expect_line_warns "read-back: a lost 'young'" "The small young cat is in the house." \
    "reads back as \""
# A lost negation, a lost plural, a lost "kein": German forced by --prefix that drops them.
for case in "I don't see the dog.|Ich sehe den Hund.|not" \
    "I see the dogs.|Ich sehe den Hund.|a plural" \
    "I have no car.|Ich habe ein Auto.|no"; do
    en=${case%%|*} rest=${case#*|}
    de=${rest%%|*} what=${rest#*|}
    run translate --model "$FWD" --prefix "$de" "$en"
    expect_in "read-back: a translation without '$what' is reported" "$ERR" "reads back as"
done
run translate --model "$FWD" "I see her books." "This is an example"
expect_not_in "read-back: her/their is no disagreement" "$ERR" "reads back"
run translate --model "$FWD" --no-read-back "The small young cat is in the house."
expect_not_in "--no-read-back: no read-back warning" "$ERR" "reads back"
run translate --model "$FWD" --read-back-margin 1000 "The small young cat is in the house."
expect_not_in "--read-back-margin 1000: no read-back warning" "$ERR" "reads back"
run translate --model "$FWD" --read-back-model "$TMP/none.db" "Hello"
expect_code "--read-back-model missing: exit 3" 3
expect_in "--read-back-model missing: named" "$ERR" "read-back"
run translate --model "$FWD" --read-back-model "$FWD" "Hello"
expect_code "--read-back-model of the same direction: exit 2" 2
expect_in "--read-back-model of the same direction: says so" "$ERR" "not back from de to en"
# A model without the reverse model beside it: no read-back, no warning about it.
cp "$FWD" "$TMP/alone.db"
run translate --model "$TMP/alone.db" "The small young cat is in the house."
expect_not_in "no reverse model beside the model: no read-back" "$ERR" "reads back"
# The reverse model beside SRC-TGT.db loads on a thread of its own while the model does:
# the same messages and exit codes as when it loaded after it. A damaged reverse model
# beside the model is named; a damaged model with a sound one beside it is named, and
# the load ahead is waited for and dropped (valgrind: nothing leaks). A model whose name
# does not tell its languages still finds TGT-SRC.db by its config.
mkdir "$TMP/pair" "$TMP/pair2" "$TMP/named"
cp "$FWD" "$TMP/pair/en-de.db"
head -c 100000 "$REV" >"$TMP/pair/de-en.db"
run translate --model "$TMP/pair/en-de.db" "I love you"
expect_code "a damaged reverse model beside the model: exit 3" 3
expect_in "a damaged reverse model beside the model: named" "$ERR" \
    "toytrans translate: read-back: $TMP/pair/de-en.db"
expect_in "a damaged reverse model beside the model: --no-read-back named" "$ERR" \
    "(the reverse model beside the model; --no-read-back goes without it)"
head -c 100000 "$FWD" >"$TMP/pair2/en-de.db"
cp "$REV" "$TMP/pair2/de-en.db"
run translate --model "$TMP/pair2/en-de.db" "I love you"
expect_code "a damaged model with its reverse model beside it: exit 3" 3
expect_in "a damaged model with its reverse model beside it: named" "$ERR" \
    "toytrans translate: $TMP/pair2/en-de.db"
expect_not_in "a damaged model: nothing said of the reverse model" "$ERR" "de-en.db"
cp "$FWD" "$TMP/named/forward.db"
cp "$REV" "$TMP/named/de-en.db"
run translate --model "$TMP/named/forward.db" --json "The small young cat is in the house."
expect_in "a model named otherwise: its reverse model found by its languages" "$OUT" \
    '"read_back":{"checked":true'

# The JSON fields.
run translate --model "$FWD" --json "The small young cat is in the house." "I love you"
for key in '"in_grammar":false' '"grammar_note":"at \"young' '"read_back":{"checked":true' \
    '"agrees":false' '"min_prob":' '"in_grammar":true'; do
    expect_in "--json has $key" "$OUT" "$key"
done

# The German→English model translates in its own right.
run translate --model "$REV" "Das ist ein Beispiel" "Anna sieht den Hund nicht." "Ich liebe dich"
expect_code "de-en: exit 0" 0
expect_file_eq "de-en: translates German into English" "$OUT" "This is an example
Anna does not see the dog.
I love you"

# ---------------------------------------------------------------------------------------
# 4. The targets on data/honesty.tsv and data/test.tsv (eval --warnings; the same
#    translator and checks as translate)

# all_row FILE GROUP: the warnings table's row of GROUP ("all" for every sentence):
# sentences right wrong wrong+warned wrong+silent right+warned.
all_row() {
    awk -v g="$2" '/^warnings \(/ { on = 1; getline; next }
                   /^each warning/ { on = 0 }
                   on && $1 == g { print $2, $3, $4, $5, $6, $7 }' "$1"
}

# The measured targets in a plain run. Under a RUNNER (valgrind) the same code runs on
# every 10th sentence of data/honesty.tsv and every 60th of data/test.tsv: valgrind looks
# for memory errors, and the whole sets with read-back would take it hours.
if [ -n "$RUNNER" ]; then
    awk 'NR % 10 == 1 && !/^#/' data/honesty.tsv >"$TMP/honesty-sub.tsv"
    run eval --model "$FWD" --test "$TMP/honesty-sub.tsv" --warnings
    expect_code "eval --warnings on every 10th honesty.tsv line: exit 0" 0
    expect_in "eval --warnings: the table" "$OUT" "each warning, on wrong / on right"
    awk 'NR % 60 == 1' data/test.tsv >"$TMP/test-sub.tsv"
    run eval --model "$REV" --test "$TMP/test-sub.tsv" --equivalent-by "$FWD"
    expect_code "de-en: eval --equivalent-by on every 60th test.tsv line: exit 0" 0
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
fi

run eval --model "$FWD" --test data/honesty.tsv --warnings
expect_code "eval --warnings data/honesty.tsv: exit 0" 0
cp "$OUT" "$TMP/honesty.txt"
set -- $(all_row "$TMP/honesty.txt" all)
if [ $# -eq 6 ] && [ "$3" -gt 0 ] && [ $(($5 * 1000)) -le $(($3 * 20)) ]; then
    pass "honesty.tsv: wrong and silent $5 of $3 wrong (at most 2 %)"
else
    fail "honesty.tsv: wrong and silent at most 2 % of the wrong" "row: $*"
    show "$TMP/honesty.txt"
fi
set -- $(all_row "$TMP/honesty.txt" in-grammar)
if [ $# -eq 6 ] && [ "$2" -gt 0 ] && [ $(($6 * 1000)) -le $(($2 * 5)) ]; then
    pass "honesty.tsv: in-grammar right and warned $6 of $2 right (at most 0.5 %)"
else
    fail "honesty.tsv: in-grammar false alarms at most 0.5 %" "row: $*"
fi

run eval --model "$FWD" --test data/test.tsv --warnings
expect_code "eval --warnings data/test.tsv: exit 0" 0
set -- $(all_row "$OUT" all)
if [ $# -eq 6 ] && [ "$2" -gt 1700 ] && [ "$6" -eq 0 ]; then
    pass "test.tsv: no right translation of $2 warned about"
else
    fail "test.tsv: no false alarm" "row: $*"
    show "$OUT"
fi

# The German→English model on the swapped columns: exact, or another reading of a German
# that leaves English open (her/their, she/they, no/not a), by the en-de model.
run eval --model "$REV" --test data/test.tsv --equivalent-by "$FWD"
expect_code "de-en: eval on data/test.tsv: exit 0" 0
pct=$(sed -n 's/^exact match or an equivalent reading: [0-9]*\/[0-9]* = \([0-9]*\)\..*/\1/p' "$OUT")
if [ -n "$pct" ] && [ "$pct" -ge 99 ]; then
    pass "de-en: exact or an equivalent reading on data/test.tsv >= 99% ($pct%)"
else
    fail "de-en: exact or an equivalent reading >= 99%" "got '$pct'"
    show "$OUT"
fi

# ---------------------------------------------------------------------------------------
# docs/honesty.md's tables are the measurement's (bench/coverage.sh, bench/honesty.sh, as
# make coverage-measure and make honesty-measure UPDATE=1 write them): the rows that
# need no under-trained checkpoint are measured again (about 20 s) and each must be a
# row of the page, or the start of one (the page's read-back rows go on with the
# checkpoint's column). Not under a RUNNER: these are measurements, not memory checks.

# expect_rows_in_page DESC NAME FRESH: every table row of FRESH starts a row of the page
# between NAME's markers.
expect_rows_in_page() {
    sed -n "/^<!-- begin $2: /,/^<!-- end $2 -->/p" docs/honesty.md >"$TMP/page.md"
    missing=$(grep '^| ' "$3" | grep -v -e '^| ---' -e '^| model' -e '^| margin' |
        while IFS= read -r row; do
            awk -v row="$row" 'index($0, row) == 1 { found = 1 } END { exit !found }' \
                "$TMP/page.md" || printf '%s\n' "$row"
        done)
    compared=$(grep -c '^| ([a-z])\|^| [0-9]' "$3")
    if [ -z "$missing" ] && [ "$compared" -gt 0 ]; then
        pass "$1: the page's $compared rows are the measurement's"
    else
        fail "$1: the page's rows are the measurement's" \
            "measured now, not on the page (make $2 UPDATE=1 writes it):"
        printf '%s\n' "$missing" | sed 's/^/    | /'
    fi
}

if [ -z "$RUNNER" ]; then
    BINABS=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
    if COVERAGE_PARTS="a c" COVERAGE_DIR="$TMP/coverage" sh bench/coverage.sh "$BINABS" \
        >"$TMP/coverage.md" 2>"$ERR"; then
        expect_rows_in_page "docs/honesty.md, coverage (a) and (c)" coverage-measure \
            "$TMP/coverage.md"
    else
        fail "bench/coverage.sh (a) and (c) runs" "$(cat "$ERR")"
    fi
    if HONESTY_PARTS="a b" HONESTY_MARGINS="5 6" HONESTY_DIR="$TMP/honesty" \
        sh bench/honesty.sh "$BINABS" >"$TMP/honesty.md" 2>"$ERR"; then
        expect_rows_in_page "docs/honesty.md, warnings (a) and (b), read-back at 5 and 6" \
            honesty-measure "$TMP/honesty.md"
    else
        fail "bench/honesty.sh (a) and (b) runs" "$(cat "$ERR")"
    fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
