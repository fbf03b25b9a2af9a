"""What the PyTorch side takes from toytrans itself: its tokenizer (through the
`toytrans tokenize` command, so that both sides see the same tokens and ids), its outputs
(`toytrans translate --json`), its corpus format and its detokenizer's rules."""
import json
import os
import shutil
import subprocess

from .modelfile import UNK


class ToolError(Exception):
    """toytrans or an input file did not give what was needed."""


def find_toytrans(toytrans=None):
    """The toytrans binary: toytrans if given, else $TOYTRANS, else the repository's
    build/release/toytrans, else `toytrans` on the PATH."""
    if toytrans:
        return toytrans
    if os.environ.get("TOYTRANS"):
        return os.environ["TOYTRANS"]
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(here, "..", "..", "build", "release", "toytrans")
    if os.access(built, os.X_OK):
        return os.path.normpath(built)
    found = shutil.which("toytrans")
    if not found:
        raise ToolError("no toytrans binary: pass --toytrans, set TOYTRANS or run make")
    return found


def run_toytrans(toytrans, args, lines, per_line=True):
    """Runs toytrans with lines on standard input -> its output lines (one per input
    unless per_line is False)."""
    cmd = [find_toytrans(toytrans)] + args
    try:
        p = subprocess.run(cmd, input="".join(line + "\n" for line in lines),
                           capture_output=True, text=True, encoding="utf-8")
    except OSError as e:
        raise ToolError(f"cannot run {cmd[0]}: {e}") from None
    if p.returncode != 0:
        raise ToolError(f"{' '.join(cmd)} exited with status {p.returncode}: "
                        f"{p.stderr.strip()[:500]}")
    out = p.stdout.split("\n")
    if out and out[-1] == "":
        out.pop()
    if per_line and len(out) != len(lines):
        raise ToolError(f"{' '.join(cmd)} gave {len(out)} lines for {len(lines)} inputs")
    return out


def tokenize(texts, lang, toytrans=None):
    """Each text's tokens as `toytrans tokenize --lang LANG` makes them."""
    return [line.split() for line in run_toytrans(toytrans, ["tokenize", "--lang", lang], texts)]


def tokenize_ids(texts, lang, vocab_tokens, toytrans=None):
    """Each text's token ids in a vocabulary (unknown tokens: <unk>)."""
    index = {t: i for i, t in enumerate(vocab_tokens)}
    return [[index.get(t, UNK) for t in toks] for toks in tokenize(texts, lang, toytrans)]


def toytrans_outputs(model_path, texts, beam=1, toytrans=None):
    """toytrans's outputs of each text (`translate --json --keep-unk`): a list of
    (tokens, log-probabilities) with </s> included, or None where toytrans reported an
    error for the line."""
    args = ["translate", "--model", model_path, "--json", "--keep-unk"]
    if beam > 1:
        args += ["--beam", str(beam)]
    result = []
    for line in run_toytrans(toytrans, args, texts):
        obj = json.loads(line)
        if "error" in obj:
            result.append(None)
            continue
        result.append((obj["tokens"], [s["logprob"] for s in obj["steps"]]))
    return result


def read_tsv(path, limit=None):
    """(source, target) pairs of a corpus file; blank lines skipped as src/text/tsv.c does; a
    third column (the construction, as in data/test.tsv) is ignored."""
    pairs = []
    with open(path, encoding="utf-8-sig") as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n").rstrip("\r")
            if not line.strip(" \t\r\n"):
                continue
            fields = line.split("\t")
            if len(fields) not in (2, 3):
                raise ToolError(f"{path}:{no}: expected source TAB target [TAB construction]")
            pairs.append((fields[0], fields[1]))
            if limit is not None and len(pairs) >= limit:
                break
    return pairs


# src/text/tokenizer.c's detokenizer: no space before closing punctuation, none after opening.
CLOSING = {".", ",", ";", ":", "!", "?", "\u2026", ")", "]", "}", "\u201c", "\u2018", "\u00ab"}
OPENING = {"(", "[", "{", "\u201e", "\u201a", "\u00bb"}


def detokenize(tokens):
    """German tokens joined for reading, exactly as toytrans joins them."""
    out = ""
    for i, tok in enumerate(tokens):
        if i > 0 and tok not in CLOSING and tokens[i - 1] not in OPENING:
            out += " "
        out += tok
    return out
