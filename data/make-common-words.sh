#!/bin/sh
# make-common-words.sh — writes data/common-words.txt, the common English words that the
# translator does not take for names (src/text/wordlist.h, docs/honesty.md), from SCOWL as
# Debian's wamerican package ships it (data/SOURCES.md: source, version, licence).
#
#   sh data/make-common-words.sh [DICT]    (DICT: /usr/share/dict/american-english)
#
# A development-time script, run once when the list is to be renewed; neither the build
# nor the tests run it (the Makefile compiles the committed data file into the library).
# Needs the wamerican package (apt-get install wamerican), grep and sort in a UTF-8
# locale (C.UTF-8), and python3 for the NFC normalisation.
#
# What it keeps and why:
#   - only the entries without an upper-case letter: a word list's capitalised entries
#     ("Anna", "Paris", "English", "iPad") are proper names, and an entry such as
#     "Élysée" is kept out by the UTF-8 locale's [:upper:], not only A-Z;
#   - no possessives ("dog's"): the lookup strips a final 's or ’s before it searches
#     (wordlist_is_common), so "dog" covers "dog's", and the list stays half as long;
#   - plurals and other inflections as the list has them ("girls", "read", "reading");
#   - NFC, one word a line, sorted bytewise (LC_ALL=C), no duplicates: the order the
#     library's binary search needs.
set -eu

DICT=${1:-/usr/share/dict/american-english}
OUT=$(dirname "$0")/common-words.txt

if [ ! -r "$DICT" ]; then
    echo "make-common-words.sh: cannot read $DICT (Debian: apt-get install wamerican)" >&2
    exit 1
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "make-common-words.sh: python3 is needed for the NFC normalisation" >&2
    exit 1
fi

LC_ALL=C.UTF-8 grep -v '[[:upper:]]' "$DICT" |
    LC_ALL=C grep -v "'s\$" |
    python3 -c 'import sys, unicodedata
for line in sys.stdin:
    sys.stdout.write(unicodedata.normalize("NFC", line))' |
    LC_ALL=C sort -u >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"

version=$(dpkg-query -W -f '${Version}' wamerican 2>/dev/null || echo unknown)
echo "make-common-words.sh: $(wc -l <"$OUT") words from $DICT (wamerican $version) in $OUT"
