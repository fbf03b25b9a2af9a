# cli_lib.sh — the helpers of the command-line tests (tests/test_cli.sh,
# tests/test_matrix_cli.sh), sourced by both after they set:
#
#   BIN     the toytrans binary
#   RUNNER  a command prefix (valgrind ...) or empty, split on blanks on purpose
#   OUT ERR files that take a run's stdout and stderr
#   passed failed CODE   counters (0) and the last run's exit status
#
# Every check prints "ok - DESC" or "FAIL - DESC: why" and counts itself.

# run ARGS...: runs BIN (under RUNNER) with stdout to $OUT, stderr to $ERR; sets CODE.
run() {
    # RUNNER is unquoted on purpose: it is a command prefix with its own words.
    # shellcheck disable=SC2086
    $RUNNER "$BIN" "$@" >"$OUT" 2>"$ERR"
    CODE=$?
}

# run_to FILE ARGS...: as run, but stdout goes to FILE (such as /dev/full).
run_to() {
    target=$1
    shift
    # shellcheck disable=SC2086
    $RUNNER "$BIN" "$@" >"$target" 2>"$ERR"
    CODE=$?
}

# run_in FILE ARGS...: as run, with standard input from FILE.
run_in() {
    source=$1
    shift
    # shellcheck disable=SC2086
    $RUNNER "$BIN" "$@" <"$source" >"$OUT" 2>"$ERR"
    CODE=$?
}

# expect_file_eq DESC FILE TEXT: FILE holds exactly TEXT (plus a final newline).
expect_file_eq() {
    if [ "$(cat "$2")" = "$3" ]; then
        pass "$1"
    else
        fail "$1" "expected '$3'"
        show "$2"
    fi
}

pass() {
    passed=$((passed + 1))
    printf 'ok - %s\n' "$1"
}

fail() {
    failed=$((failed + 1))
    printf 'FAIL - %s: %s\n' "$1" "$2"
}

# First lines of a file, indented, for a failure report.
show() {
    if [ -s "$1" ]; then
        sed -n '1,5s/^/    | /p' "$1"
    else
        echo "    | (empty)"
    fi
}

# expect_code DESC WANT: the last run's exit status is WANT.
expect_code() {
    if [ "$CODE" -eq "$2" ]; then
        pass "$1"
    else
        fail "$1" "expected exit $2, got $CODE"
        echo "    stderr:"
        show "$ERR"
    fi
}

# expect_in DESC FILE TEXT: FILE contains the fixed string TEXT.
expect_in() {
    if grep -F -e "$3" "$2" >/dev/null 2>&1; then
        pass "$1"
    else
        fail "$1" "expected \"$3\" in $(basename "$2")"
        show "$2"
    fi
}

# expect_not_in DESC FILE TEXT: FILE does not contain the fixed string TEXT.
expect_not_in() {
    if grep -F -e "$3" "$2" >/dev/null 2>&1; then
        fail "$1" "did not expect \"$3\" in $(basename "$2")"
        show "$2"
    else
        pass "$1"
    fi
}

# expect_empty DESC FILE: FILE is empty.
expect_empty() {
    if [ -s "$2" ]; then
        fail "$1" "expected empty $(basename "$2"), got $(wc -c <"$2" | tr -d ' ') bytes"
        show "$2"
    else
        pass "$1"
    fi
}

# expect_nonempty DESC FILE: FILE is not empty.
expect_nonempty() {
    if [ -s "$2" ]; then
        pass "$1"
    else
        fail "$1" "expected output on $(basename "$2"), got none"
    fi
}

# expect_first_line DESC FILE PREFIX: FILE's first line begins with PREFIX.
expect_first_line() {
    first=$(sed -n '1p' "$2")
    case $first in
    "$3"*) pass "$1" ;;
    *) fail "$1" "expected first line to begin with '$3', got '$first'" ;;
    esac
}

# expect_usage_error DESC ARGS...: a bad command line — exit 2, a message on stderr,
# nothing on stdout.
expect_usage_error() {
    desc=$1
    shift
    run "$@"
    expect_code "$desc: exit 2" 2
    expect_nonempty "$desc: message on stderr" "$ERR"
    expect_empty "$desc: nothing on stdout" "$OUT"
}
