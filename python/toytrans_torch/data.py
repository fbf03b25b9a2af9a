"""Batches, name augmentation and the learning-rate schedule as toytrans's trainer makes
them (src/train/data.c): the same grouping and padding, so PyTorch trains on the batches
toytrans would."""
import math
import random

import torch

from .modelfile import BOS, EOS, PAD, UNK


def make_batches(src_ids, tgt_ids, batch, max_len):
    """toytrans's grouping: pairs longer than max_len (with </s>) left out, the rest
    sorted by (target length, source length, corpus order) and cut into batches of
    `batch` pairs (lists of pair indices)."""
    keep = [i for i in range(len(src_ids))
            if 0 < len(src_ids[i]) and len(src_ids[i]) + 1 <= max_len
            and len(tgt_ids[i]) + 1 <= max_len]
    keep.sort(key=lambda i: (len(tgt_ids[i]), len(src_ids[i]), i))
    return [keep[k:k + batch] for k in range(0, len(keep), batch)]


def batch_tensors(pairs, src_ids, tgt_ids):
    """Padded, batch_first tensors of one batch: source + </s>, decoder input <s> + target,
    expected output target + </s>; pad id 0; masks True at padding -> (src, tgt_in,
    tgt_out, src_pad, tgt_pad, target tokens)."""
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


def lr_factor(step, total, warmup):
    """schedule() in src/train/train.c as a multiple of the peak rate, step from 1: linear
    warm-up over `warmup` steps, then a cosine down to a tenth at the last step."""
    if warmup > 0 and step <= warmup:
        return step / warmup
    span = total - warmup if total > warmup else 1
    progress = min((step - warmup) / span, 1.0)
    return 0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * progress))


def name_map(vocabs, src_ids, tgt_ids):
    """For each source id, the target id of the same word capitalised ("anna" -> "Anna"),
    or -1: a word written alike in both languages, and in the target of every pair whose
    source has it, is taken for a name ("see" / "See", the lake, is not; src/train/data.c)."""
    index = {t: i for i, t in enumerate(vocabs.tgt)}
    out = []
    for i, w in enumerate(vocabs.src):
        t = index.get(w[0].upper() + w[1:], -1) if i >= 4 and "a" <= w[:1] <= "z" else -1
        out.append(t if t >= 4 else -1)
    for s, t in zip(src_ids, tgt_ids):
        for i in s:
            if out[i] >= 0 and out[i] not in t:
                out[i] = -1
    return out


def augment_names(src_ids, tgt_ids, vocabs, fraction, seed):
    """toytrans train's name augmentation: copies of about `fraction` of the pairs that
    have names, appended, with every name <unk> on both sides, so the model learns to
    put <unk> where an unknown name stands (the translator then shows the source word it
    attended to: names pass through). One draw per pair with a name, from the seed;
    the draws are Python's, not toytrans's generator, so the pairs chosen differ."""
    if fraction <= 0:
        return src_ids, tgt_ids
    names = name_map(vocabs, src_ids, tgt_ids)
    rng = random.Random(seed * 2246822519 ^ 0x6E616D65)
    src_out, tgt_out = list(src_ids), list(tgt_ids)
    for s, t in zip(src_ids, tgt_ids):
        if not any(names[i] >= 0 for i in s) or rng.random() >= fraction:
            continue
        gone = {names[i] for i in s if names[i] >= 0}
        src_out.append([UNK if names[i] >= 0 else i for i in s])
        tgt_out.append([UNK if i in gone else i for i in t])
    return src_out, tgt_out
