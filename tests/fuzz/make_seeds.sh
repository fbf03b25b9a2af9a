#!/bin/sh
# make_seeds.sh — regenerates the committed model files of the fuzzers:
#
#   tests/fuzz/tiny.db                     the model fuzz_translate translates with
#   tests/fuzz/corpus/fuzz_loader/*.db     seeds of fuzz_loader: that model, a trained
#                                          one (with a training history), one with
#                                          query/key/value biases, and broken copies,
#                                          the damage cases of tests/test_store.c
#
# Usage: sh tests/fuzz/make_seeds.sh [path/to/toytrans]   (from the repository root;
# needs the sqlite3 shell). The models are tiny (d_model 8, 2 heads, 1 + 1 layers) and
# rewritten with 512-byte pages, so that each file stays under 64 KiB and a fuzzer's
# mutations land on pages that matter. Every run gives the same files for a given
# toytrans, but for the timings trained.db records.
set -eu

BIN=${1:-build/release/toytrans}
OUT=tests/fuzz/corpus/fuzz_loader
command -v sqlite3 >/dev/null 2>&1 || {
    echo "make_seeds.sh: needs the sqlite3 shell (apt-get install sqlite3)" >&2
    exit 1
}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# A corpus that gives both vocabularies punctuation, quotes, brackets and umlauts.
printf '%s\t%s\n' \
    'This is an example.' 'Das ist ein Beispiel.' \
    'The girl opens the door!' 'Das Mädchen öffnet die Tür!' \
    'Is the dog (very) big?' 'Ist der Hund (sehr) groß?' \
    '"Hello," she says.' '„Hallo", sagt sie.' \
    "We don't need apples; really." 'Wir brauchen keine Äpfel; wirklich.' \
    'Anna sees the well-known man…' 'Anna sieht den bekannten Mann…' \
    >"$TMP/c.tsv"

ARCH="--d-model 8 --heads 2 --enc-layers 1 --dec-layers 1 --d-ff 16 --max-len 12"

# Rewrites a model file with small pages and no free space.
shrink() {
    sqlite3 "$1" "PRAGMA page_size = 512; VACUUM;" >/dev/null
}

# Run inside $TMP, so that the corpus path the models record is just "c.tsv".
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
(
    cd "$TMP"
    "$BIN" init --out tiny.db --train c.tsv $ARCH --seed 1 >/dev/null
    "$BIN" init --out bias.db --train c.tsv $ARCH --qkv-bias --seed 2 >/dev/null
    "$BIN" train --train c.tsv --valid c.tsv --out trained.db $ARCH \
        --epochs 2 --batch 4 --warmup 2 --checkpoint-every 1 --seed 3 >/dev/null 2>&1
)
shrink "$TMP/tiny.db"
shrink "$TMP/bias.db"
shrink "$TMP/trained.db"

mkdir -p "$OUT"
rm -f "$OUT"/*.db "$OUT"/*.db-*
cp "$TMP/tiny.db" tests/fuzz/tiny.db
cp "$TMP/tiny.db" "$OUT/tiny.db"
cp "$TMP/bias.db" "$OUT/bias.db"
cp "$TMP/trained.db" "$OUT/trained.db"

# damage NAME SQL: a copy of the tiny model with SQL run on it.
damage() {
    cp "$TMP/tiny.db" "$OUT/$1.db"
    sqlite3 "$OUT/$1.db" "$2" >/dev/null
    shrink "$OUT/$1.db"
}
# truncate NAME BYTES: the first BYTES bytes of the tiny model.
truncate_to() {
    head -c "$2" "$TMP/tiny.db" >"$OUT/$1.db"
}

SIZE=$(wc -c <"$TMP/tiny.db")
truncate_to trunc-100 100
truncate_to trunc-half-page 256
truncate_to trunc-one-page 512
truncate_to trunc-three-pages 1536
truncate_to trunc-half-file $((SIZE / 1024 * 512))
truncate_to trunc-last-page $((SIZE - 256))
damage app-id "PRAGMA application_id = 42"
damage user-version "PRAGMA user_version = 2"
damage meta-format "UPDATE meta SET value = 'other-model' WHERE key = 'format'"
damage meta-format-version "DELETE FROM meta WHERE key = 'format_version'"
damage no-tensor-table "DROP TABLE tensor"
damage tensor-view "ALTER TABLE tensor RENAME TO tensor_data;
    CREATE VIEW tensor AS SELECT name, shape, data FROM tensor_data"
damage trigger "CREATE TABLE log(x); CREATE TRIGGER t AFTER INSERT ON meta
    BEGIN INSERT INTO log VALUES (1); END"
damage heads "UPDATE meta SET value = '3' WHERE key = 'n_heads'"
damage max-len-0 "UPDATE meta SET value = '0' WHERE key = 'max_len'"
damage gelu "UPDATE meta SET value = 'gelu' WHERE key = 'activation'"
damage no-d-model "DELETE FROM meta WHERE key = 'd_model'"
damage vocab-gap "DELETE FROM vocab WHERE lang = 'src' AND id = 4"
damage vocab-specials "UPDATE vocab SET token = '<bos>' WHERE lang = 'tgt' AND id = 2"
damage embedding-row "DELETE FROM embedding WHERE lang = 'src' AND id = 5"
damage embedding-inf "UPDATE embedding SET vector = CAST(X'0000807F' || substr(vector, 5) AS BLOB)
    WHERE lang = 'tgt' AND id = 7"
damage tensor-short "UPDATE tensor SET data = substr(data, 1, 20) WHERE name = 'decoder.layers.0.linear1.weight'"
damage tensor-text "UPDATE tensor SET data = hex(data) WHERE name = 'generator.bias'"
damage tensor-shape "UPDATE tensor SET shape = '8,16' WHERE name = 'decoder.layers.0.linear1.weight'"
damage tensor-missing "DELETE FROM tensor WHERE name = 'generator.bias'"
damage tensor-nan "UPDATE tensor SET data = CAST(X'0000C07F' || substr(data, 5) AS BLOB)
    WHERE name = 'encoder.layers.0.self_attn.out_proj.bias'"
# A configuration of 1.3 billion parameters in a 27 KiB file: refused before the block is
# allocated (a regression input: model_load used to ask for 5 GB first).
damage huge-config "UPDATE meta SET value = '4096' WHERE key IN ('d_model', 'max_len');
    UPDATE meta SET value = '65536' WHERE key = 'd_ff';
    UPDATE meta SET value = '1' WHERE key = 'n_heads'"
damage history-order "
    CREATE TABLE train_log(step INTEGER PRIMARY KEY, epoch, loss, lr, tokens, seconds);
    INSERT INTO train_log VALUES (2, 1, 0.5, 0.001, 10, 1.0), (1, 2, 'x', 0.001, 10, 2.0)"
# The header in WAL mode: a model left by a crashed writer.
cp "$TMP/tiny.db" "$OUT/wal.db"
sqlite3 "$OUT/wal.db" "PRAGMA journal_mode = WAL;" >/dev/null
ls -l tests/fuzz/tiny.db "$OUT"
