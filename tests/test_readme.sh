#!/bin/sh
# test_readme.sh — every command that README.md and docs/*.md show does what they show.
#
# Usage: tests/test_readme.sh [--torch] BIN [RUNNER]   (from the repository root)
#
# A command block is a fenced block whose info string is "sh", or that has a line
# beginning with "$ " or ">>> ". Each one must follow a marker line:
#
#   <!-- example -->             run, and its output compared
#   <!-- example: torch -->      the same, but only with --torch, which runs these alone
#                                (make check-torch: where, and only where, the PyTorch
#                                bridge is tested; one of them runs tests/test_torch.sh)
#   <!-- example: needs PROG -->  the same, where the program PROG is installed (one the
#                                build does not need, such as the sqlite3 shell)
#   <!-- example: slow -->       the same, but given a RUNNER its toytrans runs without
#                                it: a whole test set or a training run takes valgrind a
#                                quarter of an hour, and the code they run is run under
#                                it by tests/test_cli.sh and tests/test_honesty.sh on
#                                smaller inputs
#   <!-- not run: REASON -->     shown, not run; the test prints the reason
#
# A command block without one fails the test, so no page can show a command that no
# one runs or excuses. In an example each line beginning with "$ " is a command (a line
# ending in a backslash continues it on the next line); the lines after it, up to the
# next command or the end of the block, are what it prints (blank lines before the next
# command or the end only separate commands). A line of the form "toytrans: ...",
# "toytrans CMD: ...", "toytrans_torch.MODULE: ..." (also with torchrun's "[default0]:"
# before it) or "WARNING:..." (Python's logging) and the lines after it are expected on
# stderr, in order; the lines before it on stdout.
# A "…" in an expected line matches any characters, and a line that is "…" alone any
# number of lines: for what varies (times) or what a page leaves out. A command
# followed by ">>> " lines is a Python session: those lines and the output shown under
# them are run as a doctest with that command (`CMD -m doctest FILE`), which must print
# nothing.
#
# Each page's commands run in order in one sh, from the repository root, so that what
# one sets (a variable, PATH) holds for the next; standard input is /dev/null, TMPDIR
# a directory of this test (so `mktemp -d` makes nothing that outlives it), and
# "toytrans" is BIN (under RUNNER), whatever PATH a command set. The exit status is not
# checked: the output is. Then: the pages leave no file behind in the clone; make demo
# ends with the line that puts toytrans on the PATH and the README's first command is
# that line; no command block spells the binary build/release/toytrans; the README's
# training command has make model's settings.
set -u
TORCH=0
if [ "${1-}" = --torch ]; then
    TORCH=1
    shift
fi
if [ $# -lt 1 ]; then
    echo "usage: $0 [--torch] BIN [RUNNER]" >&2
    exit 2
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
RUNNER=${2-}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/toytrans-readme.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' HUP INT TERM
mkdir "$TMP/bin" "$TMP/scratch"
# "toytrans" in an example is this build (under RUNNER when one is given).
{
    echo '#!/bin/sh'
    echo "exec $RUNNER \"$BIN\" \"\$@\""
} >"$TMP/bin/toytrans"
chmod +x "$TMP/bin/toytrans"
# ... and in a slow example, this build without the RUNNER.
mkdir "$TMP/plain"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$BIN" >"$TMP/plain/toytrans"
chmod +x "$TMP/plain/toytrans"
cd "$ROOT" || exit 2

passed=0
failed=0
pass() {
    passed=$((passed + 1))
    printf 'ok - %s\n' "$1"
}
fail() {
    failed=$((failed + 1))
    printf 'FAIL - %s\n' "$1"
}

# The files under the clone that are neither tracked nor build output, and the tracked
# files' state: what a page's commands must leave as they found it.
snapshot() {
    if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$ROOT" status --porcelain --ignored --untracked-files=all 2>/dev/null |
            grep -v -e ' build/' -e '__pycache__/' -e 'node_modules/'
    else
        find . -path ./build -prune -o -name __pycache__ -prune -o -name node_modules -prune \
            -o -type f -newer "$TMP/bin/toytrans" -print | sort
    fi
}

# glob_match EXPECTED GOT: GOT's lines match EXPECTED's ("…" as above); exit 0 if so.
glob_match() {
    LC_ALL=C awk -v ell='…' '
        FNR == NR { e[++ne] = $0; next }
        { a[++na] = $0 }
        function line(p, s,    n, parts, i, at, k) {
            if (index(p, ell) == 0)
                return p == s
            n = split(p, parts, ell)
            if (substr(s, 1, length(parts[1])) != parts[1])
                return 0
            at = length(parts[1]) + 1
            for (i = 2; i < n; i++) {
                k = index(substr(s, at), parts[i])
                if (k == 0)
                    return 0
                at += k - 1 + length(parts[i])
            }
            return length(s) - at + 1 >= length(parts[n]) &&
                   substr(s, length(s) - length(parts[n]) + 1) == parts[n]
        }
        function m(i, j,    k) {
            if ((i, j) in memo)
                return memo[i, j]
            if (i > ne)
                return memo[i, j] = (j > na)
            if (e[i] == ell) {
                for (k = j; k <= na + 1; k++)
                    if (m(i + 1, k))
                        return memo[i, j] = 1
                return memo[i, j] = 0
            }
            if (j > na)
                return memo[i, j] = 0
            return memo[i, j] = (line(e[i], a[j]) && m(i + 1, j + 1))
        }
        END { exit m(1, 1) ? 0 : 1 }
    ' "$1" "$2"
}

# Split one page into its commands: DIR/NNN.cmd (the command), .out and .err (what it
# prints), .doc (a doctest), .where (page:line); DIR/skips (page:line TAB reason) and
# DIR/unmarked (page:line of command blocks without a marker).
split_page() {
    awk -v dir="$2" -v page="$1" -v torch="$TORCH" '
        function start_block() {
            inside = 1
            kind = marker
            marker = ""
            n_in_block = 0
            blank = 0
            cont = 0
            doc = 0
            block_line = NR
            body_n = 0
        }
        function end_block(    i, cmdblock) {
            inside = 0
            cmdblock = (info == "sh")
            for (i = 1; i <= body_n; i++)
                if (body[i] ~ /^\$ / || body[i] ~ /^>>> /)
                    cmdblock = 1
            if (!cmdblock)
                return
            if (kind == "")
                print page ":" block_line > (dir "/unmarked")
            else if (kind ~ /^not run: /)
                print page ":" block_line "\t" substr(kind, 10) > (dir "/skips")
            else if (kind ~ /^needs / && system("command -v " substr(kind, 7) " >/dev/null 2>&1") != 0)
                print page ":" block_line "\tno " substr(kind, 7) " here" > (dir "/skips")
            else if (kind == "torch" && !torch)
                print page ":" block_line "\tPython and torchrun: make check-torch runs it" > (dir "/skips")
            else if (kind != "torch" && torch) {
            } else
                run_block()
        }
        function run_block(    i, line) {
            cont = 0
            doc = 0
            blank = 0
            for (i = 1; i <= body_n; i++) {
                line = body[i]
                if (cont) {
                    print line > (file ".cmd")
                    cont = (line ~ /\\$/)
                    continue
                }
                if (line ~ /^\$ /) {
                    n++
                    file = sprintf("%s/%03d", dir, n)
                    print substr(line, 3) > (file ".cmd")
                    printf "" > (file ".out")
                    printf "" > (file ".err")
                    print page ":" (block_line + i) > (file ".where")
                    if (kind == "slow")
                        printf "" > (file ".slow")
                    cont = (line ~ /\\$/)
                    doc = 0
                    blank = 0
                    err = 0
                    continue
                }
                if (n == 0)
                    continue
                if (line ~ /^>>> / || (doc && line ~ /^\.\.\. /)) {
                    if (!doc)
                        printf "" > (file ".doc")
                    doc = 1
                }
                if (doc) {
                    print line > (file ".doc")
                    continue
                }
                if (line == "") {
                    blank++
                    continue
                }
                if (line ~ /^toytrans( [a-z-]+)?: / || line ~ /^(\[default[0-9]+\]:)?toytrans_torch\.[a-z_]+: / ||
                    line ~ /^WARNING:/)
                    err = 1
                if (err) {
                    for (; blank > 0; blank--)
                        print "" > (file ".err")
                    print line > (file ".err")
                } else {
                    for (; blank > 0; blank--)
                        print "" > (file ".out")
                    print line > (file ".out")
                }
                blank = 0
            }
        }
        /^<!-- example -->$/ && !inside { marker = "example"; next }
        /^<!-- example: torch -->$/ && !inside { marker = "torch"; next }
        /^<!-- example: slow -->$/ && !inside { marker = "slow"; next }
        /^<!-- example: needs [a-z0-9_.-]+ -->$/ && !inside { marker = "needs " $4; next }
        /^<!-- not run: .* -->$/ && !inside {
            marker = $0
            sub(/^<!-- /, "", marker)
            sub(/ -->$/, "", marker)
            next
        }
        /^```/ {
            if (inside) {
                end_block()
            } else {
                info = substr($0, 4)
                start_block()
            }
            next
        }
        inside { body[++body_n] = $0; next }
        { marker = "" }
        END { print n + 0 > (dir "/count") }
    ' "$1"
}

pages="README.md $(ls docs/*.md)"
before=$(snapshot)
for page in $pages; do
    d=$TMP/$(printf '%s' "$page" | tr '/.' '__')
    mkdir "$d"
    split_page "$page" "$d"
    if [ -f "$d/unmarked" ]; then
        while read -r where; do
            fail "$where: a command block with no marker (<!-- example -->, <!-- example: torch --> or <!-- not run: why -->)"
        done <"$d/unmarked"
    fi
    if [ -f "$d/skips" ]; then
        while IFS='	' read -r where why; do
            echo "skip - $where: not run here: $why"
        done <"$d/skips"
    fi
    count=$(cat "$d/count")
    [ "$count" -gt 0 ] || continue
    # One sh per page: each command's output to its own files, then toytrans is this
    # build again, whatever PATH the command set.
    {
        echo "cd \"$ROOT\" || exit 2"
        echo "export TMPDIR=\"$TMP/scratch\""
        echo "PATH=\"$TMP/bin:\$PATH\""
        i=1
        while [ "$i" -le "$count" ]; do
            f=$(printf '%s/%03d' "$d" "$i")
            if [ -f "$f.slow" ] && [ -n "$RUNNER" ]; then
                echo "PATH=\"$TMP/plain:\$PATH\""
            fi
            if [ -f "$f.doc" ]; then
                printf '{ %s -m doctest "%s.doc"\n' "$(cat "$f.cmd")" "$f"
            else
                echo "{ $(cat "$f.cmd")"
            fi
            echo "} </dev/null >\"$f.gotout\" 2>\"$f.goterr\""
            echo "PATH=\"$TMP/bin:\$PATH\""
            i=$((i + 1))
        done
    } >"$d/session.sh"
    sh "$d/session.sh" </dev/null >"$d/session.log" 2>&1
    i=1
    while [ "$i" -le "$count" ]; do
        f=$(printf '%s/%03d' "$d" "$i")
        desc="$(cat "$f.where"): $(head -n 1 "$f.cmd")"
        if [ -f "$f.slow" ] && [ -n "$RUNNER" ]; then
            desc="$desc (a slow example: run without $RUNNER)"
        fi
        if [ ! -f "$f.gotout" ]; then
            fail "$desc: not run (the page's shell stopped before it)"
            sed 's/^/    | /' "$d/session.log"
        elif glob_match "$f.out" "$f.gotout" && glob_match "$f.err" "$f.goterr"; then
            pass "$desc"
        else
            fail "$desc"
            diff "$f.out" "$f.gotout" | sed 's/^/    stdout | /'
            diff "$f.err" "$f.goterr" | sed 's/^/    stderr | /'
        fi
        i=$((i + 1))
    done
done
after=$(snapshot)
if [ "$before" = "$after" ]; then
    pass "the pages' commands leave no file in the clone"
else
    fail "the pages' commands leave no file in the clone"
    printf '%s\n' "$before" >"$TMP/before"
    printf '%s\n' "$after" >"$TMP/after"
    diff "$TMP/before" "$TMP/after" | sed 's/^/    | /'
fi

if [ "$TORCH" = 0 ]; then
    # One spelling: a command says toytrans, which the README's first command puts on
    # the PATH, and make demo ends with that line (with the clone's directory for $PWD).
    spelled=$(awk '/^```/ { inside = !inside; next } inside && /build\/release\/toytrans/ {
                       print FILENAME ":" FNR }' $pages)
    if [ -z "$spelled" ]; then
        pass "no command block spells the binary build/release/toytrans"
    else
        fail "no command block spells the binary build/release/toytrans: $(echo $spelled)"
    fi
    line='export PATH="$PWD/build/release:$PATH"'
    first=$(sed -n '/^<!-- example -->$/,$p' README.md | sed -n 's/^\$ //p' | head -n 1)
    case $first in
    "$line"*) pass "the README's first command puts toytrans on the PATH" ;;
    *) fail "the README's first command puts toytrans on the PATH: it is '$first'" ;;
    esac
    # In a directory laid out as a clone with its release build (a stand-in binary: the
    # sanitizer and valgrind runs test another build, and a fresh clone's release build
    # may not exist), the line puts that binary first on the PATH.
    fake=$TMP/clone
    mkdir -p "$fake/build/release"
    printf '#!/bin/sh\n' >"$fake/build/release/toytrans"
    chmod +x "$fake/build/release/toytrans"
    found=$(cd "$fake" && env -i HOME="$HOME" PATH=/usr/bin:/bin sh -c "$line; command -v toytrans")
    if [ "$found" = "$fake/build/release/toytrans" ]; then
        pass "after it, toytrans is the clone's build/release/toytrans"
    else
        fail "after it, toytrans is the clone's build/release/toytrans: '$found'"
    fi
    # make demo only in the release build, which is the one it runs.
    if [ "$BIN" = "$ROOT/build/release/toytrans" ] && [ -z "$RUNNER" ]; then
        last=$(make -s --no-print-directory -C "$ROOT" demo 2>/dev/null | tail -n 1)
        want="export PATH=\"$ROOT/build/release:\$PATH\""
        if [ "$last" = "$want" ]; then
            pass "make demo ends with the line that puts toytrans on the PATH"
        else
            fail "make demo ends with the line that puts toytrans on the PATH: '$last', not '$want'"
        fi
    fi

    # The training command the README shows is make model's: the same settings, in order.
    settings=$(sed -n '/^MODEL_SETTINGS = /,/[^\\]$/p' Makefile | sed 's/^MODEL_SETTINGS = //; s/\\$//' |
        tr -s ' \n' '  ' | sed 's/^ *//; s/ *$//')
    readme=$(tr '\n' ' ' <README.md | tr -d '\\' | tr -s ' ' ' ')
    if [ -n "$settings" ] && printf '%s' "$readme" | grep -qF -- "$settings"; then
        pass "README's training command has make model's settings"
    else
        fail "README's training command has make model's settings: $settings"
    fi
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
