#!/bin/sh
# shellcheck disable=SC2317 # the damage helpers are called through damaged's "$@"
# test_matrix_cli.sh — the matrix of bad input and crashes, from the command line:
# every case must end with a message that names the problem and where (file, line, byte
# offset, tensor), a documented exit code (`toytrans help exit-codes`: 0 ok, 2 usage,
# 3 model file unusable, 4 invalid input text, 5 I/O error or a lock held too long,
# 6 diverged, 130 interrupted after a clean save), and nothing lost.
#
#   sh tests/test_matrix_cli.sh BIN [RUNNER]
#
# BIN and RUNNER as for tests/test_cli.sh, whose helpers (tests/cli_lib.sh) this shares.
# The kill -9 loop: CRASH_TRIALS trials (default 20; 2 when RUNNER is set, whose runs are
# ~20x slower), sleeping times drawn from CRASH_SEED (default: the clock; printed, so a
# failing sequence can be repeated). CRASH_ONLY=1 runs the loop alone (`make crash-test`,
# 200 trials). Under RUNNER the killed training runs without it (a killed process reports
# nothing, and the kill must land at realistic moments) while every check after the kill
# runs under it; resumed weights are compared bit for bit only without RUNNER (valgrind
# may choose another kernel build, which changes the last bits).
# Damaging model files needs the sqlite3 command or /usr/bin/python3's sqlite3 module;
# without either those rows are skipped with a note.
#
# Where each row of the matrix is tested (C = tests/test_cli.sh, M = here,
# S = tests/test_store.c, the same damage at the library level):
#
#   input text (translate; tokenize where it applies)
#     empty input, whitespace only, only punctuation, unknown words only ........ M
#     10,000 words on one line (too many tokens: exit 4, named) ................. M
#     a 1 MB line, a 300 KB line of combining marks, 12,000 marks in a row (more
#       than 65536 bytes or 30 marks: exit 4 at once, named; tokenize, translate,
#       vocab, train) ........................................................... M
#       (a 40-word line over max_len ............................................ C)
#     invalid UTF-8, each class: lone continuation byte, overlong (2 and 3 bytes),
#       UTF-16 surrogate, above U+10FFFF, truncated at end of line, 0xFE, 0xFF .. M
#       (0xC0 0xAF in tokenize, 0xFF 0xFE in translate ......................... C)
#     truncated sequence at end of file (no final newline) ...................... M
#     NUL byte inside a line, CRLF line ends, no final newline .................. M
#       (CRLF and no final newline for tokenize ................................. C)
#     an invalid argument (not a line) names "argument N" ....................... M
#     bad lines amid good ones: every good line translated, in order, the same as
#       translating the good lines alone; each bad one reported by number ....... M
#       (--json keeps one object per line ...................................... C)
#     eval: invalid UTF-8 in a test file (file:line, byte of the file), skipped . M
#       (no TAB, --skip-bad-lines, a too-long source ........................... C)
#   model files (translate unless said; exit 3, the path and the fault named,
#   nothing on stdout, the file unchanged byte for byte)
#     missing (translate, eval, info, tokenize, plot, inspect) .................. C
#     a text file, a vocabulary-only file (tensor missing, info) ................ C
#     empty, not SQLite, truncated at 100 bytes / one page / half / mid last page,
#       a table missing, a tensor missing, a shape that lies, a blob size that
#       lies, vocab ids with a gap, NaN weight, Inf embedding, a newer
#       format_version (user_version; meta), a view in place of a table ...... M, S
#     train --resume on a truncated file: exit 3, file unchanged ................ M
#     read-only file (0444): translate, info, eval work, file unchanged ......... M
#     a WAL-mode file on a read-only file system (root: a bind mount): read as
#       immutable; with a -wal file waiting, exit 5 saying what is needed ....... M
#       (train --resume on it: exit 5, unless running as root, which may write)
#     locked by another process: BEGIN EXCLUSIVE + a write → translate waits the
#       5 s busy timeout, then exit 5 naming the lock; BEGIN IMMEDIATE + a write →
#       translate still reads, train --resume waits, exit 5; after the lock is
#       released the resume works ............................................... M
#     a writer killed inside its transaction (a hot journal, which a read-only
#       connection cannot roll back): translate and info roll it back and read
#       the last committed state ................................................ M
#     a model being trained (WAL, a writer mid-run) translates meanwhile ........ M
#     triggers planted on meta, tensor, vocab and train_log writing a marker
#       table: translate, info, eval, inspect, tokenize, plot leave the file
#       byte-identical; train --resume writes, but no trigger runs ........... M, S
#     a view named like a table: tensor (exit 3), train_log (info, plot and
#       train --resume exit 3, rows unchanged, the file back in rollback-journal
#       mode; translate ignores the history) .................................... M
#   training
#     malformed corpus line (no TAB) stops with exit 4 naming file:line ......... C
#     more than one TAB, invalid UTF-8 (with the byte of the file), an empty
#       side: stop at the first (exit 4, no model file), or with --skip-bad-lines
#       report each by line and train on the rest ............................... M
#     a malformed --valid line: exit 4, named; no file, and with --force the model
#       it would replace unchanged .............................................. M
#     a second writer of a file being trained (train --force, --resume, init
#       --force): exit 5 at once, the file named; two new runs started together:
#       one trains, the other is refused, the file whole ........................ M
#     kill -9 once after the first checkpoint ................................... C
#     kill -9 at seeded random moments, CRASH_TRIALS times: either no model file
#       (killed before it appeared; a new run then starts without --force) or a
#       file that passes PRAGMA integrity_check, loads (info), translates and is
#       a checkpoint (train_step in meta); every 4th trial resumes to the end,
#       giving the weights of an uninterrupted run .............................. M
#     kill -9 right after the file appears (before the first step): resumable ... M
#     SIGINT once: exit 130, "checkpoint saved", translates, resumes ............ C
#     SIGINT at seeded random moments (from before the file exists to late in the
#       run) and SIGTERM: exit 130 with a checkpoint, each resumed to the end
#       with the weights of an uninterrupted run ................................ M
#     NaN/Inf during training: exit 6, the last checkpoint kept and usable ...... C
#     a checkpoint whose optim.v holds a finite negative value: --resume refuses it
#       (exit 3, named), the weights unchanged, never a NaN committed ........... M
#     resume with another --batch: exit 2 naming both sizes, the file unchanged;
#       without --batch the run's own size; train_batch beyond the epoch, negative
#       or not a number: exit 3 naming key and value; never a hang .............. M
#   vocabulary tokens with a newline, tab, ESC, invalid UTF-8 or not in NFC: exit 3,
#     side and id named, nothing on stdout ...................................... M

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: sh tests/test_matrix_cli.sh BIN [RUNNER]" >&2
    exit 2
fi
BIN=$1
RUNNER=${2-}
if [ ! -x "$BIN" ]; then
    echo "test_matrix_cli.sh: '$BIN' is not an executable" >&2
    exit 2
fi
if [ ! -f data/train.tsv ]; then
    echo "test_matrix_cli.sh: run from the repository's top directory (needs data/train.tsv)" >&2
    exit 2
fi
# Bytes, not characters: the files below hold invalid UTF-8 and NUL on purpose.
LC_ALL=C
export LC_ALL

SEED=${CRASH_SEED:-$(date +%s)} # the moments of the kills and signals

TMP=$(mktemp -d "${TMPDIR:-/tmp}/toytrans-matrix.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' HUP INT TERM

OUT=$TMP/stdout
ERR=$TMP/stderr
passed=0
failed=0
CODE=0 # exit status of the last run

# shellcheck source=tests/cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

# What the script's own commands print on stderr (the shell's "kill: No such process" for
# a run that ended before its signal, a tool's warning) would be noise in make test's
# output: it is kept here, and fails the script at the end.
exec 3>&2 2>"$TMP/script.err"

# ---------------------------------------------------------------------------------------
# Helpers of this script

# ms_sleep MS: sleeps MS milliseconds.
ms_sleep() {
    sleep "$(awk -v ms="$1" 'BEGIN { printf "%.3f", ms / 1000 }')"
}

# randoms SEED N MIN MAX: N whole numbers in [MIN, MAX), one a line, from awk's generator
# seeded with SEED (the same sequence for the same seed and awk).
randoms() {
    awk -v seed="$1" -v n="$2" -v lo="$3" -v hi="$4" \
        'BEGIN { srand(seed); for (i = 0; i < n; i++) printf "%d\n", lo + int(rand() * (hi - lo)) }'
}

# expect_same DESC A B: files A and B are byte-identical.
expect_same() {
    if cmp -s "$2" "$3"; then
        pass "$1"
    else
        fail "$1" "$(basename "$2") and $(basename "$3") differ"
    fi
}

# run_bounded SECS ARGS...: as run, killed after SECS seconds (20 times that under
# RUNNER), so that a hang fails a test instead of stopping the script (CODE 137).
run_bounded() {
    secs=$1
    shift
    [ -z "$RUNNER" ] || secs=$((secs * 20))
    # shellcheck disable=SC2086
    timeout -s KILL "$secs" $RUNNER "$BIN" "$@" >"$OUT" 2>"$ERR"
    CODE=$?
}

# run_bounded_in SECS FILE ARGS...: as run_bounded, with standard input from FILE.
run_bounded_in() {
    secs=$1
    source=$2
    shift 2
    [ -z "$RUNNER" ] || secs=$((secs * 20))
    # shellcheck disable=SC2086
    timeout -s KILL "$secs" $RUNNER "$BIN" "$@" <"$source" >"$OUT" 2>"$ERR"
    CODE=$?
}

# expect_no_file DESC PATH: nothing exists at PATH.
expect_no_file() {
    if [ -e "$2" ]; then
        fail "$1" "$(basename "$2") exists"
    else
        pass "$1"
    fi
}

# expect_lines DESC FILE N: FILE has N lines.
expect_lines() {
    got=$(wc -l <"$2" | tr -d ' ')
    if [ "$got" -eq "$3" ]; then
        pass "$1"
    else
        fail "$1" "expected $3 lines, got $got"
        show "$2"
    fi
}

# expect_as_alone DESC MIXED_OUT ALONE_OUT TOTAL GOOD: MIXED_OUT has TOTAL lines; line k
# is the next line of ALONE_OUT when k is in the list GOOD ("1 2 5"), else empty.
expect_as_alone() {
    : >"$TMP/expected"
    j=0
    k=1
    while [ $k -le "$4" ]; do
        case " $5 " in
        *" $k "*)
            j=$((j + 1))
            sed -n "${j}p" "$3" >>"$TMP/expected"
            ;;
        *) echo >>"$TMP/expected" ;;
        esac
        k=$((k + 1))
    done
    if cmp -s "$TMP/expected" "$2"; then
        pass "$1"
    else
        fail "$1" "the output differs from the good lines translated alone, blanks for the bad"
        diff "$TMP/expected" "$2" | cut -c1-120 | sed -n '1,6s/^/    | /p'
    fi
}

# keep_lines FILE LIST: the lines of FILE whose numbers are in LIST, in order.
keep_lines() {
    for k in $2; do
        sed -n "${k}p" "$1"
    done
}

# The tool that damages model files and checks them from outside toytrans.
if command -v sqlite3 >/dev/null 2>&1; then
    SQL_TOOL=sqlite3
elif [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import sqlite3' 2>/dev/null; then
    SQL_TOOL=python3
else
    SQL_TOOL=
fi

# sql_exec FILE SQL: runs the statements SQL on FILE, read-write.
sql_exec() {
    if [ "$SQL_TOOL" = sqlite3 ]; then
        sqlite3 -batch "$1" "$2" >/dev/null
    else
        /usr/bin/python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.executescript(sys.argv[2])' "$1" "$2"
    fi
}

# sql_query FILE SQL: the rows of one query on FILE opened read-only, columns joined by |.
sql_query() {
    if [ "$SQL_TOOL" = sqlite3 ]; then
        sqlite3 -batch -readonly "$1" "$2"
    else
        /usr/bin/python3 -c 'import sqlite3, sys, urllib.parse
c = sqlite3.connect("file:" + urllib.parse.quote(sys.argv[1]) + "?mode=ro", uri=True)
for row in c.execute(sys.argv[2]):
    print("|".join(str(v) for v in row))' "$1" "$2"
    fi
}

# sql_dump FILE: FILE's schema and rows as SQL text (read-only).
sql_dump() {
    if [ "$SQL_TOOL" = sqlite3 ]; then
        sqlite3 -batch -readonly "$1" .dump
    else
        /usr/bin/python3 -c 'import sqlite3, sys, urllib.parse
c = sqlite3.connect("file:" + urllib.parse.quote(sys.argv[1]) + "?mode=ro", uri=True)
for line in c.iterdump():
    print(line)' "$1"
    fi
}

# expect_same_content DESC A B: the databases A and B hold the same schema and rows, and
# A is back in rollback-journal mode (a writer that opened it leaves no WAL behind).
expect_same_content() {
    sql_dump "$2" >"$TMP/dump.a" 2>&1
    sql_dump "$3" >"$TMP/dump.b" 2>&1
    mode=$(sql_query "$2" "PRAGMA journal_mode")
    if [ -s "$TMP/dump.a" ] && cmp -s "$TMP/dump.a" "$TMP/dump.b" && [ "$mode" = delete ]; then
        pass "$1"
    else
        fail "$1" "contents differ, or journal_mode '$mode'"
    fi
}

# hold_lock FILE KIND [spill]: another process opens FILE, runs BEGIN KIND (EXCLUSIVE or
# IMMEDIATE) and a write, and holds the transaction until release_lock (at most 30 s);
# returns once it holds it. With "spill", the write rewrites every tensor with a one-page
# cache, so pages reach the file before the commit: the journal is hot until then.
hold_lock() {
    rm -f "$TMP/lock.ready" "$TMP/lock.done"
    spill="SELECT 1"
    [ "${3-}" = spill ] && spill="UPDATE tensor SET data = randomblob(length(data))"
    if [ "$SQL_TOOL" = sqlite3 ]; then
        {
            printf '%s\n' "PRAGMA cache_size = 1;" "BEGIN $2;" \
                "INSERT OR REPLACE INTO meta VALUES('lock_holder', '1');" "$spill;" \
                ".shell touch '$TMP/lock.ready'"
            n=0
            while [ ! -f "$TMP/lock.done" ] && [ $n -lt 300 ]; do
                sleep 0.1
                n=$((n + 1))
            done
            echo "ROLLBACK;"
        } | sqlite3 -batch "$1" >/dev/null 2>&1 &
    else
        /usr/bin/python3 -c 'import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA cache_size = 1")
c.execute("BEGIN " + sys.argv[2])
c.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", ("lock_holder", "1"))
c.execute(sys.argv[4])
open(os.path.join(sys.argv[3], "lock.ready"), "w").close()
for _ in range(300):
    if os.path.exists(os.path.join(sys.argv[3], "lock.done")):
        break
    time.sleep(0.1)
c.execute("ROLLBACK")' "$1" "$2" "$TMP" "$spill" &
    fi
    LOCK_PID=$!
    n=0
    while [ ! -f "$TMP/lock.ready" ] && [ $n -lt 100 ]; do
        sleep 0.1
        n=$((n + 1))
    done
}

release_lock() {
    touch "$TMP/lock.done"
    wait "$LOCK_PID" 2>/dev/null
}

# wait_for FILE: up to 60 s for FILE to appear.
wait_for() {
    n=0
    while [ ! -e "$1" ] && [ $n -lt 600 ]; do
        sleep 0.1
        n=$((n + 1))
    done
}

# ---------------------------------------------------------------------------------------
# The models: a tiny trained one ($M, a checkpoint too) for every section, and the
# settings of the crash runs (100 pairs, 13 steps an epoch, a checkpoint after each).

head -100 data/train.tsv >"$TMP/tr.tsv"
TINY="--d-model 8 --heads 2 --d-ff 16 --max-len 24 --batch 8 --warmup 5 --enc-layers 1 --dec-layers 1"
M=$TMP/m.db
# shellcheck disable=SC2086
"$BIN" train --train "$TMP/tr.tsv" --out "$M" --epochs 3 $TINY >/dev/null 2>"$TMP/setup.err" || {
    echo "test_matrix_cli.sh: cannot train the test model:" >&2
    cat "$TMP/setup.err" >&2
    exit 1
}
G1="This is an example"
G2="the dog is big."
G3="I see a red car"
G4="We do not need apples."
printf '%s\n' "$G1" "$G2" "$G3" "$G4" >"$TMP/probe.txt"

# ---------------------------------------------------------------------------------------
# Input text

section_input() {
    run_in /dev/null translate --model "$M"
    expect_code "translate, empty input: exit 0" 0
    expect_empty "translate, empty input: no output" "$OUT"
    expect_empty "translate, empty input: no message" "$ERR"

    # Every kind of line; the good ones (G) must come out as when translated alone.
    mixed=$TMP/mixed.txt
    {
        printf '%s\n' "$G1"                 #  1 G
        printf '\n'                         #  2 G empty line
        printf '   \t  \n'                  #  3 G whitespace only
        printf '.,!?\n'                     #  4 G only punctuation
        printf '\200abc\n'                  #  5 lone continuation byte
        printf '%s\r\n' "$G2"               #  6 G CRLF
        printf 'ab\300\257\n'               #  7 overlong, 2 bytes
        printf 'x\340\200\257\n'            #  8 overlong, 3 bytes
        printf 'x\355\240\200y\n'           #  9 UTF-16 surrogate
        printf 'x\364\220\200\200\n'        # 10 above U+10FFFF
        printf '%s\n' "$G3"                 # 11 G
        printf 'abc\303\n'                  # 12 truncated at the end of the line
        printf 'a\376b\n'                   # 13 0xFE
        printf 'a\377b\n'                   # 14 0xFF
        printf 'This is\000 an example\n'   # 15 NUL
        awk 'BEGIN { for (i = 0; i < 10000; i++) printf "word "; printf "\n" }'   # 16
        awk 'BEGIN { s = "the dog "; for (i = 0; i < 17; i++) s = s s; print s }' # 17 1 MiB
        printf 'xyzzy plugh\n'              # 18 G unknown words only
        printf '%s' "$G4"                   # 19 G no final newline
    } >"$mixed"
    good="1 2 3 4 6 11 18 19"
    keep_lines "$mixed" "$good" >"$TMP/alone.txt"
    run_in "$TMP/alone.txt" translate --model "$M"
    expect_code "translate, only good lines (empty, blank, punctuation, CRLF, unknown words, no final newline): exit 0" 0
    # Warnings about the words (unknown words, coverage) are not errors.
    grep -v -e ': not in the vocabulary: ' -e ': not translated: ' "$ERR" >"$TMP/errors.txt" || true
    expect_empty "translate, only good lines: no error message" "$TMP/errors.txt"
    expect_in "translate, only good lines: unknown words warned, by line" "$ERR" \
        "toytrans translate: line 7: not in the vocabulary: xyzzy, plugh"
    expect_lines "translate, only good lines: one output line each" "$OUT" 8
    cp "$OUT" "$TMP/alone.out"
    if [ -z "$(sed -n 2p "$OUT")" ] && [ -z "$(sed -n 3p "$OUT")" ]; then
        pass "translate: an empty and a blank line give empty lines"
    else
        fail "translate: an empty and a blank line give empty lines" "unexpected output"
        show "$OUT"
    fi
    run translate --model "$M" "$G2"
    if [ "$(cat "$OUT")" = "$(sed -n 5p "$TMP/alone.out")" ]; then
        pass "translate: a CRLF line is translated as the line without CR"
    else
        fail "translate: a CRLF line" "'$(sed -n 5p "$TMP/alone.out")' vs '$(cat "$OUT")'"
    fi

    run_in "$mixed" translate --model "$M"
    expect_code "translate, bad lines amid good ones: exit 4" 4
    expect_as_alone "translate, bad lines amid good ones: every good line as alone, in order, bad ones empty" \
        "$OUT" "$TMP/alone.out" 19 "$good"
    n=$(grep -v -e ': not in the vocabulary: ' -e ': not translated: ' "$ERR" |
        grep -c '^toytrans translate: line [0-9]*: ')
    if [ "$n" -eq 11 ]; then
        pass "translate, bad lines amid good ones: one message per bad line (11)"
    else
        fail "translate, bad lines amid good ones: one message per bad line" "$n messages"
        show "$ERR"
    fi
    expect_in "translate: lone continuation byte named (line, byte)" "$ERR" \
        "line 5: invalid UTF-8 at byte 0: continuation byte without a lead byte (0x80"
    expect_in "translate: 2-byte overlong named" "$ERR" "line 7: invalid UTF-8 at byte 2: overlong encoding (0xC0 0xAF)"
    expect_in "translate: 3-byte overlong named" "$ERR" "line 8: invalid UTF-8 at byte 1: overlong encoding (0xE0 0x80 0xAF)"
    expect_in "translate: surrogate named" "$ERR" "line 9: invalid UTF-8 at byte 1: UTF-16 surrogate (0xED 0xA0 0x80"
    expect_in "translate: above U+10FFFF named" "$ERR" "line 10: invalid UTF-8 at byte 1: code point above U+10FFFF (0xF4 0x90"
    expect_in "translate: truncated at end of line named" "$ERR" "line 12: invalid UTF-8 at byte 3: truncated sequence (0xC3)"
    expect_in "translate: 0xFE named" "$ERR" "line 13: invalid UTF-8 at byte 1: byte that never occurs in UTF-8 (0xFE"
    expect_in "translate: 0xFF named" "$ERR" "line 14: invalid UTF-8 at byte 1: byte that never occurs in UTF-8 (0xFF"
    expect_in "translate: NUL named (line, byte)" "$ERR" "line 15: NUL byte at byte 7"
    expect_in "translate: 10,000 words named with the limit" "$ERR" "line 16: 10000 tokens; this model takes at most 23 (max_len 24 with </s>)"
    expect_in "translate: a 1 MB line named with the limit" "$ERR" \
        "line 17: more than the 65536 bytes a line may have"

    printf '%s\nabc\342\202' "$G1" >"$TMP/trunc_eof.txt"
    run_in "$TMP/trunc_eof.txt" translate --model "$M"
    expect_code "translate, truncated sequence at end of file: exit 4" 4
    expect_in "translate, truncated sequence at end of file: named" "$ERR" \
        "line 2: invalid UTF-8 at byte 3: truncated sequence (0xE2 0x82)"
    expect_as_alone "translate, truncated sequence at end of file: line 1 still translated" \
        "$OUT" "$TMP/alone.out" 2 "1"

    run translate --model "$M" "$G1" "$(printf 'ab\377')" "$G3"
    expect_code "translate, an invalid argument: exit 4" 4
    expect_in "translate, an invalid argument: named as an argument" "$ERR" \
        "argument 2: invalid UTF-8 at byte 2: byte that never occurs in UTF-8 (0xFF)"
    expect_lines "translate, an invalid argument: one output line per argument" "$OUT" 3

    # tokenize: the same file; only the encoding faults are errors here.
    tgood="1 2 3 4 6 11 16 18 19"
    keep_lines "$mixed" "$tgood" >"$TMP/talone.txt"
    run_in "$TMP/talone.txt" tokenize --model "$M"
    expect_code "tokenize, only valid lines (10,000 words included): exit 0" 0
    cp "$OUT" "$TMP/talone.out"
    if [ "$(sed -n 7p "$OUT" | wc -w | tr -d ' ')" -eq 10000 ]; then
        pass "tokenize: a line of 10,000 words (50 KB) gives all its tokens"
    else
        fail "tokenize: a line of 10,000 words" "$(sed -n 7p "$OUT" | wc -w) tokens"
    fi
    expect_in "tokenize --model: unknown words are marked" "$OUT" "xyzzy:<unk> plugh:<unk>"
    run_in "$mixed" tokenize --model "$M"
    expect_code "tokenize, bad lines amid good ones: exit 4" 4
    expect_as_alone "tokenize, bad lines amid good ones: every good line as alone, bad ones empty" \
        "$OUT" "$TMP/talone.out" 19 "$tgood"
    n=$(grep -c '^toytrans tokenize: input [0-9]*: ' "$ERR")
    if [ "$n" -eq 10 ]; then
        pass "tokenize, bad lines amid good ones: one message per bad line (10)"
    else
        fail "tokenize: one message per bad line" "$n messages"
        show "$ERR"
    fi
    for want in "input 5: invalid UTF-8 at byte 0" "input 9: invalid UTF-8 at byte 1: UTF-16 surrogate" \
        "input 10: invalid UTF-8 at byte 1: code point above" "input 12: invalid UTF-8 at byte 3: truncated" \
        "input 15: NUL byte at byte 7" "input 17: more than the 65536 bytes"; do
        expect_in "tokenize: names '$want'" "$ERR" "$want"
    done

    # eval: a test file with invalid UTF-8 on line 2.
    printf '%s\tDas ist ein Beispiel\nbad \377 line\tschlecht\n%s\tDer Hund ist gro\303\237.\n' \
        "$G1" "$G2" >"$TMP/e.tsv"
    at=$(($(sed -n 1p "$TMP/e.tsv" | wc -c) + 4))
    run eval --test "$TMP/e.tsv" --model "$M"
    expect_code "eval, invalid UTF-8 in the test file: exit 4" 4
    expect_in "eval, invalid UTF-8: names file, line, byte in the line and of the file" "$ERR" \
        "e.tsv:2: invalid UTF-8 at byte 4: byte that never occurs in UTF-8 (0xFF 0x20 0x6C 0x69) (byte $at of the file)"
    expect_empty "eval, invalid UTF-8: nothing on stdout" "$OUT"
    run eval --test "$TMP/e.tsv" --model "$M" --skip-bad-lines
    expect_code "eval --skip-bad-lines past invalid UTF-8: exit 0" 0
    expect_in "eval --skip-bad-lines: scores the other two" "$OUT" "exact match: 0/2"
}

# ---------------------------------------------------------------------------------------
# Model files

# damaged NAME PHRASE HOW...: copies $M to $D, damages it with HOW (a shell command, run
# with the path as its last argument), and checks that translate refuses it: exit 3, the
# path and PHRASE on stderr, nothing on stdout, the file unchanged.
D=$TMP/d.db
damaged() {
    name=$1
    phrase=$2
    shift 2
    rm -f "$D" "$D"-*
    cp "$M" "$D"
    "$@" "$D"
    cp "$D" "$TMP/d0.db"
    run translate --model "$D" "$G1"
    expect_code "model $name: exit 3" 3
    expect_in "model $name: names the file" "$ERR" "$D"
    expect_in "model $name: says '$phrase'" "$ERR" "$phrase"
    expect_empty "model $name: nothing on stdout" "$OUT"
    expect_same "model $name: the file is unchanged" "$D" "$TMP/d0.db"
    # With two threads and a file (or arguments), integrity_check and the content checksum
    # run beside the decoding of the first block (of three here: blocks of 16 lines): the
    # same refusal, and nothing written; nor after a set-up error (--layer out of range),
    # nor from a pipe, which waits for the checks as one thread does.
    cp "$ERR" "$TMP/d0.err"
    awk -v s="$G1" 'BEGIN { for (i = 0; i < 40; i++) print s }' >"$TMP/d0.txt"
    run_in "$TMP/d0.txt" translate --model "$D" --threads 2 --batch 2
    expect_code "model $name, two threads: exit 3" 3
    expect_same "model $name, two threads: the same message" "$ERR" "$TMP/d0.err"
    expect_empty "model $name, two threads: nothing on stdout" "$OUT"
    run translate --model "$D" --threads 2 --layer 7 "$G1" "$G1"
    expect_code "model $name, two threads, --layer 7: exit 3" 3
    expect_same "model $name, two threads, --layer 7: the same message alone" "$ERR" \
        "$TMP/d0.err"
    # shellcheck disable=SC2086 # RUNNER is a command prefix
    cat "$TMP/d0.txt" | $RUNNER "$BIN" translate --model "$D" --threads 2 --batch 2 >"$OUT" 2>"$ERR"
    expect_same "model $name, two threads, a pipe: the same message" "$ERR" "$TMP/d0.err"
    expect_empty "model $name, two threads, a pipe: nothing on stdout" "$OUT"
}

make_empty() { : >"$1"; }
make_text() { awk 'BEGIN { for (i = 0; i < 200; i++) print "this is not a database" }' >"$1"; }
truncate_to() { head -c "$1" "$2" >"$TMP/cut" && cat "$TMP/cut" >"$2"; }
truncate_half() { truncate_to $(($(wc -c <"$1") / 2)) "$1"; }
truncate_last_page() { truncate_to $(($(wc -c <"$1") - 2048)) "$1"; }
sql_on() { sql_exec "$2" "$1"; }

section_models() {
    damaged "empty" "empty file (0 bytes)" make_empty
    damaged "not SQLite (text)" "not an SQLite database" make_text
    if [ -z "$SQL_TOOL" ]; then
        echo "# skipped: the model-file damage, lock and trigger rows (no sqlite3, no python3 sqlite3)"
        return
    fi
    size=$(wc -c <"$M")
    page=$(sql_query "$M" "PRAGMA page_size")
    if [ "$size" -lt $((4 * page)) ]; then
        fail "model files" "the test model is too small ($size bytes) to cut"
    fi
    damaged "truncated to 100 bytes" "damaged" truncate_to 100
    damaged "truncated to one page" "damaged" truncate_to "$page"
    damaged "truncated to half" "damaged" truncate_half
    damaged "cut in its last page" "damaged" truncate_last_page
    damaged "table embedding dropped" "table 'embedding' is missing" sql_on "DROP TABLE embedding"
    damaged "content changed behind its checksum" "does not match its checksum" \
        sql_on "UPDATE meta SET value = '0123456789abcdef' WHERE key = 'content_fnv1a64'"
    damaged "tensor missing" "tensor 'encoder.norm.bias' is missing" \
        sql_on "DELETE FROM tensor WHERE name = 'encoder.norm.bias'"
    damaged "shape lies" "tensor 'encoder.norm.bias' has shape '4,2' but the model needs '8'" \
        sql_on "UPDATE tensor SET shape = '4,2' WHERE name = 'encoder.norm.bias'"
    damaged "blob size lies" "tensor 'encoder.norm.bias' holds 20 bytes, expected 32" \
        sql_on "UPDATE tensor SET data = substr(data, 1, 20) WHERE name = 'encoder.norm.bias'"
    damaged "vocab ids with a gap" "id 4 is missing" \
        sql_on "DELETE FROM vocab WHERE lang = 'src' AND id = 4"
    damaged "NaN weight" "tensor 'encoder.norm.bias' has a non-finite value (NaN) at index 2" \
        sql_on "UPDATE tensor SET data = CAST(substr(data, 1, 8) || X'0000C07F' || substr(data, 13) AS BLOB) WHERE name = 'encoder.norm.bias'"
    damaged "Inf embedding" "embedding 'tgt' id 7 has a non-finite value (Inf) at index 0" \
        sql_on "UPDATE embedding SET vector = CAST(X'0000807F' || substr(vector, 5) AS BLOB) WHERE lang = 'tgt' AND id = 7"
    damaged "newer format_version" "format_version 2 is newer than this toytrans" \
        sql_on "PRAGMA user_version = 2"
    damaged "meta format_version 2" "meta format_version is 2 but user_version is 1" \
        sql_on "UPDATE meta SET value = '2' WHERE key = 'format_version'"
    damaged "view in place of table tensor" "table 'tensor' is missing" \
        sql_on "ALTER TABLE tensor RENAME TO tensor_data; CREATE VIEW tensor AS SELECT * FROM tensor_data"

    rm -f "$D" "$D"-*
    cp "$M" "$D"
    truncate_half "$D"
    cp "$D" "$TMP/d0.db"
    # shellcheck disable=SC2086
    run train --train "$TMP/tr.tsv" --out "$D" --epochs 4 $TINY --resume
    expect_code "train --resume on a truncated file: exit 3" 3
    expect_in "train --resume on a truncated file: says damaged" "$ERR" "damaged"
    expect_same "train --resume on a truncated file: the file is unchanged" "$D" "$TMP/d0.db"

    # Read-only: reading needs no write access.
    RO=$TMP/ro.db
    cp "$M" "$RO"
    chmod 0444 "$RO"
    cp "$RO" "$TMP/ro0.db"
    printf '%s\tDas ist ein Beispiel\n' "$G1" >"$TMP/one.tsv"
    run translate --model "$RO" "$G1"
    expect_code "read-only model: translate works" 0
    run info --model "$RO"
    expect_code "read-only model: info works" 0
    run eval --test "$TMP/one.tsv" --model "$RO"
    expect_code "read-only model: eval works" 0
    expect_same "read-only model: the file is unchanged" "$RO" "$TMP/ro0.db"
    if [ "$(id -u)" -ne 0 ]; then
        # shellcheck disable=SC2086
        run train --train "$TMP/tr.tsv" --out "$RO" --epochs 4 $TINY --resume
        expect_code "read-only model: train --resume fails with exit 5" 5
        expect_in "read-only model: train --resume names the file" "$ERR" "$RO"
    elif command -v unshare >/dev/null 2>&1 &&
        unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1"' sh "$TMP" \
            2>/dev/null; then
        # Root may write a 0444 file: the file's directory is made read-only instead, by a
        # read-only bind mount over itself in a private mount namespace (the rest of the
        # system never sees it).
        mkdir -p "$TMP/rores"
        cp "$RO" "$TMP/rores/ro.db"
        # shellcheck disable=SC2016,SC2086
        R=$RUNNER unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" &&
            shift && exec $R "$@"' sh "$TMP/rores" "$BIN" train --train "$TMP/tr.tsv" \
            --out "$TMP/rores/ro.db" --epochs 4 $TINY --resume >"$OUT" 2>"$ERR"
        CODE=$?
        expect_code "read-only model (root: a read-only bind mount): train --resume fails with exit 5" 5
        expect_in "read-only model (root: a read-only bind mount): train --resume names the file" \
            "$ERR" "$TMP/rores/ro.db"
        expect_same "read-only model (root): the file is unchanged" "$TMP/rores/ro.db" "$TMP/ro0.db"
    else
        echo "# skipped: train --resume on a read-only file (root may write it, and no" \
             "unshare -m here to make a read-only bind mount)"
    fi

    # A WAL-mode model on a read-only file system (a read-only bind mount: root only).
    # SQLite must create a -shm file beside a WAL database to read it, which it cannot
    # there; with no -wal file waiting, the database file is the whole model and is read
    # as immutable. With one, the message says what is needed (exit 5). The name holds
    # ? and %, which the URI that asks for immutable must escape.
    RODIR=$TMP/rodir
    MNT=$TMP/romnt
    mkdir -p "$RODIR/wal" "$MNT"
    W="$RODIR/w?%.db"
    cp "$M" "$W"
    if [ "$(id -u)" -eq 0 ] && [ -x /usr/bin/python3 ] &&
        /usr/bin/python3 - "$W" "$RODIR/wal/p.db" <<'PY' && mount --bind "$RODIR" "$MNT" 2>/dev/null
import shutil, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("PRAGMA journal_mode = WAL")
c.close()
# A copy whose -wal file holds a committed write not yet checkpointed.
shutil.copy(sys.argv[1], sys.argv[2])
c = sqlite3.connect(sys.argv[2], isolation_level=None)
c.execute("PRAGMA wal_autocheckpoint = 0")
c.execute("INSERT INTO meta (key, value) VALUES ('note', '1')")
c.execute("DELETE FROM meta WHERE key = 'note'")
shutil.copy(sys.argv[2] + "-wal", sys.argv[2] + ".keep")
c.close()
shutil.move(sys.argv[2] + ".keep", sys.argv[2] + "-wal")
PY
    then
        if mount -o remount,ro,bind "$MNT" 2>/dev/null; then
            run translate --model "$M" "$G1"
            cp "$OUT" "$TMP/rw.txt"
            run translate --model "$MNT/w?%.db" "$G1"
            expect_code "WAL model on a read-only file system: translate works" 0
            expect_same "WAL model on a read-only file system: the same translation" \
                "$OUT" "$TMP/rw.txt"
            run info --model "$MNT/w?%.db"
            expect_code "WAL model on a read-only file system: info works" 0
            run translate --model "$MNT/wal/p.db" "$G1"
            expect_code "WAL model with a -wal file on a read-only file system: exit 5" 5
            expect_in "WAL model with a -wal file, read-only: says what is needed" "$ERR" \
                "in WAL mode, and SQLite cannot create its -shm file beside it (a read-only file system, with a -wal file not yet checkpointed)"
        else
            echo "# skipped: a WAL model on a read-only file system (no read-only remount)"
        fi
        umount "$MNT"
    else
        echo "# skipped: a WAL model on a read-only file system (not root, or no bind mount)"
    fi

    # Locked by another process's write transaction.
    L=$TMP/locked.db
    cp "$M" "$L"
    cp "$L" "$TMP/locked0.db"
    hold_lock "$L" EXCLUSIVE
    t0=$(date +%s)
    run translate --model "$L" "$G1"
    t1=$(date +%s)
    expect_code "model locked (EXCLUSIVE): translate fails with exit 5" 5
    expect_in "model locked (EXCLUSIVE): the message names the lock and the timeout" "$ERR" \
        "$L: locked by another process for more than 5000 ms"
    if [ $((t1 - t0)) -ge 4 ]; then
        pass "model locked (EXCLUSIVE): translate waited the busy timeout ($((t1 - t0)) s)"
    else
        fail "model locked (EXCLUSIVE): translate waited the busy timeout" "gave up after $((t1 - t0)) s"
    fi
    release_lock
    hold_lock "$L" IMMEDIATE
    run translate --model "$L" "$G1"
    expect_code "model locked (IMMEDIATE + a write): readers still translate" 0
    t0=$(date +%s)
    # shellcheck disable=SC2086
    run train --train "$TMP/tr.tsv" --out "$L" --epochs 4 $TINY --resume
    t1=$(date +%s)
    expect_code "model locked (IMMEDIATE): train --resume fails with exit 5" 5
    expect_in "model locked (IMMEDIATE): train --resume names the lock" "$ERR" \
        "$L: locked by another process for more than 5000 ms"
    if [ $((t1 - t0)) -ge 4 ]; then
        pass "model locked (IMMEDIATE): train --resume waited the busy timeout ($((t1 - t0)) s)"
    else
        fail "model locked (IMMEDIATE): train --resume waited the busy timeout" "gave up after $((t1 - t0)) s"
    fi
    release_lock
    expect_same "model locked: after the lock, the file is as before" "$L" "$TMP/locked0.db"
    # shellcheck disable=SC2086
    run train --train "$TMP/tr.tsv" --out "$L" --epochs 4 $TINY --resume
    expect_code "model locked: once released, train --resume works" 0

    # A writer killed inside its transaction leaves a hot journal, which a read-only
    # connection cannot roll back: toytrans's readers roll it back and read.
    H=$TMP/hot.db
    cp "$M" "$H"
    hold_lock "$H" IMMEDIATE spill
    kill -9 "$LOCK_PID" 2>/dev/null
    release_lock
    if [ -s "$H-journal" ]; then
        pass "hot journal: a writer killed mid-transaction left one"
    else
        fail "hot journal: a writer killed mid-transaction left one" "no $H-journal"
    fi
    run translate --model "$M" "$G1"
    cp "$OUT" "$TMP/hot.want"
    run translate --model "$H" "$G1"
    expect_code "hot journal: translate works" 0
    expect_same "hot journal: translate gives the committed model's translation" "$OUT" "$TMP/hot.want"
    expect_no_file "hot journal: rolled back (gone)" "$H-journal"
    expect_same_content "hot journal: the file holds the last committed state" "$H" "$M"
    run info --model "$H"
    expect_code "hot journal: info works afterwards" 0

    # Being trained: a writer in WAL mode does not stop readers.
    W=$TMP/busy.db
    # shellcheck disable=SC2086
    "$BIN" train --train "$TMP/tr.tsv" --out "$W" --epochs 500 $TINY --checkpoint-every 1 \
        >/dev/null 2>"$TMP/busy.err" &
    pid=$!
    wait_for "$W-wal"
    run translate --model "$W" "$G1"
    expect_code "a model being trained (WAL): translate works meanwhile" 0
    run info --model "$W"
    expect_code "a model being trained (WAL): info works meanwhile" 0
    kill -INT "$pid"
    wait "$pid"
    CODE=$?
    expect_code "a model being trained: SIGINT then exits 130" 130

    # Triggers planted by an attacker never run: not while reading, not while training.
    T=$TMP/trig.db
    cp "$M" "$T"
    sql_exec "$T" "CREATE TABLE pwned(x);
        CREATE TRIGGER t1 AFTER INSERT ON meta BEGIN INSERT INTO pwned VALUES(1); DELETE FROM tensor; END;
        CREATE TRIGGER t2 AFTER DELETE ON meta BEGIN INSERT INTO pwned VALUES(2); END;
        CREATE TRIGGER t3 BEFORE UPDATE ON tensor BEGIN INSERT INTO pwned VALUES(3); END;
        CREATE TRIGGER t4 AFTER INSERT ON tensor BEGIN INSERT INTO pwned VALUES(4); END;
        CREATE TRIGGER t5 AFTER DELETE ON tensor BEGIN INSERT INTO pwned VALUES(5); END;
        CREATE TRIGGER t6 AFTER INSERT ON train_log BEGIN INSERT INTO pwned VALUES(6); END;
        CREATE TRIGGER t7 AFTER UPDATE ON vocab BEGIN INSERT INTO pwned VALUES(7); END;"
    cp "$T" "$TMP/trig0.db"
    tensors=$(sql_query "$T" "SELECT count(*) FROM tensor")
    run translate --model "$T" "$G1"
    expect_code "triggers planted: translate works" 0
    run info --model "$T"
    expect_code "triggers planted: info works" 0
    run eval --test "$TMP/one.tsv" --model "$T"
    expect_code "triggers planted: eval works" 0
    NO_COLOR=1 run inspect --model "$T" "$G1"
    expect_code "triggers planted: inspect works" 0
    run tokenize --model "$T" "$G1"
    expect_code "triggers planted: tokenize --model works" 0
    run plot --model "$T" --out "$TMP/trig.svg"
    expect_code "triggers planted: plot works" 0
    expect_same "triggers planted: reading left the file byte for byte as it was" "$T" "$TMP/trig0.db"
    # shellcheck disable=SC2086
    run train --train "$TMP/tr.tsv" --out "$T" --epochs 4 $TINY --resume
    expect_code "triggers planted: train --resume works" 0
    if [ "$(sql_query "$T" "SELECT count(*) FROM pwned")" = 0 ] &&
        [ "$(sql_query "$T" "SELECT count(*) FROM tensor")" = "$tensors" ]; then
        pass "triggers planted: no trigger ran while training wrote (no marker, every tensor kept)"
    else
        fail "triggers planted: a trigger ran" "pwned rows: $(sql_query "$T" "SELECT count(*) FROM pwned")"
    fi

    # A view named like the history table.
    V=$TMP/view.db
    cp "$M" "$V"
    sql_exec "$V" "ALTER TABLE train_log RENAME TO train_log_data;
        CREATE VIEW train_log AS SELECT * FROM train_log_data;"
    cp "$V" "$TMP/view0.db"
    run info --model "$V"
    expect_code "train_log replaced by a view: info exits 3" 3
    expect_in "train_log replaced by a view: info says so" "$ERR" "train_log is a view, not a table"
    run plot --model "$V" --out "$TMP/view.svg"
    expect_code "train_log replaced by a view: plot exits 3" 3
    run translate --model "$V" "$G1"
    expect_code "train_log replaced by a view: translate (which ignores the history) works" 0
    # shellcheck disable=SC2086
    run train --train "$TMP/tr.tsv" --out "$V" --epochs 4 $TINY --resume
    expect_code "train_log replaced by a view: train --resume exits 3" 3
    expect_in "train_log replaced by a view: train --resume names it" "$ERR" "train_log"
    expect_same_content "train_log replaced by a view: the failed resume changed no row" "$V" \
        "$TMP/view0.db"
}

# ---------------------------------------------------------------------------------------
# Training: malformed corpora

section_corpus() {
    bad=$TMP/bad.tsv
    {
        head -20 "$TMP/tr.tsv"
        printf 'two\ttabs\there\n'         # 21
        printf 'bad \377 utf8\tschlecht\n' # 22
        printf '  \tempty source\n'        # 23
        sed -n '21,40p' "$TMP/tr.tsv"
    } >"$bad"
    at=$(($(head -21 "$bad" | wc -c) + 4))
    # shellcheck disable=SC2086
    run train --train "$bad" --out "$TMP/bad.db" --epochs 1 $TINY
    expect_code "train on a corpus with bad lines: exit 4" 4
    expect_in "train on a corpus with bad lines: names the first (file:line, byte)" "$ERR" \
        "bad.tsv:21: more than one TAB (byte"
    expect_no_file "train on a corpus with bad lines: no model file left" "$TMP/bad.db"
    # shellcheck disable=SC2086
    run train --train "$bad" --out "$TMP/bad.db" --epochs 1 $TINY --skip-bad-lines
    expect_code "train --skip-bad-lines: exit 0" 0
    expect_in "train --skip-bad-lines: two TABs reported and skipped" "$ERR" \
        "bad.tsv:21: more than one TAB (byte $(($(head -20 "$bad" | wc -c) + 8))) (skipped)"
    expect_in "train --skip-bad-lines: invalid UTF-8 reported with the byte of the file" "$ERR" \
        "bad.tsv:22: invalid UTF-8 at byte 4: byte that never occurs in UTF-8 (0xFF 0x20 0x75 0x74) (byte $at of the file) (skipped)"
    expect_in "train --skip-bad-lines: an empty side reported" "$ERR" "bad.tsv:23: empty source side"
    n=$(grep -c '(skipped)' "$ERR")
    if [ "$n" -eq 3 ]; then
        pass "train --skip-bad-lines: each bad line reported once (3)"
    else
        fail "train --skip-bad-lines: each bad line reported once" "$n reports"
    fi
    run info --model "$TMP/bad.db"
    expect_code "train --skip-bad-lines: the model loads" 0

    printf '%s\tDas ist ein Beispiel\nbad\377\tschlecht\n' "$G1" >"$TMP/badv.tsv"
    # shellcheck disable=SC2086
    run train --train "$TMP/tr.tsv" --valid "$TMP/badv.tsv" --out "$TMP/badv.db" --epochs 1 $TINY
    expect_code "train with a malformed --valid line: exit 4" 4
    expect_in "train with a malformed --valid line: names file and line" "$ERR" \
        "badv.tsv:2: invalid UTF-8 at byte 3"
    expect_no_file "train with a malformed --valid line: no model file left" "$TMP/badv.db"
    # Every input is read before any output is touched, so --force
    # does not trade a trained model for an untrained one first.
    cp "$M" "$TMP/keep.db"
    # shellcheck disable=SC2086
    run train --train "$TMP/tr.tsv" --valid "$TMP/badv.tsv" --out "$TMP/keep.db" --force \
        --epochs 1 $TINY
    expect_code "train --force with a malformed --valid line: exit 4" 4
    expect_same "train --force with a malformed --valid line: the model unchanged" \
        "$TMP/keep.db" "$M"
}

# ---------------------------------------------------------------------------------------
# The work per line is bounded before normalising: "e" and then
# alternating U+0301 U+0316 took time quadratic in the line's length (47 s at 256 KB) in
# NFC's reordering, before the token limit was checked. A line over 65536 bytes, or with
# more than 30 combining marks in a row, is invalid input (exit 4, the line named), at
# once, in tokenize, translate, vocab and train; each run is bounded by `timeout`.

section_line_bounds() {
    awk 'BEGIN { printf "e"; for (i = 0; i < 75000; i++) printf "\314\201\314\226"; printf "\n" }' \
        >"$TMP/marks_big.txt" # 300,001 bytes
    awk 'BEGIN { printf "e"; for (i = 0; i < 6000; i++) printf "\314\201\314\226"; printf "\n" }' \
        >"$TMP/marks_mid.txt" # 24,001 bytes: under the byte limit
    for cmd in tokenize translate; do
        run_bounded_in 10 "$TMP/marks_big.txt" $cmd --model "$M"
        expect_code "$cmd, a 300 KB line of combining marks: exit 4 at once" 4
        expect_in "$cmd, a 300 KB line: names the line, its size and the limit" "$ERR" \
            "1: more than the 65536 bytes a line may have"
        run_bounded_in 10 "$TMP/marks_mid.txt" $cmd --model "$M"
        expect_code "$cmd, 12,000 combining marks in a row: exit 4 at once" 4
        expect_in "$cmd, 12,000 combining marks: names the line and where the run starts" \
            "$ERR" "1: more than 30 combining marks in a row from byte 1"
    done
    { printf '%s\tDas ist ein Beispiel\n' "$G1"; tr -d '\n' <"$TMP/marks_big.txt"; printf '\tx\n'; } \
        >"$TMP/marks.tsv"
    run_bounded 10 vocab --train "$TMP/marks.tsv" --out "$TMP/marks_v.db"
    expect_code "vocab, a 300 KB source side: exit 4 at once" 4
    expect_in "vocab, a 300 KB line: names file and line" "$ERR" \
        "marks.tsv:2: more than the 65536 bytes a line may have"
    # shellcheck disable=SC2086
    run_bounded 10 train --train "$TMP/marks.tsv" --out "$TMP/marks_t.db" --epochs 1 $TINY
    expect_code "train, a 300 KB source side: exit 4 at once" 4
    expect_in "train, a 300 KB source side: names file and line" "$ERR" "marks.tsv:2: "
    # A long line of ordinary text up to the limit is still read.
    awk 'BEGIN { for (i = 0; i < 6553; i++) printf "word "; printf "word\n" }' >"$TMP/long_ok.txt"
    run_bounded_in 10 "$TMP/long_ok.txt" tokenize
    expect_code "tokenize, a line of 32,770 bytes: exit 0" 0
}

# ---------------------------------------------------------------------------------------
# A checkpoint's optimiser state is range-checked: optim.v (AdamW's
# mean of squares) with a finite negative value, the checksum removed so that only the
# range check can object, is refused on --resume (exit 3, named) and nothing is written;
# a NaN is never committed.

section_resume_state() {
    if [ -z "$SQL_TOOL" ]; then
        echo "# skipped: negative optim.v (no sqlite3, no python3 sqlite3)"
        return
    fi
    C=$TMP/negv.db
    cp "$M" "$C"
    sql_exec "$C" "UPDATE tensor SET data = CAST(X'000080BF' || substr(data, 5) AS BLOB)
                   WHERE name = 'optim.v';
                   DELETE FROM meta WHERE key = 'content_fnv1a64';"
    before=$(sql_query "$C" "SELECT hex(data) FROM tensor WHERE name = 'encoder.norm.bias'")
    for every in 500 1; do
        run train --train "$TMP/tr.tsv" --out "$C" --resume --stop-after 1 --epochs 10 \
            --checkpoint-every "$every"
        expect_code "resume with a negative optim.v (--checkpoint-every $every): exit 3" 3
        expect_in "resume with a negative optim.v: names the tensor and the index" "$ERR" \
            "negv.db: tensor 'optim.v' has a negative value (-1) at index 0"
        expect_not_in "resume with a negative optim.v: not 'trained'" "$OUT" "trained"
    done
    after=$(sql_query "$C" "SELECT hex(data) FROM tensor WHERE name = 'encoder.norm.bias'")
    if [ "$before" = "$after" ]; then
        pass "resume with a negative optim.v: the weights unchanged"
    else
        fail "resume with a negative optim.v: the weights unchanged" "they changed"
    fi
    run translate --model "$C" "$G1"
    expect_code "resume with a negative optim.v: the file still loads" 0
}

# ---------------------------------------------------------------------------------------
# A resumed run's position is checked: a checkpoint stopped at batch 5
# of 13 (batch size 8) resumed with --batch 64 (2 batches an epoch) used to spin at 100 %
# CPU without a step, deaf to Ctrl-C; now a changed batch size is a usage error (exit 2)
# and the run's own size is the default. A train_batch beyond the epoch, or out of range,
# is refused (exit 3) naming the key and its value. Every run is bounded by `timeout`, so
# a hang fails the test instead of stopping it.


section_resume_position() {
    P=$TMP/pos.db
    # shellcheck disable=SC2086
    run train --train "$TMP/tr.tsv" --out "$P" --epochs 2 $TINY --stop-after 5
    expect_code "resume position: a checkpoint at batch 5 of 13" 0
    cp "$P" "$TMP/pos0.db"
    run_bounded 20 train --train "$TMP/tr.tsv" --out "$P" --resume --epochs 2 --batch 64
    expect_code "resume with another --batch: exit 2 (no hang)" 2
    expect_in "resume with another --batch: names both sizes" "$ERR" \
        "--batch 64 differs from the batch size the run was started with (meta train_batch_size = 8)"
    expect_same_content "resume with another --batch: the checkpoint unchanged" "$P" "$TMP/pos0.db"
    run_bounded 20 train --train "$TMP/tr.tsv" --out "$P" --resume --epochs 2 --stop-after 2
    expect_code "resume without --batch: the run's own batch size, exit 0" 0
    step=$(sql_query "$P" "SELECT value FROM meta WHERE key = 'train_batch'")
    if [ "$step" = 7 ]; then
        pass "resume without --batch: batch 7 of the epoch after two more steps"
    else
        fail "resume without --batch: batch 7 after two more steps" "train_batch is '$step'"
    fi
    if [ -z "$SQL_TOOL" ]; then
        echo "# skipped: a damaged train_batch (no sqlite3, no python3 sqlite3)"
        return
    fi
    for bad in 1073741824 13 -1 x; do
        cp "$TMP/pos0.db" "$P"
        sql_exec "$P" "UPDATE meta SET value = '$bad' WHERE key = 'train_batch';
                       DELETE FROM meta WHERE key = 'content_fnv1a64';"
        run_bounded 20 train --train "$TMP/tr.tsv" --out "$P" --resume --epochs 2
        expect_code "resume with train_batch=$bad: exit 3 (no hang)" 3
        expect_in "resume with train_batch=$bad: names the key and the value" "$ERR" \
            "'train_batch' = '$bad'"
    done
}

# ---------------------------------------------------------------------------------------
# Vocabulary tokens are checked at load: a target token with a
# newline, a tab, ESC, invalid UTF-8 or a decomposed (non-NFC) form, the checksum
# removed, used to load and print 14 lines for 2 inputs; now the model is unusable
# (exit 3), the side and id named, nothing on stdout.

section_vocab_tokens() {
    if [ -z "$SQL_TOOL" ]; then
        echo "# skipped: hostile vocabulary tokens (no sqlite3, no python3 sqlite3)"
        return
    fi
    id=$(sql_query "$M" "SELECT max(id) FROM vocab WHERE lang = 'tgt'")
    for kind in newline tab esc invalid nfd; do
        case $kind in
        newline) tok="'zwei' || char(10) || 'Zeilen'"; said="contains U+000A (a control character)" ;;
        tab) tok="'a' || char(9) || 'b'"; said="contains U+0009 (a control character)" ;;
        esc) tok="char(27) || '[31mrot'"; said="contains U+001B (a control character)" ;;
        invalid) tok="CAST(X'6261649F' AS TEXT)"; said="is not valid UTF-8" ;;
        nfd) tok="'Ma' || char(776) || 'dchen'"; said="is not in NFC" ;;
        esac
        V=$TMP/vocab-$kind.db
        cp "$M" "$V"
        sql_exec "$V" "UPDATE vocab SET token = $tok WHERE lang = 'tgt' AND id = $id;
                       DELETE FROM meta WHERE key = 'content_fnv1a64';"
        run translate --model "$V" "$G1" "$G2"
        expect_code "a target token with $kind: translate exit 3" 3
        expect_in "a target token with $kind: names the side, the id and the fault" "$ERR" \
            "vocab 'tgt': id $id, token '"
        expect_in "a target token with $kind: says what is wrong" "$ERR" "$said"
        expect_empty "a target token with $kind: nothing on stdout" "$OUT"
    done
    # The attention of the longest sentence is bounded (1 GiB): a file that claims 8
    # heads and max_len 4096 (no tensor depends on either) would need 2 GiB for a
    # sentence of 4096 tokens; it is refused at load, at once.
    A=$TMP/attention.db
    cp "$M" "$A"
    sql_exec "$A" "UPDATE meta SET value = '4096' WHERE key = 'max_len';
                   UPDATE meta SET value = '8' WHERE key = 'n_heads';
                   DELETE FROM meta WHERE key = 'content_fnv1a64';"
    run_bounded 20 translate --model "$A" "$G1"
    expect_code "a model needing 2 GiB of attention for one sentence: translate exit 3" 3
    expect_in "a model needing 2 GiB of attention: says why" "$ERR" \
        "attention weights of one sentence"
}

# ---------------------------------------------------------------------------------------
# One writer per model: a model being trained is locked for its
# writer; a second writer is refused at once (exit 5, the file named), whatever --force
# says, and readers still read. Two new runs started together never share a temporary
# file: one trains, the other is refused, and the file is whole.

section_writers() {
    L=$TMP/lock.db
    rm -f "$L" "$L"-* "$L".*tmp*
    # shellcheck disable=SC2086
    "$BIN" train --train "$TMP/tr.tsv" --out "$L" --epochs 100000 $TINY >/dev/null \
        2>"$TMP/lock.err" &
    pid=$!
    wait_for "$L"
    # shellcheck disable=SC2086
    run train --train "$TMP/tr.tsv" --out "$L" --force --epochs 1 $TINY
    expect_code "train --force over a file being trained: exit 5" 5
    expect_in "train --force over a file being trained: names the file" "$ERR" \
        "$L: being written by another process"
    run train --train "$TMP/tr.tsv" --out "$L" --resume --epochs 100000
    expect_code "train --resume of a file being trained: exit 5" 5
    run init --train "$TMP/tr.tsv" --out "$L" --force
    expect_code "init --force over a file being trained: exit 5" 5
    run translate --model "$L" "$G1"
    expect_code "translate of a file being trained: exit 0" 0
    kill -INT "$pid" 2>/dev/null
    wait "$pid"
    code=$?
    if [ "$code" -eq 130 ]; then
        pass "the run holding the lock ends with its own checkpoint (exit 130)"
    else
        fail "the run holding the lock ends with its own checkpoint" "exit $code: $(head -c 200 "$TMP/lock.err")"
    fi
    run info --model "$L"
    expect_code "the locked run's file loads afterwards" 0
    if [ -n "$SQL_TOOL" ]; then
        ic=$(sql_query "$L" "PRAGMA integrity_check" 2>&1)
        if [ "$ic" = ok ]; then
            pass "the locked run's file passes integrity_check"
        else
            fail "the locked run's file passes integrity_check" "$ic"
        fi
    fi

    rm -f "$L" "$L"-* "$L".*tmp*
    # shellcheck disable=SC2086
    "$BIN" train --train "$TMP/tr.tsv" --out "$L" --force --epochs 30 $TINY >/dev/null \
        2>"$TMP/lock1.err" &
    p1=$!
    # shellcheck disable=SC2086
    "$BIN" train --train "$TMP/tr.tsv" --out "$L" --force --epochs 30 $TINY >/dev/null \
        2>"$TMP/lock2.err" &
    p2=$!
    wait "$p1"
    c1=$?
    wait "$p2"
    c2=$?
    case "$c1 $c2" in
    "0 5" | "5 0" | "0 0") pass "two new runs together: each trains or is refused ($c1 $c2)" ;;
    *) fail "two new runs together: each trains or is refused" "exits $c1 $c2: $(cat "$TMP/lock1.err" "$TMP/lock2.err" | grep toytrans | head -c 300)" ;;
    esac
    run train --train "$TMP/tr.tsv" --out "$L" --resume --epochs 30
    expect_code "two new runs together: the file left is a whole, finished run" 0
    expect_in "two new runs together: the file left is a whole, finished run (says so)" "$OUT" "trained"
    if ls "$L".*tmp* >/dev/null 2>&1; then
        fail "two new runs together: no temporary file left" "$(ls "$L".*tmp*)"
    else
        pass "two new runs together: no temporary file left"
    fi
}

# ---------------------------------------------------------------------------------------
# Crashes: kill -9 at random moments, SIGINT and SIGTERM

CE=12                             # epochs of a crash run: 156 steps, about a second
CRASH="$TINY --dropout 0.1 --checkpoint-every 1"
REF_STEP=156

# The uninterrupted run every resumed one must equal (translate --json of $TMP/probe.txt);
# its wall time in ms, RUN_MS, bounds the moments of the kills (1000 if date has no %N).
make_reference() {
    t0=$(date +%s%N)
    # shellcheck disable=SC2086
    "$BIN" train --train "$TMP/tr.tsv" --out "$TMP/ref.db" --epochs $CE $CRASH >/dev/null 2>&1
    t1=$(date +%s%N)
    case $t0$t1 in
    *N*) RUN_MS=1000 ;;
    *) RUN_MS=$(((t1 - t0) / 1000000)) ;;
    esac
    run_in "$TMP/probe.txt" translate --model "$TMP/ref.db" --json
    cp "$OUT" "$TMP/ref.json"
}

# same_as_reference FILE: "" when FILE's translations equal the reference's (or RUNNER is
# set), else why not.
same_as_reference() {
    step=$(sql_query "$1" "SELECT value FROM meta WHERE key = 'train_step'")
    if [ "$step" != "$REF_STEP" ]; then
        echo "ended at step '$step', not $REF_STEP"
        return
    fi
    [ -n "$RUNNER" ] && return
    run_in "$TMP/probe.txt" translate --model "$1" --json
    cmp -s "$OUT" "$TMP/ref.json" || echo "translations differ from an uninterrupted run"
}

# A kill right after the file appears, before the first step: the file is a checkpoint
# from its first moment. A corpus of 4,000 pairs makes that moment last.
section_kill_early() {
    head -4000 data/train.tsv >"$TMP/tr4k.tsv"
    E=$TMP/early.db
    # shellcheck disable=SC2086
    "$BIN" train --train "$TMP/tr4k.tsv" --out "$E" --epochs 1 $CRASH >/dev/null 2>&1 &
    pid=$!
    n=0
    while [ ! -e "$E" ] && [ $n -lt 6000 ]; do
        sleep 0.01
        n=$((n + 1))
    done
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    # info first: the kill may have left a hot journal, which only toytrans rolls back.
    run info --model "$E"
    expect_code "kill -9 as the file appears: it loads" 0
    step=$(sql_query "$E" "SELECT value FROM meta WHERE key = 'train_step'" 2>/dev/null)
    echo "# killed at train_step '$step' (0: before the first step)"
    # shellcheck disable=SC2086
    run train --train "$TMP/tr4k.tsv" --out "$E" --epochs 1 $CRASH --resume --stop-after 2
    expect_code "kill -9 as the file appears: train --resume continues it" 0
}

section_kill_loop() {
    if [ -z "$SQL_TOOL" ]; then
        echo "# skipped: the kill -9 loop (no sqlite3, no python3 sqlite3 for integrity_check)"
        return
    fi
    if [ -n "$RUNNER" ]; then
        trials=${CRASH_TRIALS:-2}
    else
        trials=${CRASH_TRIALS:-20}
    fi
    seed=$SEED
    echo "# kill -9 loop: $trials trials within ${RUN_MS}ms + 10% (an uninterrupted run)," \
        "CRASH_SEED=$seed (set it to repeat these moments)"
    K=$TMP/k.db
    i=0
    for ms in $(randoms "$seed" "$trials" 0 $((RUN_MS * 11 / 10 + 20))); do
        i=$((i + 1))
        rm -f "$K" "$K"-* "$K".*tmp
        # Without RUNNER: the kill must land where a real one would (see the top).
        # shellcheck disable=SC2086
        "$BIN" train --train "$TMP/tr.tsv" --out "$K" --epochs $CE $CRASH >/dev/null 2>"$TMP/k.err" &
        pid=$!
        ms_sleep "$ms"
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        kc=$?
        resume=$((i % 4 == 1))
        why=""
        case $kc in
        137) what="killed" ;;
        0) what="finished first" ;;
        *) why="train exited $kc before the kill: $(head -c 200 "$TMP/k.err")" ;;
        esac
        if [ -n "$why" ]; then
            :
        elif [ ! -e "$K" ]; then
            # Killed before the model appeared: there is none, and a new run (no --force)
            # starts over whatever the killed one left behind.
            what="$what before the file appeared"
            run info --model "$K"
            [ "$CODE" -eq 3 ] || why="info on the missing file exited $CODE, not 3"
            if [ -z "$why" ] && [ $resume = 1 ]; then
                # shellcheck disable=SC2086
                run train --train "$TMP/tr.tsv" --out "$K" --epochs $CE $CRASH
                if [ "$CODE" -ne 0 ]; then
                    why="a new run after the kill exited $CODE: $(head -c 200 "$ERR")"
                elif [ -n "$(ls "$K".*tmp 2>/dev/null | grep -v "^$K\.$pid\.tmp\$")" ]; then
                    # The killed run's own K.PID.tmp may stay (it is removed once a
                    # minute old); the new run must leave none of its own.
                    why="the new run left $(ls "$K".*tmp | grep -v "^$K\.$pid\.tmp\$")"
                else
                    why=$(same_as_reference "$K")
                    what="$what; a new run completed"
                fi
            fi
        else
            # toytrans first: it must read the file as the kill left it (a read-only
            # sqlite3 cannot roll back a hot journal; toytrans's readers do).
            run info --model "$K"
            if [ "$CODE" -ne 0 ]; then
                why="info exited $CODE: $(head -c 200 "$ERR")"
            else
                run translate --model "$K" "$G1"
                if [ "$CODE" -ne 0 ] || [ "$(wc -l <"$OUT")" -ne 1 ]; then
                    why="translate exited $CODE: $(head -c 200 "$ERR")"
                fi
            fi
            ic=$(sql_query "$K" "PRAGMA integrity_check" 2>&1)
            step=$(sql_query "$K" "SELECT value FROM meta WHERE key = 'train_step'" 2>&1)
            what="$what at step $step"
            if [ -n "$why" ]; then
                :
            elif [ "$ic" != ok ]; then
                why="integrity_check: $ic"
            elif ! expr "$step" : '[0-9][0-9]*$' >/dev/null; then
                why="not a checkpoint (train_step '$step')"
            fi
            if [ -z "$why" ] && [ $resume = 1 ]; then
                # shellcheck disable=SC2086
                run train --train "$TMP/tr.tsv" --out "$K" --epochs $CE $CRASH --resume
                if [ "$CODE" -ne 0 ]; then
                    why="train --resume exited $CODE: $(head -c 200 "$ERR")"
                else
                    why=$(same_as_reference "$K")
                    what="$what; resumed to the end"
                fi
            fi
        fi
        if [ -z "$why" ]; then
            pass "kill -9 trial $i/$trials after $ms ms: $what; the file is sound"
        else
            fail "kill -9 trial $i/$trials after $ms ms (CRASH_SEED=$seed)" "$what: $why"
        fi
    done
}

# SIGINT (and SIGTERM) at seeded moments: exit 130 with a checkpoint, resumable to the end.
section_signals() {
    seed=$((SEED + 1))
    if [ -n "$RUNNER" ]; then
        moments=$(randoms "$seed" 1 0 300)
    else
        # From 50 ms (the handler is installed by then; the file does not exist yet) on.
        moments=$(randoms "$seed" 4 50 $((RUN_MS * 9 / 10 + 60)))
    fi
    echo "# signal moments (ms): $(printf '%s\n' "$moments" | tr '\n' ' ')(CRASH_SEED=$SEED)"
    S=$TMP/s.db
    i=0
    for ms in $moments; do
        i=$((i + 1))
        sig=INT
        [ $i -eq 4 ] && sig=TERM
        rm -f "$S" "$S"-*
        # shellcheck disable=SC2086
        $RUNNER "$BIN" train --train "$TMP/tr.tsv" --out "$S" --epochs $CE $CRASH \
            >/dev/null 2>"$TMP/s.err" &
        pid=$!
        # Under RUNNER the process takes a while to start: its handler is only known to
        # be installed once the file exists.
        [ -n "$RUNNER" ] && wait_for "$S"
        ms_sleep "$ms"
        kill -"$sig" "$pid" 2>/dev/null # the run may have ended: said below
        wait "$pid"
        CODE=$?
        if [ "$CODE" -eq 0 ]; then
            echo "# SIG$sig after $ms ms: the run had finished; nothing to resume"
            continue
        fi
        expect_code "SIG$sig after $ms ms: exit 130" 130
        expect_in "SIG$sig after $ms ms: says the checkpoint is saved" "$TMP/s.err" \
            "interrupted; checkpoint saved in $S (--resume continues)"
        step=$(sql_query "$S" "SELECT value FROM meta WHERE key = 'train_step'")
        run translate --model "$S" "$G1"
        expect_code "SIG$sig after $ms ms: the checkpoint (step $step) translates" 0
        # shellcheck disable=SC2086
        run train --train "$TMP/tr.tsv" --out "$S" --epochs $CE $CRASH --resume
        expect_code "SIG$sig after $ms ms: train --resume runs to the end" 0
        why=$(same_as_reference "$S")
        if [ -z "$why" ]; then
            pass "SIG$sig after $ms ms: resumed, the weights of an uninterrupted run${RUNNER:+ (steps only, under RUNNER)}"
        else
            fail "SIG$sig after $ms ms: resumed equals uninterrupted" "$why"
        fi
    done
}

# ---------------------------------------------------------------------------------------

if [ -n "${CRASH_ONLY-}" ]; then
    make_reference
    section_kill_loop
else
    section_input
    section_line_bounds
    section_models
    section_corpus
    section_resume_state
    section_resume_position
    section_vocab_tokens
    section_writers
    make_reference
    section_kill_early
    section_kill_loop
    section_signals
fi

exec 2>&3 3>&-
if [ -s "$TMP/script.err" ]; then
    fail "the script's own commands print nothing on stderr" "they printed:"
    sed 's/^/    | /' "$TMP/script.err"
else
    pass "the script's own commands print nothing on stderr"
fi

echo "$passed passed, $failed failed"
if [ "$failed" -ne 0 ]; then
    exit 1
fi
exit 0
