#!/usr/bin/python3
"""The PyTorch side of `make bench`: the shipped toytrans model run by torch.nn.Transformer.

Run with Debian's python3-torch:

    /usr/bin/python3 bench/torch_ref.py --model models/en-de.db \\
        --toytrans build/release/toytrans --sentences data/test.tsv --threads 1 \\
        --json build/bench/torch-1.json

What it does, in order:

1. Loads the toytrans model file (an SQLite database, docs/model-format.md; tensor names
   in docs/model.md) with Python's sqlite3 into torch.nn.Transformer (pre-LayerNorm,
   batch_first, ReLU) plus the two embedding tables, the sinusoidal positions and the
   generator, exactly as src/transformer.c computes them. This is the reverse of
   tests/fixtures/gen_transformer_ref.py. A file of another format version or shape is
   refused with a message (exit status 3).
2. Takes the benchmark sentences' source ids from `toytrans tokenize --model M` (then
   </s>, as src/translator.c appends it), and toytrans's own outputs from
   `toytrans translate --json` (greedy and --beam N), so both sides see identical input.
3. Greedy decoding in PyTorch, one sentence at a time, checked token for token against
   toytrans. Any mismatch makes the benchmark invalid: it is recorded in the JSON and the
   exit status is 1.
4. Beam search mirroring src/decode.c's beam_search, batched over the live hypotheses,
   checked the same way.
5. Timing: the median over --reps passes (after one warm-up pass) of sentences per second;
   model load time up to the first decoded word.
6. Training steps of the same configuration on padded, length-grouped batches of
   --train-data (AdamW and the rest of toytrans's training settings).
7. Which BLAS library torch really loaded (from /proc/self/maps), the thread counts and
   the OpenBLAS environment.

Everything goes into one JSON object (--json) and a short summary on stderr.
"""
import time

START = time.perf_counter()   # before importing torch: its import time is reported too

import argparse
import ctypes
import json
import math
import os
import random
import re
import resource
import sqlite3
import statistics
import subprocess
import sys
import urllib.parse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

TORCH_IMPORTED = time.perf_counter()

PROG = "torch_ref.py"
PAD, UNK, BOS, EOS = 0, 1, 2, 3
RESERVED = ["<pad>", "<unk>", "<s>", "</s>"]
APPLICATION_ID = 1954116722     # 0x74797472, "tytr"
FORMAT_VERSION = 1
EXIT_MISMATCH, EXIT_USAGE, EXIT_MODEL = 1, 2, 3

# Training settings: the shipped model's (the Makefile's MODEL_SETTINGS: --epochs 7
# --batch 32 --lr 0.001 --warmup 1000 --label-smoothing 0.02) and src/train.c's defaults
# for what MODEL_SETTINGS leaves out (weight decay 0.01 on matrices only, clipping to a
# global norm of 1, dropout 0, AdamW β 0.9/0.98, ε 1e-9 as in train_run's AdamConfig).
TRAIN_EPOCHS = 7
TRAIN_LR = 1e-3
TRAIN_WARMUP = 1000
TRAIN_LABEL_SMOOTHING = 0.02
TRAIN_WEIGHT_DECAY = 0.01
TRAIN_BETAS = (0.9, 0.98)
TRAIN_EPS = 1e-9
TRAIN_CLIP = 1.0
TRAIN_DROPOUT = 0.0
TRAIN_WARMUP_STEPS = 3          # untimed optimiser steps before the timed ones
TRAIN_SEED = 1


class ModelError(Exception):
    """The model file breaks the contract (docs/model-format.md)."""


class ToolError(Exception):
    """toytrans or an input file did not give what was needed."""


# ------------------------------------------------------------------------------------------
# Reading the model file


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


def read_config(db):
    """meta -> dict of hyper-parameters, each checked as docs/model-format.md says."""
    meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("format") != "toytrans-model":
        raise ModelError(f"meta format is {meta.get('format')!r}, not 'toytrans-model'")
    if meta.get("format_version") != str(FORMAT_VERSION):
        raise ModelError(f"meta format_version is {meta.get('format_version')!r}; this script "
                         f"reads format_version {FORMAT_VERSION} only")
    limits = {"d_model": (1, 4096), "n_heads": (1, 4096), "n_encoder_layers": (1, 64),
              "n_decoder_layers": (1, 64), "d_ff": (1, 65536), "max_len": (2, 4096),
              "qkv_bias": (0, 1)}
    cfg = {}
    for key, (lo, hi) in limits.items():
        text = meta.get(key)
        if text is None:
            raise ModelError(f"meta has no {key}")
        try:
            value = int(text)
        except ValueError:
            raise ModelError(f"meta {key} is {text!r}, not an integer") from None
        if not lo <= value <= hi:
            raise ModelError(f"meta {key} = {value} is outside {lo}..{hi}")
        cfg[key] = value
    if cfg["d_model"] % cfg["n_heads"]:
        raise ModelError(f"d_model {cfg['d_model']} is not a multiple of n_heads {cfg['n_heads']}")
    if meta.get("activation") != "relu":
        raise ModelError(f"activation {meta.get('activation')!r} is not supported (relu only)")
    if meta.get("norm") != "pre":
        raise ModelError(f"norm {meta.get('norm')!r} is not supported (pre only)")
    try:
        eps = float(meta.get("layer_norm_eps", ""))
    except ValueError:
        eps = float("nan")
    if not 0.0 < eps < 1.0:
        raise ModelError(f"layer_norm_eps {meta.get('layer_norm_eps')!r} is not in (0, 1)")
    cfg["layer_norm_eps"] = eps
    return cfg


def read_vocab(db, lang):
    rows = db.execute("SELECT id, token FROM vocab WHERE lang = ? ORDER BY id", (lang,)).fetchall()
    if [r[0] for r in rows] != list(range(len(rows))):
        raise ModelError(f"{lang} vocabulary ids are not dense from 0")
    tokens = [r[1] for r in rows]
    if tokens[:4] != RESERVED:
        raise ModelError(f"{lang} vocabulary does not begin with {' '.join(RESERVED)}")
    return tokens


def f32_blob(blob, count, what):
    if not isinstance(blob, bytes) or len(blob) != 4 * count:
        raise ModelError(f"{what}: {len(blob) if isinstance(blob, bytes) else 'no'} bytes, "
                         f"expected {4 * count}")
    a = np.frombuffer(blob, dtype="<f4")
    if not np.all(np.isfinite(a)):
        raise ModelError(f"{what}: holds NaN or Inf")
    return a


def read_model_file(path):
    """The model file -> (cfg, src_tokens, tgt_tokens, weights), weights mapping toytrans's
    tensor names (plus 'embedding.src' / 'embedding.tgt') to float32 arrays."""
    if os.path.islink(path) or not os.path.isfile(path):
        raise ModelError("not an existing regular file (or a symbolic link)")
    if os.path.getsize(path) == 0:
        raise ModelError("empty file")
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    db = sqlite3.connect(uri, uri=True)
    try:
        try:
            app = db.execute("PRAGMA application_id").fetchone()[0]
        except sqlite3.DatabaseError as e:
            raise ModelError(f"not an SQLite database ({e})") from None
        if app != APPLICATION_ID:
            raise ModelError(f"application_id is {app}, not {APPLICATION_ID}: not a toytrans model")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != FORMAT_VERSION:
            raise ModelError(f"format version (user_version) {version}; this script reads "
                             f"version {FORMAT_VERSION} only"
                             + (" (a newer format)" if version > FORMAT_VERSION else ""))
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        for t in ("meta", "vocab", "embedding", "tensor"):
            if t not in tables:
                raise ModelError(f"no table {t}")
        cfg = read_config(db)
        D = cfg["d_model"]
        src_tokens, tgt_tokens = read_vocab(db, "src"), read_vocab(db, "tgt")
        weights = {}
        for lang, tokens in (("src", src_tokens), ("tgt", tgt_tokens)):
            rows = db.execute("SELECT id, vector FROM embedding WHERE lang = ? ORDER BY id",
                              (lang,)).fetchall()
            if [r[0] for r in rows] != list(range(len(tokens))):
                raise ModelError(f"{lang} embedding rows do not match the vocabulary's ids")
            weights[f"embedding.{lang}"] = np.stack(
                [f32_blob(v, D, f"{lang} embedding {i}") for i, v in rows])
        want = expected_shapes(cfg, len(tgt_tokens))
        # Other tensors (the optimiser's moments, optim.m and optim.v) are ignored.
        for name, shape, blob in db.execute("SELECT name, shape, data FROM tensor"):
            if name not in want:
                continue
            if shape != ",".join(str(s) for s in want[name]):
                raise ModelError(f"tensor {name} has shape {shape}, expected "
                                 f"{','.join(str(s) for s in want[name])}")
            a = f32_blob(blob, math.prod(want[name]), f"tensor {name}")
            weights[name] = a.reshape(want[name])
        missing = sorted(set(want) - set(weights))
        if missing:
            raise ModelError(f"tensor {missing[0]} is missing ({len(missing)} in all)")
        return cfg, src_tokens, tgt_tokens, weights
    finally:
        db.close()


# ------------------------------------------------------------------------------------------
# The model in PyTorch


def positional_table(max_len, d):
    """PE[pos, 2k] = sin(pos / 10000^(2k/D)), PE[pos, 2k+1] = cos(same): computed in double
    and rounded to float once, as src/model.c does."""
    pos = np.arange(max_len, dtype=np.float64)[:, None]
    i = np.arange(d)
    angle = pos / np.power(10000.0, (i - i % 2) / d)
    pe = np.where(i % 2 == 0, np.sin(angle), np.cos(angle))
    return torch.from_numpy(pe.astype(np.float32))


class Translator(nn.Module):
    """Embeddings + nn.Transformer + generator, the computation of docs/model.md."""

    def __init__(self, cfg, v_src, v_tgt, dropout=0.0):
        super().__init__()
        D = cfg["d_model"]
        self.src_emb = nn.Embedding(v_src, D)
        self.tgt_emb = nn.Embedding(v_tgt, D)
        self.transformer = nn.Transformer(
            d_model=D, nhead=cfg["n_heads"], num_encoder_layers=cfg["n_encoder_layers"],
            num_decoder_layers=cfg["n_decoder_layers"], dim_feedforward=cfg["d_ff"],
            dropout=dropout, activation="relu", layer_norm_eps=cfg["layer_norm_eps"],
            batch_first=True, norm_first=True)
        self.generator = nn.Linear(D, v_tgt)
        # Computed, not stored in the file: not part of the state_dict.
        self.register_buffer("pe", positional_table(cfg["max_len"], D), persistent=False)
        # sqrtf((float)D) in src/layers.c: the scale is a float32 number.
        self.scale = float(np.sqrt(np.float32(D), dtype=np.float32))

    def embed(self, table, ids):
        """ids [B, T] -> [B, T, D]: E[id] * sqrt(D) + PE[pos]."""
        return table(ids) * self.scale + self.pe[:ids.shape[1]]

    def encode(self, src, src_pad=None):
        """The encoder output after encoder.norm (nn.TransformerEncoder applies its norm)."""
        return self.transformer.encoder(self.embed(self.src_emb, src),
                                        src_key_padding_mask=src_pad)

    def decode(self, tgt, memory, tgt_mask, tgt_pad=None, memory_pad=None):
        """decoder.norm(decoder(...)) for every position of tgt: [B, T, D]."""
        return self.transformer.decoder(self.embed(self.tgt_emb, tgt), memory, tgt_mask=tgt_mask,
                                        tgt_key_padding_mask=tgt_pad,
                                        memory_key_padding_mask=memory_pad)


def state_dict_from_file(cfg, weights):
    """toytrans's tensor names -> Translator's state_dict (the reverse of tensor_list in
    tests/fixtures/gen_transformer_ref.py). PyTorch's in_proj_weight is the three
    projections stacked; without qkv_bias its in_proj_bias is zero."""
    D = cfg["d_model"]
    t = {name: torch.from_numpy(a.copy()) for name, a in weights.items()}
    sd = {"src_emb.weight": t["embedding.src"], "tgt_emb.weight": t["embedding.tgt"],
          "generator.weight": t["generator.weight"], "generator.bias": t["generator.bias"]}

    def attn(ours, theirs):
        parts = ("W_query", "W_key", "W_value")
        sd[f"{ours}.in_proj_weight"] = torch.cat([t[f"{theirs}.{p}.weight"] for p in parts])
        sd[f"{ours}.in_proj_bias"] = (torch.cat([t[f"{theirs}.{p}.bias"] for p in parts])
                                      if cfg["qkv_bias"] else torch.zeros(3 * D))
        for x in ("weight", "bias"):
            sd[f"{ours}.out_proj.{x}"] = t[f"{theirs}.out_proj.{x}"]

    def plain(ours, theirs, names):
        for n in names:
            for x in ("weight", "bias"):
                sd[f"{ours}.{n}.{x}"] = t[f"{theirs}.{n}.{x}"]

    for i in range(cfg["n_encoder_layers"]):
        ours, theirs = f"transformer.encoder.layers.{i}", f"encoder.layers.{i}"
        attn(f"{ours}.self_attn", f"{theirs}.self_attn")
        plain(ours, theirs, ("linear1", "linear2", "norm1", "norm2"))
    for i in range(cfg["n_decoder_layers"]):
        ours, theirs = f"transformer.decoder.layers.{i}", f"decoder.layers.{i}"
        attn(f"{ours}.self_attn", f"{theirs}.self_attn")
        attn(f"{ours}.multihead_attn", f"{theirs}.cross_attn")
        plain(ours, theirs, ("linear1", "linear2", "norm1", "norm2", "norm3"))
    for part in ("encoder", "decoder"):
        for x in ("weight", "bias"):
            sd[f"transformer.{part}.norm.{x}"] = t[f"{part}.norm.{x}"]
    return sd


def load_model(path):
    """Model file -> (cfg, src_tokens, tgt_tokens, Translator in eval mode)."""
    cfg, src_tokens, tgt_tokens, weights = read_model_file(path)
    model = Translator(cfg, len(src_tokens), len(tgt_tokens))
    model.load_state_dict(state_dict_from_file(cfg, weights), strict=True)
    model.eval()
    return cfg, src_tokens, tgt_tokens, model


def causal_masks(max_len):
    """masks[t]: the t×t additive causal mask (-inf above the diagonal), as
    nn.Transformer.generate_square_subsequent_mask(t) makes it; built once."""
    return [None] + [torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
                     for t in range(1, max_len + 1)]


# ------------------------------------------------------------------------------------------
# Decoding


def greedy(model, src_ids, limit, masks):
    """Greedy decoding of one sentence (batch of 1) -> output ids, </s> included.

    nn.TransformerDecoder has no key/value cache, so every step runs the decoder over the
    whole prefix again: PyTorch's own way (toytrans caches keys and values instead). As in
    src/decode.c's decode_record: the highest logit wins (torch.argmax returns the first
    maximum, i.e. ties go to the lowest id), and decoding stops after </s> or when the
    output, </s> included, has `limit` (max_len) tokens."""
    memory = model.encode(torch.tensor([src_ids]))
    prefix = [BOS]
    out = []
    while len(out) < limit:
        h = model.decode(torch.tensor([prefix]), memory, masks[len(prefix)])
        logits = model.generator(h[0, -1])         # only the last position is needed
        token = int(torch.argmax(logits))
        out.append(token)
        if token == EOS:
            break
        prefix.append(token)
    return out


def top_k_ids(lp, k):
    """The k best ids of lp (float64), best first, ties to the lower id (top_k in
    src/decode.c): a stable sort of -lp keeps equal values in id order."""
    return np.argsort(-lp, kind="stable")[:k]


def beam_search(model, src_ids, beam, limit, masks):
    """Beam search mirroring src/decode.c's beam_search (without a forced prefix).

    Hypotheses are scored by their summed log-probabilities (log_softmax of the float32
    logits, in double). At every step each live hypothesis offers its min(beam, V) best
    extensions; all offers are sorted by score (ties: the earlier hypothesis, then the
    lower id) and the first `beam` are taken in that order: one ending in </s> or reaching
    `limit` tokens is finished, with its score divided by its length (</s> counted), the
    others are the next step's hypotheses, in that order. Search stops when no hypothesis
    is live or `beam` are finished; the finished one with the best normalised score wins
    (ties: the first finished). The live hypotheses all have the same length, so each
    step is one decoder call on a batch of them (again without a key/value cache)."""
    memory = model.encode(torch.tensor([src_ids]))
    V = model.generator.out_features
    k = min(beam, V)

    def log_probs(hyps):
        tgt = torch.tensor([[BOS] + h for h in hyps])
        mem = memory.expand(len(hyps), -1, -1)
        h = model.decode(tgt, mem, masks[tgt.shape[1]])
        logits = model.generator(h[:, -1])
        return torch.log_softmax(logits.double(), dim=-1).numpy()

    hyps, scores = [[]], [0.0]
    finished = []                        # (ids, score / length)
    lp = log_probs(hyps)
    while hyps and len(finished) < beam:
        cands = []
        for a in range(len(hyps)):
            for tok in top_k_ids(lp[a], k):
                cands.append((scores[a] + float(lp[a, tok]), a, int(tok)))
        cands.sort(key=lambda c: (-c[0], c[1], c[2]))
        next_hyps, next_scores = [], []
        for score, a, tok in cands[:beam]:
            if len(finished) >= beam:
                break
            ids = hyps[a] + [tok]
            if tok == EOS or len(ids) >= limit:
                finished.append((ids, score / len(ids)))
            else:
                next_hyps.append(ids)
                next_scores.append(score)
        hyps, scores = next_hyps, next_scores
        if hyps:
            lp = log_probs(hyps)
    best = 0
    for f in range(1, len(finished)):
        if finished[f][1] > finished[best][1]:
            best = f
    return finished[best][0]


# ------------------------------------------------------------------------------------------
# toytrans and the data


def run_toytrans(toytrans, args, lines):
    """Runs toytrans with lines on standard input -> its output lines (one per input)."""
    cmd = [toytrans] + args
    try:
        p = subprocess.run(cmd, input="".join(line + "\n" for line in lines),
                           capture_output=True, text=True, encoding="utf-8")
    except OSError as e:
        raise ToolError(f"cannot run {toytrans}: {e}") from None
    if p.returncode != 0:
        raise ToolError(f"{' '.join(cmd)} exited with status {p.returncode}: "
                        f"{p.stderr.strip()[:500]}")
    out = p.stdout.split("\n")
    if out and out[-1] == "":
        out.pop()
    if len(out) != len(lines):
        raise ToolError(f"{' '.join(cmd)} gave {len(out)} lines for {len(lines)} inputs")
    return out


def tokenize_ids(toytrans, model_path, texts, lang):
    """Token ids of each text, from `toytrans tokenize --model M` (tokens print as token:id,
    unknown ones as token:<unk>; a token may itself contain ':', so split at the last)."""
    lines = run_toytrans(toytrans, ["tokenize", "--lang", lang, "--model", model_path], texts)
    result = []
    for line in lines:
        ids = []
        for item in line.split():
            tok, _, ident = item.rpartition(":")
            if not tok:
                raise ToolError(f"toytrans tokenize printed {item!r}, not token:id")
            ids.append(UNK if ident == "<unk>" else int(ident))
        result.append(ids)
    return result


def toytrans_outputs(toytrans, model_path, texts, tgt_index, beam):
    """toytrans's output ids for each text (`translate --json`, field "tokens", </s>
    included), or None where toytrans reported an error for the line."""
    args = ["translate", "--model", model_path, "--json"]
    if beam > 1:
        args += ["--beam", str(beam)]
    result = []
    for line in run_toytrans(toytrans, args, texts):
        obj = json.loads(line)
        if "error" in obj:
            result.append(None)
            continue
        result.append([tgt_index[t] for t in obj["tokens"]])
    return result


def read_tsv(path, limit=None):
    """(source, target) pairs of a corpus file; blank lines skipped as src/tsv.c does."""
    pairs = []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n").rstrip("\r")
            if not line.strip(" \t\r\n"):
                continue
            fields = line.split("\t")
            # A third field names the sentence's construction (data/test.tsv).
            if len(fields) not in (2, 3):
                raise ToolError(f"{path}:{no}: expected source TAB target [TAB construction]")
            pairs.append((fields[0], fields[1]))
            if limit is not None and len(pairs) >= limit:
                break
    return pairs


# ------------------------------------------------------------------------------------------
# Benchmarks


def compare(name, ours, theirs, texts, tgt_tokens):
    """Counts equal outputs; prints the first few differences to stderr."""
    def words(ids):
        return "(error)" if ids is None else " ".join(tgt_tokens[i] for i in ids)

    match, shown = 0, 0
    for text, a, b in zip(texts, ours, theirs):
        if a == b:
            match += 1
        elif shown < 5:
            shown += 1
            print(f"{PROG}: {name} MISMATCH: {text}\n    toytrans: {words(b)}\n    torch:    "
                  f"{words(a)}", file=sys.stderr)
    return match


def timed_passes(fn, items, reps):
    """One untimed warm-up pass (whose outputs are returned), then reps timed passes ->
    (outputs, median seconds per pass, all pass times)."""
    outputs = [fn(x) for x in items]
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for x in items:
            fn(x)
        times.append(time.perf_counter() - t0)
    return outputs, statistics.median(times), times


def load_to_first_word(model_path, src_ids, reps):
    """Median seconds from opening the model file to the first greedy word of the first
    sentence, over reps fresh loads (in this already warm process: the torch import is
    not included; it is reported separately)."""
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        cfg, _, _, model = load_model(model_path)
        with torch.inference_mode():
            memory = model.encode(torch.tensor([src_ids]))
            h = model.decode(torch.tensor([[BOS]]), memory, causal_masks(1)[1])
            first = int(torch.argmax(model.generator(h[0, -1])))
        times.append(time.perf_counter() - t0)
        del model
    return statistics.median(times), first


def make_batches(src_ids, tgt_ids, batch, max_len):
    """toytrans's grouping (src/train.c): pairs longer than max_len (with </s>) left out,
    the rest sorted by (target length, source length, corpus order) and cut into batches
    of `batch` pairs."""
    keep = [i for i in range(len(src_ids))
            if len(src_ids[i]) + 1 <= max_len and len(tgt_ids[i]) + 1 <= max_len]
    keep.sort(key=lambda i: (len(tgt_ids[i]), len(src_ids[i]), i))
    return [keep[k:k + batch] for k in range(0, len(keep), batch)]


def batch_tensors(pairs, src_ids, tgt_ids):
    """Padded, batch_first tensors of one batch: source + </s>, decoder input <s> + target,
    expected output target + </s>; pad id 0; masks True at padding."""
    S = max(len(src_ids[i]) for i in pairs) + 1
    T = max(len(tgt_ids[i]) for i in pairs) + 1
    src = torch.full((len(pairs), S), PAD, dtype=torch.long)
    tin = torch.full((len(pairs), T), PAD, dtype=torch.long)
    tout = torch.full((len(pairs), T), PAD, dtype=torch.long)
    for r, i in enumerate(pairs):
        s, t = src_ids[i], tgt_ids[i]
        src[r, :len(s) + 1] = torch.tensor(s + [EOS])
        tin[r, :len(t) + 1] = torch.tensor([BOS] + t)
        tout[r, :len(t) + 1] = torch.tensor(t + [EOS])
    return src, tin, tout, src == PAD, tin == PAD, int((tout != PAD).sum())


def init_like_toytrans(model, qkv_bias):
    """A fresh model initialised as src/model.c's model_randomize does: Xavier-uniform
    matrices (each of W_query, W_key, W_value on its own), zero biases, LayerNorm weights
    one. Without qkv_bias the query/key/value biases stay zero and are not trained."""
    torch.manual_seed(TRAIN_SEED)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("in_proj_weight"):
                for chunk in p.chunk(3):
                    nn.init.xavier_uniform_(chunk)
            elif p.dim() == 2:
                nn.init.xavier_uniform_(p)
            elif "norm" in name and name.endswith(".weight"):
                nn.init.ones_(p)
            else:
                nn.init.zeros_(p)
            if name.endswith("in_proj_bias") and not qkv_bias:
                p.requires_grad_(False)


def lr_factor(step, total):
    """schedule() in src/train.c as a multiple of the base rate, step from 1: linear
    warm-up, then a cosine down to a tenth at the last step."""
    if TRAIN_WARMUP > 0 and step <= TRAIN_WARMUP:
        return step / TRAIN_WARMUP
    span = total - TRAIN_WARMUP if total > TRAIN_WARMUP else 1
    progress = min((step - TRAIN_WARMUP) / span, 1.0)
    return 0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * progress))


def train_benchmark(cfg, v_src, v_tgt, src_ids, tgt_ids, batches, steps, batch):
    """Times `steps` optimiser steps after TRAIN_WARMUP_STEPS untimed ones.

    The batches are toytrans's length-sorted batches of the whole training file; to time a
    representative mix of lengths, steps + warm-up batches are taken evenly spread over the
    sorted list and run in an order shuffled with a fixed seed (toytrans shuffles its
    batch order each epoch). Name augmentation (toytrans adds ~3% pairs with <unk>
    pronouns) is left out: it changes no shape. Returns a dict for the JSON."""
    model = Translator(cfg, v_src, v_tgt, dropout=TRAIN_DROPOUT)
    init_like_toytrans(model, cfg["qkv_bias"])
    model.train()
    decay = [p for p in model.parameters() if p.requires_grad and p.dim() == 2]
    no_decay = [p for p in model.parameters() if p.requires_grad and p.dim() < 2]
    params = decay + no_decay
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": TRAIN_WEIGHT_DECAY},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=TRAIN_LR, betas=TRAIN_BETAS, eps=TRAIN_EPS)
    total_steps = TRAIN_EPOCHS * len(batches)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: lr_factor(k + 1, total_steps))

    n = steps + TRAIN_WARMUP_STEPS
    if len(batches) < n:
        raise ToolError(f"the training data gives {len(batches)} batches of {batch}; "
                        f"{n} are needed")
    chosen = [batches[j * len(batches) // n] for j in range(n)]
    random.Random(TRAIN_SEED).shuffle(chosen)
    data = [batch_tensors(b, src_ids, tgt_ids) for b in chosen]   # built before timing
    causal = {}

    def step(src, tin, tout, src_pad, tgt_pad):
        T = tin.shape[1]
        if T not in causal:
            causal[T] = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        opt.zero_grad(set_to_none=True)
        memory = model.encode(src, src_pad)
        h = model.decode(tin, memory, causal[T], tgt_pad, src_pad)
        logits = model.generator(h)
        loss = F.cross_entropy(logits.reshape(-1, v_tgt), tout.reshape(-1), ignore_index=PAD,
                               label_smoothing=TRAIN_LABEL_SMOOTHING)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, TRAIN_CLIP)
        opt.step()
        sched.step()
        return float(loss)

    losses, times, tokens = [], [], 0
    for k, (src, tin, tout, src_pad, tgt_pad, ntok) in enumerate(data):
        t0 = time.perf_counter()
        loss = step(src, tin, tout, src_pad, tgt_pad)
        dt = time.perf_counter() - t0
        losses.append(loss)
        if not math.isfinite(loss):
            raise ToolError(f"training step {k + 1}: the loss is {loss}")
        if k >= TRAIN_WARMUP_STEPS:
            times.append(dt)
            tokens += ntok
    return {
        "train_steps": steps,
        "train_warmup_steps": TRAIN_WARMUP_STEPS,
        "train_batch": batch,
        "train_tokens": tokens,
        "train_seconds": sum(times),
        "train_tokens_per_s": tokens / sum(times),
        "train_tokens_per_s_method": "total target tokens (non-pad, </s> included) of the "
                                     "timed steps / their total time",
        "train_step_ms_median": 1000 * statistics.median(times),
        "train_loss_first": losses[0],
        "train_loss_last": losses[-1],
    }


# ------------------------------------------------------------------------------------------
# BLAS and threads


def loaded_blas():
    """Paths of the BLAS shared objects mapped into this process (after a matmul has run),
    as /proc/self/maps shows them, with their resolved paths."""
    pattern = re.compile(r"lib[^/]*blas[^/]*\.so")
    seen = []
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) == 6:
                path = parts[5].strip()
                if pattern.search(os.path.basename(path)) and path not in seen:
                    seen.append(path)
    return [{"path": p, "resolved": os.path.realpath(p)} for p in seen]


def openblas_handle(libs):
    """A ctypes handle of the loaded OpenBLAS (for its thread count), or None."""
    for lib in libs:
        try:
            h = ctypes.CDLL(lib["path"], mode=os.RTLD_NOLOAD | os.RTLD_GLOBAL)
        except OSError:
            continue
        if hasattr(h, "openblas_get_num_threads") and hasattr(h, "openblas_set_num_threads"):
            return h
    return None


def setup_threads(threads, blas_threads):
    """torch's thread pools, and OpenBLAS's.

    torch.set_num_threads sizes torch's OpenMP pool but does not reach Debian's OpenBLAS,
    whose own pthread pool starts with one thread per core: left alone, --threads 1 would
    still let sgemm use both cores. So OpenBLAS is set directly, to --blas-threads
    (default 1). Both pools above one thread oversubscribe the cores: OpenMP's workers
    spin between parallel regions while OpenBLAS's threads wait for a core; measured on
    2 cores with this model, OpenMP 2 + OpenBLAS 2 made training 3x and beam search up to
    10x slower than one thread."""
    torch.set_num_interop_threads(1)       # must come before any parallel work
    torch.set_num_threads(threads)
    a = torch.randn(64, 64)
    (a @ a).sum().item()                    # loads and initialises the BLAS
    libs = loaded_blas()
    info = {"blas_library": libs, "openblas_threads_default": None, "openblas_threads": None,
            "openblas_corename": None, "openblas_config": None}
    h = openblas_handle(libs)
    if h is not None:
        info["openblas_threads_default"] = h.openblas_get_num_threads()
        h.openblas_set_num_threads(blas_threads)
        info["openblas_threads"] = h.openblas_get_num_threads()
        for key, fn in (("openblas_corename", "openblas_get_corename"),
                        ("openblas_config", "openblas_get_config")):
            if hasattr(h, fn):
                f = getattr(h, fn)
                f.restype = ctypes.c_char_p
                info[key] = f().decode()
    return info


# ------------------------------------------------------------------------------------------
# Main


def parse_args():
    p = argparse.ArgumentParser(
        prog=PROG,
        description="The PyTorch side of `make bench`: runs a toytrans model file with "
                    "torch.nn.Transformer, checks that greedy and beam outputs equal "
                    "toytrans's, and times decoding, model loading and training steps.",
        epilog="Exit status: 0 ok, 1 some output differs from toytrans's (the benchmark is "
               "invalid; the JSON is still written), 2 bad command line or input, "
               "3 unusable model file.")
    p.add_argument("--model", required=True, help="the toytrans model file (SQLite)")
    p.add_argument("--toytrans", required=True, help="the toytrans binary")
    p.add_argument("--sentences", required=True, help="TSV corpus; its source column is "
                                                      "translated")
    p.add_argument("--limit", type=int, default=None, help="only the first N sentences")
    p.add_argument("--threads", type=int, required=True,
                   help="torch's intra-op (OpenMP) threads: torch.set_num_threads")
    p.add_argument("--blas-threads", type=int, default=1,
                   help="OpenBLAS's own threads, set through its API (default 1: OpenBLAS "
                        "and OpenMP both above 1 oversubscribe the cores)")
    p.add_argument("--reps", type=int, default=5,
                   help="timed passes over the sentences, after one warm-up (default 5)")
    p.add_argument("--beam", type=int, default=4,
                   help="beam width for the beam check and timing; 0 skips it (default 4)")
    p.add_argument("--train-steps", type=int, default=40,
                   help="timed training steps after 3 warm-up steps; 0 skips training "
                        "(default 40)")
    p.add_argument("--train-data", default="data/train.tsv",
                   help="training corpus (default data/train.tsv)")
    p.add_argument("--train-batch", type=int, default=32,
                   help="sentence pairs per batch (default 32, as MODEL_SETTINGS)")
    p.add_argument("--json", required=True, help="where to write the results")
    a = p.parse_args()
    # (toytrans's --beam goes up to DECODE_MAX_BEAM, 64)
    for name, lo, hi in (("limit", 1, None), ("threads", 1, None), ("blas_threads", 1, None),
                         ("reps", 1, None), ("beam", 0, 64), ("train_steps", 0, None),
                         ("train_batch", 1, None)):
        v = getattr(a, name)
        if v is not None and (v < lo or (hi is not None and v > hi)):
            p.error(f"--{name.replace('_', '-')} must be at least {lo}"
                    + (f" and at most {hi}" if hi is not None else ""))
    return a


def main():
    args = parse_args()
    result = {"torch_version": torch.__version__, "threads": args.threads}
    result.update(setup_threads(args.threads, args.blas_threads))
    result["torch_num_threads"] = torch.get_num_threads()
    result["torch_num_interop_threads"] = torch.get_num_interop_threads()
    result["env"] = {k: os.environ.get(k) for k in
                     ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS",
                      "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    result["torch_import_ms"] = 1000 * (TORCH_IMPORTED - START)

    try:
        cfg, src_tokens, tgt_tokens, model = load_model(args.model)
    except ModelError as e:
        print(f"{PROG}: {args.model}: model file unusable: {e}", file=sys.stderr)
        return EXIT_MODEL
    except sqlite3.Error as e:
        print(f"{PROG}: {args.model}: model file unusable: {e}", file=sys.stderr)
        return EXIT_MODEL
    tgt_index = {t: i for i, t in enumerate(tgt_tokens)}
    limit = cfg["max_len"]
    result["model"] = {k: cfg[k] for k in ("d_model", "n_heads", "n_encoder_layers",
                                           "n_decoder_layers", "d_ff", "max_len", "qkv_bias")}
    # As toytrans counts them: without qkv_bias PyTorch's (zero) in_proj_bias is not one.
    result["model"]["parameters"] = sum(
        p.numel() for name, p in model.named_parameters()
        if cfg["qkv_bias"] or not name.endswith("in_proj_bias"))

    texts = [s for s, _ in read_tsv(args.sentences, args.limit)]
    # Source ids exactly as src/translator.c forms them: the tokens' ids, then </s>.
    src_ids = [ids + [EOS] for ids in tokenize_ids(args.toytrans, args.model, texts, "src")]
    # toytrans refuses a sentence longer than max_len (with </s>); so do we.
    usable = [i for i, s in enumerate(src_ids) if 1 < len(s) <= limit]
    if len(usable) < len(texts):
        print(f"{PROG}: {len(texts) - len(usable)} sentences left out (empty or longer than "
              f"max_len {limit})", file=sys.stderr)
    texts = [texts[i] for i in usable]
    src_ids = [src_ids[i] for i in usable]
    if not texts:
        raise ToolError(f"{args.sentences}: no usable sentences")
    result["sentences"] = len(texts)
    masks = causal_masks(limit)
    ok = True

    # Greedy.
    want = toytrans_outputs(args.toytrans, args.model, texts, tgt_index, 1)
    with torch.inference_mode():
        got, med, times = timed_passes(lambda s: greedy(model, s, limit, masks), src_ids,
                                       args.reps)
    m = compare("greedy", got, want, texts, tgt_tokens)
    greedy_first = got[0][0]
    ok &= m == len(texts)
    result.update(greedy_match=m, greedy_total=len(texts), greedy_pass_seconds=times,
                  greedy_sentences_per_s=len(texts) / med,
                  greedy_ms_per_sentence=1000 * med / len(texts))

    # Beam search.
    if args.beam > 0:
        want = toytrans_outputs(args.toytrans, args.model, texts, tgt_index, args.beam)
        with torch.inference_mode():
            got, med, times = timed_passes(
                lambda s: beam_search(model, s, args.beam, limit, masks), src_ids, args.reps)
        m = compare(f"beam {args.beam}", got, want, texts, tgt_tokens)
        ok &= m == len(texts)
        result.update(beam=args.beam, beam_match=m, beam_total=len(texts),
                      beam_pass_seconds=times, beam_sentences_per_s=len(texts) / med,
                      beam_ms_per_sentence=1000 * med / len(texts))

    # Model load up to the first word.
    secs, first = load_to_first_word(args.model, src_ids[0], args.reps)
    if first != greedy_first:
        print(f"{PROG}: load check: the first word of a fresh load, {tgt_tokens[first]}, "
              f"is not {tgt_tokens[greedy_first]}", file=sys.stderr)
        ok = False
    result["load_to_first_word_ms"] = 1000 * secs
    # Peak resident memory so far: the interpreter, torch, the model and the decoding,
    # before training allocates anything (Linux reports ru_maxrss in KiB).
    result["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    # Training.
    if args.train_steps > 0:
        pairs = read_tsv(args.train_data)
        s_ids = tokenize_ids(args.toytrans, args.model, [s for s, _ in pairs], "src")
        t_ids = tokenize_ids(args.toytrans, args.model, [t for _, t in pairs], "tgt")
        batches = make_batches(s_ids, t_ids, args.train_batch, limit)
        result.update(train_benchmark(cfg, len(src_tokens), len(tgt_tokens), s_ids, t_ids,
                                      batches, args.train_steps, args.train_batch))
    result["valid"] = ok

    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")

    # The human summary.
    blas = ", ".join(lib["resolved"] for lib in result["blas_library"]) or "none found"
    lines = [f"torch {torch.__version__}, {args.threads} thread(s) (OpenBLAS "
             f"{result['openblas_threads']}, core {result['openblas_corename']}), BLAS: {blas}",
             f"greedy: {result['greedy_sentences_per_s']:.1f} sentences/s "
             f"({result['greedy_ms_per_sentence']:.2f} ms each), "
             f"{result['greedy_match']}/{result['greedy_total']} equal to toytrans"]
    if args.beam > 0:
        lines.append(f"beam {args.beam}: {result['beam_sentences_per_s']:.1f} sentences/s "
                     f"({result['beam_ms_per_sentence']:.2f} ms each), "
                     f"{result['beam_match']}/{result['beam_total']} equal to toytrans")
    lines.append(f"load to first word: {result['load_to_first_word_ms']:.1f} ms "
                 f"(torch import {result['torch_import_ms']:.0f} ms not included)")
    if args.train_steps > 0:
        lines.append(f"training: {result['train_tokens_per_s']:.0f} target tokens/s over "
                     f"{args.train_steps} steps of {args.train_batch} pairs "
                     f"({result['train_step_ms_median']:.1f} ms/step median)")
    if not ok:
        lines.append("INVALID: some outputs differ from toytrans's")
    for line in lines:
        print(f"{PROG}: {line}", file=sys.stderr)
    return 0 if ok else EXIT_MISMATCH


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ToolError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        sys.exit(EXIT_USAGE)
    except OSError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        sys.exit(EXIT_USAGE)
