#!/usr/bin/python3
"""The PyTorch side of `make bench`: the shipped toytrans model run by torch.nn.Transformer.

Run with Debian's python3-torch:

    /usr/bin/python3 bench/torch_ref.py --model models/en-de.db \\
        --toytrans build/release/toytrans --sentences data/test.tsv --threads 1 \\
        --json build/bench/torch-1.json

What it does, in order:

1. Loads the toytrans model file with the repository's package, python/toytrans_torch
   (toytrans_torch.load: torch.nn.Transformer, pre-LayerNorm, batch_first, ReLU, plus the
   two embedding tables, the sinusoidal positions and the generator, exactly as
   src/nn/transformer.c computes them). A file toytrans would refuse is refused with a
   message (exit status 3).
2. Takes the benchmark sentences' source ids from `toytrans tokenize` (then </s>, as
   src/translate/translator.c appends it), and toytrans's own outputs from
   `toytrans translate --json` (greedy and --beam N), so both sides see identical input.
3. Greedy decoding in PyTorch (toytrans_torch.greedy), one sentence at a time, checked token for token against
   toytrans. Any mismatch makes the benchmark invalid: it is recorded in the JSON and the
   exit status is 1.
4. Beam search (toytrans_torch.beam_search, mirroring src/translate/decode.c's), checked the same
   way.
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
import sys

import torch
import torch.nn.functional as F

# The model, its file and its decoding live in the repository's package, python/.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import toytrans_torch as tt                                   # noqa: E402
from toytrans_torch import tools as tt_tools                  # noqa: E402
from toytrans_torch.data import batch_tensors, lr_factor, make_batches   # noqa: E402
from toytrans_torch.decode import beam_search, causal_masks   # noqa: E402
from toytrans_torch.modelfile import BOS, EOS, PAD, ModelError   # noqa: E402
from toytrans_torch.model import Translator, init_like_toytrans  # noqa: E402
from toytrans_torch.tools import ToolError, read_tsv          # noqa: E402

TORCH_IMPORTED = time.perf_counter()

PROG = "torch_ref.py"
EXIT_MISMATCH, EXIT_USAGE, EXIT_MODEL = 1, 2, 3

# Training settings: the shipped model's (the Makefile's MODEL_SETTINGS: --epochs 7
# --batch 32 --lr 0.001 --warmup 1000 --label-smoothing 0.02) and the defaults of
# src/train/train_settings.h for what MODEL_SETTINGS leaves out (weight decay 0.01 on
# matrices only, clipping to a global norm of 1, dropout 0, AdamW β 0.9/0.98, ε 1e-9 as
# in the run's AdamConfig).
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


def load_model(path):
    """Model file -> (cfg, src_tokens, tgt_tokens, Translator in eval mode)."""
    model, vocabs, cfg = tt.load(path)
    return cfg, vocabs.src, vocabs.tgt, model


def greedy(model, src_ids, limit, masks):
    """toytrans_torch's greedy decoding, the output ids only."""
    return tt.greedy(model, src_ids, limit, masks)[0]


def tokenize_ids(toytrans, vocab_tokens, texts, lang):
    """Token ids of each text: `toytrans tokenize`, mapped through the vocabulary."""
    return tt.tokenize_ids(texts, lang, vocab_tokens, toytrans)


def toytrans_outputs(toytrans, model_path, texts, tgt_index, beam):
    """toytrans's output ids for each text (`translate --json`, </s> included), or None
    where toytrans reported an error for the line."""
    return [None if out is None else [tgt_index[t] for t in out[0]]
            for out in tt_tools.toytrans_outputs(model_path, texts, beam, toytrans)]


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


def greedy_batched(model, batch, limits, masks):
    """Greedy decoding of a batch of sentences at once, as a PyTorch user batches a file:
    the sources padded with <pad> (masked in the encoder and the cross-attention), every
    step re-running the decoder over the whole prefix of every sentence not yet finished
    (nn.Transformer has no key/value cache), the same choice rule as greedy(). -> one
    output id list per sentence, </s> included."""
    dev = model.generator.weight.device
    n = len(batch)
    S = max(len(s) for s in batch)
    src = torch.full((n, S), PAD, dtype=torch.long, device=dev)
    for i, s in enumerate(batch):
        src[i, :len(s)] = torch.tensor(s)
    src_pad = src == PAD
    memory = model.encode(src, src_pad)
    prefix = torch.full((n, 1), BOS, dtype=torch.long, device=dev)
    outs = [[] for _ in range(n)]
    live = list(range(n))
    while live:
        rows = torch.tensor(live, device=dev)
        h = model.decode(prefix[rows], memory[rows], masks[prefix.shape[1]].to(dev),
                         memory_pad=src_pad[rows])
        words = model.generator(h[:, -1]).clone()
        words[:, PAD] = words[:, BOS] = float("-inf")
        tokens = torch.argmax(words, dim=1)
        step = torch.full((n, 1), PAD, dtype=torch.long, device=dev)
        still = []
        for j, i in enumerate(live):
            t = int(tokens[j])
            outs[i].append(t)
            step[i, 0] = t
            if t != EOS and len(outs[i]) < limits[i]:
                still.append(i)
        prefix = torch.cat([prefix, step], dim=1)
        live = still
    return outs


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


def train_benchmark(cfg, v_src, v_tgt, src_ids, tgt_ids, batches, steps, batch):
    """Times `steps` optimiser steps after TRAIN_WARMUP_STEPS untimed ones.

    The batches are toytrans's length-sorted batches of the whole training file; to time a
    representative mix of lengths, steps + warm-up batches are taken evenly spread over the
    sorted list and run in an order shuffled with a fixed seed (toytrans shuffles its
    batch order each epoch). Name augmentation (toytrans adds ~3% pairs with <unk>
    pronouns) is left out: it changes no shape. Returns a dict for the JSON."""
    model = Translator(cfg, v_src, v_tgt, dropout=TRAIN_DROPOUT)
    init_like_toytrans(model, TRAIN_SEED)
    model.train()
    decay = [p for p in model.parameters() if p.requires_grad and p.dim() == 2]
    no_decay = [p for p in model.parameters() if p.requires_grad and p.dim() < 2]
    params = decay + no_decay
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": TRAIN_WEIGHT_DECAY},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=TRAIN_LR, betas=TRAIN_BETAS, eps=TRAIN_EPS)
    total_steps = TRAIN_EPOCHS * len(batches)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: lr_factor(k + 1, total_steps,
                                                                     TRAIN_WARMUP))

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
    # Source ids exactly as src/translate/translator.c forms them: the tokens' ids, then </s>.
    src_ids = [ids + [EOS] for ids in tokenize_ids(args.toytrans, src_tokens, texts, "src")]
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
        got, med, times = timed_passes(
            lambda s: greedy(model, s, tt.output_limit(cfg, len(s)), masks), src_ids, args.reps)
    m = compare("greedy", got, want, texts, tgt_tokens)
    greedy_first = got[0][0]
    ok &= m == len(texts)
    result.update(greedy_match=m, greedy_total=len(texts), greedy_pass_seconds=times,
                  greedy_sentences_per_s=len(texts) / med,
                  greedy_ms_per_sentence=1000 * med / len(texts))

    # Greedy, batched as a PyTorch user batches a file: 64 sentences at a time, sorted by
    # length (the best batch size measured on this model: 32 and 128 were no faster).
    order = sorted(range(len(texts)), key=lambda i: len(src_ids[i]))
    batches = [order[k:k + 64] for k in range(0, len(order), 64)]

    def run_batched(b):
        return greedy_batched(model, [src_ids[i] for i in b],
                              [tt.output_limit(cfg, len(src_ids[i])) for i in b], masks)
    with torch.inference_mode():
        outs, med, times = timed_passes(run_batched, batches, args.reps)
    got = [None] * len(texts)
    for b, o in zip(batches, outs):
        for i, ids in zip(b, o):
            got[i] = ids
    m = compare("greedy batched", got, want, texts, tgt_tokens)
    ok &= m == len(texts)
    result.update(greedy_batched_match=m, greedy_batched_seconds=times,
                  greedy_batched_sentences_per_s=len(texts) / med)

    # Beam search.
    if args.beam > 0:
        want = toytrans_outputs(args.toytrans, args.model, texts, tgt_index, args.beam)
        with torch.inference_mode():
            got, med, times = timed_passes(
                lambda s: beam_search(model, s, args.beam, tt.output_limit(cfg, len(s)), masks),
                src_ids, args.reps)
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
        s_ids = tokenize_ids(args.toytrans, src_tokens, [s for s, _ in pairs], "src")
        t_ids = tokenize_ids(args.toytrans, tgt_tokens, [t for _, t in pairs], "tgt")
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
             f"{result['greedy_match']}/{result['greedy_total']} equal to toytrans",
             f"greedy, batches of 64: {result['greedy_batched_sentences_per_s']:.1f} "
             f"sentences/s, {result['greedy_batched_match']}/{result['greedy_total']} equal to "
             f"toytrans"]
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
