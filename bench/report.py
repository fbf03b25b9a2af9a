#!/usr/bin/python3
"""The table of `make bench`, from the JSON files bench/run.sh collected.

    /usr/bin/python3 bench/report.py DIR OUT.md

DIR holds toytrans.json (bench/bench.c: translation, training, matmul), torch-2-b128.json
(PyTorch's training at batch 128), torch-1.json and
torch-2.json (bench/torch_ref.py with 1 and 2 threads, at the OpenBLAS setting run.sh
chose) and env.json (what run.sh tried and chose). The table goes to standard output and
to OUT.md. Every figure is a median over repetitions measured in the same `make bench`
run; a ratio is toytrans's figure over PyTorch's (above 1: toytrans is faster).
"""
import json
import os
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def fmt(x, digits=1):
    if x is None:
        return "–"
    return f"{x:,.{digits}f}"


def ratio(ours, theirs):
    if not ours or not theirs:
        return "–"
    return f"{ours / theirs:.1f}×"


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: report.py DIR OUT.md")
    d, out_path = sys.argv[1], sys.argv[2]
    tt = load(os.path.join(d, "toytrans.json"))
    t1 = load(os.path.join(d, "torch-1.json"))
    t2 = load(os.path.join(d, "torch-2.json"))
    t2b = load(os.path.join(d, "torch-2-b128.json"))
    env = load(os.path.join(d, "env.json"))
    m = tt["machine"]
    lines = []
    add = lines.append

    add("# toytrans vs PyTorch: `make bench`")
    add("")
    add(f"- date: {env['date']}")
    add(f"- CPU: {env['cpu']} ({env['cores']} cores); clock measured {m['clock_ghz']:.2f} GHz")
    add(f"- toytrans kernels: {m['kernel_variant']}; compiler: {env['cc']}")
    blas = t1["blas_library"]
    if isinstance(blas, list):
        blas = ", ".join(sorted({b.get("resolved") or b.get("path") for b in blas}))
    add(f"- PyTorch {t1['torch_version']}; BLAS libraries it loaded: {blas or 'none'}; "
        f"OpenBLAS threads {t1.get('openblas_threads')}, core {t1.get('openblas_corename')}")
    add(f"- OpenBLAS: {m.get('openblas') or 'not installed'}; setting used: "
        f"{env['chosen']} (tried: {', '.join(env['tried'])}; {env['why']})")
    add(f"- model: {env['model']} ({env['params']}); sentences: {env['sentences']}")
    tr1, tr2 = tt["train_batch_32_threads_1"], tt["train_batch_32_threads_2"]
    tr2b = tt["train_batch_128_threads_2"]
    add(f"- repetitions: {env['reps']} (median); training: {tr1['steps']} steps of 32 and of "
        f"128 sentences after a warm-up, the model's configuration for both")
    add("")
    ok_g = t1["greedy_match"] == t1["greedy_total"] and t2["greedy_match"] == t2["greedy_total"]
    ok_b = t1.get("beam_match") == t1.get("beam_total")
    add(f"Same translations: greedy {t1['greedy_match']}/{t1['greedy_total']} "
        f"(1 thread), {t2['greedy_match']}/{t2['greedy_total']} (2 threads); beam 4 "
        f"{t1.get('beam_match')}/{t1.get('beam_total')}."
        + ("" if ok_g and ok_b else " **MISMATCH: the comparison below is not valid.**"))
    add("")
    add("| what | toytrans | PyTorch | ratio |")
    add("| --- | ---: | ---: | ---: |")
    g1, g2, b4 = tt["greedy_threads_1"], tt["greedy_threads_2"], tt["beam_4"]
    add(f"| greedy, 1 thread: sentences/s | {fmt(g1['sentences_per_s'], 0)} | "
        f"{fmt(t1['greedy_sentences_per_s'], 1)} | {ratio(g1['sentences_per_s'], t1['greedy_sentences_per_s'])} |")
    add(f"| greedy, 1 thread: ms/sentence | {fmt(g1['ms_per_sentence'], 3)} | "
        f"{fmt(t1['greedy_ms_per_sentence'], 2)} | |")
    add(f"| greedy, 2 threads: sentences/s | {fmt(g2['sentences_per_s'], 0)} | "
        f"{fmt(t2['greedy_sentences_per_s'], 1)} | {ratio(g2['sentences_per_s'], t2['greedy_sentences_per_s'])} |")
    add(f"| greedy, 2 threads: ms/sentence | {fmt(g2['ms_per_sentence'], 3)} | "
        f"{fmt(t2['greedy_ms_per_sentence'], 2)} | |")
    gb1, gb2 = tt.get("greedy_batched_threads_1"), tt.get("greedy_batched_threads_2")
    nb = gb1["batch"] if gb1 else None
    if gb1 and t1.get("greedy_batched_sentences_per_s"):
        add(f"| greedy in batches (toytrans {nb}, PyTorch 64), 1 thread: sentences/s | "
            f"{fmt(gb1['sentences_per_s'], 0)} | {fmt(t1['greedy_batched_sentences_per_s'], 1)} | "
            f"{ratio(gb1['sentences_per_s'], t1['greedy_batched_sentences_per_s'])} |")
    if gb2 and t2.get("greedy_batched_sentences_per_s"):
        add(f"| greedy in batches (toytrans {nb}, PyTorch 64), 2 threads: sentences/s | "
            f"{fmt(gb2['sentences_per_s'], 0)} | {fmt(t2['greedy_batched_sentences_per_s'], 1)} | "
            f"{ratio(gb2['sentences_per_s'], t2['greedy_batched_sentences_per_s'])} |")
    if gb1:
        add(f"| toytrans greedy, batch {nb} against one at a time, 1 thread | "
            f"{ratio(gb1['sentences_per_s'], g1['sentences_per_s'])} | | |")
    if gb1 and gb2:
        add(f"| toytrans greedy, batch {nb}, 2 threads against 1 | "
            f"{ratio(gb2['sentences_per_s'], gb1['sentences_per_s'])} | | |")
    bb = tt.get("beam_4_batched")
    if bb:
        add(f"| beam 4, batch {bb['batch']}, 1 thread: sentences/s | {fmt(bb['sentences_per_s'], 0)} | | |")
    add(f"| beam 4, 1 thread: sentences/s | {fmt(b4['sentences_per_s'], 0)} | "
        f"{fmt(t1.get('beam_sentences_per_s'), 1)} | {ratio(b4['sentences_per_s'], t1.get('beam_sentences_per_s'))} |")
    add(f"| beam 4, 1 thread: ms/sentence | {fmt(b4['ms_per_sentence'], 3)} | "
        f"{fmt(t1.get('beam_ms_per_sentence'), 2)} | |")
    rb = tt.get("greedy_read_back_1")
    if rb:
        add(f"| greedy and read-back (de-en.db), 1 thread: sentences/s | "
            f"{fmt(rb['sentences_per_s'], 0)} | | |")
        add(f"| greedy and read-back, 1 thread: ms/sentence | {fmt(rb['ms_per_sentence'], 3)} "
            f"| | {fmt(rb['ms_per_sentence'] / g1['ms_per_sentence'], 2)}× greedy's time |")
    add(f"| training, batch 32, 1 thread: target tokens/s | {fmt(tr1['tokens_per_s'], 0)} | "
        f"{fmt(t1['train_tokens_per_s'], 0)} | {ratio(tr1['tokens_per_s'], t1['train_tokens_per_s'])} |")
    add(f"| training, batch 32, 2 threads: target tokens/s | {fmt(tr2['tokens_per_s'], 0)} | "
        f"{fmt(t2['train_tokens_per_s'], 0)} | {ratio(tr2['tokens_per_s'], t2['train_tokens_per_s'])} |")
    add(f"| training, batch 128, 2 threads: target tokens/s | {fmt(tr2b['tokens_per_s'], 0)} | "
        f"{fmt(t2b['train_tokens_per_s'], 0)} | {ratio(tr2b['tokens_per_s'], t2b['train_tokens_per_s'])} |")
    # The same work in model FLOPs (bench/bench.c: backprop_pair_flops over the timed
    # batches) against the machine's peak; PyTorch's figure is its tokens/s times
    # toytrans's FLOPs per token, as both train the same batches of the same model.
    # The peak a share is taken of: the clock-derived figure, or the multiply-add loop's
    # measured rate where that is higher (a clock measured low, as this virtual
    # machine's sometimes is, would otherwise inflate every share).
    fma1 = m.get("measured_fma_gflops_1_core") or 0
    m_peak1 = max(m["peak_gflops_1_core"], fma1)
    m_peak2 = max(m["peak_gflops_2_cores"], 2 * fma1)
    for name, r, t, peak in (("batch 32, 1 thread", tr1, t1, m_peak1),
                             ("batch 32, 2 threads", tr2, t2, m_peak2),
                             ("batch 128, 2 threads", tr2b, t2b, m_peak2)):
        g = r.get("model_gflops")
        if g is None:
            continue
        pg = t["train_tokens_per_s"] * r["model_flops_per_token"] * 1e-9
        add(f"| training, {name}: model GFLOP/s (share of peak) | {fmt(g)} "
            f"({100 * g / peak:.0f} %) | {fmt(pg)} ({100 * pg / peak:.0f} %) | |")
    # Translation's model FLOPs (the forward pass training counts, a third of a step's)
    # against the same peak: how much of the machine batched decoding uses.
    for key, name, peak in (("greedy_threads_1", "greedy one at a time, 1 thread", m_peak1),
                            ("greedy_batched_threads_1", f"greedy batch {nb}, 1 thread", m_peak1),
                            ("greedy_batched_threads_2", f"greedy batch {nb}, 2 threads", m_peak2)):
        g = tt.get(key, {}).get("model_gflops")
        if g is not None:
            add(f"| translation, {name}: model GFLOP/s (share of peak) | {fmt(g)} "
                f"({100 * g / peak:.0f} %) | | |")
    load_tt, load_pt = tt["load_to_first_word_ms"], t1["load_to_first_word_ms"]
    add(f"| load to first word: ms | {fmt(load_tt, 2)} | {fmt(load_pt, 1)} | "
        f"{ratio(load_pt, load_tt)} |")
    rss = tt["translate_command"]["peak_rss_kib"] / 1024
    prss = t1.get("peak_rss_mib")
    add(f"| peak resident memory of translate: MiB | {fmt(rss, 1)} | {fmt(prss, 1)} | |")
    add("")
    add("Matrix multiply, a Linear layer's `x · Wᵀ` (`kernel_matmul_nt`, one thread) beside "
        "OpenBLAS `cblas_sgemm` on the same shapes (one thread), the shapes of the model's "
        "layers:")
    add("")
    add("| shape M×K×N | used for | toytrans GFLOP/s | OpenBLAS GFLOP/s | toytrans / OpenBLAS |")
    add("| --- | --- | ---: | ---: | ---: |")
    for s in tt["matmul"]:
        ob = s.get("openblas_gflops")
        pct = f"{100 * s['toytrans_gflops'] / ob:.0f} %" if ob else "–"
        add(f"| {s['M']}×{s['K']}×{s['N']} | {s['use']} | {fmt(s['toytrans_gflops'])} | {fmt(ob)} | {pct} |")
    add("")
    add(f"Machine fp32 peak: {fmt(m['peak_gflops_1_core'])} GFLOP/s per core, "
        f"{fmt(m['peak_gflops_2_cores'])} with both = measured clock {m['clock_ghz']:.2f} GHz "
        f"× 2 fused multiply-add units × {m['fp32_lanes']} lanes × 2 operations (the clock "
        f"from a chain of dependent additions, one per cycle; the lanes from the widest "
        f"vector unit the CPU reports; two FMA units, as on Intel's server cores since "
        f"Skylake-SP and AMD's since Zen 5, which the measured loop confirms or refutes). "
        f"Measured: twelve independent chains of vector multiply-adds run at "
        f"{fmt(m.get('measured_fma_gflops_1_core'))} GFLOP/s on one core. The clock of this "
        f"virtual machine varies from run to run (turbo), which moves every figure; the "
        f"ratios are measured in the same run.")
    if tr1.get("model_flops_per_token"):
        add("")
        add(f"Model FLOPs: {tr1['model_flops_per_token'] / 1e6:.2f} million per target token "
            f"in the timed batches — every matrix product of the forward pass (2 per "
            f"multiply-add, attention's full score and context products), three times for "
            f"forward and backward; embeddings, norms, softmax and the optimiser are not "
            f"counted (src/train/backprop.h, backprop_pair_flops). The share is of the peak of the "
            f"cores used, one core for 1 thread and both for 2: {fmt(m_peak1)} GFLOP/s per "
            f"core, the higher of the clock-derived peak and the measured multiply-add "
            f"loop.")
    add("")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
