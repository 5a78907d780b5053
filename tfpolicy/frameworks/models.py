"""Common models' sizes: parameters, and the shape of their KV cache.

From each model's ``config.json`` on Hugging Face (``num_hidden_layers``,
``num_key_value_heads``, ``head_dim`` or ``hidden_size / num_attention_heads``,
``max_position_embeddings``) and its model card's parameter count. Looked up by
the Hugging Face id's last part, in any case, with an ``-Instruct``/``-Chat``/
``-it``/``-hf`` suffix or none. A model missing here is sized from the parameter
count its name writes (``names``), labelled as an estimate, or from the policy
(``spec.workloads[].modelWeights``). ``active``: the parameters one token uses, for a
mixture of experts (Mixtral-8x7B: 12.9B of its 46.7B, Mistral AI's "Mixtral of
experts", mistral.ai/news/mixtral-of-experts); 0 for a dense model, which uses all.
"""

from __future__ import annotations

import re

from tfpolicy.records import Record


class Model(Record):
    name: str
    params: float  # billions
    layers: int
    kv_heads: int
    head_dim: int
    context: int  # max_position_embeddings: the length a server takes when none is given
    active: float = 0.0  # billions one token uses, for a mixture of experts; 0: all

    def kv_bytes_per_token(self, dtype_bytes: int = 2) -> int:
        """Keys and values of every layer for one token."""
        return 2 * self.layers * self.kv_heads * self.head_dim * dtype_bytes


_MODELS = (
    Model("Llama-3.1-8B", 8.03, 32, 8, 128, 131072),
    Model("Llama-3.1-70B", 70.6, 80, 8, 128, 131072),
    Model("Llama-3.2-1B", 1.24, 16, 8, 64, 131072),
    Model("Llama-3.2-3B", 3.21, 28, 8, 128, 131072),
    Model("Meta-Llama-3-8B", 8.03, 32, 8, 128, 8192),
    Model("Meta-Llama-3-70B", 70.6, 80, 8, 128, 8192),
    Model("Llama-2-7b", 6.74, 32, 32, 128, 4096),
    Model("Llama-2-13b", 13.0, 40, 40, 128, 4096),
    Model("Mistral-7B-v0.1", 7.24, 32, 8, 128, 32768),
    Model("Mistral-7B-v0.3", 7.25, 32, 8, 128, 32768),
    Model("Mixtral-8x7B-v0.1", 46.7, 32, 8, 128, 32768, 12.9),
    Model("zephyr-7b-beta", 7.24, 32, 8, 128, 32768),  # a Mistral-7B-v0.1 fine-tune
    Model("Qwen2.5-0.5B", 0.494, 24, 2, 64, 32768),
    Model("Qwen2.5-1.5B", 1.54, 28, 2, 128, 32768),
    Model("Qwen2.5-3B", 3.09, 36, 2, 128, 32768),
    Model("Qwen2.5-7B", 7.62, 28, 4, 128, 32768),
    Model("Qwen2.5-14B", 14.7, 48, 8, 128, 32768),
    Model("Qwen2.5-32B", 32.8, 64, 8, 128, 32768),
    Model("Qwen2.5-72B", 72.7, 80, 8, 128, 32768),
    Model("gemma-2-2b", 2.61, 26, 4, 256, 8192),
    Model("gemma-2-9b", 9.24, 42, 8, 256, 8192),
    Model("Phi-3-mini-4k", 3.82, 32, 32, 96, 4096),
    Model("TinyLlama-1.1B-Chat-v1.0", 1.1, 22, 4, 64, 2048),
    Model("opt-125m", 0.125, 12, 12, 64, 2048),
)
_SUFFIX = re.compile(r"-(instruct|chat|it|hf)(?=$|-)", re.IGNORECASE)
_INDEX = {_SUFFIX.sub("", m.name).lower(): m for m in _MODELS}
_INDEX.update({m.name.lower(): m for m in _MODELS})
_ALIASES = {"mistral-7b-v0.2": "mistral-7b-v0.1", "meta-llama-3.1-8b": "llama-3.1-8b",
            "meta-llama-3.1-70b": "llama-3.1-70b", "phi-3-mini-4k-instruct": "phi-3-mini-4k"}


def lookup(model_id: str) -> Model | None:
    """The model a server's ``--model`` names (``meta-llama/Llama-3.1-8B-Instruct``)."""
    last = model_id.rstrip("/").rsplit("/", 1)[-1].lower()
    key = _SUFFIX.sub("", last)
    key = _ALIASES.get(key, key)
    return _INDEX.get(last) or _INDEX.get(key)
