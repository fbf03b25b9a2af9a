"""Training a toytrans model in PyTorch, across processes and machines, with
DistributedDataParallel; the result is a toytrans model file.

    torchrun --standalone --nproc_per_node=2 -m toytrans_torch.train \\
        --train data/train.tsv --valid data/valid.tsv --out big.db --epochs 3

(with PYTHONPATH=python; run without torchrun it trains in one process). Every process
reads the corpus and tokenizes it with toytrans's own tokenizer (`toytrans tokenize`),
with the vocabulary of --vocab or one `toytrans vocab` makes from --train, so the ids are
toytrans's; the processes check that they agree on it before the first step. As
toytrans train does, copies of a fraction of the pairs with names (--name-augment) are
added with every name <unk> on both sides, so that unknown names pass through.

One optimiser step takes one batch of --batch sentence pairs, grouped by length and
shuffled per epoch as toytrans groups them (the same on every process, from --seed).
Each of the W processes takes every W-th pair of the batch and computes the summed
cross-entropy of its share divided by (target tokens of the whole batch) / W; DDP
averages the gradients over the processes, so the step's gradient is the gradient of
the whole batch's mean loss per token, whatever W is (tests/test_torch.sh checks this).

Rank 0 alone writes the model file, atomically (toytrans_torch.save: a temporary file
renamed into place), every --checkpoint-every steps and after every epoch; the file holds
the optimiser state and the run's position in a table of its own, so that --resume
continues the run, with any number of processes.
"""
import argparse
import hashlib
import io
import json
import math
import os
import random
import sqlite3
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

from . import tools
from .data import augment_names, batch_tensors, lr_factor, make_batches
from .decode import causal_masks, greedy, output_limit
from .model import Translator, init_like_toytrans, save, state_dict_from_weights
from .modelfile import (EOS, PAD, UNK, ModelError, Vocabularies, check_config, check_size,
                        check_vocab,
                        fnv1a64_update, read_model_file, read_table_blob)

PROG = "toytrans_torch.train"
CHECKPOINT_TABLE = "torch_checkpoint"   # ignored by toytrans's readers (docs/model-format.md)
EXIT_USAGE, EXIT_MODEL, EXIT_INPUT, EXIT_IO, EXIT_DIVERGED = 2, 3, 4, 5, 6

# The settings that define a run, with their defaults. A new run takes the default of one
# not given; a resumed run takes the checkpoint's, and one given again must be the same,
# except --epochs, which may extend the run (as `toytrans train --resume`).
RUN_DEFAULTS = {"epochs": 10, "batch": 32, "lr": 1e-3, "warmup": 400, "label_smoothing": 0.1,
                "weight_decay": 0.01, "adam_beta1": 0.9, "adam_beta2": 0.98, "adam_eps": 1e-9,
                "clip": 1.0, "dropout": 0.0, "name_augment": 0.1, "seed": 1, "limit": None,
                "valid_exact": 200}
# AdamW's betas and epsilon: toytrans train's defaults, recorded in meta as toytrans
# records its own (train_adam_beta1, train_adam_beta2, train_adam_eps).


class TrainError(Exception):
    """A failure that ends the run, with its exit status."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


# ------------------------------------------------------------------------------------------
# The process group


class Group:
    """This process's place in the run: rank, world size, the device, and the collectives
    the run needs (no-ops in a single process started without torchrun)."""

    def __init__(self, device, backend):
        self.distributed = "WORLD_SIZE" in os.environ
        if self.distributed:
            if backend is None:
                backend = "nccl" if device == "cuda" else "gloo"
            dist.init_process_group(backend=backend)
            self.rank, self.world = dist.get_rank(), dist.get_world_size()
            self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        else:
            backend = "none"
            self.rank, self.world, self.local_rank = 0, 1, 0
        self.backend = backend
        if device == "cuda":
            if not torch.cuda.is_available():
                raise TrainError("--device cuda: this PyTorch has no CUDA device (Debian's "
                                 "python3-torch is built for the CPU only)", EXIT_USAGE)
            torch.cuda.set_device(self.local_rank)
            self.device = torch.device("cuda", self.local_rank)
        else:
            self.device = torch.device("cpu")

    def broadcast(self, obj):
        """obj of rank 0, on every process."""
        if not self.distributed:
            return obj
        box = [obj]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    def gather(self, obj):
        """Every process's obj, by rank."""
        if not self.distributed:
            return [obj]
        out = [None] * self.world
        dist.all_gather_object(out, obj)
        return out

    def sum(self, values):
        """Element-wise sum of a list of floats over the processes."""
        if not self.distributed:
            return values
        t = torch.tensor(values, dtype=torch.float64, device=self.device)
        dist.all_reduce(t)
        return t.tolist()

    def barrier(self):
        if self.distributed:
            dist.barrier()

    def close(self):
        if self.distributed:
            dist.destroy_process_group()


# ------------------------------------------------------------------------------------------
# The loss: the one function training and tests/test_torch.sh's gradient check share


def shard(pairs, rank, world):
    """This process's share of a batch: every world-th pair from the rank-th."""
    return pairs[rank::world]


def batch_target_tokens(pairs, tgt_ids):
    """Target tokens of a whole batch, </s> included: the loss's normaliser."""
    return sum(len(tgt_ids[i]) + 1 for i in pairs)


def shard_loss(model, pairs, src_ids, tgt_ids, batch_tokens, world, label_smoothing, device):
    """The loss this process back-propagates for its share `pairs` of a batch:
    the summed cross-entropy of its target tokens / (batch_tokens / world). Averaged over
    the world's processes (as DDP averages gradients) it is the whole batch's mean
    cross-entropy per target token. Returns (loss, summed cross-entropy as a float)."""
    src, tin, tout, src_pad, tgt_pad, _ = batch_tensors(pairs, src_ids, tgt_ids)
    src, tin, tout = src.to(device), tin.to(device), tout.to(device)
    src_pad, tgt_pad = src_pad.to(device), tgt_pad.to(device)
    logits = model(src, tin, src_pad, tgt_pad)
    total = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1),
                            ignore_index=PAD, label_smoothing=label_smoothing, reduction="sum")
    return total * (world / batch_tokens), float(total)


# ------------------------------------------------------------------------------------------
# Data


def corpus_fnv1a64(pairs):
    """FNV-1a 64 over the pairs read, as `src TAB tgt LF` (meta train_corpus_fnv1a64)."""
    h = 0xCBF29CE484222325
    for s, t in pairs:
        h = fnv1a64_update(h, f"{s}\t{t}\n".encode("utf-8"))
    return f"{h:016x}"


def read_vocab_file(path):
    """Both vocabularies of a file `toytrans vocab` (or init, or train) made."""
    try:
        db = sqlite3.connect("file:" + os.path.abspath(path) + "?mode=ro", uri=True)
        try:
            sides = []
            for lang in ("src", "tgt"):
                rows = db.execute("SELECT id, token, count FROM vocab WHERE lang = ? "
                                  "ORDER BY id", (lang,)).fetchall()
                if [r[0] for r in rows] != list(range(len(rows))):
                    raise ModelError(f"{lang} vocabulary ids are not dense from 0")
                check_vocab(lang, [r[1] for r in rows])
                sides.append(([r[1] for r in rows], [int(r[2]) for r in rows]))
        finally:
            db.close()
    except sqlite3.Error as e:
        raise TrainError(f"{path}: cannot read a vocabulary: {e}", EXIT_MODEL) from None
    except ModelError as e:
        raise TrainError(f"{path}: {e}", EXIT_MODEL) from None
    return Vocabularies(sides[0][0], sides[1][0], sides[0][1], sides[1][1])


def make_vocab(args):
    """The vocabulary of --train, made by `toytrans vocab` in a temporary directory (each
    process makes its own: the command is deterministic, and machines share no disk)."""
    with tempfile.TemporaryDirectory(prefix="toytrans-vocab-") as d:
        path = os.path.join(d, "vocab.db")
        tools.run_toytrans(args.toytrans, ["vocab", "--train", args.train, "--out", path,
                                           "--no-lists", "--min-count", str(args.min_count)], [],
                           per_line=False)
        return read_vocab_file(path)


def vocab_digest(v):
    h = hashlib.sha256()
    for side in (v.src, v.tgt):
        h.update("\n".join(side).encode("utf-8") + b"\0")
    return h.hexdigest()


# ------------------------------------------------------------------------------------------
# Validation (rank 0)


def validate(model, src_ids, tgt_ids, exact_limit, device, batch=64):
    """(mean cross-entropy per target token without label smoothing, exact-match rate of
    the first exact_limit pairs by greedy decoding)."""
    model.eval()
    limit = model.config["max_len"]
    usable = [i for i in range(len(src_ids))
              if len(src_ids[i]) + 1 <= limit and len(tgt_ids[i]) + 1 <= limit]
    total, tokens = 0.0, 0
    with torch.no_grad():
        for k in range(0, len(usable), batch):
            pairs = usable[k:k + batch]
            loss, s = shard_loss(model, pairs, src_ids, tgt_ids, 1, 1, 0.0, device)
            total += s
            tokens += batch_target_tokens(pairs, tgt_ids)
        masks = causal_masks(limit)
        exact, n = 0, 0
        for i in usable[:exact_limit]:
            out, _ = greedy(model, src_ids[i] + [EOS],
                            output_limit(model.config, len(src_ids[i]) + 1), masks)
            exact += out == tgt_ids[i] + [EOS]
            n += 1
    model.train()
    return total / max(tokens, 1), exact / max(n, 1)


# ------------------------------------------------------------------------------------------
# Checkpoints


def provenance(args, group, corpus_hash, seconds, step, epoch):
    engine = (f"PyTorch {torch.__version__} DDP (DistributedDataParallel), "
              f"{group.backend} backend, {group.device.type}"
              if group.distributed else f"PyTorch {torch.__version__}, one process")
    return {
        "created_by": "toytrans_torch.train",
        "train_engine": engine,
        "train_world_size": str(group.world),
        "train_command": " ".join(["torchrun" if group.distributed else "python3",
                                   "-m", PROG] + sys.argv[1:]),
        "train_corpus": args.train,
        "train_corpus_fnv1a64": corpus_hash,
        "train_valid": args.valid or "",
        "train_epochs": str(args.epochs),
        "train_batch_size": str(args.batch),
        "train_lr": repr(args.lr),
        "train_warmup": str(args.warmup),
        "train_label_smoothing": repr(args.label_smoothing),
        "train_dropout": repr(args.dropout),
        "train_weight_decay": repr(args.weight_decay),
        "train_adam_beta1": repr(args.adam_beta1),
        "train_adam_beta2": repr(args.adam_beta2),
        "train_adam_eps": repr(args.adam_eps),
        "train_clip": repr(args.clip),
        "train_name_augment": repr(args.name_augment),
        "train_seed": str(args.seed),
        "train_threads": str(torch.get_num_threads()),
        "train_seconds": f"{seconds:.3f}",
        "train_step": str(step),
        "train_epoch": str(epoch),
    }


def write_checkpoint(args, group, model, vocabs, opt, sched, state, history, corpus_hash):
    """Rank 0: the model file with the optimiser state and the run's position.

    The state is stored as JSON text plus one blob of tensors (torch.save of a flat
    name -> tensor dict), so that a resume reads it with torch.load(weights_only=True):
    a file cannot make the reader unpickle arbitrary objects."""
    opt_sd = opt.state_dict()
    tensors = {f"{index}.{key}": value for index, slots in opt_sd["state"].items()
               for key, value in slots.items()}
    buf = io.BytesIO()
    torch.save(tensors, buf)
    rows = {"position": json.dumps(state), "args": json.dumps(vars(args)),
            "scheduler": json.dumps(sched.state_dict()),
            "optimizer_groups": json.dumps(opt_sd["param_groups"]),
            "optimizer_state": buf.getvalue()}
    inner = getattr(model, "module", model)
    save(args.out, inner, vocabs, inner.config,
         provenance(args, group, corpus_hash, state["seconds"], state["step"], state["epoch"]),
         history=history, extra={CHECKPOINT_TABLE: rows})


def optimizer_state(groups, tensors):
    """The optimiser's state_dict from write_checkpoint's rows."""
    state = {}
    for name, value in tensors.items():
        index, key = name.split(".", 1)
        state.setdefault(int(index), {})[key] = value
    for g in groups:
        if "betas" in g:
            g["betas"] = tuple(g["betas"])
    return {"state": state, "param_groups": groups}


def read_checkpoint(path):
    """Rank 0 of a resumed run: (cfg, vocabularies, weights, run state, history)."""
    try:
        cfg, vocabs, weights, _ = read_model_file(path)
        rows = {key: read_table_blob(path, CHECKPOINT_TABLE, key)
                for key in ("position", "args", "scheduler", "optimizer_groups",
                            "optimizer_state")}
        db = sqlite3.connect("file:" + os.path.abspath(path) + "?mode=ro", uri=True)
        try:
            steps = [tuple(r) for r in db.execute(
                "SELECT step, epoch, loss, lr, tokens, seconds FROM train_log ORDER BY step")]
            epochs = [tuple(r) for r in db.execute(
                "SELECT epoch, step, loss, exact_match, seconds FROM valid_log ORDER BY epoch")]
        finally:
            db.close()
    except (ModelError, sqlite3.Error) as e:
        raise TrainError(f"{path}: cannot resume: {e}", EXIT_MODEL) from None
    missing = [key for key, value in rows.items() if value is None]
    if missing:
        raise TrainError(f"{path}: cannot resume: no {CHECKPOINT_TABLE} {missing[0]} (the "
                         f"file was not written by {PROG})", EXIT_MODEL)
    try:
        tensors = torch.load(io.BytesIO(rows["optimizer_state"]), map_location="cpu",
                             weights_only=True)
        state = {"position": json.loads(rows["position"]), "args": json.loads(rows["args"]),
                 "scheduler": json.loads(rows["scheduler"]),
                 "optimizer": optimizer_state(json.loads(rows["optimizer_groups"]), tensors)}
    except Exception as e:  # noqa: BLE001 - torch and json raise several kinds
        raise TrainError(f"{path}: cannot resume: the {CHECKPOINT_TABLE} state is unreadable "
                         f"({e})", EXIT_MODEL) from None
    return cfg, vocabs, weights, state, (steps, epochs)


# ------------------------------------------------------------------------------------------
# The run


def log(group, message):
    if group.rank == 0:
        print(f"{PROG}: {message}", file=sys.stderr, flush=True)


def run(args):
    torch.set_num_threads(args.threads)
    group = Group(args.device, args.backend)
    try:
        return train(args, group)
    finally:
        group.close()


def resume_settings(args, saved):
    """A resumed run's settings: the checkpoint's (RUN_DEFAULTS' for a key it lacks); one
    given must equal it, except the epochs. The corpora are the checkpoint's too."""
    for key, default in RUN_DEFAULTS.items():
        recorded, given = saved.get(key, default), getattr(args, key)
        if given is not None and given != recorded and key != "epochs":
            option = "--" + key.replace("_", "-")
            raise TrainError(f"{args.out}: {option} {given} differs from the run's "
                             f"({recorded}); a resumed run keeps it: leave {option} out, or "
                             f"train a new model", EXIT_USAGE)
        setattr(args, key, recorded if given is None else given)
    for key in ("train", "valid"):
        setattr(args, key, saved[key])


def train(args, group):
    t_start = time.perf_counter()
    if args.resume:
        ckpt = group.broadcast(read_checkpoint(args.out) if group.rank == 0 else None)
        cfg, vocabs, weights, saved, history = ckpt
        resume_settings(args, saved["args"])
    else:
        if os.path.lexists(args.out) and not args.force:
            raise TrainError(f"{args.out} exists (--force replaces it, --resume continues it)",
                             EXIT_USAGE)
        cfg = {"d_model": args.d_model, "n_heads": args.heads,
               "n_encoder_layers": args.enc_layers, "n_decoder_layers": args.dec_layers,
               "d_ff": args.d_ff, "max_len": args.max_len, "qkv_bias": int(args.qkv_bias),
               "layer_norm_eps": 1e-5, "src_lang": "en", "tgt_lang": "de"}
        try:
            check_config(cfg)
        except ModelError as e:
            raise TrainError(f"the model's shape: {e}", EXIT_USAGE) from None
        vocabs = read_vocab_file(args.vocab) if args.vocab else make_vocab(args)
        try:
            check_size(cfg, len(vocabs.src), len(vocabs.tgt))
        except ModelError as e:
            raise TrainError(f"the model's shape: {e}", EXIT_USAGE) from None
        weights, saved, history = None, None, ([], [])
    digests = group.gather(vocab_digest(vocabs))
    if len(set(digests)) != 1:
        raise TrainError("the processes' vocabularies differ (is --train the same file on "
                         "every machine?)", EXIT_INPUT)

    pairs = tools.read_tsv(args.train, args.limit)
    corpus_hash = corpus_fnv1a64(pairs)
    src_ids = tools.tokenize_ids([s for s, _ in pairs], "src", vocabs.src, args.toytrans)
    tgt_ids = tools.tokenize_ids([t for _, t in pairs], "tgt", vocabs.tgt, args.toytrans)
    src_ids, tgt_ids = augment_names(src_ids, tgt_ids, vocabs, args.name_augment, args.seed)
    batches = [b for b in make_batches(src_ids, tgt_ids, args.batch, cfg["max_len"])
               if len(b) >= group.world]        # every process needs a share
    if not batches:
        raise TrainError(f"{args.train}: no usable pairs", EXIT_INPUT)
    if args.valid and group.rank == 0:
        vpairs = tools.read_tsv(args.valid)
        v_src = tools.tokenize_ids([s for s, _ in vpairs], "src", vocabs.src, args.toytrans)
        v_tgt = tools.tokenize_ids([t for _, t in vpairs], "tgt", vocabs.tgt, args.toytrans)

    model = Translator(cfg, len(vocabs.src), len(vocabs.tgt), dropout=args.dropout,
                       vocabularies=vocabs)
    if weights is None:
        init_like_toytrans(model, args.seed)
    else:
        model.load_state_dict(state_dict_from_weights(cfg, weights), strict=True)
    model.to(group.device)
    model.train()
    ddp = (DistributedDataParallel(model, device_ids=[group.local_rank]
                                   if group.device.type == "cuda" else None)
           if group.distributed else model)
    decay = [p for p in model.parameters() if p.requires_grad and p.dim() == 2]
    no_decay = [p for p in model.parameters() if p.requires_grad and p.dim() < 2]
    params = decay + no_decay
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(args.adam_beta1, args.adam_beta2), eps=args.adam_eps)
    total_steps = args.epochs * len(batches)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda k: lr_factor(k + 1, total_steps, args.warmup))
    state = {"step": 0, "epoch": 0, "batch": 0, "seconds": 0.0}
    if saved is not None:
        opt.load_state_dict(saved["optimizer"])
        sched.load_state_dict(saved["scheduler"])
        state = saved["position"]
    steps_log, epochs_log = (list(history[0]), list(history[1]))
    seconds0 = state["seconds"]
    who = (f"{group.world} process(es), {group.backend} backend, {group.device}"
           if group.distributed else f"one process (not under torchrun), {group.device}")
    log(group, f"{who}; {len(pairs)} pairs (+{len(src_ids) - len(pairs)} with names as "
               f"<unk>), {len(batches)} batches of up to {args.batch} "
               f"per epoch, vocabularies {len(vocabs.src)}/{len(vocabs.tgt)}; "
               + (f"resuming at step {state['step']}" if saved else "a new model"))

    saved_at = [None]

    def checkpoint():
        """Rank 0 writes the file, unless this very position is already written."""
        if saved_at[0] == (state["step"], state["epoch"]):
            return
        saved_at[0] = (state["step"], state["epoch"])
        state["seconds"] = seconds0 + time.perf_counter() - t_start
        if group.rank == 0:
            write_checkpoint(args, group, ddp, vocabs, opt, sched, state,
                             (steps_log, epochs_log), corpus_hash)

    steps_this_run = 0
    stop = False
    while state["epoch"] < args.epochs and not stop:
        order = list(batches)
        random.Random(args.seed * 1000003 + state["epoch"]).shuffle(order)
        while state["batch"] < len(order):
            b = order[state["batch"]]
            mine = shard(b, group.rank, group.world)
            opt.zero_grad(set_to_none=True)
            loss, total = shard_loss(ddp, mine, src_ids, tgt_ids,
                                     batch_target_tokens(b, tgt_ids), group.world,
                                     args.label_smoothing, group.device)
            loss.backward()
            if args.clip > 0:
                torch.nn.utils.clip_grad_norm_(params, args.clip)
            lr = opt.param_groups[0]["lr"]
            opt.step()
            sched.step()
            total = group.sum([total])[0]
            tokens = batch_target_tokens(b, tgt_ids)
            mean = total / tokens
            if not math.isfinite(mean):
                raise TrainError(f"step {state['step'] + 1}: the loss is {mean}; the last "
                                 f"checkpoint is kept", EXIT_DIVERGED)
            state["step"] += 1
            state["batch"] += 1
            steps_this_run += 1
            secs = seconds0 + time.perf_counter() - t_start
            steps_log.append((state["step"], state["epoch"] + 1, mean, lr, tokens, secs))
            if state["step"] % args.log_every == 0:
                log(group, f"epoch {state['epoch'] + 1} step {state['step']}/{total_steps} "
                           f"loss {mean:.4f} lr {lr:.3g} ({secs:.1f} s)")
            if args.stop_after and steps_this_run >= args.stop_after:
                stop = True
                break
            if args.checkpoint_every and state["step"] % args.checkpoint_every == 0:
                checkpoint()
        if stop:
            break
        state["epoch"] += 1
        state["batch"] = 0
        if args.valid and group.rank == 0:
            vloss, em = validate(model, v_src, v_tgt, args.valid_exact, group.device)
            secs = seconds0 + time.perf_counter() - t_start
            epochs_log.append((state["epoch"], state["step"], vloss, em, secs))
            log(group, f"epoch {state['epoch']}: validation loss {vloss:.4f}, exact match "
                       f"{100 * em:.1f}% of {min(args.valid_exact, len(v_src))}")
        checkpoint()
    checkpoint()
    group.barrier()             # the file is complete before any process reports success
    if group.rank == 0:
        if args.regression:
            write_regression(args.regression, model, vocabs, args)
        log(group, f"wrote {args.out}: {state['step']} steps in "
                   f"{seconds0 + time.perf_counter() - t_start:.1f} s, world size {group.world}")
    return 0


def write_regression(path, model, vocabs, args):
    """`toytrans check` cases from the validation corpus (else --train): each source with
    this model's own greedy translation, so that toytrans is checked to decode the file
    as PyTorch does. Outputs with <unk> are left out (toytrans shows a source word for
    it)."""
    pairs = tools.read_tsv(args.valid or args.train)
    ids = tools.tokenize_ids([s for s, _ in pairs], "src", vocabs.src, args.toytrans)
    limit = model.config["max_len"]
    masks = causal_masks(limit)
    model.eval()
    lines = []
    with torch.inference_mode():
        for (source, _), s in zip(pairs, ids):
            if len(lines) >= args.regression_count:
                break
            if not s or len(s) + 1 > limit:
                continue
            out, _ = greedy(model.cpu(), s + [EOS], output_limit(model.config, len(s) + 1),
                            masks)
            if UNK in out:
                continue
            words = [vocabs.tgt[i] for i in out if i != EOS]
            lines.append(f"{source}\t{tools.detokenize(words)}\n")
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(f"# {args.out}'s own greedy translations, written by {PROG} with PyTorch: "
                f"`toytrans check` must reproduce them.\n")
        f.writelines(lines)
    os.replace(tmp, path)


# ------------------------------------------------------------------------------------------
# The command line


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        prog=f"torchrun --nproc_per_node=N -m {PROG}",
        description="Trains a toytrans model with PyTorch DistributedDataParallel (gloo on "
                    "CPUs, nccl on GPUs) and writes it as a toytrans model file.",
        epilog="Exit status: 0 ok, 2 bad command line, 3 unusable model or vocabulary file, "
               "4 malformed corpus, 5 I/O error, 6 training diverged.")
    p.add_argument("--train", required=True, help="training corpus (source TAB target)")
    p.add_argument("--valid", help="validation corpus: loss and exact match after each epoch")
    p.add_argument("--out", required=True, help="the model file to write")
    p.add_argument("--vocab", help="take the vocabulary from this file (made by `toytrans "
                                   "vocab`); default: made from --train by `toytrans vocab`")
    p.add_argument("--min-count", type=int, default=1, help="for the vocabulary (default 1)")
    p.add_argument("--toytrans", help="the toytrans binary (default: $TOYTRANS, else "
                                      "build/release/toytrans, else the PATH)")
    p.add_argument("--resume", action="store_true", help="continue the run saved in --out")
    p.add_argument("--force", action="store_true", help="replace --out for a new run")
    # The run's settings default to None here: a resume tells a setting given from one
    # left out (RUN_DEFAULTS; parse_args fills them in for a new run).
    p.add_argument("--limit", type=int, help="only the first N pairs of --train")
    p.add_argument("--epochs", type=int, help="total epochs (default 10)")
    p.add_argument("--batch", type=int,
                   help="sentence pairs per optimiser step, over all processes (default 32)")
    p.add_argument("--lr", type=float, help="peak learning rate (default 0.001)")
    p.add_argument("--warmup", type=int, help="linear warm-up steps (default 400)")
    p.add_argument("--label-smoothing", type=float, help="default 0.1")
    p.add_argument("--weight-decay", type=float, help="default 0.01")
    p.add_argument("--adam-beta1", type=float, help="AdamW's first-moment decay (default 0.9)")
    p.add_argument("--adam-beta2", type=float,
                   help="AdamW's second-moment decay (default 0.98)")
    p.add_argument("--adam-eps", type=float, help="AdamW's epsilon (default 1e-9)")
    p.add_argument("--clip", type=float, help="gradient-norm clipping, 0: none (default 1)")
    p.add_argument("--dropout", type=float, help="default 0")
    p.add_argument("--name-augment", type=float,
                   help="add this fraction of the pairs with names again with every name "
                        "as <unk> on both sides, so that unknown names pass through "
                        "(default 0.1, as toytrans train)")
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--enc-layers", type=int, default=2)
    p.add_argument("--dec-layers", type=int, default=2)
    p.add_argument("--d-ff", type=int, default=256)
    p.add_argument("--max-len", type=int, default=32)
    p.add_argument("--qkv-bias", action="store_true")
    p.add_argument("--seed", type=int, help="initialisation and data order (default 1)")
    p.add_argument("--threads", type=int, default=1, help="torch threads per process")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--backend", choices=("gloo", "nccl"),
                   help="default: gloo on cpu, nccl on cuda")
    p.add_argument("--checkpoint-every", type=int, default=500,
                   help="steps between checkpoints (also after each epoch); 0: epochs only")
    p.add_argument("--stop-after", type=int, help="stop with a checkpoint after N steps")
    p.add_argument("--log-every", type=int, default=50, help="steps between progress lines")
    p.add_argument("--valid-exact", type=int,
                   help="validation sentences decoded for the exact-match rate (default 200)")
    p.add_argument("--regression", help="write `toytrans check` cases: validation sources "
                                        "with this model's PyTorch greedy translations")
    p.add_argument("--regression-count", type=int, default=50)
    a = p.parse_args(argv)
    for name in ("threads", "log_every", "regression_count"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    for name in ("epochs", "batch", "valid_exact", "limit", "stop_after"):
        if getattr(a, name) is not None and getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    for name, top in (("label_smoothing", "below 1"), ("dropout", "below 1"),
                      ("name_augment", "at most 1"), ("adam_beta1", "below 1"),
                      ("adam_beta2", "below 1")):
        v = getattr(a, name)
        if v is not None and not (0 <= v < 1 if top == "below 1" else 0 <= v <= 1):
            p.error(f"--{name.replace('_', '-')} must be from 0 to {top}")
    if a.adam_eps is not None and not a.adam_eps > 0:
        p.error("--adam-eps must be above 0")
    if not a.resume:
        for key, default in RUN_DEFAULTS.items():
            if getattr(a, key) is None:
                setattr(a, key, default)
    return a


def main(argv=None):
    args = parse_args(argv)
    try:
        return run(args)
    except TrainError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return e.status
    except tools.ToolError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return EXIT_INPUT
    except ModelError as e:
        print(f"{PROG}: {args.out}: {e}", file=sys.stderr)
        return EXIT_MODEL
    except OSError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return EXIT_IO


if __name__ == "__main__":
    sys.exit(main())
