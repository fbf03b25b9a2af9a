#!/bin/sh
# test_torch.sh — the bridge to PyTorch (python/toytrans_torch), both directions:
# `toytrans info` shows another trainer's provenance; files written by its save() load
# in toytrans with every check on, and a damaged one is refused; a model trained by two
# processes with torchrun and DistributedDataParallel (gloo, CPU) loads in toytrans,
# passes `toytrans check` of its own regression set and decodes as PyTorch does;
# resuming continues a run exactly; DDP's averaged gradient is the whole batch's.
#
#   sh tests/test_torch.sh BIN
#
# BIN is the toytrans binary. Needs Debian's python3-torch (`make torch-deps`), or the
# Python that TOYTRANS_PYTHON names; without them the script fails (exit 1): `make test
# TORCH=0` is how to leave it out. Prints "ok - ..." or "FAIL - ..." per check and ends with "N passed, M failed";
# exits 1 if any check failed. Bounded to about a minute or two on two busy cores.

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

# One thread per process, in torch and in OpenBLAS: two processes share two cores, and
# the resumed run must repeat the uninterrupted one's arithmetic exactly.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

# py ARGS...: Python with the package importable; stdout to $OUT, stderr to $ERR.
py() {
    PYTHONPATH="$ROOT/python" TOYTRANS="$BIN" "$PY" "$@" >"$OUT" 2>"$ERR"
    CODE=$?
}

# expect_same DESC A B: files A and B are byte-identical.
expect_same() {
    if cmp -s "$2" "$3"; then
        pass "$1"
    else
        fail "$1" "$(basename "$2") and $(basename "$3") differ"
    fi
}

# expect_no_traceback DESC: the last run's stderr holds a message, not a Python traceback.
expect_no_traceback() {
    if grep -q "^Traceback" "$ERR"; then
        fail "$1: a message, not a traceback" "$(tail -n 1 "$ERR")"
    else
        pass "$1: a message, not a traceback"
    fi
}

# A suite that cannot run fails: a green run must mean the checks ran. To leave them out
# on purpose, `make test TORCH=0` does not call this script.
if [ ! -x "$PY" ]; then
    echo "FAIL - the PyTorch bridge can be tested: no $PY (make torch-deps installs it;" \
         "make test TORCH=0 leaves these checks out)"
    echo "0 passed, 1 failed"
    exit 1
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
    fail "the PyTorch bridge can be tested" "$PY cannot import torch and numpy (make" \
         "torch-deps installs them; make test TORCH=0 leaves these checks out)"
    echo "$passed passed, $failed failed"
    exit 1
fi

# Debian's torchrun (PyTorch 1.13 on Python 3.11) cannot parse its own default
# --redirects/--tee value "0" (Python 3.11 no longer iterates a zero flag), and fails
# before starting a worker. Naming single streams works around it: workers' stdout goes
# to their log files, their stderr to the console as well.
TORCHRUN="torchrun"
command -v torchrun >/dev/null 2>&1 || TORCHRUN="$PY -m torch.distributed.run"
if ! "$PY" -c 'import sys
from torch.distributed.elastic.multiprocessing.api import Std
sys.exit(Std.from_str("0") is None)' 2>/dev/null; then
    TORCHRUN="$TORCHRUN --redirects 1 --tee 2 --log_dir $TMP/torchrun-logs"
fi
echo "# launcher: $TORCHRUN"

# One machine, its rendezvous on a port the system picks: --standalone of PyTorch 1.13
# listens on the fixed port 29400, so two test runs at once collide (one of them even
# joins the other's store).
LOCAL="--nnodes=1 --rdzv_backend=c10d --rdzv_endpoint=localhost:0 --rdzv_id=toytrans-test-$$"

# torchrun_py ARGS...: torchrun with the package importable; a run that hangs (a
# process waiting for a peer that died) is ended after 5 minutes. With a log directory,
# the console copy of the workers' stderr is not what the checks read: torchrun tails
# the log files and may copy a line in two pieces, each with its "[defaultN]:" prefix.
# $ERR is then each worker's own stderr, rank by rank, then the launcher's own lines.
torchrun_py() {
    rm -rf "$TMP/torchrun-logs"
    # TORCHRUN is unquoted on purpose: a command with its options.
    # shellcheck disable=SC2086
    PYTHONPATH="$ROOT/python" TOYTRANS="$BIN" timeout 300 $TORCHRUN "$@" >"$OUT" 2>"$ERR.console"
    CODE=$?
    if [ -d "$TMP/torchrun-logs" ]; then
        for rank in 0 1 2 3; do
            find "$TMP/torchrun-logs" -path "*/attempt_*/$rank/stderr.log" -exec cat {} +
        done >"$ERR"
        grep -v '^\[default[0-9]*\]:' "$ERR.console" >>"$ERR"
    else
        mv "$ERR.console" "$ERR"
    fi
}

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

# translate() copies a generated <unk> as toytrans translate does (the most attended
# source word, as typed): the same text for every sentence of data/honesty.tsv, a third
# of which have words the model does not know.
grep -v -e '^#' -e '^$' "$ROOT/data/honesty.tsv" | cut -f1 >"$TMP/honesty.src"
run_in "$TMP/honesty.src" translate --no-read-back
cp "$OUT" "$TMP/honesty.cli"
py - "$ROOT/models/en-de.db" "$TMP/honesty.src" "$TMP/honesty.cli" <<'EOF'
import sys, toytrans_torch as tt
model, _, _ = tt.load(sys.argv[1])
lines = open(sys.argv[2], encoding="utf-8").read().splitlines()
cli = open(sys.argv[3], encoding="utf-8").read().splitlines()
out = [tt.translate(model, s) for s in lines]
differ = [(s, a, b.text) for s, a, b in zip(lines, cli, out) if a != b.text]
copied = sum(any(t.copied) for t in out)
print(f"{len(lines)} sentences, {copied} with a copied word, {len(differ)} differ")
for d in differ[:5]:
    print("  %s: toytrans %r, PyTorch %r" % d)
sys.exit(1 if differ or len(lines) != len(cli) or copied == 0 else 0)
EOF
expect_code "translate() copies <unk> as toytrans does: data/honesty.tsv, the same texts" 0
[ "$CODE" -eq 0 ] || show "$OUT"

# Small hostile files, huge work: a header of 3.8 billion parameters (each field in its
# range) is refused by the 2^28 cap; the same with generated columns, whose values SQLite
# computes at each read (a 70 KB file, 7 GB of blobs), by the schema check before any
# value is read. Both as toytrans refuses them, exit 3. The memory limit keeps a reader
# that tries from taking the machine with it.
for kind in huge generated; do
    py "$ROOT/tests/torch_hostile.py" $kind "$ROOT/tests/fixtures/tiny.db" "$TMP/$kind.db"
    run info --model "$TMP/$kind.db"
    expect_code "toytrans info on the $kind file: exit 3" 3
    cp "$ERR" "$TMP/$kind.c-err"
    (ulimit -v 4000000 && py -m toytrans_torch.verify --model "$TMP/$kind.db" \
        --sentences "$ROOT/data/test.tsv" --limit 1 && exit "$CODE")
    CODE=$?
    expect_code "toytrans_torch.verify on the $kind file: exit 3" 3
    expect_no_traceback "toytrans_torch on the $kind file"
done
py "$ROOT/tests/torch_hostile.py" huge "$ROOT/tests/fixtures/tiny.db" "$TMP/huge.db"
py -m toytrans_torch.verify --model "$TMP/huge.db" --sentences "$ROOT/data/test.tsv" --limit 1
expect_in "the huge file, in PyTorch: 3.8 billion parameters, more than 2^28" "$ERR" \
    "needs 3759042575 parameters, more than the 268435456 (1 GiB of floats) a model may have"
expect_in "the huge file, in toytrans: the same cap" "$TMP/huge.c-err" \
    "more than the 268435456 (1 GiB of floats) a model may have"
py "$ROOT/tests/torch_hostile.py" generated "$ROOT/tests/fixtures/tiny.db" "$TMP/generated.db"
py -m toytrans_torch.verify --model "$TMP/generated.db" --sentences "$ROOT/data/test.tsv" --limit 1
expect_in "the generated file, in PyTorch: the generated column named" "$ERR" \
    "table 'embedding' column 'vector' is a generated or hidden column"
expect_in "the generated file, in toytrans: the generated column named" "$TMP/generated.c-err" \
    "table 'embedding' column 'vector' is a generated or hidden column"
rm -f "$TMP/huge.db" "$TMP/generated.db"

# One error type and toytrans's exit codes, never a traceback: a damaged page of the
# schema (SQLite's "malformed"), a d_model with a blank before it (toytrans refuses it), a
# vocabulary count 'abc': exit 3, as toytrans.
cp "$ROOT/tests/fixtures/tiny.db" "$TMP/malformed.db"
"$PY" - "$TMP/malformed.db" <<'EOF'
import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
data[100:140] = b"\xff" * 40      # the b-tree page header of sqlite_schema, on page 1
open(path, "wb").write(data)
EOF
cp "$ROOT/tests/fixtures/tiny.db" "$TMP/blank.db"
"$PY" - "$TMP/blank.db" "$TMP/count.db" <<'EOF'
import shutil, sqlite3, sys
shutil.copyfile(sys.argv[1], sys.argv[2])
for path, sql in ((sys.argv[1], "UPDATE meta SET value = ' 16' WHERE key = 'd_model'"),
                  (sys.argv[2], "UPDATE vocab SET count = 'abc' WHERE lang = 'tgt' AND id = 5")):
    db = sqlite3.connect(path)
    with db:
        db.execute(sql)
    db.close()
EOF
for case in malformed blank count; do
    run info --model "$TMP/$case.db"
    expect_code "toytrans info on the $case file: exit 3" 3
    py -m toytrans_torch.verify --model "$TMP/$case.db" --sentences "$ROOT/data/test.tsv" --limit 1
    expect_code "toytrans_torch on the $case file: exit 3" 3
    expect_no_traceback "toytrans_torch on the $case file"
done
expect_in "toytrans_torch: the count 'abc' named" "$ERR" "vocab 'tgt' id 5: the count is not an integer"

# A writer killed with kill -9 leaves PATH.PID.tmp and its journals; the next save
# removes those of a dead process (older than a minute, and not locked), and keeps a live
# writer's.
DEAD=999999999
for f in "" -wal -journal; do
    : >"$TMP/st.db.$DEAD.tmp$f"
    touch -d '2 minutes ago' "$TMP/st.db.$DEAD.tmp$f"
done
: >"$TMP/st.db.$$.tmp"
touch -d '2 minutes ago' "$TMP/st.db.$$.tmp"
py -c 'import sys, toytrans_torch as tt
model, vocabularies, config = tt.load(sys.argv[1])
tt.save(sys.argv[2], model, vocabularies, config, {})' "$ROOT/tests/fixtures/tiny.db" "$TMP/st.db"
expect_code "save beside a dead writer's temporaries: exit 0" 0
if [ -n "$(ls "$TMP/st.db.$DEAD".tmp* 2>/dev/null)" ]; then
    fail "save removes a dead writer's PATH.PID.tmp, -wal and -journal" \
        "$(ls "$TMP/st.db.$DEAD".tmp*)"
else
    pass "save removes a dead writer's PATH.PID.tmp, -wal and -journal"
fi
if [ -e "$TMP/st.db.$$.tmp" ]; then
    pass "save keeps a living process's temporary"
else
    fail "save keeps a living process's temporary" "it was removed"
fi
rm -f "$TMP"/st.db*

# The other direction: a model trained by `toytrans train` (the shipped one) decodes in
# PyTorch as in toytrans.
py -m toytrans_torch.verify --model "$ROOT/models/en-de.db" --sentences "$ROOT/data/test.tsv" \
    --limit 50 --beam 4 --tolerance 1e-4
expect_code "the shipped model in PyTorch: 50 test sentences decode alike (greedy, beam 4, log-probabilities within 1e-4)" 0
sed 's/^/# /' "$OUT"

# Beam search's rules (docs/model.md, "Decoding"): a finished hypothesis's slot is
# refilled, the output is never empty, the search stops on the bound. The ten test
# sentences (of an earlier data/test.tsv) on which beam 4 once stopped before its best
# hypothesis had finished ...
printf '%b\n' \
    'This girl loves and eats the very good bread\tDieses Mädchen liebt und isst das sehr gute Brot\tcoord-verb' \
    'My beautiful dogs do not eat their apple\tMeine schönen Hunde fressen ihren Apfel nicht\tpossessive' \
    'We are in his small house.\tWir sind in seinem kleinen Haus.\tdative' \
    'My cats eat and love the red apple.\tMeine Katzen fressen und lieben den roten Apfel.\tcoord-verb' \
    'The girl needs and eats your very good apple\tDas Mädchen braucht und isst deinen sehr guten Apfel\tcoord-verb' \
    'My teachers and this woman buy your table\tMeine Lehrer und diese Frau kaufen deinen Tisch\tcoord-np' \
    'My young cats find your very good teacher.\tMeine jungen Katzen finden deinen sehr guten Lehrer.\ttransitive' \
    'We read and write your beautiful letter.\tWir lesen und schreiben deinen schönen Brief.\tcoord-verb' \
    'We write my book and the new letter\tWir schreiben mein Buch und den neuen Brief\tcoord-np' \
    'We write and read the book\tWir schreiben und lesen das Buch\tcoord-verb' >"$TMP/beam.tsv"
py -m toytrans_torch.verify --model "$ROOT/models/en-de.db" --sentences "$TMP/beam.tsv" --beam 4
expect_code "beam 4 where it once lost to greedy: PyTorch and toytrans decode alike" 0
expect_in "beam 4 where it once lost to greedy: all 10 sentences compared" "$OUT" \
    "beam 4: 10/10 sentences equal token for token"
# ... and a random model whose greedy output of "the a the the" is </s> alone, which
# beam search may not output.
printf 'the a the the\tx\nthe the\tx\na the a\tx\n' >"$TMP/eos.tsv"
py -m toytrans_torch.verify --model "$ROOT/tests/fixtures/tiny_bias.db" --sentences "$TMP/eos.tsv" --beam 4
expect_code "beam 4 where greedy says </s> at once: PyTorch and toytrans decode alike" 0
expect_in "beam 4 where greedy says </s> at once: all 3 sentences compared" "$OUT" \
    "beam 4: 3/3 sentences equal token for token"

# --help describes every option: each one argparse lists has words after its name (on
# its line or the next), not the bare option alone.
py -m toytrans_torch.train --help
expect_code "toytrans_torch.train --help: exit 0" 0
undescribed=$(awk '/^options:/ { on = 1; next }
    on && /^  -/ {
        if (name != "" && !said) print name
        name = $1; sub(/,$/, "", name)
        line = $0; sub(/^  -[^ ]*( [A-Z_{},a-z]+)?(, --[^ ]+( [A-Z_{},a-z]+)?)?/, "", line)
        said = line ~ /[a-z]/; next
    }
    on && /^    / && name != "" { said = 1 }
    END { if (name != "" && !said) print name }' "$OUT" | tr '\n' ' ')
if [ -z "$undescribed" ] && grep -q -- '--regression-count' "$OUT"; then
    pass "toytrans_torch.train --help describes every option"
else
    fail "toytrans_torch.train --help describes every option" "none for: $undescribed"
fi

# ---------------------------------------------------------------------------------------
# Two processes, DDP on gloo: a tiny model, 153 steps on a slice of the corpus (4,800 pairs
# and 85 copies with names as <unk>)

TRAIN="--train $ROOT/data/train.tsv --valid $ROOT/data/valid.tsv --limit 4800 --epochs 1
       --batch 32 --lr 0.005 --warmup 20 --d-model 32 --heads 4 --d-ff 64 --max-len 40
       --valid-exact 20 --log-every 50 --checkpoint-every 40"
# shellcheck disable=SC2086
torchrun_py $LOCAL --nproc_per_node=2 -m toytrans_torch.train $TRAIN \
    --out "$TMP/ddp.db" --regression "$TMP/ddp.regression.tsv"
expect_code "torchrun --nproc_per_node=2 -m toytrans_torch.train: exit 0" 0
sed 's/^/# /' "$ERR" | grep "toytrans_torch.train"
expect_in "the run says it had two processes on gloo" "$ERR" "2 process(es), gloo backend, cpu"
expect_in "the run adds pairs with names as <unk> (name augmentation)" "$ERR" "with names as <unk>)"
if grep -q "(+0 with names as <unk>)" "$ERR"; then
    fail "name augmentation adds pairs" "it added none"
else
    pass "name augmentation adds pairs"
fi
run info --model "$TMP/ddp.db"
expect_code "info on the DDP-trained file: exit 0" 0
grep -E '^  (created by|trained by|world size|steps done|epochs done) ' "$OUT" | sed 's/^/# /'
expect_in "info: trained by PyTorch DDP" "$OUT" "  trained by          PyTorch"
expect_in "info: trained by PyTorch DDP (the engine)" "$OUT" "DDP (DistributedDataParallel), gloo backend, cpu"
expect_in "info: world size 2" "$OUT" "  world size          2"
expect_in "info: 153 steps done" "$OUT" "  steps done          153"
expect_in "info: the AdamW betas the PyTorch trainer used" "$OUT" "  AdamW beta2         0.98"
expect_in "info: the AdamW epsilon the PyTorch trainer used" "$OUT" "  AdamW epsilon       1e-09"
expect_in "info: the training history" "$OUT" "153 logged, steps 1 to 153, epochs 1 to 1"
expect_in "info: the epoch's validation" "$OUT" "lowest validation loss"
run check "$TMP/ddp.regression.tsv" --model "$TMP/ddp.db"
expect_code "toytrans check of the model's own regression set: exit 0" 0
expect_in "toytrans check: its 50 cases pass" "$OUT" "50 passed, 0 failed"
py -m toytrans_torch.verify --model "$TMP/ddp.db" --sentences "$ROOT/data/test.tsv" \
    --limit 50 --beam 4 --tolerance 1e-4
expect_code "50 test sentences: PyTorch and toytrans decode alike (greedy, beam 4, log-probabilities within 1e-4)" 0
sed 's/^/# /' "$OUT"

# A model whose greedy translation is empty (</s> first): --regression writes no case
# that toytrans check would refuse as malformed (an empty field), so that the two agree.
py - "$ROOT/models/en-de.db" "$ROOT/data/valid.tsv" "$TMP/empty.regression.tsv" "$BIN" <<'EOF'
import sys, argparse, torch
import toytrans_torch as tt
from toytrans_torch.modelfile import EOS
from toytrans_torch.train import write_regression
model, vocabs, config = tt.load(sys.argv[1])
with torch.no_grad():
    model.generator.bias[EOS] += 1000.0     # </s> wins every step, the first one included
args = argparse.Namespace(valid=sys.argv[2], train=None, toytrans=sys.argv[4],
                          regression_count=5, out="empty.db")
write_regression(sys.argv[3], model, vocabs, args)
EOF
expect_code "--regression of a model that translates into nothing: exit 0" 0
if grep -q '	$' "$TMP/empty.regression.tsv" 2>/dev/null; then
    fail "--regression writes no empty translation" \
        "$(grep -c '	$' "$TMP/empty.regression.tsv") lines end in a TAB"
else
    pass "--regression writes no empty translation"
fi
run check "$TMP/empty.regression.tsv" --model "$ROOT/models/en-de.db"
expect_code "toytrans check takes that --regression file: exit 0" 0

# ---------------------------------------------------------------------------------------
# Resume: stopped after 100 steps and resumed, the run ends with the same weights

# shellcheck disable=SC2086
torchrun_py $LOCAL --nproc_per_node=2 -m toytrans_torch.train $TRAIN \
    --out "$TMP/resumed.db" --stop-after 100
expect_code "a run stopped after 100 steps: exit 0" 0
run info --model "$TMP/resumed.db"
expect_in "the stopped run's checkpoint: 100 steps done" "$OUT" "  steps done          100"
# shellcheck disable=SC2086
torchrun_py $LOCAL --nproc_per_node=2 -m toytrans_torch.train \
    --train "$ROOT/data/train.tsv" --out "$TMP/resumed.db" --resume
expect_code "--resume: exit 0" 0
expect_in "--resume starts where the run stopped" "$ERR" "resuming at step 100"
py - "$TMP/ddp.db" "$TMP/resumed.db" <<'EOF'
import sys
import numpy as np
from toytrans_torch import read_model_file
a, b = read_model_file(sys.argv[1])[2], read_model_file(sys.argv[2])[2]
assert a.keys() == b.keys()
diff = max(float(np.abs(a[k] - b[k]).max()) for k in a)
print(f"largest difference between the weights of the whole run and the resumed one: {diff:.3g}")
sys.exit(0 if diff == 0.0 else 1)
EOF
expect_code "stopped and resumed, the weights equal the uninterrupted run's" 0
sed 's/^/# /' "$OUT"
# A resume keeps the run's settings: one given again must be the same (--lr was 0.005).
py -m toytrans_torch.train --train "$ROOT/data/train.tsv" --out "$TMP/resumed.db" --resume \
    --lr 0.001
expect_code "--resume --lr other than the run's: exit 2" 2
expect_in "--resume --lr other than the run's: names both values" "$ERR" \
    "--lr 0.001 differs from the run's (0.005); a resumed run keeps it"
run info --model "$TMP/resumed.db"
expect_in "the PyTorch trainer records its dropout" "$OUT" "  dropout             0"
# AdamW's settings are options, recorded as toytrans train records them, kept by a resume.
py -m toytrans_torch.train --train "$ROOT/data/train.tsv" --limit 200 --epochs 1 \
    --d-model 16 --heads 2 --d-ff 32 --max-len 40 --adam-beta2 0.99 --adam-eps 1e-8 \
    --out "$TMP/adam.db" --stop-after 2
expect_code "--adam-beta2 --adam-eps: exit 0" 0
run info --model "$TMP/adam.db"
expect_in "--adam-beta2: recorded" "$OUT" "  AdamW beta2         0.99"
expect_in "--adam-eps: recorded" "$OUT" "  AdamW epsilon       1e-08"
py -m toytrans_torch.train --train "$ROOT/data/train.tsv" --out "$TMP/adam.db" --resume \
    --adam-beta2 0.98
expect_code "--resume --adam-beta2 other than the run's: exit 2" 2
py -m toytrans_torch.train --train "$ROOT/data/train.tsv" --out "$TMP/adam.db" --resume \
    --adam-beta2 0.99 --stop-after 1
expect_code "--resume --adam-beta2 the run's own: exit 0" 0
# Nothing of a file is unpickled or handed to torch.load: PyTorch 1.13's
# torch.load(weights_only=True) hands a TorchScript archive to torch.jit.load, which runs
# its __setstate__ (CVE-2025-32434). Such an archive, creating a marker file, as the
# optimiser state of the torch_checkpoint table earlier versions read, and as every
# tensor of today's resume state (the checksum brought up to date): refused, exit 3
# (model unusable), and the marker never appears.
for kind in scriptmodule scriptmodule-tensors; do
    rm -f "$TMP/ran"
    py "$ROOT/tests/torch_hostile.py" $kind "$TMP/resumed.db" "$TMP/hostile.db" "$TMP/ran"
    expect_code "a $kind payload made" 0
    rm -f "$TMP/ran"
    py -m toytrans_torch.train --out "$TMP/hostile.db" --resume
    if [ "$CODE" -eq 3 ] && [ ! -e "$TMP/ran" ] && grep -q "cannot resume" "$ERR" &&
        ! grep -q Traceback "$ERR"; then
        pass "--resume refuses a TorchScript $kind payload with exit 3, and runs nothing"
    else
        fail "--resume refuses a TorchScript $kind payload with exit 3, and runs nothing" \
            "exit $CODE$([ -e "$TMP/ran" ] && echo ', and the payload ran')"
        show "$ERR"
    fi
done
py "$ROOT/tests/torch_hostile.py" scriptmodule "$TMP/resumed.db" "$TMP/hostile.db" "$TMP/ran"
py -m toytrans_torch.train --out "$TMP/hostile.db" --resume
expect_in "--resume of a file with a torch_checkpoint table: says it is not read" "$ERR" \
    "its resume state is in a torch_checkpoint table, which this version does not read"
# The resume state is under the content checksum: one changed moment is refused.
"$PY" - "$TMP/resumed.db" "$TMP/hostile.db" <<'EOF'
import shutil, sqlite3, sys
shutil.copyfile(sys.argv[1], sys.argv[2])
db = sqlite3.connect(sys.argv[2])
with db:
    name, data = db.execute("SELECT name, data FROM tensor WHERE name LIKE "
                            "'torch!_adamw.exp!_avg.%' ESCAPE '!' LIMIT 1").fetchone()
    data = bytearray(data)
    data[0] ^= 1
    db.execute("UPDATE tensor SET data = ? WHERE name = ?", (bytes(data), name))
EOF
py -m toytrans_torch.train --out "$TMP/hostile.db" --resume
expect_code "--resume with a moment of the resume state changed: exit 3" 3
expect_in "--resume with a moment changed: the content checksum says so" "$ERR" \
    "content checksum"
run info --model "$TMP/hostile.db"
expect_code "toytrans too refuses the file whose resume state changed (exit 3)" 3
rm -f "$TMP/hostile.db"
# A resume state changed with its checksum brought up to date: each value is checked, so
# a step that is text is refused (exit 3), not a TypeError.
"$PY" - "$TMP/resumed.db" "$TMP/hostile.db" <<'EOF'
import json, shutil, sqlite3, sys
shutil.copyfile(sys.argv[1], sys.argv[2])
db = sqlite3.connect(sys.argv[2])
with db:
    r = json.loads(db.execute("SELECT value FROM meta WHERE key = 'torch_resume'").fetchone()[0])
    r["position"]["step"] = "100"
    db.execute("UPDATE meta SET value = ? WHERE key = 'torch_resume'", (json.dumps(r),))
EOF
"$PY" "$ROOT/tests/fixtures/content_checksum.py" "$TMP/hostile.db" --write >/dev/null
py -m toytrans_torch.train --out "$TMP/hostile.db" --resume
expect_code "--resume with a step that is text (checksum updated): exit 3" 3
expect_in "--resume with a step that is text: names it" "$ERR" \
    "meta torch_resume position step is '100', not a count"
expect_no_traceback "--resume with a step that is text"
rm -f "$TMP/hostile.db"
# --train may be left out of --resume (the run's corpus is kept); another one is refused.
cp "$TMP/resumed.db" "$TMP/other.db"
py -m toytrans_torch.train --out "$TMP/other.db" --resume --train "$ROOT/data/valid.tsv"
expect_code "--resume --train with another corpus than the run's: exit 2" 2
expect_in "--resume --train with another corpus: says so" "$ERR" "is not the run's"
# No output over an input, as toytrans train: --out over the corpus even with --force,
# --regression over the validation corpus, or over a model without --force: exit 2, and
# the file is as it was.
head -n 300 "$ROOT/data/train.tsv" >"$TMP/c.tsv"
cp "$TMP/c.tsv" "$TMP/c0.tsv"
head -n 20 "$ROOT/data/valid.tsv" >"$TMP/v.tsv"
cp "$TMP/v.tsv" "$TMP/v0.tsv"
cp "$TMP/resumed.db" "$TMP/m.db"
cp "$TMP/m.db" "$TMP/m0.db"
SMALL="--limit 200 --epochs 1 --d-model 16 --heads 2 --d-ff 32 --max-len 40 --stop-after 1"
# shellcheck disable=SC2086
py -m toytrans_torch.train --train "$TMP/c.tsv" --out "$TMP/c.tsv" --force $SMALL
expect_code "--train c.tsv --out c.tsv --force: exit 2" 2
expect_in "--out over --train: says so" "$ERR" "is the same file as --train"
expect_same "--out over --train: the corpus is unchanged" "$TMP/c.tsv" "$TMP/c0.tsv"
# shellcheck disable=SC2086
py -m toytrans_torch.train --train "$TMP/c.tsv" --valid "$TMP/v.tsv" --out "$TMP/n.db" \
    --regression "$TMP/v.tsv" --force $SMALL
expect_code "--valid v.tsv --regression v.tsv --force: exit 2" 2
expect_same "--regression over --valid: the corpus is unchanged" "$TMP/v.tsv" "$TMP/v0.tsv"
# shellcheck disable=SC2086
py -m toytrans_torch.train --train "$TMP/c.tsv" --out "$TMP/n.db" --regression "$TMP/m.db" \
    $SMALL
expect_code "--regression over a model, without --force: exit 2" 2
expect_in "--regression over a model: says so" "$ERR" "is an SQLite database (a model?)"
expect_same "--regression over a model: the model is unchanged" "$TMP/m.db" "$TMP/m0.db"
if [ -e "$TMP/n.db" ]; then
    fail "refused runs write no model" "$TMP/n.db exists"
else
    pass "refused runs write no model"
fi
py -m toytrans_torch.train --out "$TMP/m.db" --resume --regression "$TMP/m.db" --force
expect_code "--resume --regression over its own --out, even with --force: exit 2" 2
expect_same "--resume --regression over --out: the model is unchanged" "$TMP/m.db" "$TMP/m0.db"
rm -f "$TMP/m.db" "$TMP/m0.db" "$TMP/c.tsv" "$TMP/c0.tsv" "$TMP/v.tsv" "$TMP/v0.tsv"
# One writer at a time, C and Python alike (docs/model-format.md): a run holds the model
# file's lock for as long as it goes on, and another writer is refused (exit 5) instead
# of replacing it, whatever --force says. Both orders: a C run in the background, then a
# Python run; a Python run holding a file (its lock claimed on a model it resumes), then
# a C run.
head -n 2000 "$ROOT/data/train.tsv" >"$TMP/lk.tsv"
"$BIN" train --train "$TMP/lk.tsv" --out "$TMP/lk.db" --epochs 400 --d-model 16 --heads 2 \
    --d-ff 32 --max-len 40 --threads 1 >"$TMP/lk-c.log" 2>&1 &
cpid=$!
tries=0
while [ ! -e "$TMP/lk.db" ] && [ $tries -lt 100 ]; do
    sleep 0.1
    tries=$((tries + 1))
done
sleep 0.5
# shellcheck disable=SC2086
py -m toytrans_torch.train --train "$TMP/lk.tsv" --out "$TMP/lk.db" --force \
    --limit 200 --epochs 1 --d-model 16 --heads 2 --d-ff 32 --max-len 40 --stop-after 1
expect_code "python train --force over a model a C run writes: exit 5" 5
expect_in "python train over a C run's model: says why" "$ERR" "being written by another process"
expect_no_traceback "python train over a C run's model"
kill -INT "$cpid" 2>/dev/null
wait "$cpid"
ccode=$?
if [ "$ccode" -eq 130 ] && "$BIN" info --model "$TMP/lk.db" >/dev/null 2>&1; then
    pass "the C run ends as it was going to (130 after Ctrl-C), its model whole"
else
    fail "the C run ends as it was going to" "exit $ccode; $(tail -n 2 "$TMP/lk-c.log")"
fi
# A Python run that resumes lk.db holds it from the start; a C run over it is refused.
PYTHONPATH="$ROOT/python" TOYTRANS="$BIN" "$PY" -c '
import sys, time
from toytrans_torch.modelfile import WriterLock
lock = WriterLock()
lock.claim(sys.argv[1])
print("held", flush=True)
time.sleep(30)
' "$TMP/lk.db" >"$TMP/lk-py.log" 2>&1 &
ppid=$!
tries=0
while ! grep -q held "$TMP/lk-py.log" 2>/dev/null && [ $tries -lt 100 ]; do
    sleep 0.1
    tries=$((tries + 1))
done
cp "$TMP/lk.db" "$TMP/lk0.db"
run train --train "$TMP/lk.tsv" --out "$TMP/lk.db" --force --epochs 1 --d-model 16 \
    --heads 2 --d-ff 32 --max-len 40
expect_code "C train --force over a model a Python run holds: exit 5" 5
expect_in "C train over a Python run's model: says why" "$ERR" "being written by another process"
expect_same "C train over a Python run's model: the file is unchanged" "$TMP/lk.db" "$TMP/lk0.db"
kill "$ppid" 2>/dev/null
wait "$ppid" 2>/dev/null
rm -f "$TMP/lk.db" "$TMP/lk0.db" "$TMP/lk.tsv" "$TMP/lk-c.log" "$TMP/lk-py.log"
# A disk that fills up (a file size limit; Python ignores SIGXFSZ, so writes fail with
# EFBIG): SQLite's error is an I/O error, exit 5, and no temporary file is left.
mkdir -p "$TMP/full"
(ulimit -f 64 && py -m toytrans_torch.train --train "$ROOT/data/train.tsv" --limit 200 \
    --epochs 1 --d-model 16 --heads 2 --d-ff 32 --max-len 40 --vocab "$TMP/resumed.db" \
    --out "$TMP/full/m.db" --stop-after 1 && exit "$CODE")
CODE=$?
expect_code "a disk that fills up while the model is written: exit 5" 5
expect_no_traceback "a disk that fills up"
if [ -n "$(ls "$TMP/full")" ]; then
    fail "a disk that fills up: nothing left behind" "$(ls "$TMP/full")"
else
    pass "a disk that fills up: nothing left behind"
fi
if [ -n "$(ls "$TMP"/*.tmp "$TMP"/*-journal "$TMP"/*-wal 2>/dev/null)" ]; then
    fail "checkpoints leave no temporary file" "$(ls "$TMP"/*.tmp "$TMP"/*-journal "$TMP"/*-wal)"
else
    pass "checkpoints leave no temporary file"
fi

# ---------------------------------------------------------------------------------------
# DDP's promise, on the training loss itself

# shellcheck disable=SC2086
torchrun_py $LOCAL --nproc_per_node=2 "$ROOT/tests/torch_ddp_grad.py"
expect_code "gradients averaged over 2 processes equal one process's on the whole batch" 0
grep -h "gradients over\|FAIL" "$ERR" | sed 's/^/# /'

echo "$passed passed, $failed failed"
if [ "$failed" -ne 0 ]; then
    exit 1
fi
exit 0
