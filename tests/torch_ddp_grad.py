"""What DistributedDataParallel promises, checked on toytrans_torch.train's own loss:
the gradient averaged over the processes, each taking its share of a batch, equals the
gradient of the whole batch in one process (within float tolerance).

    PYTHONPATH=python torchrun --standalone --nproc_per_node=2 tests/torch_ddp_grad.py

(run by tests/test_torch.sh). The batch is made so that the shares hold different
numbers of target tokens: there, a loss averaged per share (and then over processes)
gives another gradient, and the check shows that it would catch that mistake. Rank 0
prints the figures; the exit status is 1 when the gradients differ or when the check
could not tell the wrong normalisation from the right one.
"""
import random
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from toytrans_torch.model import Translator, init_like_toytrans
from toytrans_torch.train import batch_target_tokens, shard, shard_loss

TOLERANCE = 1e-5          # largest |difference| / largest |gradient| allowed
CFG = {"d_model": 16, "n_heads": 2, "n_encoder_layers": 1, "n_decoder_layers": 1,
       "d_ff": 32, "max_len": 12, "qkv_bias": 1, "layer_norm_eps": 1e-5,
       "src_lang": "en", "tgt_lang": "de"}
V_SRC, V_TGT = 23, 29


def make_model():
    model = Translator(CFG, V_SRC, V_TGT)
    init_like_toytrans(model, 7)
    return model


def gradients(model):
    return [p.grad.detach().clone() for p in model.parameters() if p.requires_grad]


def relative_difference(a, b):
    scale = max(float(g.abs().max()) for g in b)
    return max(float((x - y).abs().max()) for x, y in zip(a, b)) / scale


def main():
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.set_num_threads(1)
    rng = random.Random(3)
    # Seven pairs of uneven lengths, ids 4.. (the reserved four are not words).
    src_ids = [[rng.randrange(4, V_SRC) for _ in range(rng.randrange(2, 9))] for _ in range(7)]
    tgt_ids = [[rng.randrange(4, V_TGT) for _ in range(rng.randrange(1, 10))] for _ in range(7)]
    batch = list(range(7))
    tokens = batch_target_tokens(batch, tgt_ids)
    shares = [shard(batch, r, world) for r in range(world)]
    share_tokens = [batch_target_tokens(s, tgt_ids) for s in shares]

    # The distributed gradient: each process its share, DDP averages.
    ddp = DistributedDataParallel(make_model())
    loss, _ = shard_loss(ddp, shares[rank], src_ids, tgt_ids, tokens, world, 0.1, "cpu")
    loss.backward()
    dist_grads = gradients(ddp.module)
    everyone = [None] * world
    dist.all_gather_object(everyone, [g.numpy() for g in dist_grads])
    status = 0
    if rank == 0:
        # The same gradient on every process.
        spread = max(float(abs(a - b).max()) for other in everyone[1:]
                     for a, b in zip(everyone[0], other))
        # One process, the whole batch.
        single = make_model()
        loss, _ = shard_loss(single, batch, src_ids, tgt_ids, tokens, 1, 0.1, "cpu")
        loss.backward()
        ref = gradients(single)
        diff = relative_difference(dist_grads, ref)
        # The mistake the check must be able to see: each share's mean loss per token,
        # averaged over the shares.
        naive = [torch.zeros_like(g) for g in ref]
        for s, n in zip(shares, share_tokens):
            m = make_model()
            loss, _ = shard_loss(m, s, src_ids, tgt_ids, n, 1, 0.1, "cpu")
            loss.backward()
            for acc, g in zip(naive, gradients(m)):
                acc += g / world
        naive_diff = relative_difference(naive, ref)
        # One write for the line (print() writes its newline apart; torchrun may then
        # copy the line to its console in two pieces).
        sys.stderr.write(f"gradients over {world} processes (shares of {share_tokens} target "
                         f"tokens) against one process on the whole batch ({tokens} tokens), "
                         f"{sum(g.numel() for g in ref)} values: largest difference "
                         f"{diff:.3g} of the largest gradient (tolerance {TOLERANCE:g}); "
                         f"between processes {spread:.3g}; a per-share mean would differ by "
                         f"{naive_diff:.3g}\n")
        sys.stderr.flush()
        if len(set(share_tokens)) == 1:
            print("FAIL: the shares hold equal token counts; the check cannot see a "
                  "per-share normalisation", file=sys.stderr)
            status = 1
        if not diff <= TOLERANCE:
            print("FAIL: the distributed gradient is not the whole batch's", file=sys.stderr)
            status = 1
        if spread != 0.0:
            print("FAIL: the processes hold different gradients", file=sys.stderr)
            status = 1
        if not naive_diff > 100 * TOLERANCE:
            print("FAIL: a per-share normalisation would pass this check too", file=sys.stderr)
            status = 1
    status_t = torch.tensor([status])
    dist.broadcast(status_t, 0)
    dist.destroy_process_group()
    return int(status_t)


if __name__ == "__main__":
    sys.exit(main())
