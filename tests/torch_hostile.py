"""Hostile model files for tests/test_torch.sh: small files that try to make a reader
allocate gigabytes, or run code.

    PYTHONPATH=python python3 tests/torch_hostile.py KIND SOURCE OUT [ARG]

copies the model file SOURCE to OUT and makes it hostile. KIND:

  huge        the hyper-parameters of a model of 3.8 billion parameters (d_model 4096,
              d_ff 16384, 8 layers each side), every one of them in its own range: only
              the 2^28-parameter cap refuses it
  generated   the same, with the embedding vectors and the tensors turned into SQLite
              generated columns (zeroblobs of the sizes the header promises): a 70 KB file
              whose reading would take 7 GB
  scriptmodule  ARG is a marker path: a TorchScript archive whose __setstate__ creates ARG
              (torch.load(weights_only=True) of PyTorch 1.13 hands such an archive to
              torch.jit.load, which runs it: CVE-2025-32434) as the optimiser state of
              the torch_checkpoint table earlier versions kept their resume state in (the
              table made if SOURCE has none, and the current resume state removed; needs
              torch)
  scriptmodule-tensors  ARG as above: the archive as every tensor of the current resume
              state, and the content checksum brought up to date, as a careful attacker
              would

Except where said, the content checksum is left as it was (stale), as an attacker who does
not care would leave it: the reader must refuse the file before it gets that far.
"""
import io
import shutil
import sqlite3
import sys

HUGE = {"d_model": "4096", "n_heads": "4", "d_ff": "16384", "n_encoder_layers": "8",
        "n_decoder_layers": "8", "max_len": "8"}


def set_huge(db):
    db.executemany("UPDATE meta SET value = ? WHERE key = ?",
                   [(v, k) for k, v in HUGE.items()])


def make_generated(db):
    d = int(HUGE["d_model"])
    db.executescript(f"""
        ALTER TABLE embedding RENAME TO embedding_old;
        CREATE TABLE embedding(lang TEXT NOT NULL, id INTEGER NOT NULL,
            vector BLOB GENERATED ALWAYS AS (zeroblob({4 * d})) VIRTUAL,
            PRIMARY KEY(lang, id));
        INSERT INTO embedding(lang, id) SELECT lang, id FROM embedding_old;
        DROP TABLE embedding_old;
        ALTER TABLE tensor RENAME TO tensor_old;
        CREATE TABLE tensor(name TEXT PRIMARY KEY, shape TEXT NOT NULL, n INTEGER NOT NULL,
            data BLOB GENERATED ALWAYS AS (zeroblob(n)) VIRTUAL);
        DROP TABLE tensor_old;
    """)
    # Each tensor the header implies, with the size it implies: the file stays small.
    from toytrans_torch.modelfile import expected_shapes, read_config
    meta = dict(db.execute("SELECT key, value FROM meta"))
    v_tgt = db.execute("SELECT count(*) FROM vocab WHERE lang = 'tgt'").fetchone()[0]
    shapes = expected_shapes(read_config(meta), v_tgt)
    rows = []
    for name, shape in shapes.items():
        n = 4
        for s in shape:
            n *= s
        rows.append((name, ",".join(map(str, shape)), n))
    db.executemany("INSERT INTO tensor(name, shape, n) VALUES(?, ?, ?)", rows)


def scriptmodule(marker):
    from typing import Tuple
    import torch

    class Payload(torch.nn.Module):
        def __init__(self, path: str):
            super().__init__()
            self.path = path
            self.n = 0

        @torch.jit.export
        def __getstate__(self) -> Tuple[str, bool, int]:
            return (self.path, self.training, self.n)

        @torch.jit.export
        def __setstate__(self, state: Tuple[str, bool, int]) -> None:
            self.path = state[0]
            self.training = state[1]
            # from_file(shared=True) creates the file: the payload's whole effect.
            self.n = torch.from_file(state[0], True, 4).numel()

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x

    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(Payload(marker)), buf)
    return buf.getvalue()


def put_in_old_table(db, payload):
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "torch_checkpoint" not in tables:
        db.execute("CREATE TABLE torch_checkpoint(key TEXT PRIMARY KEY, value BLOB NOT NULL)")
        db.executemany("INSERT INTO torch_checkpoint(key, value) VALUES(?, '{}')",
                       [(k,) for k in ("position", "args", "scheduler", "optimizer_groups",
                                       "optimizer_state")])
        db.execute("DELETE FROM meta WHERE key = 'torch_resume'")
    db.execute("UPDATE torch_checkpoint SET value = ? WHERE key = 'optimizer_state'",
               (payload,))


def put_in_tensors(db, payload):
    from toytrans_torch.modelfile import CHECKSUM_KEY, content_checksum
    n = db.execute("UPDATE tensor SET data = ? WHERE name LIKE 'torch\\_adamw.%' ESCAPE '\\'",
                   (payload,)).rowcount
    if n == 0:
        sys.exit("torch_hostile.py: the file has no resume state tensors")
    db.execute("UPDATE meta SET value = ? WHERE key = ?", (content_checksum(db), CHECKSUM_KEY))


def main():
    kind, source, out = sys.argv[1:4]
    shutil.copyfile(source, out)
    db = sqlite3.connect(out)
    with db:
        if kind == "huge":
            set_huge(db)
        elif kind == "generated":
            set_huge(db)
            make_generated(db)
        elif kind == "scriptmodule":
            put_in_old_table(db, scriptmodule(sys.argv[4]))
        elif kind == "scriptmodule-tensors":
            put_in_tensors(db, scriptmodule(sys.argv[4]))
        else:
            sys.exit(f"torch_hostile.py: unknown kind {kind!r}")
    db.close()


if __name__ == "__main__":
    main()
