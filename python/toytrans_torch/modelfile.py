"""Reading and writing toytrans model files (docs/model-format.md) with Python's sqlite3.

A model file is an SQLite database: meta (hyper-parameters and provenance, all text),
vocab, embedding (one float32 row per vocabulary id) and tensor (every other weight by
name, "rows,cols" or "n", float32 little-endian). This module knows the contract and
nothing about PyTorch: read_model_file gives numpy arrays by toytrans's tensor names,
write_model_file takes them. Both check what toytrans's loader checks, so a file this
module writes is one toytrans loads with every check on, content checksum included.
"""
import fcntl
import math
import os
import re
import sqlite3
import stat
import time
import unicodedata
import urllib.parse
from dataclasses import dataclass, field

import numpy as np

PAD, UNK, BOS, EOS = 0, 1, 2, 3
RESERVED = ["<pad>", "<unk>", "<s>", "</s>"]
APPLICATION_ID = 1954116722     # 0x74797472, "tytr"
FORMAT_VERSION = 1
CHECKSUM_KEY = "content_fnv1a64"

# The hyper-parameters in meta, with their ranges (docs/model-format.md, "meta").
INT_LIMITS = {"d_model": (1, 4096), "n_heads": (1, 4096), "n_encoder_layers": (1, 64),
              "n_decoder_layers": (1, 64), "d_ff": (1, 65536), "max_len": (2, 4096),
              "qkv_bias": (0, 1)}
MAX_FF_WEIGHT = 67_108_864      # d_ff · d_model: one feed-forward weight, 256 MiB of floats
MAX_ATTENTION = 1 << 28         # n_heads · max_len² · (enc + 2·dec + 1)
MAX_PARAMS = 1 << 28            # all parameters of a model: 1 GiB of floats (src/model/config.h)
MAX_BLOB = 256 * 1024 * 1024    # bytes one blob may hold (src/model/store.h STORE_MAX_BLOB)
MAX_TENSOR_FLOATS = MAX_BLOB // 4
MAX_VOCAB = 1_000_000           # ids a vocabulary may hold (src/text/vocab.h)
UNCHECKED_BYTES = 16 * 1024 * 1024  # parameters this small need not fit the file (src/model/model.c)

# The four tables' columns as PRAGMA table_xinfo reports them for the documented schema:
# (name, declared type, not null, default, position in the primary key). A file whose
# tables differ is refused before any value is read, a generated column above all: it is
# computed at each read, so a small file could make the reader hold gigabytes.
COLUMNS = {
    "meta": [("key", "TEXT", 0, None, 1), ("value", "TEXT", 1, None, 0)],
    "vocab": [("lang", "TEXT", 1, None, 1), ("id", "INTEGER", 1, None, 2),
              ("token", "TEXT", 1, None, 0), ("count", "INTEGER", 1, "0", 0)],
    "embedding": [("lang", "TEXT", 1, None, 1), ("id", "INTEGER", 1, None, 2),
                  ("vector", "BLOB", 1, None, 0)],
    "tensor": [("name", "TEXT", 0, None, 1), ("shape", "TEXT", 1, None, 0),
               ("data", "BLOB", 1, None, 0)],
}


EXIT_MODEL, EXIT_IO = 3, 5     # toytrans's exit codes: model unusable, I/O error


class ModelError(Exception):
    """The model file, or what is to be written as one, breaks the contract (status
    EXIT_MODEL); or it cannot be read or written at all (status EXIT_IO: a full or
    read-only disk, a lock held too long). The one error this package's file functions
    raise; status is the exit code a command reports it with."""

    def __init__(self, message, status=EXIT_MODEL):
        super().__init__(message)
        self.status = status


# SQLite's primary result codes that say the disk, not the file's content, failed.
SQLITE_IO_CODES = {5: "busy", 6: "locked", 8: "read-only", 10: "I/O error", 13: "full",
                   14: "cannot open", 3: "permission denied"}


def sqlite_error(e, what):
    """sqlite3's exception e, met while doing what, as a ModelError with its status:
    EXIT_IO for the disk (SQLITE_IO_CODES), EXIT_MODEL for the content (a damaged page, not
    a database, anything else)."""
    code = getattr(e, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in SQLITE_IO_CODES:
        return ModelError(f"{what}: {e}", EXIT_IO)
    return ModelError(f"{what}: the database is damaged or not a model ({e})", EXIT_MODEL)


# A whole number as toytrans reads one (strtol with nothing else around it), and a real
# number as its strtod does (leading blanks allowed, nothing after it).
PLAIN_INT = re.compile(r"-?[0-9]+")
PLAIN_REAL = re.compile(r"[ \t\n\v\f\r]*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


@dataclass
class Vocabularies:
    """Both sides' tokens by id (the reserved four first) and their training counts."""
    src: list
    tgt: list
    src_counts: list = field(default_factory=list)   # empty: counts 0
    tgt_counts: list = field(default_factory=list)

    def side(self, lang):
        return (self.src, self.src_counts) if lang == "src" else (self.tgt, self.tgt_counts)


# ------------------------------------------------------------------------------------------
# The configuration


def check_config(cfg):
    """Raises ModelError unless cfg (a dict as read_config returns) is in range."""
    for key, (lo, hi) in INT_LIMITS.items():
        value = cfg.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            raise ModelError(f"{key} is {value!r}, not an integer")
        if not lo <= value <= hi:
            raise ModelError(f"{key} = {value} is outside {lo}..{hi}")
    if cfg["d_model"] % cfg["n_heads"]:
        raise ModelError(f"d_model {cfg['d_model']} is not a multiple of n_heads {cfg['n_heads']}")
    if cfg["d_ff"] * cfg["d_model"] > MAX_FF_WEIGHT:
        raise ModelError(f"d_ff · d_model = {cfg['d_ff'] * cfg['d_model']} exceeds {MAX_FF_WEIGHT}")
    attn = cfg["n_heads"] * cfg["max_len"] ** 2 * (cfg["n_encoder_layers"]
                                                   + 2 * cfg["n_decoder_layers"] + 1)
    if attn > MAX_ATTENTION:
        raise ModelError(f"n_heads · max_len² · (enc + 2·dec + 1) = {attn} exceeds {MAX_ATTENTION}")
    eps = cfg.get("layer_norm_eps")
    if not isinstance(eps, float) or not 0.0 < eps < 1.0:
        raise ModelError(f"layer_norm_eps {eps!r} is not a number in (0, 1)")
    for key in ("src_lang", "tgt_lang"):
        if not isinstance(cfg.get(key), str) or not cfg[key]:
            raise ModelError(f"{key} is missing")


def read_config(meta):
    """meta (a dict of text) -> the configuration dict, each value checked."""
    if meta.get("format") != "toytrans-model":
        raise ModelError(f"meta format is {meta.get('format')!r}, not 'toytrans-model'")
    if meta.get("format_version") != str(FORMAT_VERSION):
        raise ModelError(f"meta format_version is {meta.get('format_version')!r}; this "
                         f"package reads format_version {FORMAT_VERSION} only")
    cfg = {}
    for key in INT_LIMITS:
        text = meta.get(key)
        if text is None:
            raise ModelError(f"meta has no {key}")
        if not isinstance(text, str) or not PLAIN_INT.fullmatch(text):
            raise ModelError(f"meta {key} is {text!r}, not a whole number")
        cfg[key] = int(text)
    if meta.get("activation") != "relu":
        raise ModelError(f"activation {meta.get('activation')!r} is not supported (relu only)")
    if meta.get("norm") != "pre":
        raise ModelError(f"norm {meta.get('norm')!r} is not supported (pre only)")
    eps = meta.get("layer_norm_eps", "")
    if not isinstance(eps, str) or not PLAIN_REAL.fullmatch(eps):
        raise ModelError(f"meta layer_norm_eps is {eps!r}, not a number")
    cfg["layer_norm_eps"] = float(eps)
    cfg["src_lang"] = meta.get("src_lang", "")
    cfg["tgt_lang"] = meta.get("tgt_lang", "")
    check_config(cfg)
    return cfg


def parameter_count(cfg, v_src, v_tgt):
    """Every float the model holds: the tensors of expected_shapes and both embeddings."""
    return (sum(math.prod(shape) for shape in expected_shapes(cfg, v_tgt).values())
            + (v_src + v_tgt) * cfg["d_model"])


def check_size(cfg, v_src, v_tgt, file_bytes=None):
    """Refuses, as toytrans does before it allocates anything, a model of more than
    MAX_PARAMS parameters, a tensor over one blob, and (file_bytes given) a model of more
    than 16 MiB of floats that the file is too small to hold."""
    total = parameter_count(cfg, v_src, v_tgt)
    if total > MAX_PARAMS:
        raise ModelError(f"the configuration needs {total} parameters, more than the "
                         f"{MAX_PARAMS} (1 GiB of floats) a model may have")
    if v_tgt * cfg["d_model"] > MAX_TENSOR_FLOATS:
        raise ModelError(f"tensor generator.weight would hold {v_tgt * cfg['d_model']} floats, "
                         f"more than the {MAX_TENSOR_FLOATS} (256 MiB) one tensor may hold")
    need = 4 * total
    if file_bytes is not None and need > UNCHECKED_BYTES and need > file_bytes:
        raise ModelError(f"the configuration needs {total} parameters ({need} bytes), more "
                         f"than the whole file holds ({file_bytes} bytes)")


def config_meta(cfg):
    """The configuration as meta rows, formatted as toytrans writes them."""
    rows = {key: str(cfg[key]) for key in INT_LIMITS}
    rows.update(activation="relu", norm="pre", layer_norm_eps=f"{cfg['layer_norm_eps']:g}",
                src_lang=cfg["src_lang"], tgt_lang=cfg["tgt_lang"])
    return rows


def expected_shapes(cfg, v_tgt):
    """Every tensor-table entry the configuration implies, name -> shape (docs/model.md)."""
    D, Fw = cfg["d_model"], cfg["d_ff"]
    shapes = {}

    def attn(prefix):
        for part in ("W_query", "W_key", "W_value"):
            shapes[f"{prefix}.{part}.weight"] = (D, D)
            if cfg["qkv_bias"]:
                shapes[f"{prefix}.{part}.bias"] = (D,)
        shapes[f"{prefix}.out_proj.weight"] = (D, D)
        shapes[f"{prefix}.out_proj.bias"] = (D,)

    def ffn_norms(prefix, norms):
        shapes[f"{prefix}.linear1.weight"] = (Fw, D)
        shapes[f"{prefix}.linear1.bias"] = (Fw,)
        shapes[f"{prefix}.linear2.weight"] = (D, Fw)
        shapes[f"{prefix}.linear2.bias"] = (D,)
        for n in norms:
            shapes[f"{prefix}.{n}.weight"] = (D,)
            shapes[f"{prefix}.{n}.bias"] = (D,)

    for i in range(cfg["n_encoder_layers"]):
        attn(f"encoder.layers.{i}.self_attn")
        ffn_norms(f"encoder.layers.{i}", ("norm1", "norm2"))
    for i in range(cfg["n_decoder_layers"]):
        attn(f"decoder.layers.{i}.self_attn")
        attn(f"decoder.layers.{i}.cross_attn")
        ffn_norms(f"decoder.layers.{i}", ("norm1", "norm2", "norm3"))
    for n in ("encoder.norm", "decoder.norm"):
        shapes[f"{n}.weight"] = (D,)
        shapes[f"{n}.bias"] = (D,)
    shapes["generator.weight"] = (v_tgt, D)
    shapes["generator.bias"] = (v_tgt,)
    return shapes


# ------------------------------------------------------------------------------------------
# Vocabulary tokens


def token_fault(token):
    """Why toytrans's tokenizer could not have made token (and its loader refuses it), or
    None: empty, a NUL, not NFC, whitespace (Zs, Zl, Zp) or a control character (Cc)."""
    if not isinstance(token, str) or token == "":
        return "is empty"
    try:
        token.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid UTF-8"
    for i, ch in enumerate(token):
        if unicodedata.category(ch) in ("Zs", "Zl", "Zp", "Cc"):
            return f"contains U+{ord(ch):04X} at character {i}"
    if unicodedata.normalize("NFC", token) != token:
        return "is not in NFC"
    return None


def check_vocab(lang, tokens):
    if tokens[:4] != RESERVED:
        raise ModelError(f"{lang} vocabulary does not begin with {' '.join(RESERVED)}")
    seen = set()
    for i, tok in enumerate(tokens):
        why = token_fault(tok)
        if why:
            raise ModelError(f"{lang} vocabulary id {i}: the token {why}")
        if tok in seen:
            raise ModelError(f"{lang} vocabulary id {i}: the token {tok!r} appears twice")
        seen.add(tok)


# ------------------------------------------------------------------------------------------
# The content checksum


def fnv1a64_update(h, data):
    """FNV-1a 64 over data, from state h (a byte at a time: the hash is sequential)."""
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def content_checksum(db):
    """The checksum of docs/model-format.md ("Checksum"), as 16 hexadecimal digits."""
    h = 0xCBF29CE484222325
    queries = (f"SELECT key, value FROM meta WHERE key <> '{CHECKSUM_KEY}' ORDER BY key",
               "SELECT lang, id, token, count FROM vocab ORDER BY lang, id",
               "SELECT lang, id, vector FROM embedding ORDER BY lang, id",
               "SELECT name, shape, data FROM tensor ORDER BY name")
    for q in queries:
        for row in db.execute(q):
            for value in row:
                if value is None:
                    data = b""
                elif isinstance(value, bytes):
                    data = value
                elif isinstance(value, int):
                    data = str(value).encode()
                elif isinstance(value, str):
                    data = value.encode("utf-8")
                else:
                    raise ModelError(f"a real number in the model tables: {value!r}")
                h = fnv1a64_update(h, data + b"\0")
    return f"{h:016x}"


# ------------------------------------------------------------------------------------------
# Reading


def f32_blob(blob, count, what):
    if not isinstance(blob, bytes) or len(blob) != 4 * count:
        raise ModelError(f"{what}: {len(blob) if isinstance(blob, bytes) else 'no'} bytes, "
                         f"expected {4 * count}")
    a = np.frombuffer(blob, dtype="<f4")
    if not np.all(np.isfinite(a)):
        raise ModelError(f"{what}: holds NaN or Inf")
    return a.astype(np.float32)


def check_schema(db):
    """Raises ModelError unless the four tables exist as ordinary tables with exactly the
    documented columns (COLUMNS), none of them generated."""
    for table, want in COLUMNS.items():
        row = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                         (table,)).fetchone()
        if row is None:
            raise ModelError(f"table '{table}' is missing")
        if (row[0] or "").lstrip().upper().startswith("CREATE VIRTUAL"):
            raise ModelError(f"table '{table}' is a virtual table, not the documented table")
        got = db.execute(f"PRAGMA table_xinfo('{table}')").fetchall()
        for i, (_, name, type_, notnull, dflt, pk, hidden) in enumerate(got):
            if hidden:
                raise ModelError(f"table '{table}' column '{name}' is a generated or hidden "
                                 f"column; the format stores every value")
            if i >= len(want):
                raise ModelError(f"table '{table}' has a column '{name}' the format does not "
                                 f"have")
            w = want[i]
            if (name.lower(), (type_ or "").upper(), notnull, dflt, pk) != \
                    (w[0], w[1], w[2], w[3], w[4]):
                raise ModelError(f"table '{table}' column {i + 1} is '{name} {type_}', not "
                                 f"the documented '{w[0]} {w[1]}' (with its constraints)")
        if len(got) < len(want):
            raise ModelError(f"table '{table}' lacks the column '{want[len(got)][0]}'")


def vocab_size(db, lang):
    """The number of lang's vocabulary rows, refused above MAX_VOCAB (or below 4)."""
    n = db.execute("SELECT count(*) FROM vocab WHERE lang = ?", (lang,)).fetchone()[0]
    if not 4 <= n <= MAX_VOCAB:
        raise ModelError(f"vocab '{lang}' has {n} entries (needs 4 to {MAX_VOCAB})")
    return n


def read_vocab(db, lang):
    vocab_size(db, lang)
    rows = db.execute("SELECT id, token, count FROM vocab WHERE lang = ? ORDER BY id",
                      (lang,)).fetchall()
    if [r[0] for r in rows] != list(range(len(rows))):
        raise ModelError(f"{lang} vocabulary ids are not dense from 0")
    for i, _, count in rows:
        if not isinstance(count, int):
            raise ModelError(f"vocab '{lang}' id {i}: the count is not an integer")
    tokens = [r[1] for r in rows]
    check_vocab(lang, tokens)
    return tokens, [r[2] for r in rows]


def read_tensor(db, name, shape, missing_ok=False):
    """Tensor name of the tensor table as a float32 array of shape, its stored shape and
    size checked before the blob is read; None if there is none and missing_ok."""
    want = ",".join(str(n) for n in shape)
    row = db.execute("SELECT shape, typeof(data), length(data) FROM tensor WHERE name = ?",
                     (name,)).fetchone()
    if row is None:
        if missing_ok:
            return None
        raise ModelError(f"tensor {name} is missing")
    if row[0] != want:
        raise ModelError(f"tensor {name} has shape {row[0]}, expected {want}")
    if row[1] != "blob" or row[2] != 4 * math.prod(shape):
        raise ModelError(f"tensor {name}: {row[2]} bytes of {row[1]}, expected "
                         f"{4 * math.prod(shape)} bytes of blob")
    blob = db.execute("SELECT data FROM tensor WHERE name = ?", (name,)).fetchone()[0]
    return f32_blob(blob, math.prod(shape), f"tensor {name}").reshape(shape)


def open_readonly(path):
    if os.path.islink(path) or not os.path.isfile(path):
        raise ModelError("not an existing regular file (or a symbolic link)")
    if os.path.getsize(path) == 0:
        raise ModelError("empty file")
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    try:
        db = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as e:
        raise sqlite_error(e, "opening") from None
    # As toytrans's loader bounds it: no value longer than one tensor's blob, no attached
    # databases.
    db.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_BLOB)
    db.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    return db


def read_model_file(path, verify_checksum=True, extra_shapes=None):
    """The model file -> (cfg, vocabularies, weights, meta): weights maps toytrans's tensor
    names (plus 'embedding.src' / 'embedding.tgt') to float32 arrays; meta is the whole
    meta table. Checks what toytrans's loader checks, in its order; raises ModelError.

    extra_shapes, when given, is called as extra_shapes(cfg, vocabularies) -> {name:
    shape} of more tensors to read (a resumable run's optimiser state): each must be in the
    tensor table with that shape, is checked as the weights are, and is returned in
    weights; all is read in one transaction, so the content checksum covers it."""
    try:
        return _read_model_file(path, verify_checksum, extra_shapes)
    except sqlite3.Error as e:
        raise sqlite_error(e, "reading") from None


def _read_model_file(path, verify_checksum, extra_shapes):
    db = open_readonly(path)
    try:
        try:
            app = db.execute("PRAGMA application_id").fetchone()[0]
        except sqlite3.DatabaseError as e:
            if getattr(e, "sqlite_errorcode", 0) & 0xFF in SQLITE_IO_CODES:
                raise
            raise ModelError(f"not an SQLite database ({e})") from None
        if app != APPLICATION_ID:
            raise ModelError(f"application_id is {app}, not {APPLICATION_ID}: not a toytrans model")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != FORMAT_VERSION:
            raise ModelError(f"format version (user_version) {version}; this package reads "
                             f"version {FORMAT_VERSION} only"
                             + (" (a newer format)" if version > FORMAT_VERSION else ""))
        ok = db.execute("PRAGMA integrity_check").fetchone()[0]
        if ok != "ok":
            lines = str(ok).splitlines()
            raise ModelError(f"the database is damaged (integrity_check: "
                             f"{' '.join(lines[:3])}{' ...' if len(lines) > 3 else ''})")
        check_schema(db)
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        for key, value in meta.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise ModelError(f"meta {key!r} is {type(value).__name__}, not text")
        cfg = read_config(meta)
        D = cfg["d_model"]
        page_count = db.execute("PRAGMA page_count").fetchone()[0]
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        check_size(cfg, vocab_size(db, "src"), vocab_size(db, "tgt"), page_count * page_size)
        src, src_counts = read_vocab(db, "src")
        tgt, tgt_counts = read_vocab(db, "tgt")
        vocabs = Vocabularies(src, tgt, src_counts, tgt_counts)
        weights = {}
        for lang, tokens in (("src", src), ("tgt", tgt)):
            rows = db.execute("SELECT id, vector FROM embedding WHERE lang = ? ORDER BY id",
                              (lang,)).fetchall()
            if [r[0] for r in rows] != list(range(len(tokens))):
                raise ModelError(f"{lang} embedding rows do not match the vocabulary's ids")
            weights[f"embedding.{lang}"] = np.stack(
                [f32_blob(v, D, f"{lang} embedding {i}") for i, v in rows])
        want = expected_shapes(cfg, len(tgt))
        # Read by name: other tensors (toytrans's optimiser moments, optim.m and optim.v,
        # or a resumable run's) are neither read nor needed.
        for name, shape in want.items():
            a = read_tensor(db, name, shape, missing_ok=True)
            if a is not None:
                weights[name] = a
        missing = sorted(set(want) - set(weights))
        if missing:
            raise ModelError(f"tensor {missing[0]} is missing ({len(missing)} in all)")
        for name, shape in (extra_shapes(cfg, vocabs) if extra_shapes else {}).items():
            weights[name] = read_tensor(db, name, shape)
        if verify_checksum and CHECKSUM_KEY in meta:
            got = content_checksum(db)
            if got != meta[CHECKSUM_KEY]:
                raise ModelError(f"content checksum {got} does not match meta "
                                 f"{CHECKSUM_KEY} {meta[CHECKSUM_KEY]}: the file was damaged "
                                 f"or edited after it was written")
        return cfg, vocabs, weights, meta
    finally:
        db.close()


# ------------------------------------------------------------------------------------------
# Writing

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE vocab(lang TEXT NOT NULL CHECK(lang IN ('src','tgt')),
                   id INTEGER NOT NULL, token TEXT NOT NULL, count INTEGER NOT NULL DEFAULT 0,
                   PRIMARY KEY(lang,id), UNIQUE(lang,token));
CREATE TABLE embedding(lang TEXT NOT NULL, id INTEGER NOT NULL, vector BLOB NOT NULL,
                       PRIMARY KEY(lang,id));
CREATE TABLE tensor(name TEXT PRIMARY KEY, shape TEXT NOT NULL, data BLOB NOT NULL);
CREATE TABLE train_log(step INTEGER PRIMARY KEY, epoch INTEGER NOT NULL,
    loss REAL NOT NULL, lr REAL NOT NULL, tokens INTEGER NOT NULL, seconds REAL NOT NULL);
CREATE TABLE valid_log(epoch INTEGER PRIMARY KEY, step INTEGER NOT NULL,
    loss REAL NOT NULL, exact_match REAL NOT NULL, seconds REAL NOT NULL);
"""

# Meta keys the configuration and the format own: provenance may not set them.
OWN_KEYS = set(INT_LIMITS) | {"format", "format_version", "activation", "norm",
                              "layer_norm_eps", "src_lang", "tgt_lang", CHECKSUM_KEY}


TEMP_SUFFIXES = ("", "-wal", "-shm", "-journal")
STALE_SECONDS = 60      # a younger temporary may be a writer's between create and lock


def pid_alive(pid):
    """Whether a process pid exists on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True     # another user's process: alive
    return True


def remove_stale_temps(path):
    """Removes the temporaries (PATH.PID.tmp and their -wal, -shm, -journal) that writers
    killed before they finished left beside path, as toytrans does (src/model/store.c): a file
    goes only when no writer holds its lock (each writer, toytrans's and this package's,
    holds flock on its PATH.PID.tmp while it writes), its process is gone from this
    machine, and it is older than a minute. Best effort: nothing here fails the write."""
    directory = os.path.dirname(os.path.abspath(path))
    pattern = re.compile(re.escape(os.path.basename(path)) +
                         r"\.([0-9]+)\.tmp(-wal|-shm|-journal)?")
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        m = pattern.fullmatch(name)
        if not m or pid_alive(int(m.group(1))):
            continue
        stale = os.path.join(directory, name)
        main = stale[:len(stale) - len(m.group(2) or "")]
        try:
            fd = os.open(main if os.path.lexists(main) else stale,
                         os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            st = os.fstat(fd)
            if stat.S_ISREG(st.st_mode) and st.st_mtime < time.time() - STALE_SECONDS:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                os.unlink(stale)
        except OSError:
            pass
        finally:
            os.close(fd)


def _write_tmp(tmp, meta, vocabs, arrays, history):
    """The new file under its temporary name (created empty and locked by the caller),
    committed in one transaction and switched back to one self-contained file."""
    db = None
    try:
        db = sqlite3.connect(tmp, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("BEGIN")
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {FORMAT_VERSION}")
        for statement in SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        db.executemany("INSERT INTO meta(key, value) VALUES(?, ?)", sorted(meta.items()))
        for lang in ("src", "tgt"):
            tokens, counts = vocabs.side(lang)
            db.executemany("INSERT INTO vocab(lang, id, token, count) VALUES(?, ?, ?, ?)",
                           [(lang, i, t, int(counts[i]) if counts else 0)
                            for i, t in enumerate(tokens)])
            emb = arrays[f"embedding.{lang}"]
            db.executemany("INSERT INTO embedding(lang, id, vector) VALUES(?, ?, ?)",
                           [(lang, i, emb[i].tobytes()) for i in range(len(tokens))])
        db.executemany("INSERT INTO tensor(name, shape, data) VALUES(?, ?, ?)",
                       [(name, ",".join(str(s) for s in a.shape), a.tobytes())
                        for name, a in arrays.items() if not name.startswith("embedding.")])
        if history:
            steps, epochs = history
            db.executemany("INSERT INTO train_log(step, epoch, loss, lr, tokens, seconds) "
                           "VALUES(?, ?, ?, ?, ?, ?)", steps)
            db.executemany("INSERT INTO valid_log(epoch, step, loss, exact_match, seconds) "
                           "VALUES(?, ?, ?, ?, ?)", epochs)
        db.execute("INSERT INTO meta(key, value) VALUES(?, ?)",
                   (CHECKSUM_KEY, content_checksum(db)))
        db.execute("COMMIT")
        db.execute("PRAGMA journal_mode=DELETE")
    except BaseException:
        if db is not None:
            db.close()
        raise
    db.close()


class WriterLock:
    """The lock protocol every writer of a model file follows, toytrans's C side
    (src/model/store.c) and this package alike (docs/model-format.md, "One writer at a time"):
    a writer holds flock(2), exclusive, on the file it writes — an existing model it
    replaces, or its new file from creation under PATH.PID.tmp through the rename that
    puts it at PATH — and keeps holding it for as long as its run goes on. A writer that
    finds the file at PATH locked by another process refuses to write it, whatever
    --force says (exit status EXIT_IO).

    One WriterLock per run: claim(path) before the first write, then pass it to every
    write_model_file (which moves the lock to each new file it renames into place), and
    close() at the end."""

    def __init__(self):
        self.fd = None

    def claim(self, path):
        """Locks the file at path, if there is one (a model this run will replace)."""
        fd = lock_existing(path)
        if fd is not None:
            self.hold(fd)

    def hold(self, fd):
        """Keeps fd (locked) instead of the one held so far."""
        if self.fd is not None and self.fd != fd:
            os.close(self.fd)
        self.fd = fd

    def holds(self, path):
        """Whether the file at path is the one this lock holds."""
        if self.fd is None:
            return False
        try:
            held, now = os.fstat(self.fd), os.stat(path, follow_symlinks=False)
        except OSError:
            return False
        return (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino)

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def lock_existing(path):
    """Locks the regular file at path for writing (flock, exclusive, without waiting) and
    returns its descriptor, or None when there is no such file. A file another process
    holds is refused with ModelError (EXIT_IO)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None  # missing, or a link: replaced, never written through
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held, now = os.fstat(fd), os.stat(path, follow_symlinks=False)
        if (held.st_dev, held.st_ino) != (now.st_dev, now.st_ino):
            raise BlockingIOError  # replaced meanwhile: another writer's file
    except (BlockingIOError, OSError):
        os.close(fd)
        raise ModelError(f"{path}: being written by another process (a training run?); not "
                         "opened for writing, whatever --force says", EXIT_IO) from None
    return fd


def write_model_file(path, cfg, vocabs, weights, provenance, history=None,
                     extra_tensors=None, lock=None):
    """Writes a complete model file to path, atomically: built under PATH.PID.tmp beside
    it, committed in one transaction, switched back to one self-contained file and renamed
    over path only then, so a reader (or a crash) sees the old file or the new one.

    cfg: the configuration dict; vocabs: Vocabularies; weights: toytrans tensor name ->
    float32 array, as read_model_file returns; provenance: meta key -> text (keys of the
    configuration and format are refused); history: (train_log rows, valid_log rows) or
    None; extra_tensors: {name: float32 array} written to the tensor table beside the
    weights, under names of their own (a resumable run's optimiser state: toytrans's
    readers ignore tensors they do not need). The content checksum, written last, covers
    every tensor and meta key."""
    check_config(cfg)
    for lang in ("src", "tgt"):
        tokens, counts = vocabs.side(lang)
        check_vocab(lang, tokens)
        if counts and len(counts) != len(tokens):
            raise ModelError(f"{lang}: {len(counts)} counts for {len(tokens)} tokens")
    check_size(cfg, len(vocabs.src), len(vocabs.tgt))
    D = cfg["d_model"]
    want = expected_shapes(cfg, len(vocabs.tgt))
    want["embedding.src"] = (len(vocabs.src), D)
    want["embedding.tgt"] = (len(vocabs.tgt), D)
    arrays = {}
    for name, shape in want.items():
        if name not in weights:
            raise ModelError(f"tensor {name} is missing")
        a = np.ascontiguousarray(np.asarray(weights[name], dtype="<f4"))
        if a.shape != shape:
            raise ModelError(f"tensor {name} has shape {a.shape}, expected {shape}")
        if not np.all(np.isfinite(a)):
            raise ModelError(f"tensor {name} holds NaN or Inf")
        arrays[name] = a
    for name, value in (extra_tensors or {}).items():
        a = np.ascontiguousarray(np.asarray(value, dtype="<f4"))
        if name in arrays or not name or a.ndim not in (1, 2) or a.size > MAX_TENSOR_FLOATS:
            raise ModelError(f"extra tensor {name!r} of shape {a.shape} is not allowed")
        if not np.all(np.isfinite(a)):
            raise ModelError(f"tensor {name} holds NaN or Inf")
        arrays[name] = a
    meta = {}
    for key, value in provenance.items():
        if key in OWN_KEYS:
            raise ModelError(f"provenance may not set meta {key}")
        if not isinstance(value, str):
            raise ModelError(f"provenance {key} is {value!r}, not text")
        meta[key] = value
    meta.update(config_meta(cfg))
    meta.update(format="toytrans-model", format_version=str(FORMAT_VERSION))

    tmp = f"{path}.{os.getpid()}.tmp"
    for leftover in (tmp + suffix for suffix in TEMP_SUFFIXES):
        if os.path.lexists(leftover):
            os.unlink(leftover)
    remove_stale_temps(path)
    # Locked from its creation to its rename, so that no other writer's clean-up (this
    # package's or toytrans's) takes it for a dead run's.
    fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        try:
            _write_tmp(tmp, meta, vocabs, arrays, history)
        except sqlite3.Error as e:
            raise sqlite_error(e, f"writing {tmp}") from None
        os.fsync(fd)
        # The file the new one replaces is locked too, unless this run holds it already:
        # a model another writer (a C training run) holds is never replaced.
        old = None if lock is not None and lock.holds(path) else lock_existing(path)
        try:
            os.replace(tmp, path)
        finally:
            if old is not None:
                os.close(old)
    except BaseException:
        for leftover in (tmp + suffix for suffix in TEMP_SUFFIXES):
            if os.path.lexists(leftover):
                os.unlink(leftover)
        os.close(fd)
        raise
    if lock is not None:
        lock.hold(fd)  # the run goes on holding the file now at path
    else:
        os.close(fd)
    dfd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)
