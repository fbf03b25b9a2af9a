"""Greedy and beam decoding in PyTorch, by the rules of docs/model.md ("Decoding"), so
that they give toytrans's outputs token for token.

nn.TransformerDecoder has no key/value cache: every step runs the decoder over the
whole prefix again (toytrans caches keys and values; docs/model.md says the two are the
same computation). Log-probabilities are log_softmax of the float32 logits in double,
over the whole target vocabulary, as src/translate/decode.c computes them.
"""
from dataclasses import dataclass

import numpy as np
import torch

from .modelfile import BOS, EOS, PAD, UNK, ModelError
from . import tools


class DecodeError(Exception):
    """The model computes a NaN or infinite logit for the sentence (toytrans: exit 3)."""


def causal_masks(max_len):
    """masks[t]: the t×t additive causal mask (-inf above the diagonal), as
    nn.Transformer.generate_square_subsequent_mask(t) makes it; built once."""
    return [None] + [torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
                     for t in range(1, max_len + 1)]


def _log_probs(logits):
    """[N, V] float32 logits -> [N, V] float64 log-probabilities; a non-finite logit fails."""
    if not torch.all(torch.isfinite(logits)):
        raise DecodeError("the model computes a NaN or infinite logit")
    return torch.log_softmax(logits.double(), dim=-1).cpu().numpy()


def output_limit(config, n_src, n_prefix=0):
    """The output limit toytrans decodes with by default (DECODE_LIMIT in src/translate/decode.h):
    n_prefix + 2 * n_src + 10 tokens, </s> included, for n_src source ids (</s>
    included), and never more than the model's max_len."""
    return min(config["max_len"], n_prefix + 2 * n_src + 10)


def greedy(model, src_ids, limit, masks=None):
    """Greedy decoding of one sentence (source ids, </s> included) -> (output ids with
    </s>, their log-probabilities). The highest logit among the ids that can be words
    (all but <pad> and <s>) wins, ties to the lowest id; decoding stops after </s> or
    when the output, </s> included, has `limit` tokens."""
    masks = masks or causal_masks(limit)
    dev = model.generator.weight.device
    memory = model.encode(torch.tensor([src_ids], device=dev))
    prefix, out, lps = [BOS], [], []
    while len(out) < limit:
        h = model.decode(torch.tensor([prefix], device=dev), memory,
                         masks[len(prefix)].to(dev))
        logits = model.generator(h[0, -1:])            # only the last position is needed
        lp = _log_probs(logits)[0]
        words = logits[0].clone()
        words[PAD] = words[BOS] = float("-inf")
        token = int(torch.argmax(words))                # the first maximum: the lowest id
        out.append(token)
        lps.append(float(lp[token]))
        if token == EOS:
            break
        prefix.append(token)
    return out, lps


def top_k_ids(lp, k, no_eos=False):
    """The k best ids of lp (float64) that can be words, best first, ties to the lower id
    (top_k in src/translate/decode.c): a stable sort of -lp keeps equal values in id order. With
    no_eos, </s> is passed over too."""
    order = np.argsort(-lp, kind="stable")
    return [int(i) for i in order
            if i != PAD and i != BOS and not (no_eos and i == EOS)][:k]


def beam_search(model, src_ids, beam, limit, masks=None):
    """Beam search mirroring src/translate/decode.c's beam_search (beam >= 2, without a forced
    prefix) -> output ids, </s> included. The rules are docs/model.md's ("Decoding").

    Live hypotheses carry their summed log-probabilities s and all have the same length.
    At every step each offers its min(beam + 1, choices) best next tokens, </s> not among
    them at the first step (no empty output); all offers are sorted by score (ties: the
    earlier hypothesis, then the lower id) and taken in that order until `beam` offers
    other than </s> are taken. A </s> on the way finishes its hypothesis, with score
    s / len (</s> counted), and its slot goes to the next offer; the others are the next
    step's hypotheses, or finish as they are on reaching `limit` tokens. The search stops
    when none is live or the best finished score f >= max(s) / limit: a live hypothesis
    can only end with a score <= s / limit (decode.h proves it). The best finished one
    wins (ties: the first finished). Each step is one decoder call on a batch of the live
    hypotheses."""
    if beam < 2:
        raise ValueError("beam_search needs a beam of 2 or more (beam 1 is greedy)")
    masks = masks or causal_masks(limit)
    dev = model.generator.weight.device
    memory = model.encode(torch.tensor([src_ids], device=dev))
    words = model.generator.out_features - 2          # every id but <pad> and <s>

    def log_probs(hyps):
        tgt = torch.tensor([[BOS] + h for h in hyps], device=dev)
        h = model.decode(tgt, memory.expand(len(hyps), -1, -1), masks[tgt.shape[1]].to(dev))
        return _log_probs(model.generator(h[:, -1]))

    hyps, scores = [[]], [0.0]
    best_ids, best_score = None, None
    lp = log_probs(hyps)
    while hyps:
        if best_ids is not None and best_score >= max(scores) / limit:
            break
        no_eos = len(hyps[0]) == 0
        k = min(beam + 1, words - no_eos)
        cands = [(scores[a] + float(lp[a, tok]), a, tok)
                 for a in range(len(hyps)) for tok in top_k_ids(lp[a], k, no_eos)]
        cands.sort(key=lambda c: (-c[0], c[1], c[2]))
        next_hyps, next_scores, taken = [], [], 0
        for score, a, tok in cands:
            if taken >= beam:
                break
            ids = hyps[a] + [tok]
            if tok != EOS:
                taken += 1
            if tok == EOS or len(ids) >= limit:
                if best_ids is None or score / len(ids) > best_score:
                    best_ids, best_score = ids, score / len(ids)
            else:
                next_hyps.append(ids)
                next_scores.append(score)
        hyps, scores = next_hyps, next_scores
        if hyps:
            lp = log_probs(hyps)
    return best_ids


@dataclass
class Translation:
    """One sentence's output: the target tokens and ids (</s> included), each step's
    log-probability (greedy only; None for beam search), the detokenized text, the words
    as shown (the tokens, with a generated <unk> replaced by the source word it copies)
    and, per token, whether it was copied so."""
    tokens: list
    ids: list
    logprobs: list
    text: str
    words: list = None
    copied: list = None


def most_attended(model, src_ids, ids):
    """For each output position i of ids (</s> included), the source position (</s>, the
    last, excluded) that the last decoder layer's cross-attention, summed over heads,
    weighs most at step i, ties to the lower position: translation_most_attended in
    src/translate/decode.c, the word a generated <unk> shows. Runs the decoder once over <s> and
    ids shifted right (the same computation as step by step) and recomputes that layer's
    weights from the inputs its cross-attention receives."""
    mha = model.transformer.decoder.layers[-1].multihead_attn
    seen = {}
    hook = mha.register_forward_pre_hook(lambda m, args: seen.update(q=args[0], k=args[1]))
    try:
        dev = model.generator.weight.device
        memory = model.encode(torch.tensor([src_ids], device=dev))
        prefix = [BOS] + list(ids[:-1])
        model.decode(torch.tensor([prefix], device=dev), memory,
                     causal_masks(len(prefix))[len(prefix)].to(dev))
    finally:
        hook.remove()
    D, H = mha.embed_dim, mha.num_heads
    W, b = mha.in_proj_weight, mha.in_proj_bias
    q = torch.nn.functional.linear(seen["q"][0], W[:D], b[:D])           # [T, D]
    k = torch.nn.functional.linear(seen["k"][0], W[D:2 * D], b[D:2 * D])  # [S, D]
    dh = D // H
    q = q.view(-1, H, dh).transpose(0, 1)                                # [H, T, dh]
    k = k.view(-1, H, dh).transpose(0, 1)                                # [H, S, dh]
    w = torch.softmax(q @ k.transpose(1, 2) / float(np.sqrt(dh)), dim=-1)  # [H, T, S]
    summed = w.double().sum(dim=0).cpu().numpy()                         # [T, S]
    words = max(len(src_ids) - 1, 1)
    return [int(np.argmax(row[:words])) for row in summed]              # the first maximum


def cased_tokens(folded, typed):
    """The English source tokens as typed (TOK_SRC_CASED in src/text/tokenizer.h): folded are
    the source rules' tokens, typed the same text's tokens with the case kept and no
    contraction expanded. A typed token that folds to its source token gives its
    spelling; a contraction (one typed token, two source tokens: "don't", "do not")
    keeps the folded ones. Where the two cannot be matched, the folded tokens."""
    out, p, j = [], 0, 0
    while j < len(folded):
        if p < len(typed) and typed[p].casefold() == folded[j]:
            out.append(typed[p])
            j += 1
        elif j + 1 < len(folded) and p < len(typed):
            out += folded[j:j + 2]
            j += 2
        else:
            return list(folded)
        p += 1
    return out if p == len(typed) else list(folded)


def translate(model, sentence, beam=1, toytrans=None, keep_unk=False):
    """Translates sentence with a model from load() (or any Translator that carries its
    vocabularies). sentence is a string, tokenized by `toytrans tokenize` (toytrans: the
    binary, else $TOYTRANS or `toytrans` on the PATH), or a list of source tokens as the
    tokenizer makes them. Greedy for beam 1, else beam search: the same rules, so the
    same tokens, as `toytrans translate [--beam N]`. As there, a generated <unk> shows the
    source word the last decoder layer's cross-attention weighs most at its step, as
    typed (so names pass through: "Hello" → "Hello"), and is marked in .copied;
    keep_unk=True (--keep-unk) shows <unk>. .tokens keep the vocabulary's tokens."""
    vocabs = model.vocabularies
    if vocabs is None:
        raise ModelError("the model carries no vocabularies (use load())")
    # The tokenizer's rules by language: English's (folded, contractions expanded) are
    # its "src" rules, any other language's (case kept) its "tgt" rules, so a
    # German→English model's German source takes the "tgt" rules.
    rules = "src" if model.config.get("src_lang", "en") == "en" else "tgt"
    tokens = (tools.tokenize([sentence], rules, toytrans)[0] if isinstance(sentence, str)
              else list(sentence))
    index = {t: i for i, t in enumerate(vocabs.src)}
    src_ids = [index.get(t, UNK) for t in tokens] + [EOS]
    if len(src_ids) > model.config["max_len"]:
        raise ModelError(f"the sentence has {len(src_ids)} tokens with </s>; the model's "
                         f"max_len is {model.config['max_len']}")
    limit = output_limit(model.config, len(src_ids))
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            if beam <= 1:
                ids, lps = greedy(model, src_ids, limit)
            else:
                ids, lps = beam_search(model, src_ids, beam, limit), None
    finally:
        model.train(was_training)
    out = [vocabs.tgt[i] for i in ids]
    words, copied = list(out), [False] * len(out)
    if not keep_unk and UNK in ids and tokens:
        surface = tokens
        if isinstance(sentence, str) and rules == "src":
            surface = cased_tokens(tokens, tools.tokenize([sentence], "tgt", toytrans)[0])
        with torch.inference_mode():
            best = most_attended(model, src_ids, ids)
        for i, token_id in enumerate(ids):
            if token_id == UNK and best[i] < len(surface):
                words[i], copied[i] = surface[best[i]], True
    text = tools.detokenize([w for w, i in zip(words, ids) if i != EOS])
    return Translation(out, ids, lps, text, words, copied)
