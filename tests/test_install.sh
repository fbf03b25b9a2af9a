#!/bin/sh
# test_install.sh — `make install` and `make uninstall` with blanks in DESTDIR and PREFIX:
# every path of the recipes is one word, so install puts the files where they belong and
# uninstall removes the files it installed (the binary, the models, the man page and
# the word lists' licence notices, share/doc/toytrans/SOURCES.md, and LICENSE) and nothing else (a DESTDIR "/x/victim x" must not
# remove /x/victim); uninstall also removes the directories install made, when empty.
#
#   sh tests/test_install.sh BIN
#
# BIN is the release binary under build/ (the Makefile's FLAVOUR is taken from its
# directory); run from the source tree. Prints "ok - ..." or "FAIL - ..." per check and
# ends with "N passed, M failed"; exits 1 if any check failed.

if [ $# -ne 1 ]; then
    echo "usage: sh tests/test_install.sh BIN" >&2
    exit 2
fi
BIN=$1
RUNNER=
FLAVOUR_DIR=$(basename "$(dirname "$BIN")")
if [ ! -f Makefile ] || [ ! -f models/en-de.db ] || ! command -v make >/dev/null 2>&1; then
    echo "test_install.sh: run from the source tree, with models/en-de.db and make" >&2
    exit 2
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/toytrans-install.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' HUP INT TERM
OUT=$TMP/stdout
ERR=$TMP/stderr
passed=0
failed=0
CODE=0
# shellcheck source=tests/cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

# mk TARGET VAR=VALUE...: make TARGET quietly, stdout and stderr to files; sets CODE.
mk() {
    make -s --no-print-directory "$@" FLAVOUR="$FLAVOUR_DIR" >"$OUT" 2>"$ERR"
    CODE=$?
}

# The victim of a DESTDIR split on its blank: "$TMP/x/victim x" read as two words
# would make uninstall run rm -f $TMP/x/victim.
mkdir -p "$TMP/x"
echo precious >"$TMP/x/victim"
mk uninstall DESTDIR="$TMP/x/victim x"
expect_code "make uninstall DESTDIR='.../victim x' (nothing installed): exit 0" 0
if [ -f "$TMP/x/victim" ] && [ "$(cat "$TMP/x/victim")" = precious ]; then
    pass "make uninstall DESTDIR='.../victim x': the file .../victim is untouched"
else
    fail "make uninstall DESTDIR='.../victim x': the file .../victim is untouched" "it is gone"
fi

# DESTDIR with a blank: the staged tree is complete, then uninstall takes it away again,
# with the directories install made (PREFIX's included), but not DESTDIR itself.
D="$TMP/dest dir"
mk install DESTDIR="$D" PREFIX=/usr
expect_code "make install DESTDIR='.../dest dir': exit 0" 0
if [ -x "$D/usr/bin/toytrans" ] && cmp -s models/en-de.db "$D/usr/share/toytrans/en-de.db" &&
    [ -f "$D/usr/share/man/man1/toytrans.1" ] &&
    cmp -s data/SOURCES.md "$D/usr/share/doc/toytrans/SOURCES.md" &&
    cmp -s LICENSE "$D/usr/share/doc/toytrans/LICENSE"; then
    pass "make install DESTDIR='.../dest dir': binary, model, man page, SOURCES.md and LICENSE under it"
else
    fail "make install DESTDIR='.../dest dir': binary, model, man page, SOURCES.md and LICENSE under it" \
        "$(find "$TMP" -type f | tr '\n' ' ')"
fi
if [ -e "$TMP/dest" ]; then
    fail "make install DESTDIR='.../dest dir': nothing under .../dest" "$(find "$TMP/dest")"
else
    pass "make install DESTDIR='.../dest dir': nothing under .../dest"
fi
mk uninstall DESTDIR="$D" PREFIX=/usr
expect_code "make uninstall DESTDIR='.../dest dir': exit 0" 0
left=$(find "$D" -mindepth 1 | tr '\n' ' ')
if [ -d "$D" ] && [ -z "$left" ]; then
    pass "make uninstall DESTDIR='.../dest dir': the files and the directories made for them removed"
else
    fail "make uninstall DESTDIR='.../dest dir': the files and the directories made for them removed" \
        "left: $left"
fi

# PREFIX with a blank: the installed binary finds its model there; a directory that
# holds something else survives uninstall.
P="$TMP/pre fix"
mk install PREFIX="$P"
expect_code "make install PREFIX='.../pre fix': exit 0" 0
(cd / && "$P/bin/toytrans" translate "This is an example" >"$OUT" 2>"$ERR")
CODE=$?
expect_code "installed under '.../pre fix', run from /: exit 0" 0
expect_file_eq "installed under '.../pre fix': translates with the installed model" "$OUT" \
    "Das ist ein Beispiel"
if [ -f "$P/share/doc/toytrans/SOURCES.md" ] &&
    sed 's/\\-/-/g' "$P/share/man/man1/toytrans.1" 2>/dev/null |
    grep -qF "$P/share/toytrans/de-en.db"; then
    pass "installed under '.../pre fix': SOURCES.md, and a man page that names the prefix"
else
    fail "installed under '.../pre fix': SOURCES.md, and a man page that names the prefix" \
        "$(find "$P" -type f | tr '\n' ' ')"
fi
echo mine >"$P/bin/other-tool"
mk uninstall PREFIX="$P"
expect_code "make uninstall PREFIX='.../pre fix': exit 0" 0
if [ ! -e "$P/bin/toytrans" ] && [ ! -e "$P/share" ] && [ -f "$P/bin/other-tool" ]; then
    pass "make uninstall PREFIX='.../pre fix': its files and empty directories gone, bin/ with another file kept"
else
    fail "make uninstall PREFIX='.../pre fix': its files and empty directories gone, bin/ with another file kept" \
        "$(find "$P" | tr '\n' ' ')"
fi

# make bench writes its table into build/ unless asked to update the committed one
# (UPDATE=1): a measurement on one machine must not rewrite a tracked file by default.
# make -n only prints the recipe; nothing is measured.
for update in "" 1; do
    make -n --no-print-directory bench UPDATE="$update" FLAVOUR="$FLAVOUR_DIR" 2>/dev/null |
        grep 'bench/run.sh' >"$OUT"
    want=build/bench/results.md
    [ "$update" = 1 ] && want=bench/results.md
    if grep -q " $want\$" "$OUT"; then
        pass "make bench${update:+ UPDATE=1} writes its table to $want"
    else
        fail "make bench${update:+ UPDATE=1} writes its table to $want" "recipe: $(cat "$OUT")"
    fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
