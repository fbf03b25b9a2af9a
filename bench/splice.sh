#!/bin/sh
# bench/splice.sh — puts a generated table into a page: replaces the lines between
#   <!-- begin NAME: ... -->   and   <!-- end NAME -->
# in DOC with the contents of FILE (the marker lines stay), so that a page's measured
# tables come from the measurement itself (make coverage-measure UPDATE=1, make
# honesty-measure UPDATE=1). DOC is replaced whole, through a temporary file beside it.
#
#   sh bench/splice.sh DOC NAME FILE
set -eu
if [ $# -ne 3 ]; then
    echo "usage: sh bench/splice.sh DOC NAME FILE" >&2
    exit 2
fi
doc=$1 name=$2 file=$3
for marker in "<!-- begin $name: " "<!-- end $name -->"; do
    if [ "$(grep -c -F -- "$marker" "$doc")" -ne 1 ]; then
        echo "splice: $doc needs exactly one line with '$marker'" >&2
        exit 1
    fi
done
tmp=$doc.$$.tmp
trap 'rm -f "$tmp"' EXIT
awk -v name="$name" -v file="$file" '
    index($0, "<!-- begin " name ": ") == 1 {
        print
        while ((getline line < file) > 0)
            print line
        skip = 1
        next
    }
    $0 == "<!-- end " name " -->" { skip = 0 }
    !skip { print }
' "$doc" >"$tmp"
mv "$tmp" "$doc"
trap - EXIT
