#!/bin/sh
# mkman.sh — writes the man page toytrans(1) to standard output: docs/man/toytrans.1.in
# with its @WORD@s filled in from the binary's own help texts, so that the page and
# `toytrans COMMAND --help` cannot disagree.
#
#   sh docs/man/mkman.sh BIN DATADIR DOCDIR DATE
#
# BIN the toytrans to ask; DATADIR and DOCDIR where `make install` puts the models and
# the documentation (PREFIX/share/toytrans, PREFIX/share/doc/toytrans); DATE the page's
# date, YYYY-MM-DD (digits and hyphens only). Lines of the template that are one @WORD@ alone become:
#   @COMMAND_LIST@  the list of commands of `toytrans --help`
#   @COMMANDS@      a subsection per command: its --help, re-flowed (help2roff.awk)
#   @EXIT_STATUS@   `toytrans help exit-codes`
# Fails (exit 1) when the binary does.

set -u
if [ $# -ne 4 ]; then
    echo "usage: sh docs/man/mkman.sh BIN DATADIR DOCDIR DATE" >&2
    exit 2
fi
BIN=$1
DIR=$(dirname "$0")
AWK="awk -f $DIR/help2roff.awk"

# roff(s): a path or a word as roff text (backslashes and hyphens escaped), then as a
# sed replacement (its own metacharacters & | and \ escaped).
roff() {
    printf '%s' "$1" | sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e 's/[&|\\]/\\&/g'
}
version=$("$BIN" --version | cut -d' ' -f2) || exit 1
commands=$("$BIN" --help | awk '/^Commands:/ {on = 1; next} on && NF == 0 {on = 0} on {print $1}') ||
    exit 1
case $4 in *[!0-9-]* | '') echo "mkman.sh: DATE must be YYYY-MM-DD, not '$4'" >&2; exit 2 ;; esac
[ -n "$commands" ] || { echo "mkman.sh: $BIN --help lists no commands" >&2; exit 1; }

while IFS= read -r line; do
    case $line in
    @COMMAND_LIST@)
        # The list and what follows it; the SYNOPSIS and NAME say the rest.
        "$BIN" --help | sed -n '/^Commands:/,$p' | $AWK -v nousage=1 || exit 1 ;;
    @COMMANDS@)
        for cmd in $commands; do
            printf '.SS %s\n' "$cmd"
            "$BIN" "$cmd" --help | $AWK || exit 1
        done ;;
    @EXIT_STATUS@)
        # Right under the heading, where a paragraph macro would be skipped.
        "$BIN" help exit-codes | $AWK -v nousage=1 | sed '1{/^\.PP$/d;}' || exit 1 ;;
    *)
        printf '%s\n' "$line" ;;
    esac
done <"$DIR/toytrans.1.in" | sed -e "s|@VERSION@|$(roff "$version")|g" \
    -e "s|@DATE@|$4|g" -e "s|@DATADIR@|$(roff "$2")|g" -e "s|@DOCDIR@|$(roff "$3")|g"
