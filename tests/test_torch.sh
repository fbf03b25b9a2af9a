#!/bin/sh
# test_torch.sh — the bridge to PyTorch (python/toytrans_torch): `toytrans info` shows
# another trainer's provenance; files written by its save() load in toytrans with every
# check on, and a damaged one is refused.
#
#   sh tests/test_torch.sh BIN
#
# BIN is the toytrans binary. Needs Debian's python3-torch (`make torch-deps`), or the
# Python that TOYTRANS_PYTHON names; without torch the torch checks are skipped with a
# message. Prints "ok - ..." or "FAIL - ..." per check and ends with "N passed, M failed";
# exits 1 if any check failed.

if [ $# -ne 1 ]; then
    echo "usage: sh tests/test_torch.sh BIN" >&2
    exit 2
fi
BIN=$1
RUNNER=
if [ ! -x "$BIN" ]; then
    echo "test_torch.sh: '$BIN' is not an executable" >&2
    exit 2
fi
PY=${TOYTRANS_PYTHON:-/usr/bin/python3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")

TMP=$(mktemp -d "${TMPDIR:-/tmp}/toytrans-torch.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' HUP INT TERM

OUT=$TMP/stdout
ERR=$TMP/stderr
passed=0
failed=0
CODE=0

# shellcheck source=tests/cli_lib.sh
. "$(dirname "$0")/cli_lib.sh"

# py ARGS...: Python with the package importable; stdout to $OUT, stderr to $ERR.
py() {
    PYTHONPATH="$ROOT/python" TOYTRANS="$BIN" OMP_NUM_THREADS=1 "$PY" "$@" >"$OUT" 2>"$ERR"
    CODE=$?
}

if [ ! -x "$PY" ]; then
    echo "# SKIP: no $PY: the PyTorch bridge is not tested (make torch-deps installs it)"
    echo "0 passed, 0 failed"
    exit 0
fi

# ---------------------------------------------------------------------------------------
# info shows another trainer's provenance (Python's sqlite3 only, no torch needed)

cp "$ROOT/tests/fixtures/tiny.db" "$TMP/prov.db"
"$PY" - "$TMP/prov.db" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
with db:
    db.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)",
                   [("train_engine", "PyTorch DDP (DistributedDataParallel), gloo backend, cpu"),
                    ("train_world_size", "2")])
EOF
"$PY" "$ROOT/tests/fixtures/content_checksum.py" "$TMP/prov.db" --write >/dev/null
run info --model "$TMP/prov.db"
expect_code "info on a file with train_engine and train_world_size: exit 0" 0
expect_in "info: 'trained by' shows train_engine" "$OUT" "  trained by          PyTorch DDP (DistributedDataParallel)"
expect_in "info: 'world size' shows train_world_size" "$OUT" "  world size          2"

# ---------------------------------------------------------------------------------------
# PyTorch there?

if ! "$PY" -c 'import torch, numpy' >/dev/null 2>&1; then
    echo "# SKIP: python3-torch is not installed and could not be installed here" \
         "(as root, make torch-deps installs it): the PyTorch checks are not run"
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
fi

# ---------------------------------------------------------------------------------------
# save(): a file toytrans loads with every check on; a damaged byte is refused

py -c 'import sys, toytrans_torch as tt
model, vocabularies, config = tt.load(sys.argv[1])
tt.save(sys.argv[2], model, vocabularies, config, {"created_by": "toytrans_torch.save test"})' \
    "$ROOT/models/en-de.db" "$TMP/saved.db"
expect_code "load the shipped model in PyTorch and save it again: exit 0" 0
run info --model "$TMP/saved.db"
expect_code "info on the saved file: exit 0" 0
expect_in "info on the saved file: the weights load" "$OUT" "load: every tensor present"
expect_in "info on the saved file: its provenance" "$OUT" "toytrans_torch.save test"
run translate --model "$TMP/saved.db" "This is an example"
expect_code "translate with the saved file: exit 0" 0
expect_file_eq "translate with the saved file: the shipped model's words" "$OUT" "Das ist ein Beispiel"
run check "$ROOT/data/regression.tsv" --model "$TMP/saved.db"
expect_code "the saved file passes the shipped regression set" 0
"$PY" "$ROOT/tests/fixtures/content_checksum.py" "$TMP/saved.db" >"$OUT" 2>"$ERR"
CODE=$?
expect_code "the saved file's checksum, computed independently, is the one stored" 0
if [ -n "$(ls "$TMP"/*.tmp 2>/dev/null)" ]; then
    fail "save leaves no temporary file" "$(ls "$TMP"/*.tmp)"
else
    pass "save leaves no temporary file"
fi

# One byte of a float in generator.weight, changed in the file itself: still a valid
# database and a finite number, so only the content checksum can tell.
cp "$TMP/saved.db" "$TMP/damaged.db"
"$PY" - "$TMP/damaged.db" <<'EOF'
import sqlite3, sys
path = sys.argv[1]
db = sqlite3.connect(path)
blob = db.execute("SELECT data FROM tensor WHERE name = 'generator.weight'").fetchone()[0]
db.close()
data = bytearray(open(path, "rb").read())
needle = blob[400:432]
at = data.find(needle)
assert at >= 0 and data.find(needle, at + 1) < 0, "the bytes are not unique in the file"
data[at] ^= 0x01            # the lowest mantissa bit of a float
open(path, "wb").write(data)
EOF
run translate --model "$TMP/damaged.db" "This is an example"
expect_code "translate with a byte of a weight changed: exit 3" 3
expect_in "translate with a byte changed: the checksum says so" "$ERR" "checksum"
py -c 'import sys, toytrans_torch as tt; tt.load(sys.argv[1])' "$TMP/damaged.db"
if [ "$CODE" -ne 0 ] && grep -q "content checksum" "$ERR"; then
    pass "toytrans_torch.load refuses the damaged file too"
else
    fail "toytrans_torch.load refuses the damaged file too" "exit $CODE"
    show "$ERR"
fi
py -c 'import sys, toytrans_torch as tt
model, v, config = tt.load(sys.argv[1])
v.tgt[9] = "zwei Wörter"
tt.save(sys.argv[2], model, v, config, {})' "$ROOT/models/en-de.db" "$TMP/badtoken.db"
if [ "$CODE" -ne 0 ] && grep -q "tgt vocabulary id 9: the token contains U+0020" "$ERR" &&
    [ ! -e "$TMP/badtoken.db" ]; then
    pass "save refuses a token the tokenizer cannot make, and writes nothing"
else
    fail "save refuses a token the tokenizer cannot make, and writes nothing" "exit $CODE"
    show "$ERR"
fi

echo "$passed passed, $failed failed"
if [ "$failed" -ne 0 ]; then
    exit 1
fi
exit 0
