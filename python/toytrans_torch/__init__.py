"""toytrans_torch: toytrans model files in PyTorch, in both directions.

    import toytrans_torch as tt
    model, vocabularies, config = tt.load("models/en-de.db")
    print(tt.translate(model, "This is an example").text)     # Das ist ein Beispiel
    tt.save("copy.db", model, vocabularies, config, {"created_by": "me"})

load() builds a torch.nn.Module holding exactly the file's computation (docs/model.md);
save() writes a file toytrans's loader accepts with every check on (docs/model-format.md);
translate() decodes by toytrans's rules, token for token the same. Training across
processes and machines: `torchrun ... -m toytrans_torch.train` (see its --help).
Depends on PyTorch, numpy and the standard library only.
"""
from .decode import (DecodeError, Translation, beam_search, causal_masks, greedy, output_limit,
                     translate)
from .model import Translator, init_like_toytrans, load, save
from .modelfile import (BOS, EOS, PAD, UNK, ModelError, Vocabularies, content_checksum,
                        read_model_file, write_model_file)
from .tools import ToolError, detokenize, read_tsv, tokenize, tokenize_ids

__all__ = ["load", "save", "translate", "greedy", "beam_search", "causal_masks", "output_limit",
           "Translator", "Translation", "Vocabularies", "init_like_toytrans",
           "read_model_file", "write_model_file", "content_checksum", "ModelError",
           "DecodeError", "ToolError", "detokenize", "read_tsv", "tokenize", "tokenize_ids",
           "PAD", "UNK", "BOS", "EOS"]
