"""Does toytrans decode a model file exactly as PyTorch does? Measured, sentence by
sentence:

    PYTHONPATH=python python3 -m toytrans_torch.verify --model big.db \\
        --sentences data/valid.tsv --limit 50 [--beam 4] [--toytrans build/release/toytrans]

Greedy: PyTorch's output tokens (toytrans_torch.greedy) against `toytrans translate
--json --keep-unk`, token for token, and each step's log-probability against toytrans's,
within --tolerance (default 1e-4). With --beam N, beam search's outputs too. Prints the
figures; exit status 0 when everything agrees, 1 when something differs, 2 for a bad
command line or input, 3 for a model file PyTorch's loader refuses, 5 for one it cannot
read at all (an I/O error).
"""
import argparse
import sys

import torch

from . import tools
from .decode import beam_search, causal_masks, greedy, output_limit
from .model import load
from .modelfile import EOS, ModelError

PROG = "toytrans_torch.verify"


def compare(model_path, texts, beam, tolerance, toytrans=None, out=sys.stdout):
    """Runs both sides on texts -> (ok, figures dict); prints the figures and the first
    few differences to out."""
    model, vocabs, cfg = load(model_path)
    limit = cfg["max_len"]
    masks = causal_masks(limit)
    src = tools.tokenize_ids(texts, "src", vocabs.src, toytrans)
    theirs = tools.toytrans_outputs(model_path, texts, 1, toytrans)
    fig = {"sentences": 0, "equal": 0, "tokens": 0, "max_logprob_diff": 0.0,
           "refused": 0}
    shown = 0
    with torch.inference_mode():
        for text, ids, their in zip(texts, src, theirs):
            if not ids or len(ids) + 1 > limit:
                fig["refused"] += their is None
                continue
            fig["sentences"] += 1
            ours, lps = greedy(model, ids + [EOS], output_limit(cfg, len(ids) + 1), masks)
            words = [vocabs.tgt[i] for i in ours]
            if their is None or their[0] != words:
                if shown < 5:
                    shown += 1
                    print(f"  differs: {text}\n    toytrans: "
                          f"{'(error)' if their is None else ' '.join(their[0])}\n"
                          f"    PyTorch:  {' '.join(words)}", file=out)
                continue
            fig["equal"] += 1
            fig["tokens"] += len(lps)
            for a, b in zip(lps, their[1]):
                fig["max_logprob_diff"] = max(fig["max_logprob_diff"], abs(a - b))
        ok = fig["equal"] == fig["sentences"] > 0 and fig["max_logprob_diff"] <= tolerance
        print(f"greedy: {fig['equal']}/{fig['sentences']} sentences equal token for token "
              f"({fig['tokens']} tokens); log-probabilities: largest difference "
              f"{fig['max_logprob_diff']:.3g} (tolerance {tolerance:g})", file=out)
        if beam > 1:
            theirs = tools.toytrans_outputs(model_path, texts, beam, toytrans)
            equal = n = 0
            for ids, their in zip(src, theirs):
                if not ids or len(ids) + 1 > limit:
                    continue
                n += 1
                words = [vocabs.tgt[i] for i in beam_search(
                    model, ids + [EOS], beam, output_limit(cfg, len(ids) + 1), masks)]
                equal += their is not None and their[0] == words
            fig.update(beam=beam, beam_sentences=n, beam_equal=equal)
            ok = ok and equal == n
            print(f"beam {beam}: {equal}/{n} sentences equal token for token", file=out)
    return ok, fig


def main(argv=None):
    p = argparse.ArgumentParser(prog=f"python3 -m {PROG}", description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--sentences", required=True, help="a corpus file; its sources are used")
    p.add_argument("--limit", type=int, default=50, help="the first N sentences (default 50)")
    p.add_argument("--beam", type=int, default=0, help="also compare beam search of width N")
    p.add_argument("--tolerance", type=float, default=1e-4)
    p.add_argument("--toytrans", help="the toytrans binary")
    a = p.parse_args(argv)
    try:
        texts = [s for s, _ in tools.read_tsv(a.sentences, a.limit)]
        ok, _ = compare(a.model, texts, a.beam, a.tolerance, a.toytrans)
    except ModelError as e:
        print(f"{PROG}: {a.model}: model file unusable: {e}", file=sys.stderr)
        return e.status
    except (tools.ToolError, OSError) as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    if not ok:
        print(f"{PROG}: toytrans and PyTorch differ", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
