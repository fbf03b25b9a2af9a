"""Training a toytrans model in PyTorch, across processes and machines, with
DistributedDataParallel; the result is a toytrans model file.

    torchrun --redirects 1 --tee 2 --standalone --nproc_per_node=2 -m toytrans_torch.train \\
        --train data/train.tsv --valid data/valid.tsv --out big.db --epochs 3

(with PYTHONPATH=python and Debian's Python, which has python3-torch; --redirects 1 --tee 2
works around Debian's torchrun, README.md says why; run without torchrun, as
/usr/bin/python3 -m toytrans_torch.train, it trains in one process). Every process
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
the optimiser state and the run's position as float32 tensors and a JSON meta value
(docs/model-format.md, "A resumable PyTorch run"), under the content checksum, so that
--resume continues the run, with any number of processes; nothing in a file is ever
unpickled or handed to torch.load.
"""
import argparse
import hashlib
import json
import math
import os
import random
import sqlite3
import sys
import tempfile
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

from . import tools
from .data import augment_names, batch_tensors, lr_factor, make_batches
from .decode import causal_masks, greedy, output_limit
from .model import Translator, init_like_toytrans, save, state_dict_from_weights
from .modelfile import (EOS, PAD, UNK, ModelError, Vocabularies, WriterLock, check_config,
                        check_schema, check_size, fnv1a64_update, open_readonly, read_model_file,
                        read_vocab, sqlite_error)

PROG = "toytrans_torch.train"
# The resume state (docs/model-format.md, "A resumable PyTorch run"): AdamW's two moments
# of every trainable parameter as float32 tensors of the tensor table, named
# RESUME_TENSOR + "exp_avg." / "exp_avg_sq." + the parameter's PyTorch name, and the rest
# as JSON text in meta RESUME_KEY. Both under the content checksum; nothing in the file is
# ever unpickled or handed to torch.load.
RESUME_TENSOR = "torch_adamw."
RESUME_KEY = "torch_resume"
RESUME_FORMAT = 1
# Where files of earlier versions kept their resume state, a pickle among others: refused.
OLD_CHECKPOINT_TABLE = "torch_checkpoint"
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
# Each setting's type and range, for the command line and for a resumed file alike:
# (type, test, what the test asks).
SETTING_RULES = {
    "epochs": (int, lambda v: v >= 1, "at least 1"),
    "batch": (int, lambda v: v >= 1, "at least 1"),
    "warmup": (int, lambda v: v >= 0, "at least 0"),
    "seed": (int, lambda v: 0 <= v < 2 ** 63, "from 0 to 2^63 - 1"),
    "limit": (int, lambda v: v >= 1, "at least 1"),
    "valid_exact": (int, lambda v: v >= 1, "at least 1"),
    "lr": (float, lambda v: 0 < v < math.inf, "above 0"),
    "label_smoothing": (float, lambda v: 0 <= v < 1, "from 0 to below 1"),
    "weight_decay": (float, lambda v: 0 <= v < math.inf, "at least 0"),
    "adam_beta1": (float, lambda v: 0 <= v < 1, "from 0 to below 1"),
    "adam_beta2": (float, lambda v: 0 <= v < 1, "from 0 to below 1"),
    "adam_eps": (float, lambda v: 0 < v < math.inf, "above 0"),
    "clip": (float, lambda v: 0 <= v < math.inf, "at least 0"),
    "dropout": (float, lambda v: 0 <= v < 1, "from 0 to below 1"),
    "name_augment": (float, lambda v: 0 <= v <= 1, "from 0 to 1"),
}


def setting_fault(key, value):
    """Why value cannot be setting key (SETTING_RULES), or None. None is allowed for
    --limit only (no limit)."""
    kind, test, what = SETTING_RULES[key]
    if value is None and key == "limit":
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int):
        return f"is {value!r}, not {'a number' if kind is float else 'an integer'}"
    if not test(value):
        return f"must be {what}"
    return None


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
        db = open_readonly(path)
        try:
            check_schema(db)
            src, src_counts = read_vocab(db, "src")
            tgt, tgt_counts = read_vocab(db, "tgt")
        finally:
            db.close()
    except sqlite3.Error as e:
        raise TrainError(f"{path}: cannot read a vocabulary: {sqlite_error(e, 'reading')}",
                         sqlite_error(e, "").status) from None
    except ModelError as e:
        raise TrainError(f"{path}: {e}", e.status) from None
    return Vocabularies(src, tgt, src_counts, tgt_counts)


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


def trainable(model):
    """The parameters AdamW updates, (PyTorch name, parameter) in the model's order."""
    inner = getattr(model, "module", model)
    return [(name, p) for name, p in inner.named_parameters() if p.requires_grad]


def resume_shapes(cfg, vocabs):
    """The resume state's tensors of a model of cfg and vocabs: name -> shape."""
    model = Translator(cfg, len(vocabs.src), len(vocabs.tgt))
    return {f"{RESUME_TENSOR}{slot}.{name}": tuple(p.shape)
            for name, p in trainable(model) for slot in ("exp_avg", "exp_avg_sq")}


def write_checkpoint(args, group, model, vocabs, opt, state, history, corpus_hash, lock):
    """Rank 0: the model file with the optimiser state and the run's position, stored as
    the weights are (resume state, RESUME_TENSOR and RESUME_KEY); lock is the run's
    WriterLock, which goes on holding the file written."""
    tensors, steps = {}, {}
    for name, p in trainable(model):
        slots = opt.state.get(p, {})
        for slot in ("exp_avg", "exp_avg_sq"):
            t = slots.get(slot)
            tensors[f"{RESUME_TENSOR}{slot}.{name}"] = (
                t.detach().cpu().numpy() if t is not None else np.zeros(tuple(p.shape),
                                                                         np.float32))
        steps[name] = int(slots["step"].item()) if "step" in slots else 0
    resume = {"format": RESUME_FORMAT, "position": dict(state),
              "settings": {key: getattr(args, key) for key in RUN_DEFAULTS},
              "corpora": {"train": args.train, "valid": args.valid},
              "adamw_steps": steps}
    prov = provenance(args, group, corpus_hash, state["seconds"], state["step"], state["epoch"])
    prov[RESUME_KEY] = json.dumps(resume, sort_keys=True)
    inner = getattr(model, "module", model)
    save(args.out, inner, vocabs, inner.config, prov, history=history, extra_tensors=tensors,
         lock=lock)


def checked_resume(text, names):
    """meta RESUME_KEY's JSON, every value checked -> the dict; raises ModelError."""
    try:
        r = json.loads(text, parse_constant=lambda c: None)
    except ValueError as e:
        raise ModelError(f"meta {RESUME_KEY} is not JSON ({e})") from None
    if not isinstance(r, dict) or r.get("format") != RESUME_FORMAT:
        raise ModelError(f"meta {RESUME_KEY} is not resume state format {RESUME_FORMAT}")
    pos, settings, corpora, steps = (r.get(k) for k in ("position", "settings", "corpora",
                                                         "adamw_steps"))
    if not all(isinstance(x, dict) for x in (pos, settings, corpora, steps)):
        raise ModelError(f"meta {RESUME_KEY} lacks position, settings, corpora or adamw_steps")
    for key in ("step", "epoch", "batch"):
        v = pos.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2 ** 53:
            raise ModelError(f"meta {RESUME_KEY} position {key} is {v!r}, not a count")
    v = pos.get("seconds")
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < math.inf:
        raise ModelError(f"meta {RESUME_KEY} position seconds is {v!r}, not a time")
    pos["seconds"] = float(v)
    for key in RUN_DEFAULTS:
        if key not in settings:
            raise ModelError(f"meta {RESUME_KEY} has no setting {key}")
        why = setting_fault(key, settings[key])
        if why:
            raise ModelError(f"meta {RESUME_KEY} setting {key} {why}")
        if SETTING_RULES[key][0] is float:
            settings[key] = float(settings[key])
    if not isinstance(corpora.get("train"), str) or not corpora["train"] or \
            not isinstance(corpora.get("valid"), (str, type(None))):
        raise ModelError(f"meta {RESUME_KEY} corpora are not file names")
    if sorted(steps) != sorted(names):
        raise ModelError(f"meta {RESUME_KEY} adamw_steps does not name the model's "
                         f"{len(names)} trainable parameters")
    for name, v in steps.items():
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= pos["step"]:
            raise ModelError(f"meta {RESUME_KEY} adamw_steps {name} is {v!r}, not a step "
                             f"count up to {pos['step']}")
    return r


def read_history(path):
    """train_log and valid_log rows of the file, for the resumed run to go on with."""
    queries = {"train_log": ("SELECT step, epoch, loss, lr, tokens, seconds FROM train_log "
                             "ORDER BY step", (int, int, float, float, int, float)),
               "valid_log": ("SELECT epoch, step, loss, exact_match, seconds FROM valid_log "
                             "ORDER BY epoch", (int, int, float, float, float))}
    db = open_readonly(path)
    try:
        out = []
        for table, (sql, kinds) in queries.items():
            if not db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                              (table,)).fetchone():
                out.append([])
                continue
            if any(row[6] for row in db.execute(f"PRAGMA table_xinfo('{table}')")):
                raise ModelError(f"table '{table}' has a generated or hidden column")
            rows = []
            for row in db.execute(sql):
                for value, kind in zip(row, kinds):
                    if isinstance(value, bool) or not isinstance(value, (int, float) if
                                                                 kind is float else int) \
                            or not math.isfinite(value):
                        raise ModelError(f"table '{table}' holds {value!r} where a "
                                         f"{kind.__name__} belongs")
                rows.append(tuple(kind(v) for v, kind in zip(row, kinds)))
            out.append(rows)
        return out[0], out[1]
    finally:
        db.close()


def read_checkpoint(path):
    """Rank 0 of a resumed run: (cfg, vocabularies, weights, resume state, history), the
    resume state with its AdamW moments under "moments" (name -> array). Raises TrainError
    (exit 3) for a file that has none, or one that is not exactly what write_checkpoint
    writes."""
    try:
        db = open_readonly(path)
        try:
            old = db.execute("SELECT 1 FROM sqlite_master WHERE name = ?",
                             (OLD_CHECKPOINT_TABLE,)).fetchone()
            has = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                             "name = 'meta'").fetchone() and \
                db.execute("SELECT 1 FROM meta WHERE key = ?", (RESUME_KEY,)).fetchone()
        finally:
            db.close()
        if not has:
            if old:
                raise ModelError(f"its resume state is in a {OLD_CHECKPOINT_TABLE} table, "
                                 f"which this version does not read (it held a pickle, "
                                 f"which a file must not be able to hand a reader); resume "
                                 f"it with the version that wrote it, or train anew")
            raise ModelError(f"no resume state (meta {RESUME_KEY}): the file was not "
                             f"written by {PROG}")
        cfg, vocabs, weights, meta = read_model_file(path, extra_shapes=resume_shapes)
        names = [name for name, _ in trainable(Translator(cfg, len(vocabs.src),
                                                          len(vocabs.tgt)))]
        resume = checked_resume(meta[RESUME_KEY], names)
        moments = {name: weights.pop(name) for name in list(weights)
                   if name.startswith(RESUME_TENSOR)}
        for name, a in moments.items():
            if name.startswith(RESUME_TENSOR + "exp_avg_sq.") and (a < 0).any():
                raise ModelError(f"tensor {name} has a negative value")
        resume["moments"] = moments
        history = read_history(path)
    except ModelError as e:
        raise TrainError(f"{path}: cannot resume: {e}", e.status) from None
    except sqlite3.Error as e:
        e = sqlite_error(e, "reading")
        raise TrainError(f"{path}: cannot resume: {e}", e.status) from None
    return cfg, vocabs, weights, resume, history


def restore_optimizer(opt, model, resume, device):
    """AdamW's state of every trainable parameter, from the checked resume state."""
    for name, p in trainable(model):
        opt.state[p] = {
            "step": torch.tensor(float(resume["adamw_steps"][name])),
            "exp_avg": torch.from_numpy(resume["moments"][f"{RESUME_TENSOR}exp_avg.{name}"])
                            .to(device),
            "exp_avg_sq": torch.from_numpy(
                resume["moments"][f"{RESUME_TENSOR}exp_avg_sq.{name}"]).to(device)}


# ------------------------------------------------------------------------------------------
# The run


def log(group, message):
    # One write per line: print() writes the text and its newline apart, and torchrun,
    # tailing a worker's log file, may then show the line in two prefixed pieces.
    if group.rank == 0:
        sys.stderr.write(f"{PROG}: {message}\n")
        sys.stderr.flush()


def run(args):
    torch.set_num_threads(args.threads)
    group = Group(args.device, args.backend)
    try:
        return train(args, group)
    finally:
        group.close()


def same_file(a, b):
    """Whether paths a and b name one file (or, when either is missing, are one text)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a == b


def resume_settings(args, resume):
    """A resumed run's settings: the checkpoint's; one given must equal it, except the
    epochs. So are its corpora: --train and --valid may be left out, and one given must
    name the run's file."""
    saved = resume["settings"]
    for key in RUN_DEFAULTS:
        recorded, given = saved[key], getattr(args, key)
        if given is not None and given != recorded and key != "epochs":
            option = "--" + key.replace("_", "-")
            raise TrainError(f"{args.out}: {option} {given} differs from the run's "
                             f"({recorded}); a resumed run keeps it: leave {option} out, or "
                             f"train a new model", EXIT_USAGE)
        setattr(args, key, recorded if given is None else given)
    for key in ("train", "valid"):
        recorded, given = resume["corpora"][key], getattr(args, key)
        if given is not None and (recorded is None or not same_file(given, recorded)):
            raise TrainError(f"{args.out}: --{key} {given} is not the run's "
                             f"({recorded or 'none'}); a resumed run keeps its corpora: "
                             f"leave --{key} out, or train a new model", EXIT_USAGE)
        setattr(args, key, recorded)


def is_sqlite_file(path):
    """Whether path is a regular file that starts with SQLite's header string."""
    try:
        with open(path, "rb") as f:
            return os.path.isfile(path) and f.read(16) == b"SQLite format 3\0"
    except OSError:
        return False


def check_output(option, path, text, inputs, force):
    """Refuses (usage error) to write output `option path`, as toytrans refuses it
    (src/cli/cli.c, cli_check_output): never over a file read as an input (the same device and
    inode), whatever --force says; never over a directory, or a model with text (text:
    the output is a text file) or through a symbolic link, without --force. inputs:
    (option, path) pairs, path None for one not given."""
    if path is None:
        return
    try:
        st = os.stat(path)
    except OSError:
        st = None
    if st is not None:
        for in_option, in_path in inputs:
            try:
                ist = os.stat(in_path) if in_path else None
            except OSError:
                ist = None
            if ist is not None and (ist.st_dev, ist.st_ino) == (st.st_dev, st.st_ino):
                raise TrainError(f"{option} {path} is the same file as {in_option} {in_path}: "
                                 f"writing it would destroy what is read; nothing written",
                                 EXIT_USAGE)
        if os.path.isdir(path):
            raise TrainError(f"{option} {path} is a directory; name a file", EXIT_USAGE)
        if not os.path.isfile(path) and not text:
            raise TrainError(f"{option} {path} is not a regular file: a model database is "
                             f"written only to a regular file", EXIT_USAGE)
    if os.path.islink(path) and not force:
        raise TrainError(f"{option} {path} is a symbolic link; not replaced (--force "
                         f"replaces the link with the new file)", EXIT_USAGE)
    if st is not None and text and not force and is_sqlite_file(path):
        raise TrainError(f"{option} {path} is an SQLite database (a model?); not replaced "
                         f"(--force replaces it)", EXIT_USAGE)


def check_outputs(args):
    """--out and --regression against every input of the run (the corpora, --vocab) and
    each other; for a resumed run, --out is its own input and is not compared with
    itself."""
    inputs = [("--train", args.train), ("--valid", args.valid), ("--vocab", args.vocab)]
    check_output("--out", args.out, False, inputs, args.force or args.resume)
    check_output("--regression", args.regression, True, inputs + [("--out", args.out)],
                 args.force)


def train(args, group):
    """One run. Rank 0, the one writer, holds the model file's lock from before it reads
    or replaces it to the end (modelfile.WriterLock: the protocol toytrans's own trainer
    follows), so no other run writes it meanwhile."""
    lock = WriterLock()
    try:
        if group.rank == 0:
            lock.claim(args.out)
        return run_training(args, group, lock)
    finally:
        lock.close()


def run_training(args, group, lock):
    t_start = time.perf_counter()
    if args.resume:
        ckpt = group.broadcast(read_checkpoint(args.out) if group.rank == 0 else None)
        cfg, vocabs, weights, saved, history = ckpt
        resume_settings(args, saved)
        check_outputs(args)
    else:
        if os.path.lexists(args.out) and not args.force:
            raise TrainError(f"{args.out} exists (--force replaces it, --resume continues it)",
                             EXIT_USAGE)
        check_outputs(args)
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
    state = {"step": 0, "epoch": 0, "batch": 0, "seconds": 0.0}
    if saved is not None:
        restore_optimizer(opt, model, saved, group.device)
        state = dict(saved["position"])
        if state["batch"] > len(batches):
            raise TrainError(f"{args.out}: cannot resume: its position, batch "
                             f"{state['batch']}, is past the epoch's {len(batches)} batches",
                             EXIT_MODEL)
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
            write_checkpoint(args, group, ddp, vocabs, opt, state,
                             (steps_log, epochs_log), corpus_hash, lock)

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
            # The schedule of the step about to be taken, from 1: a function of the
            # position alone, so that a resumed run needs no scheduler state.
            lr = args.lr * lr_factor(state["step"] + 1, total_steps, args.warmup)
            for g in opt.param_groups:
                g["lr"] = lr
            opt.step()
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
    it), and so are empty ones (</s> first): `toytrans check` takes a case with an empty
    field for a malformed line, so a file it would refuse is never written."""
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
            if not words:
                continue
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
    p.add_argument("--train", help="training corpus (source TAB target); a resumed run "
                                   "takes the run's own")
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
    p.add_argument("--label-smoothing", type=float,
                   help="the share of each target's probability spread over the other "
                        "words in the training loss (default 0.1)")
    p.add_argument("--weight-decay", type=float,
                   help="AdamW's decoupled weight decay (default 0.01)")
    p.add_argument("--adam-beta1", type=float, help="AdamW's first-moment decay (default 0.9)")
    p.add_argument("--adam-beta2", type=float,
                   help="AdamW's second-moment decay (default 0.98)")
    p.add_argument("--adam-eps", type=float, help="AdamW's epsilon (default 1e-9)")
    p.add_argument("--clip", type=float, help="gradient-norm clipping, 0: none (default 1)")
    p.add_argument("--dropout", type=float,
                   help="dropout probability in training (default 0: none)")
    p.add_argument("--name-augment", type=float,
                   help="add this fraction of the pairs with names again with every name "
                        "as <unk> on both sides, so that unknown names pass through "
                        "(default 0.1, as toytrans train)")
    # The architecture of a new model (docs/model.md); a resumed run keeps the file's.
    p.add_argument("--d-model", type=int, default=64,
                   help="a new model's width (default 64; a resume keeps the file's shape, "
                        "as for every option down to --qkv-bias)")
    p.add_argument("--heads", type=int, default=4,
                   help="attention heads, dividing --d-model (default 4)")
    p.add_argument("--enc-layers", type=int, default=2, help="encoder layers (default 2)")
    p.add_argument("--dec-layers", type=int, default=2, help="decoder layers (default 2)")
    p.add_argument("--d-ff", type=int, default=256,
                   help="feed-forward width of each layer (default 256)")
    p.add_argument("--max-len", type=int, default=32,
                   help="longest sequence in tokens, </s> included; longer pairs are left "
                        "out of training (default 32)")
    p.add_argument("--qkv-bias", action="store_true",
                   help="give the query, key and value projections biases (default: none)")
    p.add_argument("--seed", type=int, help="initialisation and data order (default 1)")
    p.add_argument("--threads", type=int, default=1,
                   help="torch threads per process (default 1; torchrun runs several "
                        "processes)")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                   help="where each process computes: cpu (default) or cuda, one GPU per "
                        "process (needs a CUDA build of PyTorch)")
    p.add_argument("--backend", choices=("gloo", "nccl"),
                   help="default: gloo on cpu, nccl on cuda")
    p.add_argument("--checkpoint-every", type=int, default=500,
                   help="steps between checkpoints (also after each epoch); 0: epochs only")
    p.add_argument("--stop-after", type=int, help="stop with a checkpoint after N steps")
    p.add_argument("--log-every", type=int, default=50,
                   help="steps between progress lines on stderr (default 50)")
    p.add_argument("--valid-exact", type=int,
                   help="validation sentences decoded for the exact-match rate (default 200)")
    p.add_argument("--regression", help="write `toytrans check` cases: validation sources "
                                        "with this model's PyTorch greedy translations "
                                        "(none with <unk> or empty)")
    p.add_argument("--regression-count", type=int, default=50,
                   help="cases --regression writes (default 50)")
    a = p.parse_args(argv)
    for name in ("threads", "log_every", "regression_count"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if a.stop_after is not None and a.stop_after < 1:
        p.error("--stop-after must be at least 1")
    for key in RUN_DEFAULTS:
        value = getattr(a, key)
        why = setting_fault(key, value) if value is not None else None
        if why:
            p.error(f"--{key.replace('_', '-')} {why}")
    if not a.resume and a.train is None:
        p.error("--train is required (except with --resume, which takes the run's)")
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
        return e.status
    except sqlite3.Error as e:
        e = sqlite_error(e, "SQLite")
        print(f"{PROG}: {args.out}: {e}", file=sys.stderr)
        return e.status
    except OSError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return EXIT_IO
    except MemoryError:
        print(f"{PROG}: out of memory", file=sys.stderr)
        return EXIT_IO


if __name__ == "__main__":
    sys.exit(main())
