"""Turn a HuggingFace ``config.json`` (a dict or a file) into a :class:`ModelArchitecture`.

The parser reads what the architecture's own code reads: the key names and defaults below follow each
``model_type``'s configuration class in transformers (or the publisher's remote code for ``chatglm``,
``baichuan`` and ``internlm2``). Anything it had to assume is written into ``notes``; a missing key
that changes the numbers raises :class:`~tools.errors.ToolInputError` naming the key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tools.architecture import MLASpec, ModelArchitecture, MoESpec, QuantSpec
from tools.errors import input_problem

Config = Mapping[str, Any]

# Keys official configs leave out because the config class supplies them (transformers 4.57
# ``Gemma3TextConfig``/``Gemma2Config`` defaults); Gemma 3's published text_config relies on these.
_TYPE_DEFAULTS: dict[str, dict[str, Any]] = {
    "gemma3_text": {
        "vocab_size": 262_208,
        "hidden_size": 2304,
        "intermediate_size": 9216,
        "num_hidden_layers": 26,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "max_position_embeddings": 131_072,
        "sliding_window": 4096,
        "sliding_window_pattern": 6,
        "tie_word_embeddings": True,
    },
    "gemma2": {"head_dim": 256, "sliding_window": 4096, "tie_word_embeddings": True},
    "gemma": {"head_dim": 256, "tie_word_embeddings": True},
}
# Most config classes default to untied embeddings; Gemma ties them.
_TIED_BY_DEFAULT = {"gemma", "gemma2", "gemma3_text", "gpt_bigcode", "falcon"}
_KNOWN_TYPES = frozenset(
    "llama mistral mixtral qwen2 qwen2_moe qwen3 qwen3_moe deepseek_v2 deepseek_v3 kimi_k2 gemma gemma2"
    " gemma3_text chatglm glm glm4 glm4_moe baichuan internlm2 qwen gpt_bigcode falcon gpt_neox phi phi3".split()
)
# Two-matrix MLPs (up, activation, down) instead of SwiGLU's three: GPT-BigCode/StarCoder, Falcon,
# GPT-NeoX/Pythia and Phi-1/2 (``fc1``/``fc2`` or ``dense_h_to_4h``/``dense_4h_to_h``).
_NON_GATED_TYPES = {"gpt_bigcode", "falcon", "gpt_neox", "phi"}
# Their config classes default the MLP width to 4 x hidden when the key is absent or null.
_FOUR_H_MLP_TYPES = {"gpt_bigcode", "falcon"}
# Qwen (v1) remote code: ``intermediate_size`` is the width of w1 and w2 together; each is half of it
# (QWenMLP: ``ff_dim_in = config.intermediate_size // 2``).
_HALVED_INTERMEDIATE_TYPES = {"qwen"}
# Qwen2 hard-codes bias=True on q/k/v (and False on o_proj) instead of reading attention_bias.
_QKV_BIAS_ALWAYS = {"qwen2", "qwen2_moe", "qwen"}
# attention_bias covers q/k/v only here; in Llama-style code it also covers o_proj (GLM-4.5's
# Glm4MoeAttention builds o_proj with bias=False; its Megatron recipe says --add-qkv-bias
# --disable-bias-linear). kimi_k2 is DeepSeek-V3 code under its own model_type (the Kimi-K2 README
# says to rename it to deepseek_v3 for engines that lack it), so the DeepSeek keys below read it.
_ATTENTION_BIAS_QKV_ONLY = {"glm", "glm4", "glm4_moe"}
_QK_NORM_TYPES = {"qwen3", "qwen3_moe", "gemma3_text"}
# Extra RMSNorms after attention and after the MLP (Gemma 2/3 sandwich norms, GLM-4-0414).
_FOUR_NORM_TYPES = {"gemma2", "gemma3_text", "glm4"}
# Every layer uses the window when sliding_window is set (no per-layer pattern in these classes).
_ALL_LAYERS_SLIDING_TYPES = {"mistral", "mixtral"}
_DTYPE_KEYS = ("torch_dtype", "dtype")  # newer transformers write "dtype"
_QUANT_METHODS = "gptq, awq, fp8, bitsandbytes (4-bit nf4 or 8-bit), compressed-tensors"


def load_config_file(path: str | Path) -> ModelArchitecture:
    """Read a ``config.json`` from disk and parse it.

    Args:
        path: the config file, or a model directory that contains ``config.json``.

    Returns:
        The architecture, named after ``_name_or_path`` in the file or else the folder it sits in.

    Raises:
        ToolInputError: the file is missing, is not JSON, or lacks a key the numbers need.
    """
    file = Path(path).expanduser()
    if file.is_dir():
        file = file / "config.json"
    if not file.is_file():
        raise input_problem("error.config.file_missing", file=str(file))
    try:
        cfg = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # ValueError: not UTF-8, not JSON, or a number too long to read
        raise input_problem("error.config.not_json", file=str(file), detail=str(exc)) from exc
    except RecursionError:
        raise input_problem("error.config.too_deep", file=str(file)) from None
    if not isinstance(cfg, dict):
        raise input_problem("error.config.not_object", file=str(file))
    name_or_path = str(cfg.get("_name_or_path") or "").rstrip("/")
    name = name_or_path.rsplit("/", 1)[-1] or file.resolve().parent.name or file.stem
    return architecture_from_config(cfg, name=name, source_url=file.resolve().as_uri())


def architecture_from_config(
    cfg: Config,
    *,
    name: str,
    source_url: str,
    family: str | None = None,
    hf_id: str | None = None,
) -> ModelArchitecture:
    """Parse a HuggingFace-style config dict into a :class:`ModelArchitecture`.

    Args:
        cfg: the parsed ``config.json``; multimodal configs may nest the decoder in ``text_config``.
        name: display name for the result.
        source_url: where the config came from (cited in answers).
        family: family label; defaults to the config's ``model_type``.
        hf_id: HuggingFace repo id, if known.

    Returns:
        The architecture. ``notes`` lists every default the parser had to assume.

    Raises:
        ToolInputError: a required key is missing, a value is impossible, or the quantization
            method is not one we can size.
    """
    notes: list[str] = []
    text = _text_config(cfg, notes)
    model_type = str(text.get("model_type") or "")
    if model_type not in _KNOWN_TYPES:
        notes.append(f"model_type '{model_type or 'missing'}' not known to the parser; read as Llama-like")
    layers = _positive_int(text, ("num_hidden_layers", "num_layers", "n_layer"))
    hidden = _positive_int(text, ("hidden_size", "n_embd", "d_model"))
    heads = _positive_int(text, ("num_attention_heads", "n_head"))
    fields: dict[str, Any] = {
        "name": name,
        "family": family or model_type or "unknown",
        "hf_id": hf_id,
        "source_url": source_url,
        "hidden_size": hidden,
        "num_layers": layers,
        "num_attention_heads": heads,
        "num_kv_heads": _kv_heads(text, heads),
        "head_dim": _head_dim(text, hidden, heads),
        "intermediate_size": _mlp_width(text, model_type, hidden),
        "gated_mlp": model_type not in _NON_GATED_TYPES,
        # GLM's embedding is padded_vocab_size rows; its vocab_size is the tokenizer's.
        "vocab_size": _int(text, ("padded_vocab_size", "vocab_size"), "vocab_size"),
        "tie_word_embeddings": _tied(cfg, text, model_type, notes),
        "max_context": _int(
            text, ("max_position_embeddings", "seq_length", "model_max_length", "max_sequence_length", "n_positions")
        ),
        "qk_norm": _qk_norm(text, model_type),
        "norms_per_layer": 4 if model_type in _FOUR_NORM_TYPES else 2,
        "moe": _moe(text, layers, model_type),
        "mla": _mla(text),
        "quantization": _quantization(cfg.get("quantization_config") or text.get("quantization_config")),
        "other_params": _vision_params(cfg, hidden, notes),
        "torch_dtype": str(_get(text, _DTYPE_KEYS) or _get(cfg, _DTYPE_KEYS) or "bfloat16"),
    }
    fields.update(_biases(text, model_type))
    fields.update(_sliding(text, model_type, layers, notes))
    if fields["mla"] is not None:
        mla: MLASpec = fields["mla"]
        fields["head_dim"] = mla.qk_nope_head_dim + mla.qk_rope_head_dim
    if notes:
        fields["notes"] = "; ".join(notes)
    try:
        return ModelArchitecture(**fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise input_problem("error.config.impossible", name=name, field=where, detail=err["msg"]) from exc


def _text_config(cfg: Config, notes: list[str]) -> dict[str, Any]:
    """Return the decoder's keys (``text_config`` when nested) with config-class defaults filled in."""
    nested = cfg.get("text_config")
    text: dict[str, Any] = dict(nested) if isinstance(nested, Mapping) else dict(cfg)
    model_type = str(text.get("model_type") or "")
    if isinstance(nested, Mapping) and not model_type and cfg.get("model_type") == "gemma3":
        model_type = text["model_type"] = "gemma3_text"
    defaults = _TYPE_DEFAULTS.get(model_type, {})
    filled = sorted(key for key in defaults if text.get(key) is None)
    for key in filled:
        text[key] = defaults[key]
    if filled:
        notes.append(f"{', '.join(filled)} taken from the {model_type} config-class defaults")
    return text


def _get(cfg: Config, keys: tuple[str, ...]) -> Any:
    for key in keys:
        if cfg.get(key) is not None:
            return cfg[key]
    return None


def _int(cfg: Config, keys: tuple[str, ...], label: str | None = None) -> int:
    """Read the first present key as a whole number; ``label`` names the key in errors."""
    name = label or keys[0]
    value = _get(cfg, keys)
    if value is None:
        others = [key for key in keys if key != name]
        if others:
            raise input_problem("error.config.missing_key_also", key=name, others=others)
        raise input_problem("error.config.missing_key", key=name)
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise input_problem("error.config.not_whole", key=name, value=repr(value))
    return int(value)


def _mlp_width(text: Config, model_type: str, hidden: int) -> int:
    """Width of one MLP matrix: halved for Qwen v1, 4 x hidden where the config class defaults it."""
    keys = ("intermediate_size", "ffn_hidden_size", "n_inner")
    if model_type in _FOUR_H_MLP_TYPES and _get(text, keys) is None:
        return 4 * hidden
    return _int(text, keys) // (2 if model_type in _HALVED_INTERMEDIATE_TYPES else 1)


def _positive_int(cfg: Config, keys: tuple[str, ...]) -> int:
    """Read a size the other sizes are divided by or multiplied with: it must be at least 1."""
    value = _int(cfg, keys)
    if value < 1:
        name = next((key for key in keys if cfg.get(key) is not None), keys[0])
        raise input_problem("error.config.below_one", key=name, value=value)
    return value


def _kv_heads(text: Config, heads: int) -> int:
    """KV heads: ``num_key_value_heads``; GLM's ``multi_query_group_num``; absent means one per head.

    ``multi_query`` (GPT-BigCode, Falcon-7B/40B before ``new_decoder_architecture``) shares one K/V head;
    Falcon's config class defaults it to true; Falcon-180B's new architecture reads ``num_kv_heads``.
    """
    if text.get("num_key_value_heads") is not None:
        return _int(text, ("num_key_value_heads",))
    model_type = text.get("model_type")
    if model_type == "falcon" and text.get("new_decoder_architecture") and text.get("num_kv_heads") is not None:
        return _int(text, ("num_kv_heads",))
    if text.get("multi_query") or (model_type == "falcon" and text.get("multi_query") is None):
        return 1
    if text.get("multi_query_attention") and text.get("multi_query_group_num") is not None:
        return _int(text, ("multi_query_group_num",))
    if text.get("num_kv_heads") is not None:
        return _int(text, ("num_kv_heads",))
    return heads


def _head_dim(text: Config, hidden: int, heads: int) -> int:
    explicit = _get(text, ("head_dim", "kv_channels"))
    if explicit is not None:
        return _int(text, ("head_dim", "kv_channels"))
    if hidden % heads:
        raise input_problem("error.config.head_dim", hidden=hidden, heads=heads)
    return hidden // heads


def _tied(cfg: Config, text: Config, model_type: str, notes: list[str]) -> bool:
    for source in (text, cfg):
        if source.get("tie_word_embeddings") is not None:
            return bool(source["tie_word_embeddings"])
    if model_type not in _KNOWN_TYPES:
        notes.append("tie_word_embeddings absent; assumed False (separate lm_head)")
    return model_type in _TIED_BY_DEFAULT


def _qk_norm(text: Config, model_type: str) -> bool:
    flags = ("use_qk_norm", "qk_layernorm", "add_qk_norm", "qk_norm")
    return model_type in _QK_NORM_TYPES or any(bool(text.get(flag)) for flag in flags)


def _biases(text: Config, model_type: str) -> dict[str, bool]:
    """q/k/v and o_proj biases, as each architecture's attention module builds them."""
    if model_type in _QKV_BIAS_ALWAYS:
        return {"qkv_bias": True, "o_bias": False}
    if model_type == "chatglm":
        return {"qkv_bias": bool(text.get("add_qkv_bias")), "o_bias": bool(text.get("add_bias_linear"))}
    if model_type == "internlm2":
        return {"qkv_bias": bool(text.get("bias")), "o_bias": bool(text.get("bias"))}
    if model_type in ("gpt_bigcode", "phi"):
        return {"qkv_bias": True, "o_bias": True}  # nn.Linear defaults; the configs have no bias switch
    if model_type == "gpt_neox":
        bias = text.get("attention_bias", True) is not False
        return {"qkv_bias": bias, "o_bias": bias}
    if model_type == "falcon":
        return {"qkv_bias": bool(text.get("bias")), "o_bias": bool(text.get("bias"))}
    bias = bool(text.get("attention_bias"))
    return {"qkv_bias": bias, "o_bias": bias and model_type not in _ATTENTION_BIAS_QKV_ONLY}


def _moe(text: Config, layers: int, model_type: str) -> MoESpec | None:
    """MoE layout from whichever expert keys the config carries (Qwen-MoE, Mixtral, DeepSeek)."""
    if text.get("n_routed_experts"):
        return _deepseek_moe(text, layers)
    if text.get("num_local_experts"):
        return MoESpec(
            num_experts=_int(text, ("num_local_experts",)),
            experts_per_token=_int(text, ("num_experts_per_tok",)),
            expert_intermediate_size=_int(text, ("intermediate_size",)),
        )
    if not text.get("num_experts"):
        return None
    step = int(text.get("decoder_sparse_step") or 1)
    dense_only = set(text.get("mlp_only_layers") or [])
    moe_layers = sum(1 for i in range(layers) if i not in dense_only and (i + 1) % step == 0)
    shared = int(text.get("shared_expert_intermediate_size") or 0)
    return MoESpec(
        num_experts=_int(text, ("num_experts",)),
        experts_per_token=_int(text, ("num_experts_per_tok",)),
        expert_intermediate_size=_int(text, ("moe_intermediate_size",)),
        num_shared_experts=1 if shared else 0,
        shared_expert_intermediate_size=shared,
        dense_layers=layers - moe_layers,
        shared_expert_gate=bool(shared) and model_type == "qwen2_moe",
    )


def _deepseek_moe(text: Config, layers: int) -> MoESpec:
    """DeepSeek: dense MLP in the first ``first_k_dense_replace`` layers, then every ``moe_layer_freq``."""
    first_dense = int(text.get("first_k_dense_replace") or 0)
    freq = int(text.get("moe_layer_freq") or 1)
    moe_layers = sum(1 for i in range(layers) if i >= first_dense and i % freq == 0)
    expert = _int(text, ("moe_intermediate_size",))
    shared = int(text.get("n_shared_experts") or 0)
    return MoESpec(
        num_experts=_int(text, ("n_routed_experts",)),
        experts_per_token=_int(text, ("num_experts_per_tok",)),
        expert_intermediate_size=expert,
        num_shared_experts=shared,
        shared_expert_intermediate_size=expert if shared else 0,
        dense_layers=layers - moe_layers,
    )


def _mla(text: Config) -> MLASpec | None:
    if not text.get("kv_lora_rank"):
        return None
    return MLASpec(
        kv_lora_rank=_int(text, ("kv_lora_rank",)),
        q_lora_rank=int(text["q_lora_rank"]) if text.get("q_lora_rank") else None,
        qk_rope_head_dim=_int(text, ("qk_rope_head_dim",)),
        qk_nope_head_dim=_int(text, ("qk_nope_head_dim",)),
        v_head_dim=_int(text, ("v_head_dim",)),
    )


def _sliding(text: Config, model_type: str, layers: int, notes: list[str]) -> dict[str, Any]:
    """Window size and how many layers use it (the rest attend to the whole context)."""
    window = text.get("sliding_window")
    layer_types = text.get("layer_types")
    if not window:
        return {}
    if isinstance(layer_types, list) and layer_types:
        count = sum(1 for kind in layer_types if kind == "sliding_attention")
    elif text.get("use_sliding_window") is False:
        return {}
    elif model_type == "gemma2":
        count = sum(1 for i in range(layers) if (i + 1) % 2)
    elif model_type == "gemma3_text":
        pattern = int(text.get("sliding_window_pattern") or 6)
        count = sum(1 for i in range(layers) if (i + 1) % pattern)
    elif text.get("use_sliding_window"):
        first = int(text.get("max_window_layers") or 0)
        count = max(0, layers - first)
    elif model_type in _ALL_LAYERS_SLIDING_TYPES:
        count = layers
    else:
        notes.append(f"sliding_window {window} given without a layer pattern; all layers counted as full")
        return {}
    if not count:
        return {}
    return {"sliding_window": int(window), "sliding_window_layers": count}


def _quantization(qc: Any) -> QuantSpec | None:
    """Read the checkpoint's own ``quantization_config`` as method, bits and group size."""
    if not qc:
        return None
    if not isinstance(qc, Mapping):
        raise input_problem("error.config.quantization_not_object")
    method = str(qc.get("quant_method") or "").lower()
    match method:
        case "gptq":
            return QuantSpec(method="gptq", bits=_int(qc, ("bits",)), group_size=qc.get("group_size"))
        case "awq":
            return QuantSpec(
                method="awq",
                bits=_int(qc, ("bits", "w_bit")),
                group_size=_get(qc, ("group_size", "q_group_size")),
            )
        case "fp8":
            block = qc.get("weight_block_size")
            group = block[0] * block[1] if isinstance(block, list) and len(block) == 2 else None
            return QuantSpec(method="fp8", bits=8, group_size=group)
        case "bitsandbytes":
            return _bnb(qc)
        case "compressed-tensors":
            return _compressed_tensors(qc)
    raise input_problem("error.config.quant_method", method=method or "missing", valid=_QUANT_METHODS)


def _bnb(qc: Config) -> QuantSpec:
    if qc.get("load_in_8bit"):
        return QuantSpec(method="bnb-int8", bits=8)
    if qc.get("load_in_4bit"):
        kind = str(qc.get("bnb_4bit_quant_type") or "fp4")
        if kind != "nf4":
            raise input_problem("error.config.bnb_4bit_type", kind=kind)
        return QuantSpec(method="bnb-nf4", bits=4, group_size=64)
    raise input_problem("error.config.bnb_bits")


def _compressed_tensors(qc: Config) -> QuantSpec:
    """compressed-tensors: bits and group size of the first config group's weights."""
    groups = qc.get("config_groups")
    if not isinstance(groups, Mapping) or not groups:
        raise input_problem("error.config.no_config_groups")
    weights = next(iter(groups.values())).get("weights") or {}
    if weights.get("num_bits") is None:
        raise input_problem("error.config.no_num_bits")
    group = weights.get("group_size") if weights.get("strategy") == "group" else None
    return QuantSpec(method="compressed-tensors", bits=int(weights["num_bits"]), group_size=group)


def _vision_params(cfg: Config, text_hidden: int, notes: list[str]) -> int:
    """Parameters of a SigLIP vision tower plus Gemma 3's projector; other towers are noted, not counted."""
    vision = cfg.get("vision_config")
    if not isinstance(vision, Mapping):
        return 0
    if vision.get("model_type") != "siglip_vision_model":
        notes.append(f"vision tower '{vision.get('model_type')}' not counted in other_params")
        return 0
    d = _int(vision, ("hidden_size",))
    ffn = _int(vision, ("intermediate_size",))
    patch = _int(vision, ("patch_size",))
    positions = (_int(vision, ("image_size",)) // patch) ** 2
    # Per layer: q/k/v/o with biases, fc1/fc2 with biases, two LayerNorms (weight + bias).
    per_layer = 4 * (d * d + d) + 2 * d * ffn + ffn + d + 4 * d
    embeddings = int(vision.get("num_channels") or 3) * patch * patch * d + d + positions * d
    total = _int(vision, ("num_hidden_layers",)) * per_layer + embeddings + 2 * d
    if cfg.get("model_type") == "gemma3":
        total += d * text_hidden + d  # mm_input_projection_weight + mm_soft_emb_norm
    if vision.get("vision_use_head", True):
        notes.append("SigLIP attention-pooling head not counted")
    notes.append(f"other_params = SigLIP vision tower and projector ({total:,} params)")
    return total
