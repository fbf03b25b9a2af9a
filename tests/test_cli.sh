#!/bin/sh
# test_cli.sh — the command-line behaviour of toytrans: exit codes, which stream gets
# what, and a few values of the walk-through that a reader would check by hand.
#
#   sh tests/test_cli.sh BIN [RUNNER]
#
# BIN is the toytrans binary; RUNNER, if not empty, is a command prefix (valgrind ...)
# put before every run of BIN. It is split on blanks on purpose, so it may carry options.
# Prints "ok - ..." or "FAIL - ..." per check and ends with "N passed, M failed";
# exits 1 if any check failed.
#
# Exit codes (toytrans help exit-codes): 0 ok, 1 check failed, 2 usage, 4 invalid
# input file, 5 I/O error.

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: sh tests/test_cli.sh BIN [RUNNER]" >&2
    exit 2
fi
BIN=$1
ABS_BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
RUNNER=${2-}
if [ ! -x "$BIN" ]; then
    echo "test_cli.sh: '$BIN' is not an executable" >&2
    exit 2
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/toytrans-cli.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' HUP INT TERM

OUT=$TMP/stdout
ERR=$TMP/stderr
# inspect fits its report into $COLUMNS when set: the checks below set it where they mean to.
unset COLUMNS
passed=0
failed=0
CODE=0 # exit status of the last run
# Checks that pin one warning kind of translate turn the grammar check and the read-back
# off (they fire on many of the same sentences, and have their own tests,
# tests/test_honesty.sh). Unquoted where used: two options.
ONE_KIND="--no-grammar-check --no-read-back"

# The helpers (run, expect_code, expect_in, ...) are shared with tests/test_matrix_cli.sh.
# shellcheck source=tests/cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

# ---------------------------------------------------------------------------------------
# toytrans itself

run
expect_code "no arguments: exit 2" 2
expect_in "no arguments: usage on stderr" "$ERR" "Usage: toytrans"
expect_empty "no arguments: nothing on stdout" "$OUT"

for h in --help -h help; do
    run "$h"
    expect_code "$h: exit 0" 0
    expect_in "$h: usage on stdout" "$OUT" "Usage: toytrans COMMAND"
    expect_empty "$h: nothing on stderr" "$ERR"
done

run --version
expect_code "--version: exit 0" 0
expect_first_line "--version: prints 'toytrans VERSION'" "$OUT" "toytrans "
if grep -E '^toytrans [0-9]+\.[0-9]+' "$OUT" >/dev/null 2>&1; then
    pass "--version: the version is a number"
else
    fail "--version: the version is a number" "got '$(sed -n 1p "$OUT")'"
fi

run frobnicate
expect_code "unknown command: exit 2" 2
expect_in "unknown command: the message names it" "$ERR" "'frobnicate'"
expect_empty "unknown command: nothing on stdout" "$OUT"
if grep -F 'similar' "$ERR" >/dev/null 2>&1; then
    fail "unknown command far from every command: no suggestion" "got one"
    show "$ERR"
else
    pass "unknown command far from every command: no suggestion"
fi

# A misspelled command or option gets git's "did you mean".
run tranlsate "This is an example"
expect_code "misspelled command: exit 2" 2
if [ "$(sed -n '3,4p' "$ERR")" = "$(printf 'The most similar command is\n\ttranslate')" ]; then
    pass "misspelled command: the most similar command is named, as git names it"
else
    fail "misspelled command: the most similar command is named, as git names it" "stderr:"
    show "$ERR"
fi
run inft
expect_in "misspelled command near two: both named" "$ERR" "The most similar commands are"
expect_in "misspelled command near two: init" "$ERR" "	init"
expect_in "misspelled command near two: info" "$ERR" "	info"
run translate --beem 3 "This is an example"
expect_code "misspelled option: exit 2" 2
expect_in "misspelled option: did you mean" "$ERR" "unknown option '--beem'; did you mean '--beam'?"
expect_empty "misspelled option: nothing on stdout" "$OUT"
run eval --tset x.tsv
expect_in "eval, misspelled option: did you mean" "$ERR" "did you mean '--test'?"
# Every command suggests: one misspelled option of each.
for pair in "train --epohcs:--epochs" "inspect --jsn:--json" "vocab --min-cuont:--min-count" \
    "init --d-modle:--d-model" "check --goldne:--golden" "info --modle:--model" \
    "plot --widht:--width" "tokenize --lnag:--lang" "trace --variantt:--variant" \
    "corpus --out-dri:--out-dir"; do
    args=${pair%%:*}
    want=${pair#*:}
    # shellcheck disable=SC2086
    run $args 1
    if [ "$CODE" -eq 2 ] && grep -qF "did you mean '$want'?" "$ERR"; then
        pass "$args: exit 2, did you mean '$want'"
    else
        fail "$args: did you mean '$want'" "exit $CODE: $(head -c 120 "$ERR")"
    fi
done
run translate --frobnicate
expect_in "an option far from every option: no suggestion" "$ERR" "unknown option '--frobnicate'
Try"
# A switch given a value: getopt reports it with the switch's code, which was printed as
# a short option ('-' and a control character).
run train --qkv-bias=1
expect_code "a switch given a value: exit 2" 2
expect_in "a switch given a value: named" "$ERR" "option '--qkv-bias' takes no value"
run translate --json=yes "This is an example"
expect_in "translate --json=yes: named" "$ERR" "option '--json' takes no value"

# ---------------------------------------------------------------------------------------
# help topics

run help exit-codes
expect_code "help exit-codes: exit 0" 0
for c in 0 1 2 3 4 5 6 130; do
    if grep -E "^ *$c  " "$OUT" >/dev/null 2>&1; then
        pass "help exit-codes: lists $c"
    else
        fail "help exit-codes: lists $c" "no line for exit code $c"
        show "$OUT"
    fi
done

run help trace
expect_code "help trace: exit 0" 0
expect_first_line "help trace: trace's usage on stdout" "$OUT" "Usage: toytrans trace"

run trace --help
expect_code "trace --help: exit 0" 0
expect_first_line "trace --help: trace's usage on stdout" "$OUT" "Usage: toytrans trace"
expect_empty "trace --help: nothing on stderr" "$ERR"

run help nosuch
expect_code "help nosuch: exit 2" 2
expect_in "help nosuch: the message names it" "$ERR" "'nosuch'"
expect_empty "help nosuch: nothing on stdout" "$OUT"

# ---------------------------------------------------------------------------------------
# trace: the walk-through's numbers

run trace
expect_code "trace: exit 0" 0
expect_in "trace: v1 context row of journey" "$OUT" "journey  0.3061  0.8210"
expect_in "trace: the single-token check agrees" "$OUT" "they agree"
expect_empty "trace: nothing on stderr" "$ERR"

run trace --variant v2 --token 3
expect_code "trace --variant v2 --token 3: exit 0" 0
expect_in "trace --variant v2 --token 3: checks token 3" "$OUT" "token 3"
expect_in "trace --variant v2 --token 3: they agree" "$OUT" "they agree"

run trace --variant v2
expect_code "trace --variant v2: exit 0" 0
expect_in "trace --variant v2: context row of Your" "$OUT" "Your     -0.0739   0.0713"

run trace --variant simple
expect_code "trace --variant simple: exit 0" 0
expect_in "trace --variant simple: weights row of journey" "$OUT" \
    "journey   0.1385   0.2379   0.2333   0.1240   0.1082   0.1581"
expect_in "trace --variant simple: context row of journey" "$OUT" "journey  0.4419  0.6515  0.5683"

run trace --precision 2
expect_code "trace --precision 2: exit 0" 0
expect_in "trace --precision 2: two decimals" "$OUT" "journey  0.31  0.82"
expect_not_in "trace --precision 2: no four-decimal values" "$OUT" "0.3061"

# ---------------------------------------------------------------------------------------
# trace: bad command lines

expect_usage_error "trace --variant v3" trace --variant v3
expect_in "trace --variant v3: the message names the value" "$ERR" "'v3'"
expect_usage_error "trace --d-out 0" trace --d-out 0
expect_usage_error "trace --d-out abc" trace --d-out abc
expect_usage_error "trace --d-out 12x" trace --d-out 12x
expect_in "trace --d-out 12x: the message names the option" "$ERR" "--d-out"
expect_usage_error "trace --token 0" trace --token 0
expect_usage_error "trace --token 7 (6 tokens)" trace --token 7
expect_in "trace --token 7: the message gives the token count" "$ERR" "only 6 tokens"
expect_usage_error "trace --seed -1" trace --seed -1
expect_usage_error "trace --precision 10" trace --precision 10
expect_usage_error "trace --qkv-bias with v1" trace --qkv-bias
expect_usage_error "trace --variant simple --d-out 3" trace --variant simple --d-out 3
# One TEXT is a sentence to trace through a model's head; a second is one too many.
expect_usage_error "trace with two positional arguments" trace --model tests/fixtures/tiny.db \
    one extra
expect_in "trace with two positional arguments: the message names the second" "$ERR" "'extra'"
expect_usage_error "trace TEXT with --variant (the book's example)" trace --variant v2 extra
expect_usage_error "trace --bogus" trace --bogus
expect_in "trace --bogus: the message names the option" "$ERR" "'--bogus'"
expect_usage_error "trace -xy" trace -xy
expect_in "trace -xy: the message names the option -x" "$ERR" "'-x'"
expect_usage_error "trace --input without a value" trace --input
expect_in "trace --input without a value: the message names it" "$ERR" "--input"

# ---------------------------------------------------------------------------------------
# trace --input

run trace --input "$TMP/does-not-exist.txt"
expect_code "trace --input missing file: exit 5" 5
expect_in "trace --input missing file: the message names it" "$ERR" "does-not-exist.txt"
expect_empty "trace --input missing file: nothing on stdout" "$OUT"

printf '%s\n' "1 2 3" "4 oops 6" > "$TMP/bad.txt"
run trace --input "$TMP/bad.txt"
expect_code "trace --input malformed file: exit 4" 4
expect_in "trace --input malformed file: names the file and line 2" "$ERR" "bad.txt:2:"
expect_in "trace --input malformed file: names the field" "$ERR" "'oops'"
expect_empty "trace --input malformed file: nothing on stdout" "$OUT"

run trace --input "$TMP"
expect_code "trace --input a directory: exit 5" 5
expect_empty "trace --input a directory: nothing on stdout" "$OUT"

cat > "$TMP/x.txt" <<'EOF'
# four tokens, five dimensions
Der      0.10  0.20  0.30  0.40  0.50
Mädchen  0.50 -0.40  0.30 -0.20  0.10
liest    1e-1  2e-1  3e-1  4e-1  5e-1
gern     0.90  0.80  0.70  0.60  0.50
EOF
run trace --input "$TMP/x.txt" --variant v2 --d-out 3 --token 4
expect_code "trace --input 4×5 file --variant v2 --d-out 3 --token 4: exit 0" 0
expect_in "trace --input 4×5 file: 4 tokens, d_in 5, d_out 3" "$OUT" \
    "4 tokens, d_in = 5, d_out = 3"
expect_in "trace --input 4×5 file: labels become token names" "$OUT" "Mädchen"
expect_in "trace --input 4×5 file: checks token 4" "$OUT" "token 4 (\"gern\")"
expect_in "trace --input 4×5 file: they agree" "$OUT" "they agree"

# ---------------------------------------------------------------------------------------
# tokenize

run tokenize "This is an example." "The dog's well-known!"
expect_code "tokenize two texts: exit 0" 0
expect_file_eq "tokenize: one line per text, case-folded, punctuation split" "$OUT" \
"this is an example .
the dog's well-known !"
run tokenize "I DON'T see it." "I do not see it." "It’s"
expect_file_eq "tokenize: contractions become their long forms" "$OUT" \
"i do not see it .
i do not see it .
it is"
run tokenize --help
expect_in "tokenize --help: names the contractions" "$OUT" "we're and they're"
run tokenize --lang tgt "Das Mädchen öffnet die Tür."
expect_file_eq "tokenize --lang tgt: case and umlauts kept" "$OUT" "Das Mädchen öffnet die Tür ."
printf 'Ma\314\210dchen\n' >"$TMP/nfd.txt"
run_in "$TMP/nfd.txt" tokenize --lang tgt
expect_file_eq "tokenize: NFD input comes out NFC" "$OUT" "Mädchen"
printf 'good one\r\n\300\257bad\nstill fine\nlast without newline' >"$TMP/mixed.txt"
run_in "$TMP/mixed.txt" tokenize
expect_code "tokenize stdin with an invalid line: exit 4" 4
expect_file_eq "tokenize stdin: every good line still tokenized, in order" "$OUT" \
"good one

still fine
last without newline"
expect_in "tokenize stdin: names the bad line" "$ERR" "input 2"
expect_in "tokenize stdin: names the byte offset" "$ERR" "at byte 0"
expect_usage_error "tokenize --lang xx" tokenize --lang xx hello
run tokenize --model "$TMP/missing.db" hello
expect_code "tokenize --model missing: exit 3" 3
expect_in "tokenize --model missing: says so" "$ERR" "no such model file"

# ---------------------------------------------------------------------------------------
# vocab

printf 'This is an example\tDas ist ein Beispiel\nThe dog is big.\tDer Hund ist gro\303\237.\nthe dog is small\tDer Hund ist klein\n' >"$TMP/c.tsv"
mkdir "$TMP/v1" "$TMP/v2"
run vocab --train "$TMP/c.tsv" --out "$TMP/m1.db" --vocab-dir "$TMP/v1"
expect_code "vocab: exit 0" 0
expect_in "vocab: summary names the counts" "$OUT" "13 source and 13 target tokens"
expect_file_eq "vocab: en.tsv ids by count, ties in byte order" "$TMP/v1/en.tsv" \
"id	token	count
0	<pad>	0
1	<unk>	0
2	<s>	0
3	</s>	0
4	is	3
5	dog	2
6	the	2
7	.	1
8	an	1
9	big	1
10	example	1
11	small	1
12	this	1"
run vocab --train "$TMP/c.tsv" --out "$TMP/m2.db" --vocab-dir "$TMP/v2"
if cmp -s "$TMP/v1/en.tsv" "$TMP/v2/en.tsv" && cmp -s "$TMP/v1/de.tsv" "$TMP/v2/de.tsv" &&
    cmp -s "$TMP/m1.db" "$TMP/m2.db"; then
    pass "vocab: the same corpus gives byte-identical lists and model file"
else
    fail "vocab: the same corpus gives byte-identical lists and model file" "files differ"
fi
run tokenize --model "$TMP/m1.db" "The cat is big"
expect_file_eq "tokenize --model: ids, unknown words marked" "$OUT" "the:6 cat:<unk> is:4 big:9"
run vocab --train "$TMP/c.tsv" --out "$TMP/m1.db" --no-lists
expect_code "vocab onto an existing model: exit 2 (a usage matter)" 2
expect_in "vocab onto an existing model: suggests --force" "$ERR" "already exists; not replaced (--force replaces it)"
expect_in "vocab onto an existing model: suggests --force" "$ERR" "--force"
run vocab --train "$TMP/no-such-corpus.tsv" --out "$TMP/m1.db" --no-lists
expect_code "vocab onto an existing model: refused before the corpus is read (exit 2)" 2
expect_in "vocab onto an existing model, missing corpus: the model is named" "$ERR" \
    "$TMP/m1.db: already exists; not replaced (--force replaces it)"
run vocab --train "$TMP/c.tsv" --out "$TMP/m1.db" --no-lists --force --min-count 2
expect_code "vocab --force --min-count 2: exit 0" 0
expect_in "vocab --min-count 2: rare tokens dropped" "$OUT" "7 source and 7 target tokens"
printf 'good\tgut\nno tab here\nalso good\tauch gut\n' >"$TMP/bad.tsv"
run vocab --train "$TMP/bad.tsv" --out "$TMP/m3.db" --no-lists
expect_code "vocab on a malformed corpus: exit 4" 4
expect_in "vocab on a malformed corpus: names file and line" "$ERR" "bad.tsv:2: no TAB"
if [ -e "$TMP/m3.db" ]; then
    fail "vocab on a malformed corpus: no model file left" "m3.db exists"
else
    pass "vocab on a malformed corpus: no model file left"
fi
run vocab --train "$TMP/bad.tsv" --out "$TMP/m3.db" --no-lists --skip-bad-lines
expect_code "vocab --skip-bad-lines: exit 0" 0
expect_in "vocab --skip-bad-lines: reports the skipped line" "$ERR" "skipped 1 malformed line"
# More distinct tokens than a vocabulary holds (1,000,000): ten new words a line, so line
# 100,001 brings the millionth-and-first. The message says which limit, where; exit 4.
if [ -z "$RUNNER" ]; then
    awk 'BEGIN { for (i = 0; i < 100001; i++) {
                     s = ""; for (k = 0; k < 10; k++) s = s " w" (i * 10 + k);
                     print substr(s, 2) "\tgut" } }' >"$TMP/many.tsv"
    run vocab --train "$TMP/many.tsv" --out "$TMP/many.db" --no-lists
    expect_code "vocab with over 1,000,000 distinct tokens: exit 4 (invalid input)" 4
    expect_in "vocab with too many tokens: names the line and the limit" "$ERR" \
        "many.tsv:100001: the source side reaches 1000000 distinct tokens, the most a vocabulary may hold"
    rm -f "$TMP/many.tsv"
else
    echo "# skipped: vocab with over 1,000,000 distinct tokens (slow under RUNNER)"
fi
# The model-shape options are one set for vocab, init and train (src/cli/cli_shape.c): vocab
# records them too, with the same range checks and messages, and every new file gets the
# same provenance keys.
run vocab --train "$TMP/c.tsv" --out "$TMP/shape.db" --no-lists --d-model 16 --heads 2 \
    --enc-layers 3 --seed 5
expect_code "vocab with shape options: exit 0" 0
run info --model "$TMP/shape.db"
expect_in "vocab --heads: recorded" "$OUT" "n_heads             2 (8 dimensions per head)"
expect_in "vocab --enc-layers: recorded" "$OUT" "n_encoder_layers    3"
expect_in "vocab: the seed of its embeddings is recorded" "$OUT" "init seed           5"
expect_in "vocab: the vocabulary's threshold is recorded" "$OUT" "  min count         1"
rm -f "$TMP/shape.db"
expect_usage_error "vocab --heads 3 (does not divide d-model 16)" vocab --train "$TMP/c.tsv" \
    --out "$TMP/shape.db" --d-model 16 --heads 3
expect_in "vocab --heads 3: says why" "$ERR" "n_heads (must divide d_model) is out of range"
expect_usage_error "vocab --max-len 1: out of range as for init" vocab --train "$TMP/c.tsv" \
    --out "$TMP/shape.db" --max-len 1
expect_in "vocab --max-len 1: the range named" "$ERR" "--max-len: 1 is out of range (2 to 4096)"
run train --help
expect_in "train --help: the shape options, one line each" "$OUT" "  --heads N              attention heads"
# Lists only when asked: a plain vocab writes no en.tsv or de.tsv into the current
# directory (it used to write vocab/ there, over the committed lists, and fail after
# making the model outside the repository); a --lists directory that does not exist is
# refused before the model is written.
mkdir -p "$TMP/elsewhere"
# shellcheck disable=SC2086
(cd "$TMP/elsewhere" && $RUNNER "$ABS_BIN" vocab --train "$TMP/c.tsv" --out m.db >"$OUT" 2>"$ERR")
CODE=$?
expect_code "vocab without --lists, outside the repository: exit 0" 0
if [ -f "$TMP/elsewhere/m.db" ] && [ ! -e "$TMP/elsewhere/vocab" ] &&
    [ -z "$(find "$TMP/elsewhere" -name '*.tsv')" ]; then
    pass "vocab without --lists: the model and no list"
else
    fail "vocab without --lists: the model and no list" "$(find "$TMP/elsewhere" | tr '\n' ' ')"
fi
run vocab --train "$TMP/c.tsv" --out "$TMP/m5.db" --lists "$TMP/no-such-dir"
expect_code "vocab --lists into a missing directory: exit 5" 5
expect_in "vocab --lists into a missing directory: names it" "$ERR" \
    "--lists $TMP/no-such-dir: No such file or directory"
if [ -e "$TMP/m5.db" ]; then
    fail "vocab --lists into a missing directory: no model written" "m5.db exists"
else
    pass "vocab --lists into a missing directory: no model written"
fi
run vocab --train "$TMP/nothing.tsv" --out "$TMP/m4.db"
expect_code "vocab on a missing corpus: exit 5" 5
expect_usage_error "vocab without --out" vocab --train "$TMP/c.tsv"
expect_usage_error "vocab --min-count 0" vocab --train "$TMP/c.tsv" --out "$TMP/x.db" --min-count 0

# ---------------------------------------------------------------------------------------
# The committed corpus and vocabulary lists are what the commands make today

if [ -f data/train.tsv ] && [ -f vocab/en.tsv ]; then
    mkdir "$TMP/corpus" "$TMP/lists"
    # As make corpus writes them: the lexicon's grammar and the phrasebook's phrases.
    run corpus --out-dir "$TMP/corpus" --lexicon data/lexicon.tsv --phrasebook data/phrasebook.tsv
    expect_code "corpus: exit 0" 0
    same=1
    for f in train.tsv valid.tsv test.tsv; do
        cmp -s "data/$f" "$TMP/corpus/$f" || same=0
    done
    if [ $same = 1 ]; then
        pass "corpus: regenerates data/*.tsv byte for byte"
    else
        fail "corpus: regenerates data/*.tsv byte for byte" "files differ (run make corpus?)"
    fi
    run vocab --train data/train.tsv --out "$TMP/lists/m.db" --vocab-dir "$TMP/lists"
    expect_code "vocab on data/train.tsv: exit 0" 0
    if cmp -s vocab/en.tsv "$TMP/lists/en.tsv" && cmp -s vocab/de.tsv "$TMP/lists/de.tsv"; then
        pass "vocab: regenerates vocab/en.tsv and vocab/de.tsv byte for byte"
    else
        fail "vocab: regenerates vocab/*.tsv byte for byte" "lists differ (run make vocab?)"
    fi
else
    fail "committed corpus and vocabulary lists" "data/train.tsv or vocab/en.tsv is missing"
fi

# ---------------------------------------------------------------------------------------
# init and translate (a small random model: nonsense, but deterministic)

CHECK=${TOOLS:-build/release/tests}/jsonl_check
M="$TMP/rand.db"
run init --out "$M" --train data/train.tsv --d-model 16 --heads 2 --d-ff 32 --max-len 20 --seed 3
expect_code "init: exit 0" 0
expect_in "init: summary" "$OUT" "a random model"
# Temporary files that killed runs left beside a model (MODEL.PID.tmp and its journal)
# are removed by the next run that creates it, unless their writer still holds them or
# they changed in the last minute.
for stale in "$TMP/new.db.4242.tmp" "$TMP/new.db.4242.tmp-journal" "$TMP/new.db.4343.tmp" \
    "$TMP/new.db.77.tmp.keep"; do
    printf 'left by a killed run\n' >"$stale"
    touch -d '2 minutes ago' "$stale"
done
printf 'just made\n' >"$TMP/new.db.4444.tmp"
held=
if command -v flock >/dev/null 2>&1; then
    flock "$TMP/new.db.4343.tmp" sleep 30 &
    held=$!
    # Until the lock is really held (a busy machine may start flock late).
    tries=0
    while flock -n "$TMP/new.db.4343.tmp" true 2>/dev/null && [ "$tries" -lt 100 ]; do
        sleep 0.1
        tries=$((tries + 1))
    done
fi
# (A corpus's first lines make vocabularies enough for the models that only need to exist;
# counting all of data/train.tsv takes valgrind 20 s a run.)
head -2000 data/train.tsv >"$TMP/small.tsv"
run init --out "$TMP/new.db" --train "$TMP/small.tsv" --d-model 16 --heads 2 --d-ff 32 --max-len 20
expect_code "init beside temporary files of killed runs: exit 0" 0
if [ ! -e "$TMP/new.db.4242.tmp" ] && [ ! -e "$TMP/new.db.4242.tmp-journal" ] &&
    [ -e "$TMP/new.db.4444.tmp" ] && [ -e "$TMP/new.db.77.tmp.keep" ] &&
    { [ -z "$held" ] || [ -e "$TMP/new.db.4343.tmp" ]; }; then
    pass "init: stale MODEL.PID.tmp files removed; held, recent and other files kept"
else
    fail "init: stale temporary files" "$(ls "$TMP" | grep '^new.db' | tr '\n' ' ')"
fi
if [ -n "$held" ]; then
    kill "$held" 2>/dev/null
    wait "$held" 2>/dev/null
fi
rm -f "$TMP"/new.db*

run init --out "$M" --train data/train.tsv
expect_code "init onto an existing model: exit 2 (a usage matter)" 2
expect_in "init onto an existing model: suggests --force" "$ERR" "already exists; not replaced (--force replaces it)"
run init --out "$M" --train "$TMP/no-such-corpus.tsv"
expect_code "init onto an existing model: refused before the corpus is read (exit 2)" 2
expect_in "init onto an existing model, missing corpus: the model is named" "$ERR" \
    "$M: already exists; not replaced (--force replaces it)"
expect_usage_error "init --heads 3 (does not divide d-model 16)" init --out "$TMP/x.db" \
    --train data/train.tsv --d-model 16 --heads 3
expect_usage_error "init without --train" init --out "$TMP/x.db"
# Sizes are checked before anything is allocated: a feed-forward
# weight of 20000 × 4096 floats (312 MiB) cannot be stored in one blob; init used to
# allocate 2.2 GB and then say "invalid shape". Under a 300 MB address-space limit the
# refusal must come first.
if [ -z "$RUNNER" ] && (ulimit -v 300000 && "$BIN" --version) >/dev/null 2>&1; then
    (ulimit -v 300000 && "$BIN" init --out "$TMP/big.db" --train data/train.tsv --d-model 4096 \
        --heads 4 --d-ff 20000 >"$OUT" 2>"$ERR")
    CODE=$?
    expect_code "init with d_ff × d_model over one tensor's 256 MiB: exit 2 before allocating" 2
    expect_in "init with d_ff × d_model too big: says which product and the limit" "$ERR" \
        "d_ff × d_model = 20000 × 4096 = 81920000 floats, more than the 67108864 (256 MiB)"
    # Every field in range and every tensor within a blob, but 3.8 billion parameters in
    # all: refused before allocating (it used to allocate 15 GB and fill it).
    (ulimit -v 300000 && "$BIN" init --out "$TMP/big.db" --train data/train.tsv --d-model 4096 \
        --heads 4 --d-ff 16384 --enc-layers 8 --dec-layers 8 --max-len 8 >"$OUT" 2>"$ERR")
    CODE=$?
    expect_code "init with 3.8 billion parameters: exit 2 before allocating" 2
    expect_in "init with too many parameters: says how many and the limit" "$ERR" \
        "needs 3781015726 parameters, more than the 268435456 (1 GiB of floats) a model may have"
else
    echo "# skipped: init with a too big d_ff × d_model (RUNNER set, or ulimit -v unusable here)"
fi
# A 385 KB model whose attention buffers for one sentence need 16 GiB (64 heads, max_len
# 4096) is refused when it is made (and when it is loaded: the matrix).
run init --out "$TMP/att.db" --train data/train.tsv --d-model 64 --heads 64 --enc-layers 1 \
    --dec-layers 1 --d-ff 1 --max-len 4096
expect_code "init whose attention for one sentence needs 16 GiB: exit 2" 2
expect_in "init with too much attention memory: says why and the limit" "$ERR" \
    "= 64 × 4096² × 4 = 4294967296 floats, are more than the 268435456 (1 GiB) allowed"

# A model allowed 4096 positions, with its attention for the longest sentence exactly at
# that 1 GiB limit (4 heads, one layer each side). Buffers sized to max_len up front took
# over 1 GiB to translate two words, and an untrained model that never says </s> decoded
# 4096 steps; now they grow to the sentence and decoding stops after 2·S + 10 tokens, so
# 200 MB of address space is plenty.
run init --out "$TMP/long.db" --train "$TMP/small.tsv" --d-model 8 --heads 4 --enc-layers 1 \
    --dec-layers 1 --d-ff 8 --max-len 4096 --seed 5
expect_code "init with max_len 4096 and attention at the 1 GiB limit: exit 0" 0
if [ -z "$RUNNER" ] && (ulimit -v 200000 && "$BIN" --version) >/dev/null 2>&1; then
    (ulimit -v 200000 && "$BIN" translate --model "$TMP/long.db" --json "the dog" >"$OUT" 2>"$ERR")
    CODE=$?
    expect_code "translate with max_len 4096 in 200 MB: buffers sized to the sentence" 0
    n_tokens=$(sed -n 's/.*"tokens":\[\([^]]*\)\].*/\1/p' "$OUT" | tr ',' '\n' | grep -c .)
    if [ "$n_tokens" -ge 1 ] && [ "$n_tokens" -le 16 ]; then
        pass "translate: output bounded by 2·S + 10 = 16 tokens for 'the dog' ($n_tokens)"
    else
        fail "translate: output bounded by 2·S + 10 tokens" "$n_tokens tokens"
    fi
    (ulimit -v 200000 && "$BIN" translate --model "$TMP/long.db" --json --max-len 40 "the dog" \
        >"$OUT" 2>"$ERR")
    CODE=$?
    expect_code "translate --max-len 40 overrides the bound: exit 0" 0
    n_long=$(sed -n 's/.*"tokens":\[\([^]]*\)\].*/\1/p' "$OUT" | tr ',' '\n' | grep -c .)
    last=$(sed -n 's/.*"tokens":\[[^]]*"\([^"]*\)"\].*/\1/p' "$OUT")
    if [ "$n_long" -le 40 ] && { [ "$n_long" -eq 40 ] || [ "$last" = "</s>" ]; } &&
        { [ "$n_tokens" -lt 16 ] || [ "$n_long" -gt 16 ]; }; then
        pass "translate --max-len 40: up to 40 tokens, past the default bound ($n_long)"
    else
        fail "translate --max-len 40: up to 40 tokens" "$n_long tokens, last '$last'"
    fi
else
    echo "# skipped: translate with max_len 4096 under ulimit (RUNNER set, or ulimit -v unusable)"
fi

printf 'This is an example\nthe dog is big.\n\nI see a red car\n' >"$TMP/in.txt"
run_in "$TMP/in.txt" translate --model "$M"
expect_code "translate stdin: exit 0" 0
cp "$OUT" "$TMP/greedy.txt"
if [ "$(wc -l <"$OUT")" -eq 4 ] && [ -z "$(sed -n 3p "$OUT")" ]; then
    pass "translate: one output line per input line, an empty line for an empty line"
else
    fail "translate: one output line per input line" "got $(wc -l <"$OUT") lines"
    show "$OUT"
fi
run translate --model "$M" "This is an example" "the dog is big." "" "I see a red car"
if cmp -s "$OUT" "$TMP/greedy.txt"; then
    pass "translate: arguments give what standard input gives"
else
    fail "translate: arguments give what standard input gives" "outputs differ"
fi
run_in "$TMP/in.txt" translate --model "$M" --json --alternatives 3
expect_code "translate --json: exit 0" 0
cp "$OUT" "$TMP/all.jsonl"
if "$CHECK" source source_tokens translation tokens steps <"$TMP/all.jsonl" >"$TMP/check.txt"; then
    pass "translate --json: every line is valid JSON with the documented keys"
else
    fail "translate --json: valid JSON" "$(head -3 "$TMP/check.txt")"
fi
: >"$TMP/one.jsonl"
while IFS= read -r line; do
    $RUNNER "$BIN" translate --model "$M" --json --alternatives 3 "$line" >>"$TMP/one.jsonl" 2>/dev/null
done <"$TMP/in.txt"
if cmp -s "$TMP/one.jsonl" "$TMP/all.jsonl"; then
    pass "translate: one sentence per run gives bit-identical JSON to all in one run"
else
    fail "translate: one sentence per run gives bit-identical JSON" "outputs differ"
fi
run_in "$TMP/in.txt" translate --model "$M" --json --beam 1 --alternatives 3
if cmp -s "$OUT" "$TMP/all.jsonl"; then
    pass "translate --beam 1 is exactly greedy (tokens, log-probabilities, attention)"
else
    fail "translate --beam 1 is exactly greedy" "JSON differs"
fi
run_in "$TMP/in.txt" translate --model "$M" --beam 4
expect_code "translate --beam 4: exit 0" 0
run translate --model "$M" --max-len 4 "This is an example"
words=$(wc -w <"$OUT")
if [ "$words" -le 4 ]; then
    pass "translate --max-len 4: at most 4 output tokens"
else
    fail "translate --max-len 4" "$words words"
fi
run translate --model "$M" --prefix "Das ist ein" --scores "This is an example"
expect_first_line "translate --prefix: the prefix is emitted in full" "$OUT" "Das ist ein"
expect_in "translate --scores: forced words are marked" "$OUT" "Das:"
expect_in "translate --scores: forced words are marked (forced)" "$OUT" "(forced)"
run translate --model "$M" --json --prefix "Das ist ein" "This is an example"
"$CHECK" --print tokens <"$OUT" >"$TMP/tokens.txt"
expect_in "translate --json --prefix: tokens start with the prefix" "$TMP/tokens.txt" '["Das","ist","ein"'

long=""
i=0
while [ $i -lt 40 ]; do long="$long word"; i=$((i + 1)); done
printf 'This is an example\n%s\n\377\376 bad bytes\nthe dog is big.\n' "$long" >"$TMP/bad.txt"
run_in "$TMP/bad.txt" translate --model "$M"
expect_code "translate with bad lines: exit 4" 4
if [ "$(sed -n 1p "$OUT")" = "$(sed -n 1p "$TMP/greedy.txt")" ] &&
    [ "$(sed -n 4p "$OUT")" = "$(sed -n 2p "$TMP/greedy.txt")" ] && [ -z "$(sed -n 2p "$OUT")" ] &&
    [ -z "$(sed -n 3p "$OUT")" ]; then
    pass "translate with bad lines: good lines still translated, in order"
else
    fail "translate with bad lines: good lines still translated" "unexpected output"
    show "$OUT"
fi
expect_in "translate: a too-long line is named" "$ERR" "line 2: 40 tokens"
expect_in "translate: an invalid line is named with its byte" "$ERR" "line 3: invalid UTF-8 at byte 0"
run_in "$TMP/bad.txt" translate --model "$M" --json
if "$CHECK" source <"$OUT" >"$TMP/check.txt"; then
    pass "translate --json with bad lines: still valid JSON on every line"
else
    fail "translate --json with bad lines: valid JSON" "$(head -3 "$TMP/check.txt")"
fi
expect_in "translate --json: a bad line is an object with an error" "$OUT" '"error":'

run translate --model "$TMP/none.db" "This is an example"
expect_code "translate with a missing model: exit 3" 3
expect_in "translate with a missing model: says so" "$ERR" "no such model file"
TOYTRANS_MODEL="$M" $RUNNER "$BIN" translate "This is an example" >"$OUT" 2>"$ERR"
CODE=$?
expect_code "translate: TOYTRANS_MODEL names the default model" 0
expect_file_eq "translate: TOYTRANS_MODEL gives the same translation" "$OUT" \
    "$(sed -n 1p "$TMP/greedy.txt")"
expect_usage_error "translate --beam 0" translate --model "$M" --beam 0 hello
expect_usage_error "translate --prefix longer than the limit" translate --model "$M" \
    --max-len 3 --prefix "Das ist ein" hello
run translate --model tests/fixtures/tiny.db "this is an example"
expect_code "translate loads a model written by another program (PyTorch fixture)" 0

# ---------------------------------------------------------------------------------------
# eval (the same random model: BLEU near 0, but the plumbing is what is checked)

# sacreBLEU's command-line lines (-f text): the signature after the name, toytrans's
# version where sacreBLEU writes its own (the format of the sacreBLEU README's example).
SIG_BLEU='nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:toytrans-'
SIG_CHRF='nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:toytrans-'
BLEU_RE='^BLEU\|nrefs:1\|case:mixed\|eff:no\|tok:13a\|smooth:exp\|version:toytrans-[0-9.]+ = [0-9]+\.[0-9]{2} [0-9]+\.[0-9]/[0-9]+\.[0-9]/[0-9]+\.[0-9]/[0-9]+\.[0-9] \(BP = [0-9]+\.[0-9]{3} ratio = [0-9]+\.[0-9]{3} hyp_len = [0-9]+ ref_len = [0-9]+\)$'
run eval --help
expect_code "eval --help: exit 0" 0
expect_first_line "eval --help: usage on stdout" "$OUT" "Usage: toytrans eval"
# The first 20 test lines that fit the random model (max_len 20): a few are longer.
awk -F "\t" 'split($1, w, " ") <= 14' data/test.tsv | head -20 >"$TMP/t20.tsv"
run eval --test "$TMP/t20.tsv" --model "$M"
expect_code "eval: exit 0" 0
if grep -E "$BLEU_RE" "$OUT" >/dev/null 2>&1; then
    pass "eval: prints sacreBLEU's BLEU line"
else
    fail "eval: prints sacreBLEU's BLEU line" "no line matches"
    show "$OUT"
fi
if grep -E '^chrF2\|nrefs:1\|case:mixed\|eff:yes\|nc:6\|nw:0\|space:no\|version:toytrans-[0-9.]+ = [0-9]+\.[0-9]{2}$' "$OUT" >/dev/null 2>&1; then
    pass "eval: prints sacreBLEU's chrF2 line"
else
    fail "eval: prints sacreBLEU's chrF2 line" "no line matches"
    show "$OUT"
fi
if grep -E '^exact match: [0-9]+/20 = [0-9]+\.[0-9]{2}%$' "$OUT" >/dev/null 2>&1; then
    pass "eval: prints the exact match over 20 sentences"
else
    fail "eval: prints the exact match over 20 sentences" "no line matches"
    show "$OUT"
fi
expect_in "eval: prints the speed" "$OUT" "sentences/s"
run eval --test "$TMP/t20.tsv" --model "$M" --json
expect_code "eval --json: exit 0" 0
if "$CHECK" bleu chrf exact_match sentences references beam seconds constructions <"$OUT" \
    >"$TMP/check.txt" 2>&1 && [ "$(wc -l <"$OUT")" -eq 1 ]; then
    pass "eval --json: one valid JSON object with every key"
else
    fail "eval --json: one valid JSON object with every key" "$(cat "$TMP/check.txt")"
    show "$OUT"
fi
expect_in "eval --json: BLEU's signature" "$OUT" "\"signature\":\"$SIG_BLEU"
expect_in "eval --json: chrF's signature" "$OUT" "\"name\":\"chrF2\",\"score\":"
# Targets that are the model's own translations: every one matches.
printf 'This is an example\nthe dog is big.\nI see a red car\n' >"$TMP/e3.txt"
run_in "$TMP/e3.txt" translate --model "$M"
paste "$TMP/e3.txt" "$OUT" >"$TMP/self.tsv"
cp "$OUT" "$TMP/self.txt"
run eval --test "$TMP/self.tsv" --model "$M"
expect_in "eval: translations equal to their targets are exact matches" "$OUT" \
    "exact match: 3/3 = 100.00%"
expect_in "eval: and score BLEU 100" "$OUT" "$SIG_BLEU"
expect_in "eval: BLEU 100, every precision 100" "$OUT" " = 100.00 100.0/100.0/100.0/100.0 (BP = 1.000"
expect_in "eval: and chrF2 100" "$OUT" "$SIG_CHRF"
if grep -E '^chrF2\|.* = 100\.00$' "$OUT" >/dev/null 2>&1; then
    pass "eval: chrF2 is 100 for translations equal to their targets"
else
    fail "eval: chrF2 is 100 for translations equal to their targets" "no such line"
    show "$OUT"
fi
# --ref lines follow the test file's lines, blank lines included.
printf 'This is an example\tDas ist ein Beispiel\n\nthe dog is big.\tDer Hund ist gro\303\237.\nI see a red car\tIch sehe ein rotes Auto\n' >"$TMP/real.tsv"
{ sed -n 1p "$TMP/self.txt"; echo; sed -n '2,3p' "$TMP/self.txt"; } >"$TMP/ref4.txt"
run eval --test "$TMP/real.tsv" --model "$M" --ref "$TMP/ref4.txt"
expect_code "eval --ref: exit 0" 0
expect_in "eval --ref: the extra references count" "$OUT" "smooth:exp|version:toytrans-$("$BIN" --version | cut -d' ' -f2) = 100.00"
expect_in "eval --ref: two reference sets in the signature" "$OUT" "BLEU|nrefs:2|"
expect_in "eval --ref: exact match is against the target column only" "$OUT" "exact match: 0/3"
expect_in "eval --ref: two reference sets" "$OUT" "2 reference sets"
head -3 "$TMP/ref4.txt" >"$TMP/ref3.txt"
run eval --test "$TMP/real.tsv" --model "$M" --ref "$TMP/ref3.txt"
expect_code "eval --ref with fewer lines than the test file: exit 4" 4
expect_in "eval --ref with fewer lines: says both counts" "$ERR" "has 3 lines but $TMP/real.tsv has 4"
expect_empty "eval --ref with fewer lines: nothing on stdout" "$OUT"
printf 'one\teins\nno tab here\nthree\tdrei\n' >"$TMP/tbad.tsv"
run eval --test "$TMP/tbad.tsv" --model "$M"
expect_code "eval on a malformed test file: exit 4" 4
expect_in "eval on a malformed test file: names file and line" "$ERR" "tbad.tsv:2: no TAB"
expect_empty "eval on a malformed test file: nothing on stdout" "$OUT"
run eval --test "$TMP/tbad.tsv" --model "$M" --skip-bad-lines
expect_code "eval --skip-bad-lines: exit 0" 0
expect_in "eval --skip-bad-lines: reports the skipped line" "$ERR" "skipped 1 malformed line"
expect_in "eval --skip-bad-lines: scores the other two" "$OUT" "exact match: 0/2 = 0.00%"
printf 'This is an example\tDas ist ein Beispiel\n%s\tzu lang\n' "$long" >"$TMP/tlong.tsv"
run eval --test "$TMP/tlong.tsv" --model "$M"
expect_code "eval with a source too long for the model: exit 4" 4
expect_in "eval with a too-long source: names it" "$ERR" "tlong.tsv:2: 40 tokens"
expect_in "eval with a too-long source: still prints the scores" "$OUT" "exact match: 0/2"
run eval --test "$TMP/t20.tsv" --model "$TMP/none.db"
expect_code "eval with a missing model: exit 3" 3
expect_in "eval with a missing model: says so" "$ERR" "no such model file"
run eval --test "$TMP/none.tsv" --model "$M"
expect_code "eval with a missing test file: exit 5" 5
run eval --test "$TMP/t20.tsv" --model "$M" --ref "$TMP/none.txt"
expect_code "eval with a missing --ref file: exit 5" 5
expect_usage_error "eval without --test" eval --model "$M"
expect_usage_error "eval --beam 0" eval --test "$TMP/t20.tsv" --model "$M" --beam 0
expect_usage_error "eval with a positional argument" eval --test "$TMP/t20.tsv" extra

# The decoding flags have one parser: a bad value gets the same message (the command's
# name in front), the same hint and exit 2 from every command that takes the flag.
# decode_flag_refused FLAG VALUE CMD...
decode_flag_refused() {
    flag=$1
    value=$2
    shift 2
    want=
    for cmd in "$@"; do
        case $cmd in
        eval) run eval --test "$TMP/t20.tsv" --model "$M" "$flag" "$value" ;;
        *) run "$cmd" --model "$M" "$flag" "$value" "This is an example" ;;
        esac
        got=$(sed "s/toytrans $cmd\([: ]\)/toytrans CMD\1/" "$ERR")
        if [ "$CODE" -eq 2 ] && [ ! -s "$OUT" ] &&
            [ "$(sed -n 1p "$ERR" | cut -c1-$((${#cmd} + ${#flag} + 11)))" = "toytrans $cmd: $flag" ] &&
            [ "$(sed -n 2p "$ERR")" = "Try 'toytrans $cmd --help'." ] &&
            { [ -z "$want" ] || [ "$got" = "$want" ]; }; then
            pass "$cmd $flag $value: exit 2, the shared message"
        else
            fail "$cmd $flag $value: exit 2, the shared message" "exit $CODE, stderr:"
            show "$ERR"
        fi
        [ -n "$want" ] || want=$got
    done
}
decode_flag_refused --beam 0 translate eval
decode_flag_refused --beam 99999 translate eval
decode_flag_refused --beam x translate eval
decode_flag_refused --max-len -1 translate eval
decode_flag_refused --max-len 1 translate eval
decode_flag_refused --max-len 99999 translate eval
decode_flag_refused --n-best 0 translate
decode_flag_refused --prefix "$(printf 'Das \377')" translate inspect
decode_flag_refused --prefix "$(seq -s ' ' 1 30)" translate inspect

# ... and one help text: each flag reads the same in every command's --help.
# decode_flag_help FLAG CMD...
decode_flag_help() {
    flag=$1
    shift
    want=
    for cmd in "$@"; do
        run "$cmd" --help
        # The flag's line and the deeper-indented lines after it, indentation removed.
        got=$(awk -v f="$flag" '
            on && /^    / { sub(/^ +/, ""); print; next }
            { on = 0 }
            $1 == f { on = 1; sub(/^ +/, ""); sub(/  +/, " "); print }' "$OUT")
        if [ -n "$got" ] && { [ -z "$want" ] || [ "$got" = "$want" ]; }; then
            pass "$cmd --help: $flag as every command shows it"
        else
            fail "$cmd --help: $flag as every command shows it" "got '$got', want '$want'"
        fi
        [ -n "$want" ] || want=$got
    done
}
decode_flag_help --prefix translate inspect
decode_flag_help --beam translate eval
decode_flag_help --max-len translate eval

# Comment lines: eval and check skip the same lines, those whose first character is '#'.
{ echo '# comment lines are skipped by eval and check alike'; sed -n 1p "$TMP/self.tsv";
  printf '#This is an example\tnot a pair\n'; sed -n '2,3p' "$TMP/self.tsv"; } >"$TMP/comments.tsv"
run eval --test "$TMP/comments.tsv" --model "$M"
expect_code "eval with comment lines: exit 0" 0
expect_in "eval with comment lines: scores the 3 pairs only" "$OUT" "exact match: 3/3 = 100.00%"
run check "$TMP/comments.tsv" --model "$M"
expect_code "check on the same file: exit 0" 0
expect_in "check on the same file: the same 3 cases" "$OUT" "3 passed, 0 failed"

# --hyp-out and --errors: a test set whose second target is wrong.
{ sed -n 1p "$TMP/self.tsv"; printf 'the dog is big.\tDer Hund ist klein.\n'; sed -n 3p "$TMP/self.tsv"; } \
    >"$TMP/miss.tsv"
run eval --test "$TMP/miss.tsv" --model "$M" --hyp-out "$TMP/miss.hyp" --errors
expect_code "eval --hyp-out --errors: exit 0" 0
if cmp -s "$TMP/miss.hyp" "$TMP/self.txt"; then
    pass "eval --hyp-out: the translations, one line per pair, as translate writes them"
else
    fail "eval --hyp-out: the translations, one line per pair, as translate writes them" "differ"
    show "$TMP/miss.hyp"
fi
expect_in "eval --errors: counts the misses" "$OUT" "missed exact match: 1 sentence"
expect_in "eval --errors: names file and line" "$OUT" "  $TMP/miss.tsv:2"
expect_in "eval --errors: the source" "$OUT" "    source       the dog is big."
expect_in "eval --errors: the reference" "$OUT" "    reference    Der Hund ist klein."
expect_in "eval --errors: the translation" "$OUT" "    translation  $(sed -n 2p "$TMP/self.txt")"
if grep -F "$(sed -n 1p "$TMP/self.txt")" "$OUT" >/dev/null 2>&1; then
    fail "eval --errors: exact matches are not listed" "the first pair is listed"
else
    pass "eval --errors: exact matches are not listed"
fi
run bleu "$TMP/miss.hyp" "$TMP/self.txt"
expect_in "eval --hyp-out: a file that bleu scores" "$OUT" " = 100.00 100.0/100.0/100.0/100.0"
run eval --test "$TMP/miss.tsv" --model "$M" --errors --json
if "$CHECK" errors <"$OUT" >"$TMP/check.txt" 2>&1; then
    pass "eval --errors --json: valid JSON with errors"
else
    fail "eval --errors --json: valid JSON with errors" "$(cat "$TMP/check.txt")"
fi
expect_in "eval --errors --json: line, source, reference, translation" "$OUT" \
    '"errors":[{"line":2,"source":"the dog is big.","reference":"Der Hund ist klein.","translation":'
run eval --test "$TMP/miss.tsv" --model "$M" --hyp-out -
expect_code "eval --hyp-out -: exit 0" 0
if [ "$(sed -n '1,3p' "$OUT")" = "$(cat "$TMP/self.txt")" ]; then
    pass "eval --hyp-out -: the translations first on standard output"
else
    fail "eval --hyp-out -: the translations first on standard output" "unexpected"
    show "$OUT"
fi
cp "$TMP/miss.tsv" "$TMP/keep.tsv"
run eval --test "$TMP/keep.tsv" --model "$M" --hyp-out "$TMP/keep.tsv"
expect_code "eval --hyp-out onto --test: exit 2" 2
expect_in "eval --hyp-out onto --test: names both" "$ERR" "is the same file as --test"
if cmp -s "$TMP/keep.tsv" "$TMP/miss.tsv"; then
    pass "eval --hyp-out onto --test: the test file is untouched"
else
    fail "eval --hyp-out onto --test: the test file is untouched" "changed"
fi
run eval --test "$TMP/miss.tsv" --model "$M" --hyp-out "$TMP/nodir/x.hyp"
expect_code "eval --hyp-out into a missing directory: exit 5" 5

# ---------------------------------------------------------------------------------------
# bleu: existing translations scored as `sacrebleu REF < HYP` scores them

run bleu --help
expect_code "bleu --help: exit 0" 0
expect_first_line "bleu --help: usage on stdout" "$OUT" "Usage: toytrans bleu"
# The hypotheses the model wrote for t20.tsv's sources, against its targets: the same
# scores as eval printed for them.
cut -f1 "$TMP/t20.tsv" >"$TMP/t20.src"
cut -f2 "$TMP/t20.tsv" >"$TMP/t20.ref"
run_in "$TMP/t20.src" translate --model "$M"
cp "$OUT" "$TMP/t20.hyp"
run eval --test "$TMP/t20.tsv" --model "$M"
grep -E '^(BLEU|chrF2)\|' "$OUT" >"$TMP/t20.eval"
run bleu "$TMP/t20.hyp" "$TMP/t20.ref"
expect_code "bleu: exit 0" 0
if [ -s "$OUT" ] && cmp -s "$OUT" "$TMP/t20.eval"; then
    pass "bleu: the same BLEU and chrF2 lines as eval for the same translations"
else
    fail "bleu: the same BLEU and chrF2 lines as eval for the same translations" "differ"
    show "$OUT"
    show "$TMP/t20.eval"
fi
run_in "$TMP/t20.hyp" bleu - "$TMP/t20.ref"
if cmp -s "$OUT" "$TMP/t20.eval"; then
    pass "bleu -: reads the hypotheses from standard input"
else
    fail "bleu -: reads the hypotheses from standard input" "differ"
    show "$OUT"
fi
# sacreBLEU's README example (two reference sets): its published BLEU line.
printf 'The dog bit the man.\nIt wasn\047t surprising.\nThe man had just bitten him.\n' >"$TMP/rd.hyp"
printf 'The dog bit the man.\nIt was not unexpected.\nThe man bit him first.\n' >"$TMP/rd.ref1"
printf 'The dog had bit the man.\nNo one was surprised.\nThe man had bitten the dog.\n' >"$TMP/rd.ref2"
run bleu "$TMP/rd.hyp" "$TMP/rd.ref1" "$TMP/rd.ref2"
expect_code "bleu, two REF files: exit 0" 0
expect_in "bleu, two REF files: sacreBLEU README's BLEU" "$OUT" \
    "BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:toytrans-$("$BIN" --version | cut -d' ' -f2) = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)"
run bleu --json "$TMP/rd.hyp" "$TMP/rd.ref1" "$TMP/rd.ref2"
if "$CHECK" bleu chrf sentences references <"$OUT" >"$TMP/check.txt" 2>&1; then
    pass "bleu --json: one valid JSON object with bleu, chrf, sentences, references"
else
    fail "bleu --json: one valid JSON object with bleu, chrf, sentences, references" "$(cat "$TMP/check.txt")"
    show "$OUT"
fi
expect_in "bleu --json: sacreBLEU's verbose_score" "$OUT" '"verbose_score":"82.4/50.0/45.5/37.5 (BP = 0.943'
head -2 "$TMP/rd.ref1" >"$TMP/rd.short"
run bleu "$TMP/rd.hyp" "$TMP/rd.short"
expect_code "bleu, a REF of the wrong length: exit 4" 4
expect_in "bleu, a REF of the wrong length: says both counts" "$ERR" "has 2 lines but $TMP/rd.hyp has 3"
expect_empty "bleu, a REF of the wrong length: nothing on stdout" "$OUT"
printf 'x\n\nz\n' >"$TMP/rd.gap"
run bleu "$TMP/rd.hyp" "$TMP/rd.gap"
expect_code "bleu, a line without a reference: exit 4" 4
expect_in "bleu, a line without a reference: names it" "$ERR" "line 2: no reference"
printf 'a\n\377\n' >"$TMP/rd.bad"
run bleu "$TMP/rd.bad" "$TMP/rd.short"
expect_code "bleu, invalid UTF-8: exit 4" 4
expect_in "bleu, invalid UTF-8: names file and line" "$ERR" "rd.bad:2: "
run bleu "$TMP/none.hyp" "$TMP/rd.ref1"
expect_code "bleu, a missing file: exit 5" 5
expect_usage_error "bleu without REF" bleu "$TMP/rd.hyp"
expect_usage_error "bleu with REF -" bleu "$TMP/rd.hyp" -
expect_usage_error "bleu --frobnicate" bleu --frobnicate "$TMP/rd.hyp" "$TMP/rd.ref1"

# ---------------------------------------------------------------------------------------
# info and plot

run info --model tests/fixtures/tiny.db
expect_code "info on tiny.db: exit 0" 0
expect_in "info: the configuration" "$OUT" "d_model             16"
expect_in "info: every hyper-parameter (layer_norm_eps)" "$OUT" "layer_norm_eps      1e-05"
expect_in "info: the parameter count" "$OUT" "parameters          11,615"
expect_in "info: the vocabulary sizes" "$OUT" "13 source (en), 15 target (de) tokens"
expect_in "info: the weights load" "$OUT" "load: every tensor present"
expect_in "info: provenance" "$OUT" "gen_transformer_ref.py"
expect_in "info on an untrained model: says so" "$OUT" "no training history (an untrained model)"
expect_empty "info on tiny.db: nothing on stderr" "$ERR"
TOYTRANS_MODEL=tests/fixtures/tiny.db $RUNNER "$BIN" info >"$OUT" 2>"$ERR"
CODE=$?
expect_code "info: TOYTRANS_MODEL names the default model" 0
expect_in "info: TOYTRANS_MODEL names the default model (output)" "$OUT" "tests/fixtures/tiny.db"
run info --model "$TMP/none.db"
expect_code "info with a missing model: exit 3" 3
expect_in "info with a missing model: says so" "$ERR" "no such model file"
expect_empty "info with a missing model: nothing on stdout" "$OUT"
run info --model "$TMP/c.tsv"
expect_code "info on a text file: exit 3" 3
run info --model "$TMP/m1.db"
expect_code "info on a vocabulary-only file: exit 3 (no weights)" 3
expect_in "info on a vocabulary-only file: still shows the configuration" "$OUT" "Configuration"
expect_in "info on a vocabulary-only file: names the missing tensor" "$ERR" "is missing"
expect_usage_error "info with a positional argument" info tests/fixtures/tiny.db
expect_usage_error "info --bogus" info --bogus

cp tests/fixtures/tiny.db "$TMP/tiny.db"
run plot --model "$TMP/tiny.db" --out "$TMP/tiny.svg"
expect_code "plot on an untrained model: exit 1" 1
expect_in "plot on an untrained model: says so" "$ERR" "no training history to plot"
if [ -e "$TMP/tiny.svg" ] || ls "$TMP"/tiny.svg.*tmp >/dev/null 2>&1; then
    fail "plot on an untrained model: no file written" "tiny.svg exists"
else
    pass "plot on an untrained model: no file written"
fi
run plot --model "$TMP/none.db" --out "$TMP/x.svg"
expect_code "plot with a missing model: exit 3" 3
expect_usage_error "plot without --out" plot --model "$TMP/tiny.db"
expect_usage_error "plot --width 10" plot --model "$TMP/tiny.db" --out "$TMP/x.svg" --width 10
expect_usage_error "plot --height abc" plot --model "$TMP/tiny.db" --out "$TMP/x.svg" --height abc

# The phrasebook: train --phrasebook records its checksum (the one src/text/grammar.c's table
# was typed from, so the grammar check may take its phrases), corpus --phrasebook writes
# the phrase construction and names a bad phrasebook's lines (exit 4).
run train --train "$TMP/c.tsv" --phrasebook data/phrasebook.tsv --out "$TMP/pb.db" \
    --d-model 8 --heads 2 --d-ff 16 --max-len 12 --stop-after 1
expect_code "train --phrasebook: exit 0" 0
run info --model "$TMP/pb.db"
expect_in "info: train --phrasebook records the phrasebook" "$OUT" "data/phrasebook.tsv"
expect_in "info: and its checksum" "$OUT" "bb95032352ee587e"
mkdir "$TMP/pbc"
run corpus --out-dir "$TMP/pbc" --phrasebook data/phrasebook.tsv --train 300 --valid 20 \
    --test 40
expect_code "corpus --phrasebook: exit 0" 0
expect_in "corpus --phrasebook: counts the phrases" "$OUT" "phrases of data/phrasebook.tsv"
printf 'phrase\tHello\tHallo\nphrase\tGood morning\nphrase\tBye\t\n' >"$TMP/badbook.tsv"
run corpus --out-dir "$TMP/pbc" --phrasebook "$TMP/badbook.tsv"
expect_code "corpus: a malformed phrasebook: exit 4" 4
expect_in "corpus: a malformed phrasebook: names line 2" "$ERR" "badbook.tsv:2: byte 19: a phrase has 3 fields"
expect_in "corpus: a malformed phrasebook: and line 3" "$ERR" "badbook.tsv:3: byte"
run corpus --out-dir "$TMP/pbc" --phrasebook "$TMP/pbc/test.tsv"
expect_code "corpus: the phrasebook as an output: exit 2" 2

# A model with a history: five steps of training on the three-pair corpus, two batches
# an epoch, so two epochs are validated.
H="$TMP/trained.db"
run train --train "$TMP/c.tsv" --valid "$TMP/c.tsv" --out "$H" --batch 2 --d-model 8 --heads 2 \
    --d-ff 16 --max-len 12 --warmup 2 --stop-after 5
expect_code "train five steps (for info and plot): exit 0" 0
expect_in "train --stop-after 5: says it stopped early, with the checkpoint" "$OUT" \
    "trained.db: stopped after step 5 of 20 (checkpoint saved; --resume continues)"
run info --model "$H"
expect_code "info on a trained model: exit 0" 0
expect_in "info: the history's steps" "$OUT" "5 logged, steps 1 to 5"
expect_in "info: the per-epoch table" "$OUT" "epoch        step  valid loss  exact match"
expect_in "info: the training command" "$OUT" "toytrans train --train"
expect_in "info: train records the vocabulary's corpus as vocab and init do" "$OUT" "vocabulary corpus"
expect_in "info: train records the seed of its random weights" "$OUT" "init seed"
expect_in "info: train's created_by names the version" "$OUT" "toytrans 0.1.0 train"
run plot --model "$H" --out "$TMP/loss.svg" --width 640 --height 400
expect_code "plot on a trained model: exit 0" 0
expect_first_line "plot: an XML document" "$TMP/loss.svg" "<?xml version=\"1.0\""
expect_in "plot: an SVG 1.1 root of the asked size" "$TMP/loss.svg" \
    '<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="640" height="400"'
expect_in "plot: the training loss" "$TMP/loss.svg" 'id="train-loss"'
expect_in "plot: the validation loss" "$TMP/loss.svg" 'id="valid-loss"'
expect_in "plot: the title names the model" "$TMP/loss.svg" "Training loss of trained.db"
expect_in "plot: says why the training loss stays above the validation loss" "$TMP/loss.svg" \
    "training loss with label smoothing 0.1, validation without"
if [ "$(tail -n 1 "$TMP/loss.svg")" = "</svg>" ]; then
    pass "plot: the document is complete"
else
    fail "plot: the document is complete" "last line '$(tail -n 1 "$TMP/loss.svg")'"
fi
# A resume is recorded (its time and command) and the settings in effect shown.
cp "$H" "$TMP/resumed.db"
run train --train "$TMP/c.tsv" --valid "$TMP/c.tsv" --out "$TMP/resumed.db" --resume --epochs 4 \
    --stop-after 2
expect_code "train --resume --epochs 4 --stop-after 2: exit 0" 0
expect_in "train --resume: stopped after step 7 of 8" "$OUT" "stopped after step 7 of 8"
run info --model "$TMP/resumed.db"
if grep -E '^  resumed +20[0-9-]+T[0-9:]+Z  epochs 4, threads 1  toytrans train .*--resume --epochs 4 --stop-after 2$' "$OUT" >/dev/null &&
    grep -E '^  epochs +4$' "$OUT" >/dev/null; then
    pass "info after a resume: the resume's time, the epochs and threads then in effect, its command"
else
    fail "info after a resume" "$(grep -E '^  (resumed|epochs) ' "$OUT" | tr '\n' '|')"
fi
# A resume without --threads runs with the threads the run was started with, and says so.
run train --train "$TMP/c.tsv" --valid "$TMP/c.tsv" --out "$TMP/threads.db" --batch 2 --d-model 8 \
    --heads 2 --d-ff 16 --max-len 12 --warmup 2 --threads 2 --stop-after 2
run train --out "$TMP/threads.db" --resume --stop-after 1
expect_code "train --resume of a run on 2 threads: exit 0" 0
run info --model "$TMP/threads.db"
if grep -E '^  resumed +20[0-9-]+T[0-9:]+Z  epochs 10, threads 2  toytrans train --out .*threads.db --resume --stop-after 1$' \
        "$OUT" >/dev/null && grep -E '^  threads +2$' "$OUT" >/dev/null; then
    pass "train --resume without --threads: the run's 2 threads, shown by info"
else
    fail "train --resume without --threads: the run's 2 threads, shown by info" \
        "$(grep -E -A1 '^  (resumed|threads) ' "$OUT" | tr '\n' '|')"
fi
run train --out "$TMP/threads.db" --resume --stop-after 1 --threads 1
run info --model "$TMP/threads.db"
if grep -E 'Z  epochs 10, threads 1  toytrans train .*--threads 1$' "$OUT" >/dev/null &&
    grep -E '^  threads +1$' "$OUT" >/dev/null; then
    pass "train --resume --threads 1: a given thread count is used, and shown by info"
else
    fail "train --resume --threads 1: a given thread count is used, and shown by info" \
        "$(grep -E -A1 '^  (resumed|threads) ' "$OUT" | tr '\n' '|')"
fi
run train --train "$TMP/c.tsv" --valid "$TMP/c.tsv" --out "$TMP/resumed.db" --resume --epochs 4
expect_in "train --resume to the end: trained" "$OUT" "resumed.db: trained, 8 steps"
run info --model "$TMP/resumed.db"
if [ "$(grep -cE 'Z  epochs 4, threads 1  toytrans train .*--resume --epochs 4' "$OUT")" -eq 2 ]; then
    pass "info: each resume on a line of its own"
else
    fail "info: each resume on a line of its own" "$(grep -A2 '^  resumed' "$OUT" | tr '\n' '|')"
fi
run plot --model "$H" --out -
expect_code "plot --out -: exit 0" 0
expect_first_line "plot --out -: the SVG on stdout" "$OUT" "<?xml"
run plot --model "$H" --out "$TMP/no/such/dir/loss.svg"
expect_code "plot into a missing directory: exit 5" 5
expect_in "plot into a missing directory: names the file" "$ERR" "loss.svg: cannot be written there"
if [ -w /dev/full ]; then
    run_to /dev/full plot --model "$H" --out -
    expect_code "plot --out - > /dev/full: exit 5" 5
fi

# ---------------------------------------------------------------------------------------
# train: tiny runs (a 16-wide model on 300 pairs), checkpoints, resume, signals

head -300 data/train.tsv >"$TMP/tr.tsv"
head -40 data/valid.tsv >"$TMP/va.tsv"
TINY="--d-model 16 --heads 2 --d-ff 32 --max-len 24 --batch 16 --warmup 10 --checkpoint-every 5"
printf 'This is an example\nthe dog is big.\nI see a red car\n' >"$TMP/probe.txt"
# shellcheck disable=SC2086
run train --train "$TMP/tr.tsv" --valid "$TMP/va.tsv" --out "$TMP/tA.db" --epochs 2 $TINY --dropout 0.1
expect_code "train: exit 0" 0
expect_in "train: validation after each epoch" "$ERR" "epoch 2/2 done"
run info --model "$TMP/tA.db"
expect_in "train: the history is stored (info shows the epochs)" "$OUT" "exact match"
run_in "$TMP/probe.txt" translate --model "$TMP/tA.db" --json
cp "$OUT" "$TMP/tA.json"
# shellcheck disable=SC2086
run train --train "$TMP/tr.tsv" --valid "$TMP/va.tsv" --out "$TMP/tB.db" --epochs 2 $TINY --dropout 0.1 \
    --stop-after 13
expect_code "train --stop-after 13: exit 0 with a checkpoint" 0
# The resume gives no setting: epochs, batch size, warm-up, dropout and the corpora come
# from the file.
run train --out "$TMP/tB.db" --resume
expect_code "train --resume: exit 0" 0
expect_in "train --resume with no corpus: validates on the run's (epoch 2's validation)" "$ERR" \
    "epoch 2/2 done"
expect_in "train --resume with no settings: the run's 2 epochs of 20 steps" "$OUT" \
    "tB.db: trained, 40 steps"
run_in "$TMP/probe.txt" translate --model "$TMP/tB.db" --json
if cmp -s "$OUT" "$TMP/tA.json"; then
    pass "train: stopped and resumed with no settings given (with dropout) gives bit-identical results to an uninterrupted run"
else
    fail "train: stopped and resumed equals uninterrupted" "translations differ"
fi
expect_usage_error "train without --train (a new run)" train --out "$TMP/tN0.db"
expect_in "train without --train: says it is needed for a new run" "$ERR" "--train is required"
# Another corpus on resume is allowed, and said (the run is no longer the one it was).
head -299 "$TMP/tr.tsv" >"$TMP/tr299.tsv"
run train --train "$TMP/tr299.tsv" --out "$TMP/tB.db" --resume --epochs 3 --stop-after 1
expect_code "train --resume on another corpus: exit 0" 0
expect_in "train --resume on another corpus: says it is not the run's" "$ERR" \
    "tr299.tsv is not the corpus the run was started with (its FNV-1a 64 is"
run train --train "$TMP/tr.tsv" --out "$TMP/tB.db" --resume --epochs 3 --stop-after 1
expect_code "train --resume on the run's corpus: exit 0" 0
expect_not_in "train --resume on the run's corpus: no note" "$ERR" "is not the corpus"
# shellcheck disable=SC2086
run train --train "$TMP/tr.tsv" --out "$TMP/tT1.db" --epochs 1 $TINY --threads 2
# shellcheck disable=SC2086
run train --train "$TMP/tr.tsv" --out "$TMP/tT2.db" --epochs 1 $TINY --threads 2
run_in "$TMP/probe.txt" translate --model "$TMP/tT1.db" --json
cp "$OUT" "$TMP/t1.json"
run_in "$TMP/probe.txt" translate --model "$TMP/tT2.db" --json
if cmp -s "$OUT" "$TMP/t1.json"; then
    pass "train --threads 2: the same seed gives the same model"
else
    fail "train --threads 2: deterministic" "translations differ"
fi
# shellcheck disable=SC2086
run train --train "$TMP/tr.tsv" --out "$TMP/tR.db" --epochs 1 $TINY --threads 2 --release
expect_code "train --release: exit 0" 0
run_in "$TMP/probe.txt" translate --model "$TMP/tR.db" --json
if cmp -s "$OUT" "$TMP/t1.json"; then
    pass "train --release: the same weights as without it"
else
    fail "train --release: the same weights as without it" "translations differ"
fi
size_full=$(wc -c <"$TMP/tT1.db")
size_rel=$(wc -c <"$TMP/tR.db")
if [ "$size_rel" -lt "$size_full" ]; then
    pass "train --release: a smaller file without the optimiser state ($size_rel < $size_full bytes)"
else
    fail "train --release: a smaller file" "$size_rel >= $size_full bytes"
fi
# shellcheck disable=SC2086
run train --train "$TMP/tr.tsv" --out "$TMP/tR.db" --epochs 2 $TINY --threads 2 --resume
expect_code "train --resume on a released model: exit 2" 2
expect_in "train --resume on a released model: says why" "$ERR" "saved for release"
# AdamW's betas and epsilon: recorded in meta, shown by info, kept by a resumed run.
run info --model "$TMP/tT1.db"
expect_in "train: info shows the default AdamW beta1" "$OUT" "AdamW beta1         0.9"
expect_in "train: info shows the default AdamW beta2" "$OUT" "AdamW beta2         0.98"
expect_in "train: info shows the default AdamW epsilon" "$OUT" "AdamW epsilon       1e-09"
# shellcheck disable=SC2086
run train --train "$TMP/tr.tsv" --out "$TMP/tW.db" --epochs 1 $TINY --stop-after 1 \
    --adam-beta1 0.8 --adam-beta2 0.995 --adam-eps 1e-8
expect_code "train --adam-beta1/--adam-beta2/--adam-eps: exit 0" 0
run info --model "$TMP/tW.db"
expect_in "train --adam-beta1: recorded and shown by info" "$OUT" "AdamW beta1         0.8"
expect_in "train --adam-beta2: recorded and shown by info" "$OUT" "AdamW beta2         0.995"
expect_in "train --adam-eps: recorded and shown by info" "$OUT" "AdamW epsilon       1e-08"
cp "$OUT" "$TMP/tW0.info"
run train --train "$TMP/tr.tsv" --out "$TMP/tW.db" --epochs 1 --resume --adam-beta2 0.9
expect_code "train --resume --adam-beta2: exit 2 (the run keeps its settings)" 2
expect_in "train --resume --adam-beta2: names the option, the key and both values" "$ERR" \
    "--adam-beta2 0.9 differs from the AdamW beta2 the run was started with (meta train_adam_beta2 = 0.995); a resumed run keeps it"
run train --train "$TMP/tr.tsv" --out "$TMP/tW.db" --resume --lr 0.002
expect_code "train --resume --lr: exit 2" 2
expect_in "train --resume --lr: names the option, the key and both values" "$ERR" \
    "--lr 0.002 differs from the peak learning rate the run was started with (meta train_lr = 0.001)"
run info --model "$TMP/tW.db"
if cmp -s "$OUT" "$TMP/tW0.info"; then
    pass "train --resume with another setting: nothing written (info unchanged)"
else
    fail "train --resume with another setting: nothing written (info unchanged)" "info differs"
fi
run train --train "$TMP/tr.tsv" --out "$TMP/tW.db" --resume --adam-beta2 0.995 --lr 0.001 \
    --warmup 10 --stop-after 1
expect_code "train --resume with the run's own settings given again: exit 0" 0
rm -f "$TMP/tW0.info"
for bad in "--adam-beta1 1" "--adam-beta2 -0.5" "--adam-beta2 0.9999999999" "--adam-eps 0" \
    "--adam-eps -1e-9" "--adam-eps 1e-60"; do
    # shellcheck disable=SC2086
    expect_usage_error "train $bad" train --train "$TMP/tr.tsv" --out "$TMP/tV.db" $bad
    expect_in "train $bad: names the option" "$ERR" "toytrans train: ${bad%% *}: '${bad#* }' is not a number"
done
rm -f "$TMP/tW.db"
# shellcheck disable=SC2086
run train --train "$TMP/tr.tsv" --out "$TMP/tN.db" --epochs 1 $TINY --lr 1e9 --clip 0 --warmup 0
expect_code "train with an absurd learning rate: exit 6 (diverged)" 6
expect_in "train diverged: says NaN or infinite and keeps the checkpoint" "$ERR" "last checkpoint"
run translate --model "$TMP/tN.db" "This is an example"
expect_code "train diverged: the kept checkpoint still loads and translates" 0
printf 'good\tgut\nno tab here\n' >"$TMP/badc.tsv"
run train --train "$TMP/badc.tsv" --out "$TMP/tX.db"
expect_code "train on a malformed corpus: exit 4" 4
expect_in "train on a malformed corpus: names the line" "$ERR" "badc.tsv:2"
# shellcheck disable=SC2086
run train --train "$TMP/badc.tsv" --out "$TMP/tX.db" --epochs 1 $TINY --skip-bad-lines
expect_code "train --skip-bad-lines: exit 0" 0
expect_in "train --skip-bad-lines: reports the skipped line on stderr" "$ERR" \
    "toytrans train: $TMP/badc.tsv:2: no TAB between source and target (byte 9) (skipped)"
rm -f "$TMP/tX.db"
run train --train "$TMP/tr.tsv" --out "$TMP/tA.db"
expect_code "train onto an existing model without --resume or --force: exit 2 (a usage matter)" 2
expect_in "train onto an existing model: suggests --force and --resume" "$ERR" \
    "already exists; not replaced (--force replaces it, --resume continues it)"

# Ctrl-C: the step finishes, a checkpoint commits, exit 130; kill -9: the last
# checkpoint survives. A long run is started and interrupted once its file exists (the
# first checkpoint) and a moment more has passed.
# wait_for FILE: up to 60 s for FILE to appear.
wait_for() {
    n=0
    while [ ! -f "$1" ] && [ $n -lt 600 ]; do
        sleep 0.1
        n=$((n + 1))
    done
}
# shellcheck disable=SC2086
$RUNNER "$BIN" train --train "$TMP/tr.tsv" --out "$TMP/tI.db" --epochs 500 $TINY \
    >/dev/null 2>"$TMP/int.err" &
pid=$!
wait_for "$TMP/tI.db"
sleep 1
kill -INT "$pid"
wait "$pid"
CODE=$?
expect_code "train interrupted by SIGINT: exit 130" 130
expect_in "train interrupted: says the checkpoint is saved" "$TMP/int.err" "checkpoint saved"
run translate --model "$TMP/tI.db" "This is an example"
expect_code "train interrupted: the checkpoint translates" 0
# shellcheck disable=SC2086
run train --train "$TMP/tr.tsv" --out "$TMP/tI.db" --epochs 500 $TINY --resume --stop-after 3
expect_code "train interrupted: --resume continues" 0
# shellcheck disable=SC2086
$RUNNER "$BIN" train --train "$TMP/tr.tsv" --out "$TMP/tK.db" --epochs 500 $TINY \
    >/dev/null 2>&1 &
pid=$!
wait_for "$TMP/tK.db"
sleep 1
kill -9 "$pid"
wait "$pid" 2>/dev/null
run translate --model "$TMP/tK.db" "This is an example"
expect_code "train killed with SIGKILL: the last checkpoint loads and translates" 0

# ---------------------------------------------------------------------------------------
# A UTF-8 byte-order mark at the start of an input (text, TSV, trace --input) is skipped,
# not glued to the first word

BOM=$(printf '\357\273\277')
printf '%sHello world\n' "$BOM" >"$TMP/bom.txt"
run_in "$TMP/bom.txt" tokenize
expect_file_eq "tokenize: a byte-order mark is skipped" "$OUT" "hello world"
run_in "$TMP/bom.txt" translate --model "$M" --json
cp "$OUT" "$TMP/bom.out"
run translate --model "$M" --json "Hello world"
if cmp -s "$OUT" "$TMP/bom.out"; then
    pass "translate: a byte-order mark is skipped (the same as without it)"
else
    fail "translate: a byte-order mark is skipped" "the JSON differs from the line's without it"
fi
printf '%sdog\tHund\ncat\tKatze\n' "$BOM" >"$TMP/bom.tsv"
run vocab --train "$TMP/bom.tsv" --out "$TMP/bom.db" --no-lists
expect_code "vocab: a corpus with a byte-order mark: exit 0" 0
run tokenize --model "$TMP/bom.db" "dog"
expect_not_in "vocab: a byte-order mark is not part of the first word" "$OUT" "<unk>"
printf '%s1 2 3\n4 5 6\n' "$BOM" >"$TMP/bom_matrix.txt"
run trace --input "$TMP/bom_matrix.txt"
expect_code "trace --input: a byte-order mark is skipped: exit 0" 0

# ---------------------------------------------------------------------------------------
# The shipped model (models/en-de.db): the figures the README promises

if [ -f models/en-de.db ]; then
    # Every checksum a shipped model records of a file it was made from (its vocabulary's
    # and training's corpus, its lexicon) is that committed file's: `make corpus vocab
    # model` retrains the shipped models from the files in the repository, not others.
    # Each is computed again by the code that recorded it: vocab for a corpus, train
    # --lexicon for a lexicon. Not under a RUNNER: it reads the whole corpus three times.
    printf 'the dog\tder Hund\n' >"$TMP/one.tsv"
    [ -n "$RUNNER" ] || for model in models/*.db; do
        run info --model "$model"
        awk '/^  (vocabulary corpus|training corpus|lexicon) / { what = $1; file = $NF; next }
             what && /^    fnv1a64 / { print what, file, $2; what = "" }
             /^  [a-z]/ { what = "" }' "$OUT" >"$TMP/recorded.txt"
        if [ ! -s "$TMP/recorded.txt" ]; then
            fail "$model records the checksums of its corpus" "info shows none"
            continue
        fi
        while read -r what file recorded; do
            if [ "$what" = lexicon ]; then
                run train --train "$TMP/one.tsv" --lexicon "$file" --out "$TMP/lex.db" --force \
                    --d-model 8 --heads 2 --d-ff 8 --max-len 8 --stop-after 1
                run info --model "$TMP/lex.db"
                now=$(awk '/^  lexicon / { f = 1; next } f && /^    fnv1a64 / { print $2; exit }' "$OUT")
            else
                run vocab --train "$file" --out "$TMP/sum.db" --force
                run info --model "$TMP/sum.db"
                now=$(awk '/^  vocabulary corpus / { f = 1; next } f && /^    fnv1a64 / { print $2; exit }' "$OUT")
            fi
            if [ -n "$now" ] && [ "$now" = "$recorded" ]; then
                pass "$model: the $what it records is $file as committed (fnv1a64 $now)"
            else
                fail "$model: the $what it records is $file as committed" \
                    "recorded fnv1a64 $recorded, $file hashes to '$now'"
            fi
        done <"$TMP/recorded.txt"
    done
    # docs/loss.svg is plot's picture of the shipped model, as plot draws it now.
    run plot --model models/en-de.db --out -
    if cmp -s "$OUT" docs/loss.svg; then
        pass "docs/loss.svg is what plot --model models/en-de.db draws"
    else
        fail "docs/loss.svg is what plot --model models/en-de.db draws" \
            "differs (toytrans plot --model models/en-de.db --out docs/loss.svg --force)"
    fi
    # A copied word (the model wrote <unk>; the most attended source word stands in) is
    # marked wherever the words are shown, and only there: --keep-unk shows the <unk>.
    # The article before it is the model's guess (Der, Das or Die): not what is tested.
    run translate --scores "The dragon is broken"
    if grep -Eq '	D[a-z]{2}:0\.[0-9]{3} dragon:0\.[0-9]{3}\(copied\) ist:0\.[0-9]{3} broken:0\.[0-9]{3}\(copied\) </s>:0\.[0-9]{3}$' "$OUT"; then
        pass "translate --scores: copied words say (copied)"
    else
        fail "translate --scores: copied words say (copied)" "$(cat "$OUT")"
    fi
    run translate --scores --keep-unk "The dragon is broken"
    expect_not_in "translate --scores --keep-unk: nothing copied" "$OUT" "(copied)"
    run translate --json "The dragon is broken"
    "$CHECK" --print steps <"$OUT" >"$TMP/steps.txt"
    if grep -q '"token":"dragon","id":1,[^{]*"copied":true' "$TMP/steps.txt" &&
        grep -q '"token":"D[a-z][a-z]",[^{]*"copied":false' "$TMP/steps.txt"; then
        pass "translate --json: a step's \"copied\" says whether its token was copied"
    else
        fail "translate --json: \"copied\" per step" "$(cut -c1-300 "$TMP/steps.txt")"
    fi
    run inspect --json "The dragon is broken"
    expect_in "inspect --json: a copied word's entry says so" "$OUT" \
        '{"word":"dragon","label":"dragon","probability":'
    if grep -q '"word":"dragon","label":"dragon","probability":[0-9.e-]*,"forced":false,"copied":true' "$OUT" &&
        grep -q '"word":"D[a-z][a-z]","label":"D[a-z][a-z]","probability":[0-9.e-]*,"forced":false,"copied":false' "$OUT"; then
        pass "inspect --json: \"copied\" in each words entry"
    else
        fail "inspect --json: \"copied\" in each words entry" "$(cut -c1-400 "$OUT")"
    fi
    run inspect --color never "The dragon is broken"
    if grep -Eq '^     1  dragon\* +0\.[0-9]{3}  copied$' "$OUT" &&
        grep -Eq '^  dragon\* ' "$OUT" &&
        grep -q '^  \* copied from the source: the model wrote <unk>$' "$OUT"; then
        pass "inspect: a copied word is marked in the table and the heatmap, with a legend"
    else
        fail "inspect: a copied word is marked in the table and the heatmap" "$(cat "$OUT")"
    fi
    run inspect --color never "I love you"
    expect_not_in "inspect: no copy mark where nothing was copied" "$OUT" "copied"
    run translate "This is an example" "this is an example" "This is an example."
    expect_file_eq "shipped model: the seed example, in any case, with a period" "$OUT" \
"Das ist ein Beispiel
Das ist ein Beispiel
Das ist ein Beispiel."
    # Beam search once ended before its best hypothesis had finished, and chose "Meine
    # sehe und lieben den roten Apfel." at -1.017 per token over greedy's -0.020.
    run translate --beam 4 "My cats eat and love the red apple."
    expect_file_eq "shipped model: --beam 4 gives greedy's right German" "$OUT" \
"Meine Katzen fressen und lieben den roten Apfel."
    run translate --prefix "Das ist ein" --json "This is an example"
    "$CHECK" --print steps <"$OUT" >"$TMP/steps.txt"
    # log-probability above ln 0.9 = -0.105: -0.0…, or a tiny value in exponent form
    if grep -Eq '"token":"Beispiel","id":[0-9]+,"logprob":-(0\.0[0-9]*|[0-9.]+e-[0-9]+),"forced":false' \
        "$TMP/steps.txt" &&
        [ "$("$CHECK" --print translation <"$OUT")" = '"Das ist ein Beispiel"' ]; then
        pass "shipped model: after the prefix 'Das ist ein', 'Beispiel' with probability >= 0.9"
    else
        fail "shipped model: prefix case" "$(cut -c1-300 "$TMP/steps.txt")"
    fi
    # The accuracy is measured on the whole test set in a plain run. Under a RUNNER
    # (valgrind) the same code runs on every 20th sentence, all 18 constructions among
    # them: valgrind looks for memory errors, and the whole set would take it an hour.
    if [ -z "$RUNNER" ]; then
        run eval --test data/test.tsv
        expect_code "shipped model: eval on data/test.tsv" 0
        pct=$(sed -n 's/^exact match: [0-9]*\/[0-9]* = \([0-9]*\)\..*/\1/p' "$OUT")
        if [ -n "$pct" ] && [ "$pct" -ge 99 ]; then
            pass "shipped model: exact match on data/test.tsv >= 99% ($pct%)"
        else
            fail "shipped model: exact match >= 99%" "got '$pct'"
            show "$OUT"
        fi
        # The table "construction sentences exact %": every construction at least 97%.
        low=$(awk '/^exact match by construction:/ { t = 1; next }
                   t && NF == 4 && $2 ~ /^[0-9]+$/ { if ($4 + 0 < 97) print $1 " " $4; n++ }
                   END { if (n < 18) print "only " n + 0 " constructions" }' "$OUT")
        if [ -z "$low" ]; then
            pass "shipped model: every one of the 18 constructions >= 97% exact"
        else
            fail "shipped model: every construction >= 97% exact" "$low"
        fi
        # Beam search never loses to greedy: beam 4 matches at least as many references.
        greedy=$(sed -n 's/^exact match: \([0-9]*\)\/.*/\1/p' "$OUT")
        run eval --beam 4 --test data/test.tsv
        expect_code "shipped model: eval --beam 4 on data/test.tsv" 0
        beam=$(sed -n 's/^exact match: \([0-9]*\)\/.*/\1/p' "$OUT")
        if [ -n "$greedy" ] && [ -n "$beam" ] && [ "$beam" -ge "$greedy" ]; then
            pass "shipped model: exact match with --beam 4 >= greedy's ($beam >= $greedy)"
        else
            fail "shipped model: exact match with --beam 4 >= greedy's" "beam '$beam', greedy '$greedy'"
        fi
        # --n-best lists no empty translation: every line has a word.
        cut -f1 data/test.tsv >"$TMP/test-src.txt"
        run_in "$TMP/test-src.txt" translate --n-best 4
        expect_code "shipped model: translate --n-best 4 of data/test.tsv" 0
        if [ "$(wc -l <"$OUT")" -eq $((4 * $(wc -l <data/test.tsv))) ] && ! grep -E '^[0-9]+ \|\|\|  \|\|\|' "$OUT" >/dev/null; then
            pass "shipped model: --n-best 4 of data/test.tsv, 4 lines each, none empty"
        else
            fail "shipped model: --n-best 4 of data/test.tsv, 4 lines each, none empty" \
                "$(wc -l <"$OUT") lines; $(grep -c -E '^[0-9]+ \|\|\|  \|\|\|' "$OUT") empty"
        fi
    else
        awk 'NR % 20 == 1' data/test.tsv >"$TMP/test-sub.tsv"
        run eval --test "$TMP/test-sub.tsv"
        expect_code "shipped model: eval on every 20th sentence of data/test.tsv" 0
        expect_in "shipped model: eval prints the table per construction" "$OUT" \
            "exact match by construction:"
    fi
    run check data/regression.tsv --golden tests/golden/en-de.jsonl
    expect_code "check data/regression.tsv with the golden file: exit 0" 0
    expect_in "check: every regression case passes" "$OUT" "314 passed, 0 failed"
    printf 'This is an example\tDas ist eine Beispiel\n' >"$TMP/wrong.tsv"
    run check "$TMP/wrong.tsv"
    expect_code "check with a wrong expectation: exit 1" 1
    expect_in "check: names the first differing word" "$OUT" "first difference at word 3"
    printf 'only one field\n' >"$TMP/mal.tsv"
    run check "$TMP/mal.tsv"
    expect_code "check with a malformed line: exit 4" 4
    expect_in "check: names the malformed line" "$OUT" "mal.tsv:1: malformed"
    # The new golden file and vocabulary lists are written under names of this process:
    # a link planted at the old fixed name (NAME.tmp) is never followed, so the file it
    # points to is not overwritten, and the result is a regular file.
    printf 'This is an example\tDas ist ein Beispiel\n' >"$TMP/one-case.tsv"
    printf 'keep me\n' >"$TMP/victim.txt"
    ln -sf "$TMP/victim.txt" "$TMP/gold.jsonl.tmp"
    run check "$TMP/one-case.tsv" --golden "$TMP/gold.jsonl" --update
    expect_code "check --update beside a link at gold.jsonl.tmp: exit 0" 0
    if [ "$(cat "$TMP/victim.txt")" = "keep me" ] && [ -f "$TMP/gold.jsonl" ] &&
        [ ! -L "$TMP/gold.jsonl" ] && [ "$(wc -l <"$TMP/gold.jsonl")" -eq 1 ]; then
        pass "check --update: the link's target untouched, the golden file a regular file"
    else
        fail "check --update: the link's target untouched" "victim: $(head -c 80 "$TMP/victim.txt")"
    fi
    mkdir -p "$TMP/vl"
    ln -sf "$TMP/victim.txt" "$TMP/vl/en.tsv.tmp"
    run vocab --train "$TMP/one-case.tsv" --out "$TMP/vl/m.db" --vocab-dir "$TMP/vl"
    expect_code "vocab --vocab-dir beside a link at en.tsv.tmp: exit 0" 0
    if [ "$(cat "$TMP/victim.txt")" = "keep me" ] && [ -f "$TMP/vl/en.tsv" ] &&
        [ ! -L "$TMP/vl/en.tsv" ]; then
        pass "vocab lists: the link's target untouched, en.tsv a regular file"
    else
        fail "vocab lists: the link's target untouched" "victim: $(head -c 80 "$TMP/victim.txt")"
    fi
    if ls "$TMP"/vl/*.[0-9]*.tmp "$TMP"/gold.jsonl.[0-9]*.tmp >/dev/null 2>&1; then
        fail "check --update, vocab lists: no temporary file left" "$(ls "$TMP"/vl/*.[0-9]*.tmp)"
    else
        pass "check --update, vocab lists: no temporary file left"
    fi
    expect_usage_error "check --update without --golden" check data/regression.tsv --update
    expect_usage_error "check without FILE" check
else
    fail "shipped model" "models/en-de.db is missing (make model trains it)"
fi

# ---------------------------------------------------------------------------------------
# inspect and translate --alignment, on the shipped model (2 decoder layers, 4 heads)

# json_cross_mean LAYER STEP COL < JSONL: the heads' mean of the cross-attention that the
# step whose token is STEP gave source column COL (1-based) in LAYER (0-based, 2 layers),
# to 2 decimals, from translate --json.
json_cross_mean() {
    "$CHECK" --print steps |
        sed 's/.*"token":"'"$2"'"[^[]*"cross_attention":\[//; s/,"self_attention".*//' |
        sed 's/\]\],\[\[/\
/' | sed -n "$(($1 + 1))p" | sed 's/\],\[/\
/g; s/[][]//g' | awk -F, -v c="$3" '{ s += $c; n++ } END { if (n) printf "%.2f\n", s / n }'
}

if [ -f models/en-de.db ]; then
    SENT="This is an example"
    NO_COLOR=1 run inspect "$SENT"
    expect_code "inspect: exit 0" 0
    for w in Das ist ein Beispiel; do
        if grep -E "^ +[0-9]+ +$w +[01]\.[0-9]{3}" "$OUT" >/dev/null 2>&1; then
            pass "inspect: names '$w' with its probability"
        else
            fail "inspect: names '$w' with its probability" "no step line for it"
            show "$OUT"
        fi
    done
    if grep -E '^ +this +is +an +example +</s> *$' "$OUT" >/dev/null 2>&1; then
        pass "inspect: the heatmap's header holds the source tokens and </s>"
    else
        fail "inspect: header tokens" "no header line 'this is an example </s>'"
        show "$OUT"
    fi
    expect_in "inspect: top source words after each row" "$OUT" "example 1.00, "
    if grep "$(printf '\033')" "$OUT" >/dev/null 2>&1; then
        fail "inspect with NO_COLOR: no escape bytes" "found ESC in the output"
    else
        pass "inspect with NO_COLOR: no escape bytes"
    fi
    expect_in "inspect: shade blocks" "$OUT" "█"
    expect_in "inspect: default is the last layer, heads averaged" "$OUT" "decoder layer 1 (0..1), mean of 4 heads"

    run translate --json "$SENT"
    cp "$OUT" "$TMP/ex.jsonl"
    for layer in 0 1; do
        want=$(json_cross_mean $layer Beispiel 4 <"$TMP/ex.jsonl")
        NO_COLOR=1 run inspect --layer $layer "$SENT"
        got=$(sed -n 's/^  Beispiel .*  .*example \([0-9.]*\).*/\1/p' "$OUT")
        if [ -n "$want" ] && [ "$want" = "$got" ]; then
            pass "inspect --layer $layer: Beispiel's weight on 'example' is translate --json's ($got)"
        else
            fail "inspect --layer $layer: weights as in --json" "inspect '$got', json '$want'"
        fi
    done

    NO_COLOR=1 run inspect --layer all "$SENT"
    expect_code "inspect --layer all: exit 0" 0
    expect_in "inspect --layer all: layer 0" "$OUT" "decoder layer 0 (0..1)"
    expect_in "inspect --layer all: layer 1" "$OUT" "decoder layer 1 (0..1)"
    NO_COLOR=1 run inspect --head 3 "$SENT"
    expect_code "inspect --head 3: exit 0" 0
    expect_in "inspect --head 3: says which head" "$OUT" "head 3 (0..3)"
    expect_usage_error "inspect --head 4 (4 heads)" inspect --head 4 "$SENT"
    expect_usage_error "inspect --layer 2 (2 layers)" inspect --layer 2 "$SENT"
    expect_usage_error "inspect --layer x" inspect --layer x "$SENT"
    # Without TEXT, inspect reads lines of standard input, as translate does; a bad line
    # is named by its number and the others are still shown.
    printf 'the dog\n\377 bad\nthe cat\n' >"$TMP/inspect-in.txt"
    NO_COLOR=1 run_in "$TMP/inspect-in.txt" inspect
    expect_code "inspect from standard input with a bad line: exit 4" 4
    expect_in "inspect from standard input: names the bad line" "$ERR" "toytrans inspect: line 2: invalid UTF-8"
    if [ "$(grep -c '^translation:' "$OUT")" -eq 2 ]; then
        pass "inspect from standard input: the good lines are shown"
    else
        fail "inspect from standard input: the good lines are shown" "$(grep -c '^translation:' "$OUT") reports"
    fi
    # A word that occurs twice is labelled with its occurrence, in the columns, the rows
    # and the top lists; the probability column stays aligned after an umlaut.
    NO_COLOR=1 run inspect "the door is big and the door is small"
    expect_in "inspect: repeated source words labelled" "$OUT" "the#1 door#1 is#1 big and the#2 door#2 is#2 small </s>"
    expect_in "inspect: repeated German words labelled in the rows" "$OUT" "  Tür#2 "
    expect_in "inspect: the top list names the occurrence" "$OUT" "door#2 1.00"
    if grep -E '^ +1  Tür {9}0\.[0-9]{3}$' "$OUT" >/dev/null &&
        grep -E '^ +0  Die {9}0\.[0-9]{3}$' "$OUT" >/dev/null; then
        pass "inspect: the probability column aligned after 'Tür' (columns, not bytes)"
    else
        fail "inspect: the probability column after 'Tür'" "$(grep 'Tür ' "$OUT" | head -1)"
    fi
    # --json: what the report shows, one object per sentence.
    run inspect --json --self --encoder "the dog sees the dog" "the cat"
    expect_code "inspect --json: exit 0" 0
    if "$CHECK" source source_tokens translation words head cross_attention self_attention \
        encoder_attention <"$OUT" >"$TMP/check.txt" && [ "$(wc -l <"$OUT")" -eq 2 ]; then
        pass "inspect --json: one valid object per sentence with every part"
    else
        fail "inspect --json: valid objects" "$(head -3 "$TMP/check.txt")"
    fi
    expect_in "inspect --json: labels and the top source tokens" "$OUT" \
        '"top":[[{"token":"the#1","weight":'
    expect_usage_error "inspect --json --svg -" inspect --json --svg - "the dog"
    # --color: always paints even into a pipe, never does not, and the ramp follows the
    # background $COLORFGBG names (light: weight 1 is the dark end, 232).
    run inspect --color always "the dog"
    if grep -q "$(printf '\033')\[48;5;255m" "$OUT"; then
        pass "inspect --color always: colours into a pipe, weight 1 white on a dark background"
    else
        fail "inspect --color always" "no 48;5;255 escape"
    fi
    COLORFGBG="0;15" run inspect --color always "the dog"
    if grep -q "$(printf '\033')\[48;5;232m█" "$OUT"; then
        pass "inspect --color always, COLORFGBG light: weight 1 is the dark end"
    else
        fail "inspect on a light background" "no 48;5;232 escape on a full cell"
    fi
    run inspect --color never "the dog"
    if grep -q "$(printf '\033')" "$OUT"; then
        fail "inspect --color never: no escape" "found one"
    else
        pass "inspect --color never: no escape"
    fi
    expect_usage_error "inspect --color sometimes" inspect --color sometimes "the dog"
    NO_COLOR=1 run inspect --self "$SENT"
    expect_code "inspect --self: exit 0" 0
    expect_in "inspect --self: a self-attention section" "$OUT" "self-attention: each word over <s>"
    if grep -E '^ +<s> +Das +ist +ein +Beispiel *$' "$OUT" >/dev/null 2>&1; then
        pass "inspect --self: columns are <s> and the outputs"
    else
        fail "inspect --self: columns" "no header '<s> Das ist ein Beispiel'"
    fi
    NO_COLOR=1 run inspect --encoder "$SENT"
    expect_code "inspect --encoder: exit 0" 0
    expect_in "inspect --encoder: an encoder section" "$OUT" "encoder self-attention"
    NO_COLOR=1 run inspect --prefix "Das ist ein" "$SENT"
    expect_in "inspect --prefix: prefix words are marked forced" "$OUT" "forced"
    # For a learner at a terminal: a long sentence fits --width (or $COLUMNS), the shades
    # and the probabilities' ceiling are explained, an unknown word is marked in the
    # heatmap too, and the report starts by saying what cross-attention is.
    LONG="Anna and Bob eat bread in the garden and the dog sees the cat and the cat sees Zoe ."
    NO_COLOR=1 run inspect --width 80 "$LONG"
    expect_code "inspect --width 80, a 20-word sentence: exit 0" 0
    widest=$(LC_ALL=C.UTF-8 wc -L <"$OUT" | tr -d ' ')
    if [ "$widest" -le 80 ]; then
        pass "inspect --width 80, a 20-word sentence: no line wider than 80 ($widest)"
    else
        fail "inspect --width 80, a 20-word sentence: no line wider than 80" "$widest columns"
    fi
    expect_in "inspect --width 80: the columns in blocks" "$OUT" "columns 1-"
    expect_in "inspect --width 80: the top lists after the blocks" "$OUT" "most attended:"
    COLUMNS=60 NO_COLOR=1 $RUNNER "$BIN" inspect "$LONG" >"$OUT" 2>"$ERR"
    widest=$(LC_ALL=C.UTF-8 wc -L <"$OUT" | tr -d ' ')
    if [ "$widest" -le 60 ]; then
        pass "inspect with COLUMNS=60: no line wider than 60 ($widest)"
    else
        fail "inspect with COLUMNS=60: no line wider than 60" "$widest columns"
    fi
    NO_COLOR=1 run inspect --width 0 "$LONG"
    expect_not_in "inspect --width 0: one block, however wide" "$OUT" "columns 1-"
    NO_COLOR=1 run inspect "Zoe sees the dog"
    expect_in "inspect: says what cross-attention is, at the top" "$OUT" \
        "Cross-attention is where the decoder looks in the English sentence"
    expect_first_line "inspect: that sentence comes first" "$OUT" "Cross-attention is"
    expect_in "inspect: a legend for the shades" "$OUT" \
        "shades: ░ from 0.2, ▒ from 0.4, ▓ from 0.6, █ from 0.8, blank below 0.2"
    expect_in "inspect: why the probabilities stop at 0.98" "$OUT" \
        "0.980 is as sure as this model gets, not 1: it was trained with label smoothing 0.02"
    if grep -v '^source:' "$OUT" | grep -E '^ +zoe\? +sees +the +dog +</s> *$' >/dev/null; then
        pass "inspect: the unknown word is marked in the heatmap's header too"
    else
        fail "inspect: the unknown word is marked in the heatmap's header" "no 'zoe? sees the dog </s>'"
        show "$OUT"
    fi
    run inspect --width 5x "$SENT"
    expect_code "inspect --width 5x: exit 2" 2
    run inspect --help
    expect_code "inspect --help: exit 0" 0
    expect_first_line "inspect --help: usage on stdout" "$OUT" "Usage: toytrans inspect"
    run inspect --model "$TMP/no-such.db" "$SENT"
    expect_code "inspect: a missing model exits 3" 3
    rm -f "$TMP/att.svg" "$TMP/att.html"
    run inspect --svg "$TMP/att.svg" --html "$TMP/att.html" "$SENT"
    expect_code "inspect --svg --html: exit 0" 0
    if [ -s "$TMP/att.svg" ] && grep -q '<title>Beispiel → example: ' "$TMP/att.svg" 2>/dev/null; then
        pass "inspect --svg: writes the heatmap with tooltips"
    else
        fail "inspect --svg" "no file, or no 'Beispiel → example' tooltip"
    fi
    if [ -s "$TMP/att.html" ] && grep -q '<span class="tgt-word" data-index="3">Beispiel</span>' "$TMP/att.html" 2>/dev/null; then
        pass "inspect --html: writes the page with the decoded words"
    else
        fail "inspect --html" "no file, or no tgt-word span for Beispiel"
    fi
    if ls "$TMP"/att.svg.*tmp "$TMP"/att.html.*tmp >/dev/null 2>&1; then
        fail "inspect --svg/--html: no temporary file left" "found a .tmp file"
    else
        pass "inspect --svg/--html: no temporary file left"
    fi
    run inspect --svg "$TMP/no-such-dir/att.svg" "$SENT"
    expect_code "inspect --svg into a missing directory exits 5" 5
    run inspect --html "$TMP/no-such-dir/att.html" "$SENT"
    expect_code "inspect --html into a missing directory exits 5" 5
    expect_usage_error "inspect --svg with two TEXTs" inspect --svg "$TMP/att.svg" "$SENT" "$SENT"
    run inspect "$(printf 'ab\377c')"
    expect_code "inspect: invalid UTF-8 exits 4" 4
    expect_in "inspect: invalid UTF-8 names the byte" "$ERR" "invalid UTF-8 at byte 2"

    run translate --alignment hard "$SENT"
    expect_code "translate --alignment hard: exit 0" 0
    if grep -E '^Das ist ein Beispiel \|\|\| [0-9]+-0 [0-9]+-1 [0-9]+-2 [0-9]+-3$' "$OUT" >/dev/null 2>&1; then
        pass "translate --alignment hard: the text, ' ||| ' and 4 src-tgt pairs"
    else
        fail "translate --alignment hard" "unexpected line"
        show "$OUT"
    fi
    run translate --alignment soft "$SENT"
    # Marian's rows: one per output token, </s> included (5), each a weight per source
    # token, </s> included (5), so that every row is a distribution that sums to 1.
    if grep -E '^Das ist ein Beispiel \|\|\|( [0-9.e-]+(,[0-9.e-]+){4}){5}$' "$OUT" >/dev/null 2>&1; then
        pass "translate --alignment soft: 5 rows of 5 weights, </s> included"
    else
        fail "translate --alignment soft: 5 rows of 5 weights, </s> included" "unexpected line"
        show "$OUT"
    fi
    sums=$(sed 's/.*||| //' "$OUT" | tr ' ' '\n' | awk -F, '{ s = 0; for (i = 1; i <= NF; i++) s += $i;
        if (s < 0.9999 || s > 1.0001) bad++ } END { print NR, bad + 0 }')
    if [ "$sums" = "5 0" ]; then
        pass "translate --alignment soft: every row sums to 1"
    else
        fail "translate --alignment soft: every row sums to 1" "rows, rows off: $sums"
        show "$OUT"
    fi
    run translate --alignment soft --beam 3 --prefix "Das ist" "$SENT"
    expect_code "translate --alignment soft --prefix: exit 0" 0
    if grep -E '^Das ist ein Beispiel \|\|\|( [0-9.e-]+(,[0-9.e-]+){4}){5}$' "$OUT" >/dev/null 2>&1; then
        pass "translate --alignment soft --prefix: forced tokens have rows too"
    else
        fail "translate --alignment soft --prefix: forced tokens have rows too" "unexpected line"
        show "$OUT"
    fi
    expect_usage_error "translate --alignment maybe" translate --alignment maybe "$SENT"
    expect_usage_error "translate --alignment with --json" translate --alignment hard --json "$SENT"
    expect_usage_error "translate --head 4" translate --alignment hard --head 4 "$SENT"

    # --n-best N: Marian's n-best lines, best first; the first is the beam's output.
    run translate --beam 4 "$SENT" "I see the dog"
    cp "$OUT" "$TMP/beam4.out"
    run translate --n-best 4 "$SENT" "I see the dog"
    expect_code "translate --n-best 4: exit 0" 0
    if [ "$(wc -l <"$OUT")" -eq 8 ] &&
        ! grep -v -E '^[01] \|\|\| [^|]* \|\|\| F0= -?[0-9.e+-]+ \|\|\| -?[0-9.e+-]+$' "$OUT" >/dev/null; then
        pass "translate --n-best 4: 4 lines per input, 'INDEX ||| TEXT ||| F0= X ||| SCORE'"
    else
        fail "translate --n-best 4: 4 lines per input, 'INDEX ||| TEXT ||| F0= X ||| SCORE'" "unexpected"
        show "$OUT"
    fi
    first=$(grep '^0 ' "$OUT" | head -1 | sed 's/^0 ||| //; s/ ||| F0=.*//')
    second=$(grep '^1 ' "$OUT" | head -1 | sed 's/^1 ||| //; s/ ||| F0=.*//')
    if [ "$first" = "$(sed -n 1p "$TMP/beam4.out")" ] && [ "$second" = "$(sed -n 2p "$TMP/beam4.out")" ]; then
        pass "translate --n-best: each input's first line is the beam's translation"
    else
        fail "translate --n-best: each input's first line is the beam's translation" "'$first', '$second'"
        show "$TMP/beam4.out"
    fi
    if awk -F' \\|\\|\\| ' '{ sub(/^F0= /, "", $3); n = $1;
            if (n == last && $4 > prev + 1e-9) bad++; last = n; prev = $4;
            if ($3 > 1e-9 || $4 > 1e-9) bad++ }
            END { exit bad > 0 }' "$OUT"; then
        pass "translate --n-best: scores are log-probabilities, best first"
    else
        fail "translate --n-best: scores are log-probabilities, best first" "out of order"
        show "$OUT"
    fi
    run translate --n-best 2 --alignment hard "$SENT"
    if [ "$(wc -l <"$OUT")" -eq 2 ] && grep -E '^0 \|\|\| Das ist ein Beispiel \|\|\| [0-9]+-0 [0-9]+-1 [0-9]+-2 [0-9]+-3 \|\|\| F0= ' "$OUT" >/dev/null; then
        pass "translate --n-best --alignment: the alignment after the translation, as Marian"
    else
        fail "translate --n-best --alignment: the alignment after the translation, as Marian" "unexpected"
        show "$OUT"
    fi
    expect_usage_error "translate --n-best wider than --beam" translate --n-best 3 --beam 2 "$SENT"
    expect_usage_error "translate --n-best with --json" translate --n-best 2 --json "$SENT"
    expect_usage_error "translate --n-best 0" translate --n-best 0 "$SENT"

    # --max-length-crop (Marian's): a line over max_len (40, </s> included) is cut to its
    # first 39 tokens, translated as those tokens alone would be, and said so on stderr.
    S39=$(printf 'the dog is big and %.0s' 1 2 3 4 5 6 7 8 | cut -d' ' -f1-39)
    S50="$S39 the cat is small and the dog is big and the"
    run translate "$S50"
    expect_code "translate, a line over max_len: exit 4" 4
    run translate "$S39"
    cp "$OUT" "$TMP/s39.out"
    run translate --max-length-crop "$S50"
    expect_code "translate --max-length-crop: exit 0" 0
    if [ -s "$OUT" ] && cmp -s "$OUT" "$TMP/s39.out"; then
        pass "translate --max-length-crop: the translation of the first 39 tokens"
    else
        fail "translate --max-length-crop: the translation of the first 39 tokens" "differs"
        show "$OUT"
        show "$TMP/s39.out"
    fi
    expect_in "translate --max-length-crop: says so on stderr" "$ERR" \
        "argument 1: 50 tokens, more than the model's max_len of 40 takes: translated the first 39"
    # (The model may warn about the words of this line, far outside its grammar; the
    # crop says nothing.)
    run translate $ONE_KIND --max-length-crop "$S39"
    expect_not_in "translate --max-length-crop, a line that fits: no crop warning" "$ERR" \
        "max_len"
fi

# ---------------------------------------------------------------------------------------
# trace on the shipped model: one head through the stages, its weights those of the
# model's own forward pass as translate --json and inspect --json print them

# trace_weights FILE: the numbers of the "weights [..]" table of a trace, one per line.
trace_weights() {
    awk '/^  weights \[/ { on = 1; head = 1; next }
         on && NF == 0 { exit }
         on && head { head = 0; next }
         on { for (i = 2; i <= NF; i++) print $i }' "$1"
}
# json_head_weights KEY LAYER HEAD PAD: from translate --json's "steps" (stdin), the
# weights of every step's KEY (cross_attention, self_attention) in LAYER and HEAD, one per
# line, each step's row padded with zeros to PAD values (0: none).
json_head_weights() {
    "$CHECK" --print steps | awk -v key="$1" -v L="$2" -v H="$3" -v pad="$4" '
    { s = $0; n = length(s); i = 1
      while ((p = index(substr(s, i), "\"" key "\":")) > 0) {
        i += p - 1 + length(key) + 3; depth = 0; l = -1; h = -1; num = ""; cnt = 0
        for (; i <= n; i++) {
          c = substr(s, i, 1)
          if (c == "[") { depth++; if (depth == 2) { l++; h = -1 } else if (depth == 3) { h++; cnt = 0 }; num = ""; continue }
          if (c == "]" || c == ",") {
            if (num != "" && depth == 3 && l == L && h == H) { printf "%.6f\n", num; cnt++ }
            num = ""
            if (c == "]") {
              if (depth == 3 && l == L && h == H) for (k = cnt; k < pad; k++) printf "%.6f\n", 0
              if (--depth == 0) break
            }
            continue
          }
          num = num c
        }
      } }'
}
# json_encoder_weights: from inspect --json --encoder (stdin), the encoder weights shown.
json_encoder_weights() {
    "$CHECK" --print encoder_attention | awk '
    { s = $0; i = index(s, "\"weights\":") + 10; depth = 0; num = ""
      for (; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "[") { depth++; continue }
        if (c == "]" || c == ",") { if (num != "") printf "%.6f\n", num; num = ""; if (c == "]" && --depth == 0) break; continue }
        num = num c
      } }'
}
# same_numbers DESC A B: files A and B hold as many numbers, each pair within 2e-5.
same_numbers() {
    if [ -s "$2" ] && paste "$2" "$3" | awk '
        NF != 2 { bad = 1; exit }
        { d = $1 - $2; if (d < 0) d = -d; if (d > 2e-5) { bad = 1; exit } }
        END { exit bad }'; then
        pass "$1 ($(wc -l <"$2" | tr -d ' ') weights)"
    else
        fail "$1" "$(paste "$2" "$3" | head -3 | tr '\t\n' ' ')"
    fi
}

if [ -f models/en-de.db ]; then
    SENT="This is an example"
    run trace --model models/en-de.db --layer 0 --head 1 "$SENT"
    expect_code "trace --model: exit 0" 0
    for stage in "Stage 1/5 · inputs: X = encoder.layers.0.norm1(x)" \
        "Stage 2/5 · projections of head 1: rows 32-63 of W_query" "Stage 3/5" \
        "Stage 4/5 · attention weights: softmax(scores / √d_k) per row, d_k = 32" \
        "Stage 5/5" "they agree — these are the model's numbers" \
        "they agree — row i of the batched output is token i's own context"; do
        expect_in "trace --model: $stage" "$OUT" "$stage"
    done
    run translate --json --no-read-back "$SENT"
    cp "$OUT" "$TMP/trace-ref.jsonl"
    for case in "cross 0 1" "cross 1 3" "dec-self 1 2" "dec-self 0 0"; do
        set -- $case
        run trace --model models/en-de.db --attention "$1" --layer "$2" --head "$3" \
            --precision 6 "$SENT"
        expect_code "trace --attention $1 --layer $2 --head $3: exit 0" 0
        trace_weights "$OUT" >"$TMP/trace-w.txt"
        if [ "$1" = cross ]; then
            json_head_weights cross_attention "$2" "$3" 0 <"$TMP/trace-ref.jsonl" >"$TMP/json-w.txt"
        else
            json_head_weights self_attention "$2" "$3" 5 <"$TMP/trace-ref.jsonl" >"$TMP/json-w.txt"
        fi
        same_numbers "trace --attention $1 --layer $2 --head $3: the weights translate --json prints" \
            "$TMP/trace-w.txt" "$TMP/json-w.txt"
    done
    expect_in "trace --attention dec-self: the decoder input named" "$OUT" \
        "decoder input: <s> Das ist ein Beispiel"
    run trace --model models/en-de.db --attention dec-self --columns 0 --token 4 "I love you"
    expect_code "trace --columns 0 --token 4: exit 0" 0
    expect_in "trace --columns 0: every column of a head's context" "$OUT" \
        "context_4 alone, and row 4 of the batched context [2 × 32]"
    for case in "0 1" "1 3"; do
        set -- $case
        run trace --model models/en-de.db --attention enc-self --layer "$1" --head "$2" \
            --precision 6 "$SENT"
        trace_weights "$OUT" >"$TMP/trace-w.txt"
        run inspect --json --encoder --layer "$1" --head "$2" "$SENT"
        json_encoder_weights <"$OUT" >"$TMP/json-w.txt"
        same_numbers "trace --attention enc-self --layer $1 --head $2: the weights inspect --json prints" \
            "$TMP/trace-w.txt" "$TMP/json-w.txt"
    done
    expect_usage_error "trace --model --layer 2 (two layers)" trace --model models/en-de.db \
        --layer 2 "$SENT"
    expect_usage_error "trace --model --head 4 (four heads)" trace --model models/en-de.db \
        --head 4 "$SENT"
    expect_usage_error "trace --attention sideways" trace --model models/en-de.db \
        --attention sideways "$SENT"
    expect_usage_error "trace --model without a TEXT" trace --model models/en-de.db
    expect_usage_error "trace --model with --variant" trace --model models/en-de.db \
        --variant v2 "$SENT"
    expect_usage_error "trace --model --token 9 (6 rows)" trace --model models/en-de.db \
        --token 9 "$SENT"
    run trace --model "$TMP/no-such.db" "$SENT"
    expect_code "trace --model of a missing file: exit 3" 3
else
    fail "trace on the shipped model" "models/en-de.db is missing (make model trains it)"
fi

# ---------------------------------------------------------------------------------------
# What a translation may have got wrong (shipped model): unknown words, names, coverage;
# exact match per construction; no runaway repetition

if [ -f models/en-de.db ]; then
    run translate --help
    expect_in "translate --help: --strict" "$OUT" "--strict"
    expect_in "translate --help: --coverage-min and its default" "$OUT" "(default 0.20; 0: never)"
    expect_in "translate --help: the name rule" "$OUT" "written capitalised"
    run translate $ONE_KIND "Zoe sees the dog" "the dragon is broken" "The dog sees Zoe" \
        "Laptop is red" "Zoe sees NASA"
    expect_code "translate, unknown words: still exit 0" 0
    if [ "$(wc -l <"$OUT")" -eq 5 ]; then
        pass "translate, unknown words: one output line per argument"
    else
        fail "translate, unknown words: one output line per argument" "$(wc -l <"$OUT") lines"
    fi
    # "Laptop" (argument 4) is the first word, capitalised, and copied, but a common
    # English word (data/common-words.txt): unknown, not a name.
    expect_file_eq "translate, unknown words: one warning per affected argument, named as errors are" \
        "$ERR" "toytrans translate: argument 2: not in the vocabulary: dragon, broken
toytrans translate: argument 4: not in the vocabulary: Laptop
toytrans translate: argument 5: not in the vocabulary: NASA"
    expect_in "translate: an unknown word is still copied through" "$OUT" "Laptop ist rot"
    # "Zoe" first, capitalised, copied and not a common word: a name.
    run translate $ONE_KIND "Zoe is red"
    expect_in "translate: a copied capitalised first word is a name" "$OUT" "Zoe ist rot"
    expect_empty "translate: a copied first-word name, no warning" "$ERR"

    # A capitalised common English word is not a name, first or not, copied or not:
    # sentence-initial capitals, and a possessive of a common word.
    run translate $ONE_KIND "Perhaps!" "Why is the cat small?" "Two girls read the book." \
        "Could you read the letter?" "Which is this?" "Howdy" "I see Howdy" "Dog's"
    expect_code "translate, capitalised common words: still exit 0" 0
    expect_file_eq "translate: a capitalised common word is an unknown word, not a name" \
        "$ERR" "toytrans translate: argument 1: not in the vocabulary: Perhaps
toytrans translate: argument 2: not in the vocabulary: Why
toytrans translate: argument 3: not in the vocabulary: Two
toytrans translate: argument 4: not in the vocabulary: Could
toytrans translate: argument 5: not in the vocabulary: Which
toytrans translate: argument 6: not in the vocabulary: Howdy
toytrans translate: argument 7: not in the vocabulary: Howdy
toytrans translate: argument 8: not in the vocabulary: Dog's"
    printf 'I see the dog\nPerhaps!\nWhy is the cat small?\nZoe sees the dog\nWhich is this?\n' >"$TMP/common.txt"
    run_in "$TMP/common.txt" translate $ONE_KIND --strict
    expect_code "translate --strict, a capitalised common word: exit 4" 4
    if [ "$(wc -l <"$OUT")" -eq 5 ] && [ "$(sed -n 1p "$OUT")" = "Ich sehe den Hund" ] &&
        [ "$(sed -n 4p "$OUT")" = "Zoe sieht den Hund" ] &&
        [ -z "$(sed -n 2,3p "$OUT" | tr -d '\n')" ] && [ -z "$(sed -n 5p "$OUT")" ]; then
        pass "translate --strict: common-word lines empty, the others translated"
    else
        fail "translate --strict: common-word lines empty, the others translated" "$(tr '\n' '|' <"$OUT")"
    fi
    expect_file_eq "translate --strict: each common word named with its line" "$ERR" \
        "toytrans translate: line 2: not in the vocabulary: Perhaps
toytrans translate: line 3: not in the vocabulary: Why
toytrans translate: line 5: not in the vocabulary: Which"
    # Names that are not common words stay names, first or not.
    run translate $ONE_KIND --strict "Zoe sees the dog" "I see Greta" "Greta sees the dog"
    expect_code "translate --strict: names that are not common words, exit 0" 0
    expect_empty "translate: names that are not common words, no warning" "$ERR"
    run translate $ONE_KIND "This is my friend McDonald"
    expect_not_in "translate: McDonald is a name, not an unknown word" "$ERR" "not in the vocabulary"
    # A name that is also a common word is taken for the word (docs/honesty.md), though
    # still copied; the lexicon's names are in the vocabulary, words or not.
    run translate $ONE_KIND "I see Rose" "I see Bob"
    expect_file_eq "translate: a name that is also a common word is an unknown word" "$ERR" \
        "toytrans translate: argument 1: not in the vocabulary: Rose"
    expect_first_line "translate: a name that is also a common word is still copied" "$OUT" \
        "Ich sehe Rose"
    run translate $ONE_KIND --json "Why is the cat small?" "This is my friend McDonald"
    "$CHECK" --print unknown_words <"$OUT" >"$TMP/unk.json"
    expect_file_eq "translate --json: a common word among unknown_words" "$TMP/unk.json" '["Why"]
[]'
    "$CHECK" --print names <"$OUT" >"$TMP/names.json"
    expect_file_eq "translate --json: a name that is not a common word among names" \
        "$TMP/names.json" '[]
["McDonald"]'
    printf 'I see the dog\nthe dragon is broken\n\nzorblax sees the dog\n' >"$TMP/unk.txt"
    run_in "$TMP/unk.txt" translate $ONE_KIND
    expect_file_eq "translate stdin: warnings name the input line" "$ERR" \
        "toytrans translate: line 2: not in the vocabulary: dragon, broken
toytrans translate: line 4: not in the vocabulary: zorblax"
    run_in "$TMP/unk.txt" translate $ONE_KIND --strict
    expect_code "translate --strict with unknown words: exit 4" 4
    if [ "$(wc -l <"$OUT")" -eq 4 ] && [ "$(sed -n 1p "$OUT")" = "Ich sehe den Hund" ] &&
        [ -z "$(sed -n 2,4p "$OUT" | tr -d '\n')" ]; then
        pass "translate --strict: unknown lines empty, the others translated"
    else
        fail "translate --strict: unknown lines empty, the others translated" "$(tr '\n' '|' <"$OUT")"
    fi
    expect_in "translate --strict: names the line and the words" "$ERR" \
        "line 4: not in the vocabulary: zorblax"
    run translate $ONE_KIND --strict "Zoe sees the dog"
    expect_code "translate --strict: a name is not an error" 0
    run translate $ONE_KIND --strict --json "Zoe sees the dog" "the dragon sees Greta"
    expect_code "translate --strict --json with an unknown word: exit 4" 4
    "$CHECK" source <"$OUT" >"$TMP/check.txt" || true
    expect_empty "translate --strict --json: every line valid JSON with a source" "$TMP/check.txt"
    expect_in "translate --strict --json: an error object for the unknown line" "$OUT" \
        '"error":"not in the vocabulary: dragon"'
    run translate $ONE_KIND --json "Zoe sees the dragon" "I see the dog"
    "$CHECK" --print unknown_words <"$OUT" >"$TMP/unk.json"
    expect_file_eq "translate --json: unknown_words, always present" "$TMP/unk.json" '["dragon"]
[]'
    "$CHECK" --print names <"$OUT" >"$TMP/names.json"
    expect_file_eq "translate --json: names" "$TMP/names.json" '["Zoe"]
[]'
    "$CHECK" --print coverage <"$OUT" | sed -n 2p >"$TMP/cov.json"
    if grep -Eq '^\[[0-9.e-]+(,[0-9.e-]+){4}\]$' "$TMP/cov.json"; then
        pass "translate --json: coverage, one number per source token (</s> included)"
    else
        fail "translate --json: coverage" "$(cat "$TMP/cov.json")"
    fi
    "$CHECK" --print not_translated <"$OUT" >"$TMP/nt.json"
    expect_file_eq "translate --json: not_translated, empty for good translations" "$TMP/nt.json" '[]
[]'

    # Coverage: an apposition is outside the grammar; the model writes "Das ist mein
    # Freund" and leaves out "Anna", which gets no attention, directly or through the
    # encoder.
    run translate $ONE_KIND "This is my friend Anna" "I see the dog"
    expect_code "translate, a word not translated: only a warning, exit 0" 0
    expect_file_eq "translate: warns about a content word left out" "$ERR" \
        "toytrans translate: argument 1: not translated: Anna"
    run translate $ONE_KIND --strict "This is my friend Anna"
    expect_code "translate --strict: coverage warnings stay warnings" 0
    run translate $ONE_KIND --coverage-min 0 "This is my friend Anna"
    expect_empty "translate --coverage-min 0: no coverage warning" "$ERR"
    # A do-question's verb is read at "do": little direct attention, enough through the
    # encoder, so no warning.
    run translate $ONE_KIND "Do you see the cat?" "Does she not see a letter?"
    expect_empty "translate: a do-question's verb is not reported" "$ERR"
    run translate --json "Do you see the cat?"
    "$CHECK" --print coverage_rollout <"$OUT" >"$TMP/roll.json"
    if grep -Eq '^\[[0-9.e-]+(,[0-9.e-]+){6}\]$' "$TMP/roll.json"; then
        pass "translate --json: coverage_rollout, one number per source token"
    else
        fail "translate --json: coverage_rollout" "$(cat "$TMP/roll.json")"
    fi
    expect_usage_error "translate --coverage-min -1" translate --coverage-min -1 "x"
    expect_usage_error "translate --coverage-min abc" translate --coverage-min abc "x"
    # A contraction reaches the model as its long form.
    run translate "I don't see the dog" "I do not see the dog"
    if [ "$(sed -n 1p "$OUT")" = "$(sed -n 2p "$OUT")" ] && [ -s "$OUT" ]; then
        pass "translate: \"don't\" and \"do not\" give the same translation"
    else
        fail "translate: contraction" "$(tr '\n' '|' <"$OUT")"
    fi

    # inspect marks the words the vocabulary lacks, with a legend.
    run inspect --svg "$TMP/unk.svg" --html "$TMP/unk.html" "Zoe sees the dragon"
    expect_code "inspect with unknown words: exit 0" 0
    expect_in "inspect: unknown source words marked" "$OUT" "source: zoe? sees the dragon? </s>"
    expect_in "inspect: the legend of the mark" "$OUT" "? not in the vocabulary"
    expect_in "inspect --svg: the mark" "$TMP/unk.svg" 'dragon<tspan class="unknown"'
    expect_in "inspect --svg: the legend" "$TMP/unk.svg" "? not in the vocabulary</text>"
    expect_in "inspect --html: the mark" "$TMP/unk.html" 'class="src-token unknown"'
    expect_in "inspect --html: the legend" "$TMP/unk.html" '<p id="unknown-legend">'
    run inspect "I see the dog"
    expect_not_in "inspect: no legend without unknown words" "$OUT" "not in the vocabulary"

    # eval per construction (tests/fixtures/constructions.tsv, written by hand: the
    # shipped model gets every sentence right, and line 5's reference is wrong on purpose).
    run eval --test tests/fixtures/constructions.tsv
    expect_code "eval with construction labels: exit 0" 0
    sed -n '/^exact match by construction:/,$p' "$OUT" >"$TMP/constr.txt"
    expect_file_eq "eval: exact match per construction, in order of first appearance" \
        "$TMP/constr.txt" "exact match by construction:
  construction     sentences   exact        %
  simple                   2       2   100.00
  copula                   3       2    66.67
  yes-no-question          1       1   100.00
  (none)                   1       1   100.00"
    run eval --help
    expect_in "eval --help: the construction column" "$OUT" "exact match per construction"
    cut -f1,2 tests/fixtures/constructions.tsv >"$TMP/two.tsv"
    run eval --test "$TMP/two.tsv"
    expect_not_in "eval, two columns: no construction table" "$OUT" "by construction"
    printf 'I see the dog\tIch sehe den Hund\tsimple\nI see a cat\tIch sehe eine Katze\t\n' \
        >"$TMP/empty-label.tsv"
    run eval --test "$TMP/empty-label.tsv"
    expect_code "eval, empty construction label: exit 4" 4
    expect_in "eval, empty construction label: names file and line" "$ERR" \
        "empty-label.tsv:2: empty construction label"
    printf 'I see the dog\tIch sehe den Hund\tSimple_1\n' >"$TMP/bad-label.tsv"
    run eval --test "$TMP/bad-label.tsv"
    expect_code "eval, malformed construction label: exit 4" 4
    expect_in "eval, malformed construction label: names file, line and byte" "$ERR" \
        "bad-label.tsv:1: construction label in the third column may only hold a-z, 0-9 and '-' (byte 32)"
    printf 'I see the dog\tIch sehe den Hund\tsimple\textra\n' >"$TMP/four.tsv"
    run eval --test "$TMP/four.tsv"
    expect_code "eval, four columns: exit 4" 4
    expect_in "eval, four columns: named" "$ERR" "four.tsv:1: more than two TABs"

    # No word three times in a row unless the source has such a run too. The checker is
    # shown a runaway line first, so it is known to catch one.
    # runaway: reads "source<TAB>translation" lines, prints those whose translation repeats
    # a word three times in a row while the source does not.
    runaway() {
        awk -F '\t' '
            function run3(s,   n, w, i) {
                n = split(tolower(s), w, / +/)
                for (i = 3; i <= n; i++)
                    if (w[i] == w[i - 1] && w[i] == w[i - 2]) return 1
                return 0
            }
            run3($2) && !run3($1) { print NR ": " $0 }'
    }
    printf 'I see the dog\tIch sehe Hund Hund Hund\nvery very very old\tsehr sehr sehr alt\n' |
        runaway >"$TMP/runaway-self.txt"
    expect_file_eq "runaway check: catches a repeated word, allows a repeated source" \
        "$TMP/runaway-self.txt" "1: I see the dog	Ich sehe Hund Hund Hund"
    if [ -z "$RUNNER" ]; then
        cut -f1 data/test.tsv >"$TMP/test-src.txt"
    else
        awk -F'\t' 'NR % 20 == 1 { print $1 }' data/test.tsv >"$TMP/test-src.txt"
    fi
    run_in "$TMP/test-src.txt" translate --coverage-min 0
    paste "$TMP/test-src.txt" "$OUT" | runaway >"$TMP/runaway.txt"
    expect_empty "shipped model on data/test.tsv: no word three times in a row" "$TMP/runaway.txt"
else
    fail "shipped model: honesty checks" "models/en-de.db is missing (make model trains it)"
fi

# ---------------------------------------------------------------------------------------
# Files a command writes: an output never destroys an input (same
# device and inode, whatever the name), a FIFO or a device is written through, a symbolic
# link or an SQLite database is replaced only with --force, '-' is standard output for a
# text file and refused for a model.

# same_bytes DESC A B: files A and B are byte for byte the same.
same_bytes() {
    if cmp -s "$2" "$3"; then
        pass "$1"
    else
        fail "$1" "$2 changed"
    fi
}

W=$TMP/w
mkdir -p "$W"
cp "$H" "$W/m.db"
cp "$H" "$W/m.orig"
run plot --model "$W/m.db" --out "$W/m.db"
expect_code "plot --out the model itself: exit 2" 2
expect_in "plot --out the model itself: names both" "$ERR" "--out $W/m.db is the same file as --model $W/m.db"
same_bytes "plot --out the model itself: the model unchanged" "$W/m.db" "$W/m.orig"
ln "$W/m.db" "$W/hard.db"
run plot --model "$W/m.db" --out "$W/hard.db" --force
expect_code "plot --out a hard link to the model, --force: exit 2" 2
same_bytes "plot --out a hard link to the model: the model unchanged" "$W/m.db" "$W/m.orig"
run inspect --model "$W/m.db" --html "$W/m.db" "the dog"
expect_code "inspect --html the model itself: exit 2" 2
same_bytes "inspect --html the model itself: the model unchanged" "$W/m.db" "$W/m.orig"
run inspect --model "$W/m.db" --svg "$W/m.db" --force "the dog"
expect_code "inspect --svg the model itself, --force: exit 2" 2
cp "$TMP/c.tsv" "$W/c.tsv"
run train --train "$W/c.tsv" --out "$W/c.tsv" --force --d-model 8 --heads 2 --d-ff 16 --max-len 12
expect_code "train --out the corpus, --force: exit 2" 2
expect_in "train --out the corpus: names both" "$ERR" "is the same file as --train"
same_bytes "train --out the corpus: the corpus unchanged" "$W/c.tsv" "$TMP/c.tsv"
run train --train "$TMP/c.tsv" --valid "$W/c.tsv" --out "$W/c.tsv" --force --d-model 8 \
    --heads 2 --d-ff 16 --max-len 12
expect_code "train --out the --valid file, --force: exit 2" 2
run init --train "$W/c.tsv" --out "$W/c.tsv" --force
expect_code "init --out the corpus, --force: exit 2" 2
run vocab --train "$W/c.tsv" --out "$W/c.tsv" --force --no-lists
expect_code "vocab --out the corpus, --force: exit 2" 2
same_bytes "init, vocab --out the corpus: the corpus unchanged" "$W/c.tsv" "$TMP/c.tsv"

cp "$H" "$W/other.db"
run plot --model "$H" --out "$W/other.db"
expect_code "plot over another SQLite database: exit 2" 2
expect_in "plot over another SQLite database: says --force" "$ERR" "--force replaces it"
same_bytes "plot over another SQLite database: unchanged" "$W/other.db" "$H"
run plot --model "$H" --out "$W/other.db" --force
expect_code "plot over another SQLite database, --force: exit 0" 0
expect_first_line "plot over a database, --force: now the SVG" "$W/other.db" "<?xml"

printf 'keep\n' >"$W/target.svg"
ln -s target.svg "$W/link.svg"
run plot --model "$H" --out "$W/link.svg"
expect_code "plot --out a symbolic link: exit 2" 2
if [ -L "$W/link.svg" ] && [ "$(cat "$W/target.svg")" = keep ]; then
    pass "plot --out a symbolic link: the link and its target unchanged"
else
    fail "plot --out a symbolic link: the link and its target unchanged" "changed"
fi
run plot --model "$H" --out "$W/link.svg" --force
expect_code "plot --out a symbolic link, --force: exit 0" 0
if [ ! -L "$W/link.svg" ] && [ "$(cat "$W/target.svg")" = keep ]; then
    pass "plot --out a symbolic link, --force: the link replaced, its target not"
else
    fail "plot --out a symbolic link, --force: the link replaced, its target not" "no"
fi
ln -s /dev/null "$W/null.svg"
run plot --model "$H" --out "$W/null.svg"
expect_code "plot --out a link to /dev/null: exit 0 (written through)" 0
if [ -L "$W/null.svg" ]; then
    pass "plot --out a link to /dev/null: still a link"
else
    fail "plot --out a link to /dev/null: still a link" "replaced by a regular file"
fi
if command -v mkfifo >/dev/null 2>&1 && mkfifo "$W/fifo"; then
    cat "$W/fifo" >"$W/from-fifo" &
    reader=$!
    run plot --model "$H" --out "$W/fifo"
    expect_code "plot --out a FIFO: exit 0" 0
    if [ -p "$W/fifo" ]; then
        pass "plot --out a FIFO: still a FIFO"
    else
        fail "plot --out a FIFO: still a FIFO" "replaced by a regular file"
        kill "$reader" 2>/dev/null # it waits for a writer that will never come
        rm -f "$W/fifo"
    fi
    wait "$reader"
    expect_first_line "plot --out a FIFO: the reader gets the SVG" "$W/from-fifo" "<?xml"
fi
if ls "$W"/*.tmp >/dev/null 2>&1; then
    fail "output checks: no temporary file left" "$(ls "$W"/*.tmp)"
else
    pass "output checks: no temporary file left"
fi
# shellcheck disable=SC2086
(cd "$W" && $RUNNER "$ABS_BIN" init --train c.tsv --out - >"$OUT" 2>"$ERR")
CODE=$?
expect_code "init --out -: exit 2 (a model is not written to standard output)" 2
if [ -e "$W/-" ]; then
    fail "init --out -: no file named '-'" "created"
else
    pass "init --out -: no file named '-'"
fi
# Never a real device here: a build without the check, run as root, would replace it.
if command -v mkfifo >/dev/null 2>&1 && mkfifo "$W/fifo2"; then
    run train --train "$TMP/c.tsv" --out "$W/fifo2" --force
    expect_code "train --out a FIFO: exit 2 (a model only goes to a regular file)" 2
    if [ -p "$W/fifo2" ]; then
        pass "train --out a FIFO: still a FIFO"
    else
        fail "train --out a FIFO: still a FIFO" "replaced"
    fi
fi
if [ -f models/en-de.db ]; then
    NO_COLOR=1 run inspect --svg - "the dog"
    expect_code "inspect --svg -: exit 0" 0
    expect_first_line "inspect --svg -: the SVG on stdout, no text report" "$OUT" "<?xml"
fi

# ---------------------------------------------------------------------------------------
# Output errors

if [ -w /dev/full ]; then
    run_to /dev/full trace
    expect_code "trace > /dev/full: exit 5" 5
    expect_in "trace > /dev/full: says writing failed" "$ERR" "standard output"
    run_to /dev/full --help
    expect_code "--help > /dev/full: exit 5" 5
else
    echo "# skipped: /dev/full does not exist"
fi

# A closed pipe: an output command stops with exit 5 and no message;
# training whose stderr is gone keeps training and saves (no SIGPIPE death).
awk 'BEGIN { for (i = 0; i < 3000; i++) print "the dog is big" }' >"$TMP/big.txt"
# shellcheck disable=SC2086
({ $RUNNER "$BIN" translate --model tests/fixtures/tiny.db <"$TMP/big.txt" 2>"$ERR"; echo $? >"$TMP/pipe.code"; } | head -n 1 >/dev/null)
CODE=$(cat "$TMP/pipe.code")
expect_code "translate | head -1: exit 5 (a closed pipe), not killed by SIGPIPE" 5
# (tiny.db knows few words: its warnings about them are not about the pipe)
grep -v "not in the vocabulary" "$ERR" >"$TMP/pipe.err" || true
expect_empty "translate | head -1: no message for a reader that left" "$TMP/pipe.err"
rm -f "$TMP/pipe.db"
# shellcheck disable=SC2086
({ $RUNNER "$BIN" train --train "$TMP/tr.tsv" --out "$TMP/pipe.db" $TINY --epochs 3 \
    --checkpoint-every 500 2>&1 >/dev/null; echo $? >"$TMP/pipe.code"; } | head -c 1 >/dev/null)
CODE=$(cat "$TMP/pipe.code")
expect_code "train 2>&1 | head -c 1: exit 0, training survives a closed stderr" 0
run info --model "$TMP/pipe.db"
expect_in "train with a closed stderr: every step done and saved" "$OUT" "steps done          60"

# A line too big for memory: read only up to the line limit (65536 bytes), so a 40 MB
# line is refused as too long (exit 4, named) under a 60 MB address-space limit, and the
# lines after it are still read. Skipped under RUNNER and sanitizers, which need more
# address space than that.
if [ -z "$RUNNER" ] && (ulimit -v 60000 && "$BIN" --version) >/dev/null 2>&1; then
    {
        echo "the dog is big"
        head -c 40000000 /dev/zero | tr '\0' 'a'
        printf '\tb\n'
        echo "the dog is big"
    } >"$TMP/huge.txt"
    (ulimit -v 60000 && "$BIN" translate --model tests/fixtures/tiny.db <"$TMP/huge.txt" >"$OUT" 2>"$ERR")
    CODE=$?
    expect_code "translate of a line too big for memory: exit 4 (too long)" 4
    expect_in "translate of a line too big for memory: says so" "$ERR" \
        "line 2: more than the 65536 bytes a line may have"
    if [ "$(wc -l <"$OUT")" -eq 3 ] && [ -n "$(sed -n 3p "$OUT")" ]; then
        pass "translate of a line too big for memory: the line after it translated"
    else
        fail "translate of a line too big for memory: the line after it translated" \
            "$(wc -l <"$OUT") lines"
    fi
    sed '1s/$/\tder Hund/; 3s/$/\tder Hund/' "$TMP/huge.txt" >"$TMP/huge.tsv"
    (ulimit -v 60000 && "$BIN" vocab --train "$TMP/huge.tsv" --out "$TMP/huge.db" --no-lists >"$OUT" 2>"$ERR")
    CODE=$?
    expect_code "vocab on a corpus with a line too big for memory: exit 4" 4
    expect_in "vocab on a line too big for memory: names the file and line" "$ERR" \
        "huge.tsv:2: more than the 65536 bytes a line may have"
    # A --ref file with that line in the middle: not "2 lines but the test file has 3".
    printf 'the dog is big\tder Hund ist groß\nthe dog\tder Hund\nthe cat\tdie Katze\n' \
        >"$TMP/three.tsv"
    (ulimit -v 60000 && "$BIN" eval --model tests/fixtures/tiny.db --test "$TMP/three.tsv" \
        --ref "$TMP/huge.txt" >"$OUT" 2>"$ERR")
    CODE=$?
    expect_code "eval --ref with a line too big for memory: exit 4" 4
    expect_in "eval --ref with a line too big for memory: says so" "$ERR" "huge.txt:2: more than the 65536"
    rm -f "$TMP/huge.txt" "$TMP/huge.tsv"
else
    echo "# skipped: a line too big for memory (RUNNER set, or ulimit -v unusable here)"
fi

# ---------------------------------------------------------------------------------------
# make install: the binary, the shipped model and the man page under PREFIX. The
# installed binary finds its model from any directory, before the source tree's;
# $TOYTRANS_MODEL and --model come first; make uninstall removes what install put.
FLAVOUR_DIR=$(basename "$(dirname "$BIN")")
BUILD_DIR=$(dirname "$(dirname "$BIN")")
if [ -z "$RUNNER" ] && [ -f Makefile ] && [ -f models/en-de.db ] && command -v make >/dev/null 2>&1 &&
    { [ "$BUILD_DIR" = ./build ] || [ "$BUILD_DIR" = build ]; }; then
    P=$TMP/prefix
    make -s install PREFIX="$P" FLAVOUR="$FLAVOUR_DIR" >"$OUT" 2>"$ERR"
    CODE=$?
    expect_code "make install PREFIX=...: exit 0" 0
    if [ -x "$P/bin/toytrans" ] && cmp -s models/en-de.db "$P/share/toytrans/en-de.db" &&
        grep -q '^\.TH TOYTRANS 1' "$P/share/man/man1/toytrans.1" &&
        grep -q '^\.SS translate' "$P/share/man/man1/toytrans.1"; then
        pass "make install: bin/toytrans, share/toytrans/en-de.db, share/man/man1/toytrans.1"
    else
        fail "make install: the installed files" "$(find "$P" -type f | tr '\n' ' ')"
    fi
    (cd / && "$P/bin/toytrans" translate "This is an example" >"$OUT" 2>"$ERR")
    CODE=$?
    expect_code "installed toytrans from /: finds its model, exit 0" 0
    expect_file_eq "installed toytrans from /: translates" "$OUT" "Das ist ein Beispiel"
    (cd / && "$P/bin/toytrans" help model >"$OUT" 2>"$ERR")
    expect_in "installed toytrans: opens the installed model" "$OUT" \
        "Without --model, this toytrans opens $P/share/toytrans/en-de.db."
    (cd / && TOYTRANS_MODEL="$M" "$P/bin/toytrans" help model >"$OUT" 2>"$ERR")
    expect_in "installed toytrans: TOYTRANS_MODEL comes first" "$OUT" \
        "Without --model, this toytrans opens $M."
    make -s uninstall PREFIX="$P" FLAVOUR="$FLAVOUR_DIR" >"$OUT" 2>"$ERR"
    CODE=$?
    expect_code "make uninstall: exit 0" 0
    if [ -z "$(find "$P" -type f)" ]; then
        pass "make uninstall: every installed file removed"
    else
        fail "make uninstall: every installed file removed" "$(find "$P" -type f | tr '\n' ' ')"
    fi
    # DESTDIR stages the same tree under another root.
    make -s install DESTDIR="$TMP/stage" PREFIX=/usr FLAVOUR="$FLAVOUR_DIR" >"$OUT" 2>"$ERR"
    CODE=$?
    expect_code "make install DESTDIR=... PREFIX=/usr: exit 0" 0
    if [ -x "$TMP/stage/usr/bin/toytrans" ] && [ -f "$TMP/stage/usr/share/toytrans/en-de.db" ]; then
        pass "make install DESTDIR: the tree is staged under DESTDIR"
    else
        fail "make install DESTDIR: the tree is staged" "$(find "$TMP/stage" -type f | tr '\n' ' ')"
    fi
else
    echo "# skipped: make install (RUNNER set, no make, or no shipped model)"
fi
run translate --model "$TMP/no-such.db" "the dog"
expect_code "translate --model of a missing file: exit 3" 3
expect_in "translate --model of a missing file: named" "$ERR" "no-such.db: no such model file"
expect_not_in "translate --model of a missing file: not told to pass --model, which it did" \
    "$ERR" "pass --model M"

# First contact: the messages a new user meets.
# A --model path one typo from a file beside it: that file is offered.
mkdir -p "$TMP/dym"
cp tests/fixtures/tiny.db "$TMP/dym/en-de.db"
run translate --model "$TMP/dym/en-de.bd" "the dog"
expect_code "translate --model en-de.bd: exit 3" 3
expect_in "translate --model en-de.bd: did you mean en-de.db" "$ERR" \
    "did you mean --model $TMP/dym/en-de.db?"
expect_not_in "translate --model en-de.bd: not told to pass --model" "$ERR" "pass --model M"
# $TOYTRANS_MODEL naming no file: the variable is named as the source of the path.
TOYTRANS_MODEL=$TMP/dym/nope.db $RUNNER "$BIN" translate "the dog" >"$OUT" 2>"$ERR"
CODE=$?
expect_code "TOYTRANS_MODEL=.../nope.db: exit 3" 3
expect_in "TOYTRANS_MODEL=.../nope.db: the variable is named" "$ERR" \
    "$TMP/dym/nope.db is the value of TOYTRANS_MODEL"
TOYTRANS_MODEL=$TMP/dym/en-de.bd $RUNNER "$BIN" translate "the dog" >"$OUT" 2>"$ERR"
CODE=$?
expect_in "TOYTRANS_MODEL=.../en-de.bd: did you mean" "$ERR" "(did you mean $TMP/dym/en-de.db?)"
# -m, as other tools spell it: --model is offered.
run translate -m "$TMP/dym/en-de.db" "the dog"
expect_code "translate -m: exit 2" 2
expect_in "translate -m: did you mean '--model'" "$ERR" "unknown option '-m'; did you mean '--model'"
run info -m "$TMP/dym/en-de.db"
expect_in "info -m: did you mean '--model'" "$ERR" "unknown option '-m'; did you mean '--model'?"
# A file that is not a model at all: said in the user's words, not SQLite's.
run translate --model README.md "the dog"
expect_code "translate --model README.md: exit 3" 3
expect_in "translate --model README.md: not a toytrans model" "$ERR" \
    "README.md: not a toytrans model (not an SQLite database)"
expect_not_in "translate --model README.md: no PRAGMA" "$ERR" "PRAGMA"
# An output path that cannot be written is refused before the work, not after it.
run inspect --model "$TMP/dym/en-de.db" --html "$TMP/no/such/dir/x.html" "the dog"
expect_code "inspect --html into a missing directory: exit 5" 5
expect_empty "inspect --html into a missing directory: no report first" "$OUT"
expect_in "inspect --html into a missing directory: names the path" "$ERR" \
    "--html $TMP/no/such/dir/x.html: cannot be written there"
# Standard input on a terminal: it says it is reading, and how to end; not in a pipe.
if command -v script >/dev/null 2>&1 && [ -z "$RUNNER" ]; then
    timeout 20 script -qec "'$BIN' translate --model '$TMP/dym/en-de.db'" /dev/null \
        </dev/null >"$OUT" 2>&1
    expect_in "translate on a terminal: says it reads standard input" "$OUT" \
        "reading sentences from standard input; Ctrl-D ends"
else
    echo "# skipped: translate on a terminal (no script(1), or RUNNER set)"
fi
echo "the dog" | $RUNNER "$BIN" translate --model "$TMP/dym/en-de.db" >"$OUT" 2>"$ERR"
expect_not_in "translate from a pipe: no terminal hint" "$ERR" "Ctrl-D"
# eval --help is printed as it stands: no printf escape shows.
run eval --help
expect_not_in "eval --help: no %%" "$OUT" "%%"
expect_in "eval --help: the per-cent column" "$OUT" "sentences, exact, % —"
# German given to the English model: said, with the model that reads German.
if [ -f models/en-de.db ]; then
    run translate --model models/en-de.db --no-read-back "Ich liebe dich"
    expect_in "German input: says it looks German" "$ERR" \
        "argument 1: this looks German; this model translates English to German"
    expect_in "German input: names the de-en model" "$ERR" "--model models/de-en.db"
    run translate --model models/en-de.db --no-read-back "I see the Hund"
    expect_not_in "English with one German word: not called German" "$ERR" "looks German"
    long=$(awk 'BEGIN { for (i = 0; i < 254; i++) printf "dog "; }')
    run translate --model models/en-de.db "$long"
    expect_in "254 tokens: the limit said plainly" "$ERR" \
        "254 tokens; this model takes at most 39 (max_len 40 with </s>)"
else
    fail "German input" "models/en-de.db is missing (make model trains it)"
fi

echo "$passed passed, $failed failed"
if [ "$failed" -ne 0 ]; then
    exit 1
fi
exit 0
