"""The toytrans encoder-decoder as a torch.nn.Module (docs/model.md), and its conversion
to and from the tensors of a model file.

Translator is embeddings + torch.nn.Transformer(norm_first=True, batch_first=True, ReLU)
+ the generator: the computation every toytrans model file describes. PyTorch stacks the
query, key and value projections into one in_proj_weight; the file keeps them apart
(W_query, W_key, W_value). Without qkv_bias PyTorch's in_proj_bias is zero and frozen.
"""
import numpy as np
import torch
import torch.nn as nn

from .modelfile import (ModelError, Vocabularies, expected_shapes, read_model_file,
                        write_model_file)


def positional_table(max_len, d):
    """PE[pos, 2k] = sin(pos / 10000^(2k/D)), PE[pos, 2k+1] = cos(same): computed in double
    and rounded to float once, as src/model/model.c does."""
    pos = np.arange(max_len, dtype=np.float64)[:, None]
    i = np.arange(d)
    angle = pos / np.power(10000.0, (i - i % 2) / d)
    pe = np.where(i % 2 == 0, np.sin(angle), np.cos(angle))
    return torch.from_numpy(pe.astype(np.float32))


class Translator(nn.Module):
    """Embeddings + nn.Transformer + generator, the computation of docs/model.md.

    `config` and `vocabularies` (when given) travel with the module, so that translate()
    and save() need nothing else."""

    def __init__(self, cfg, v_src, v_tgt, dropout=0.0, vocabularies=None):
        super().__init__()
        D = cfg["d_model"]
        self.config = dict(cfg)
        self.vocabularies = vocabularies
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
        # sqrtf((float)D) in src/nn/layers.c: the scale is a float32 number.
        self.scale = float(np.sqrt(np.float32(D), dtype=np.float32))
        if not cfg["qkv_bias"]:
            for name, p in self.named_parameters():
                if name.endswith("in_proj_bias"):
                    nn.init.zeros_(p)
                    p.requires_grad_(False)

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

    def forward(self, src, tgt_in, src_pad=None, tgt_pad=None):
        """Teacher-forced logits [B, T, V_tgt] of a padded batch (training)."""
        T = tgt_in.shape[1]
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool, device=tgt_in.device), diagonal=1)
        memory = self.encode(src, src_pad)
        return self.generator(self.decode(tgt_in, memory, causal, tgt_pad, src_pad))


# The three projections PyTorch stacks into in_proj_weight, in its order.
QKV = ("W_query", "W_key", "W_value")


def _layer_map(cfg):
    """(PyTorch module prefix, file prefix, kind) of every attention and plain part."""
    parts = []
    for i in range(cfg["n_encoder_layers"]):
        ours, theirs = f"transformer.encoder.layers.{i}", f"encoder.layers.{i}"
        parts.append((f"{ours}.self_attn", f"{theirs}.self_attn", "attn"))
        for n in ("linear1", "linear2", "norm1", "norm2"):
            parts.append((f"{ours}.{n}", f"{theirs}.{n}", "plain"))
    for i in range(cfg["n_decoder_layers"]):
        ours, theirs = f"transformer.decoder.layers.{i}", f"decoder.layers.{i}"
        parts.append((f"{ours}.self_attn", f"{theirs}.self_attn", "attn"))
        parts.append((f"{ours}.multihead_attn", f"{theirs}.cross_attn", "attn"))
        for n in ("linear1", "linear2", "norm1", "norm2", "norm3"):
            parts.append((f"{ours}.{n}", f"{theirs}.{n}", "plain"))
    for part in ("encoder", "decoder"):
        parts.append((f"transformer.{part}.norm", f"{part}.norm", "plain"))
    parts.append(("generator", "generator", "plain"))
    return parts


def state_dict_from_weights(cfg, weights):
    """toytrans's tensor names (as read_model_file gives them) -> Translator's state_dict."""
    D = cfg["d_model"]
    t = {name: torch.from_numpy(np.array(a, dtype=np.float32)) for name, a in weights.items()}
    sd = {"src_emb.weight": t["embedding.src"], "tgt_emb.weight": t["embedding.tgt"]}
    for ours, theirs, kind in _layer_map(cfg):
        if kind == "attn":
            sd[f"{ours}.in_proj_weight"] = torch.cat([t[f"{theirs}.{p}.weight"] for p in QKV])
            sd[f"{ours}.in_proj_bias"] = (torch.cat([t[f"{theirs}.{p}.bias"] for p in QKV])
                                          if cfg["qkv_bias"] else torch.zeros(3 * D))
            ours, theirs = f"{ours}.out_proj", f"{theirs}.out_proj"
        for x in ("weight", "bias"):
            sd[f"{ours}.{x}"] = t[f"{theirs}.{x}"]
    return sd


def weights_from_module(model):
    """Translator -> toytrans's tensor names with float32 numpy arrays (the reverse of
    state_dict_from_weights). Without qkv_bias a non-zero in_proj_bias could not be
    stored, so it is refused."""
    cfg = model.config
    sd = {k: v.detach().to("cpu", torch.float32).numpy() for k, v in model.state_dict().items()}
    w = {"embedding.src": sd["src_emb.weight"], "embedding.tgt": sd["tgt_emb.weight"]}
    for ours, theirs, kind in _layer_map(cfg):
        if kind == "attn":
            for p, chunk in zip(QKV, np.split(sd[f"{ours}.in_proj_weight"], 3)):
                w[f"{theirs}.{p}.weight"] = chunk
            bias = sd[f"{ours}.in_proj_bias"]
            if cfg["qkv_bias"]:
                for p, chunk in zip(QKV, np.split(bias, 3)):
                    w[f"{theirs}.{p}.bias"] = chunk
            elif np.any(bias != 0):
                raise ModelError(f"{ours}.in_proj_bias is not zero but the model has no "
                                 f"query, key and value biases (qkv_bias 0)")
            ours, theirs = f"{ours}.out_proj", f"{theirs}.out_proj"
        for x in ("weight", "bias"):
            w[f"{theirs}.{x}"] = sd[f"{ours}.{x}"]
    return w


def init_like_toytrans(model, seed):
    """Initialises a fresh model as src/model/model.c's model_randomize does: Xavier-uniform
    matrices (each of W_query, W_key, W_value on its own, and the embeddings), zero
    biases, LayerNorm weights one. The in_proj_bias of a model without qkv_bias stays
    zero and frozen."""
    torch.manual_seed(seed)
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


def load(path):
    """A toytrans model file -> (model, vocabularies, config): a Translator in eval mode
    holding exactly the file's computation. Raises ModelError for a file toytrans would
    refuse (the content checksum included)."""
    cfg, vocabs, weights, _ = read_model_file(path)
    model = Translator(cfg, len(vocabs.src), len(vocabs.tgt), vocabularies=vocabs)
    model.load_state_dict(state_dict_from_weights(cfg, weights), strict=True)
    model.eval()
    return model, vocabs, cfg


def save(path, model, vocabularies, config, provenance, history=None, extra_tensors=None,
         lock=None):
    """Writes model (a Translator, or a DistributedDataParallel around one) as a toytrans
    model file: the header, the meta keys (config and provenance, a dict of text), vocab
    and embedding tables, the tensors by name and shape, and the content checksum, in one
    atomic replace (write_model_file). history, extra_tensors and lock (a WriterLock a run
    holds across its checkpoints) as write_model_file takes them."""
    inner = getattr(model, "module", model)
    if inner.config != dict(config):
        raise ModelError("the configuration given is not the model's")
    if len(vocabularies.src) != inner.src_emb.num_embeddings or \
            len(vocabularies.tgt) != inner.tgt_emb.num_embeddings:
        raise ModelError("the vocabularies' sizes are not the model's embedding rows")
    write_model_file(path, config, vocabularies, weights_from_module(inner), provenance,
                     history, extra_tensors, lock)


__all__ = ["Translator", "Vocabularies", "expected_shapes", "load", "save",
           "init_like_toytrans", "positional_table", "state_dict_from_weights",
           "weights_from_module"]
