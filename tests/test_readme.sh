#!/bin/sh
# test_readme.sh — the examples in README.md are the program's real output.
#
# Usage: tests/test_readme.sh BIN [RUNNER]   (from the repository root)
#
# A code block whose fence follows a line "<!-- example -->" is an example: each line
# beginning with "$ " is a command, and the lines after it, up to the next command or
# the end of the block, are exactly what it prints (blank lines before the next command
# or the end only separate examples). Lines of the form "toytrans CMD: ..."
# are expected on stderr, in order; all the others on stdout, in order. A command is run
# by sh from the repository root, with "toytrans" meaning BIN (under RUNNER) and its
# exit status ignored: the output is what is checked. Then: the README's first command
# puts toytrans on the PATH, make demo ends with that line, and no command block spells
# the binary build/release/toytrans.
set -u
if [ $# -lt 1 ]; then
    echo "usage: $0 BIN [RUNNER]" >&2
    exit 2
fi
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
RUNNER=${2-}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/toytrans-readme.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
mkdir "$TMP/bin"
# "toytrans" in an example is this build (under RUNNER when one is given).
{
    echo '#!/bin/sh'
    echo "exec $RUNNER \"$BIN\" \"\$@\""
} >"$TMP/bin/toytrans"
chmod +x "$TMP/bin/toytrans"

# Split the examples into files: NNN.cmd (the command), NNN.out and NNN.err (expected).
awk -v dir="$TMP" '
    /^<!-- example -->$/ { armed = 1; next }
    /^```/ {
        if (inside) { inside = 0; blank = 0; next }
        if (armed) { inside = 1; armed = 0; next }
        next
    }
    { armed = 0 }
    inside && /^\$ / {
        n++
        file = sprintf("%s/%03d", dir, n)
        print substr($0, 3) > (file ".cmd")
        printf "" > (file ".out")
        printf "" > (file ".err")
        blank = 0
        next
    }
    inside && n > 0 && $0 == "" { blank++; next }
    inside && n > 0 {
        if ($0 ~ /^toytrans [a-z-]+: /) {
            print > (file ".err")
        } else {
            for (; blank > 0; blank--)
                print "" > (file ".out")
            print > (file ".out")
        }
        blank = 0
    }
    END { print n + 0 > (dir "/count") }
' README.md

count=$(cat "$TMP/count")
passed=0
failed=0
if [ "$count" -lt 1 ]; then
    echo "FAIL - README.md: no example blocks (<!-- example --> before a fence)"
    exit 1
fi
i=1
while [ "$i" -le "$count" ]; do
    f=$(printf '%s/%03d' "$TMP" "$i")
    cmd=$(cat "$f.cmd")
    PATH="$TMP/bin:$PATH" sh -c "$cmd" >"$f.gotout" 2>"$f.goterr"
    if cmp -s "$f.out" "$f.gotout" && cmp -s "$f.err" "$f.goterr"; then
        passed=$((passed + 1))
        echo "ok - README example: $cmd"
    else
        failed=$((failed + 1))
        echo "FAIL - README example: $cmd"
        diff "$f.out" "$f.gotout" | sed 's/^/    stdout | /'
        diff "$f.err" "$f.goterr" | sed 's/^/    stderr | /'
    fi
    i=$((i + 1))
done
# One spelling: a command says toytrans, which the README's first command puts on the
# PATH, and make demo ends with that line (with the clone's directory for $PWD).
spelled=$(awk '/^```/ { inside = !inside; next } inside && /build\/release\/toytrans/ {
                   print FILENAME ":" FNR }' README.md docs/*.md)
if [ -z "$spelled" ]; then
    passed=$((passed + 1))
    echo "ok - no command block spells the binary build/release/toytrans"
else
    failed=$((failed + 1))
    echo "FAIL - no command block spells the binary build/release/toytrans:" $spelled
fi
line='export PATH="$PWD/build/release:$PATH"'
first=$(sed -n '/^<!-- example -->$/,$p' README.md | sed -n 's/^\$ //p' | head -n 1)
case $first in
"$line"*)
    passed=$((passed + 1))
    echo "ok - the README's first command puts toytrans on the PATH" ;;
*)
    failed=$((failed + 1))
    echo "FAIL - the README's first command puts toytrans on the PATH: it is '$first'" ;;
esac
ROOT=$(pwd)
found=$(env -i HOME="$HOME" PATH=/usr/bin:/bin sh -c "$line; command -v toytrans")
if [ "$found" = "$ROOT/build/release/toytrans" ]; then
    passed=$((passed + 1))
    echo "ok - after it, toytrans is $ROOT/build/release/toytrans"
else
    failed=$((failed + 1))
    echo "FAIL - after it, toytrans is $ROOT/build/release/toytrans: '$found'"
fi
# make demo only in the release build, which is the one it runs.
if [ "$BIN" = "$ROOT/build/release/toytrans" ] && [ -z "$RUNNER" ]; then
    last=$(make -s --no-print-directory demo 2>/dev/null | tail -n 1)
    want="export PATH=\"$ROOT/build/release:\$PATH\""
    if [ "$last" = "$want" ]; then
        passed=$((passed + 1))
        echo "ok - make demo ends with the line that puts toytrans on the PATH"
    else
        failed=$((failed + 1))
        echo "FAIL - make demo ends with the line that puts toytrans on the PATH: '$last', not '$want'"
    fi
fi

# The training command the README shows is make model's: the same settings, in order.
settings=$(sed -n '/^MODEL_SETTINGS = /,/[^\\]$/p' Makefile | sed 's/^MODEL_SETTINGS = //; s/\\$//' |
    tr -s ' \n' '  ' | sed 's/^ *//; s/ *$//')
readme=$(tr '\n' ' ' <README.md | tr -d '\\' | tr -s ' ' ' ')
if [ -n "$settings" ] && printf '%s' "$readme" | grep -qF -- "$settings"; then
    passed=$((passed + 1))
    echo "ok - README's training command has make model's settings"
else
    failed=$((failed + 1))
    echo "FAIL - README's training command has make model's settings: $settings"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
