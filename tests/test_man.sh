#!/bin/sh
# test_man.sh — the man page toytrans(1) as `make` builds it: mandoc finds nothing to
# warn about, it fits an 80-column terminal, it has the sections man-pages(7) lists in
# their order, a subsection per command, and names the installed files, not the build
# machine's.
#
#   sh tests/test_man.sh BIN PAGE PREFIX
#
# BIN the toytrans the page was made from, PAGE the page (build/FLAVOUR/toytrans.1),
# PREFIX the installation prefix it was made for. Needs mandoc (make man-deps); without
# it the test fails rather than pass unchecked. Prints "ok - ..." or "FAIL - ..." per
# check and ends with "N passed, M failed"; exits 1 if any check failed.

if [ $# -ne 3 ]; then
    echo "usage: sh tests/test_man.sh BIN PAGE PREFIX" >&2
    exit 2
fi
BIN=$1
PAGE=$2
PREFIX=$3
if ! command -v mandoc >/dev/null 2>&1; then
    echo "test_man.sh: mandoc is needed (make man-deps installs Debian's mandoc)" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/toytrans-man.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' HUP INT TERM
OUT=$TMP/stdout
ERR=$TMP/stderr
passed=0
failed=0
CODE=0
# shellcheck source=tests/cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

mandoc -Tlint -W warning "$PAGE" >"$OUT" 2>&1
CODE=$?
expect_code "mandoc -Tlint -W warning: exit 0" 0
expect_empty "mandoc -Tlint -W warning: nothing to warn about" "$OUT"

# As a terminal of 80 columns shows it (ASCII: one byte a column; overstrike removed).
TEXT=$TMP/page.txt
mandoc -Tascii -O width=80 "$PAGE" | sed 's/.\x08//g' >"$TEXT"
awk 'length($0) > 80' "$TEXT" >"$OUT"
expect_empty "rendered at 80 columns: no line is wider" "$OUT"

# The sections, in man-pages(7)'s order (COMMANDS is the page's own, after OPTIONS).
grep '^[A-Z]' "$TEXT" | sed '1d' | tr '\n' '|' >"$OUT"
expect_file_eq "sections in man-pages(7)'s order" "$OUT" \
    "NAME|SYNOPSIS|DESCRIPTION|OPTIONS|COMMANDS|EXIT STATUS|ENVIRONMENT|FILES|EXAMPLES|SEE ALSO|"

# The footer's date is a date; the header names the version.
expect_in "the title has a date" "$PAGE" ".TH TOYTRANS 1 20"
expect_in "the title has the version" "$PAGE" "\"toytrans $("$BIN" --version | cut -d' ' -f2)\""

# Every command of `toytrans --help` has its subsection, with its options.
missing=""
for cmd in $("$BIN" --help | awk '/^Commands:/ {on = 1; next} on && NF == 0 {on = 0} on {print $1}'); do
    grep -qx "   $cmd" "$TEXT" || missing="$missing $cmd"
done
if [ -z "$missing" ]; then
    pass "a subsection per command"
else
    fail "a subsection per command" "missing:$missing"
fi
expect_in "translate's --beam is described" "$TEXT" "beam search with N hypotheses"

# The installed files, not the machine the page was built on.
expect_in "FILES: the installed en-de model" "$TEXT" "$PREFIX/share/toytrans/en-de.db"
expect_in "FILES: the installed de-en model" "$TEXT" "$PREFIX/share/toytrans/de-en.db"
expect_in "FILES: the word lists' sources" "$TEXT" "$PREFIX/share/doc/toytrans/SOURCES.md"
expect_not_in "no build-tree path" "$TEXT" "$(pwd)"
expect_not_in "no state of the build machine (not there)" "$TEXT" "(not there)"
expect_not_in "no state of the build machine (now unset)" "$TEXT" "(now unset)"
expect_not_in "the synopsis is not a usage line" "$TEXT" "Usage:"
expect_in "ENVIRONMENT: TOYTRANS_MODEL" "$TEXT" "TOYTRANS_MODEL"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
