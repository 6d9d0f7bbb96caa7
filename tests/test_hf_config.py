"""Parsing HuggingFace config.json files into ModelArchitecture."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tools.architecture import MLASpec, MoESpec, QuantSpec
from tools.errors import ToolInputError
from tools.hf_config import architecture_from_config, load_config_file

FIXTURES = Path(__file__).parent / "fixtures" / "configs"

# (fixture, expected field values). Expected values are the fixture's own numbers read the way the
# architecture's code reads them (see tests/fixtures/configs/README.md for each file's provenance).
FIXTURE_CASES: list[tuple[str, dict[str, Any]]] = [
    (
        "qwen2.5-7b-instruct.json",
        dict(
            num_layers=28,
            hidden_size=3584,
            num_attention_heads=28,
            num_kv_heads=4,
            head_dim=128,
            intermediate_size=18944,
            vocab_size=152064,
            tie_word_embeddings=False,
            max_context=32768,
            qkv_bias=True,
            o_bias=False,
            qk_norm=False,
            sliding_window=None,
            moe=None,
            mla=None,
            quantization=None,
            attention_kind="gqa",
        ),
    ),
    (
        "qwen2.5-7b-instruct-gptq-int4.json",
        dict(
            num_layers=28,
            qkv_bias=True,
            torch_dtype="float16",
            quantization=QuantSpec(method="gptq", bits=4, group_size=128),
        ),
    ),
    (
        "qwen2.5-72b-instruct-awq.json",
        dict(
            name="Qwen2.5-72B-Instruct-AWQ",
            num_layers=80,
            intermediate_size=29696,
            num_kv_heads=8,
            quantization=QuantSpec(method="awq", bits=4, group_size=128),
        ),
    ),
    (
        "qwen3-8b-fp8.json",
        dict(
            num_layers=36,
            head_dim=128,
            qk_norm=True,
            qkv_bias=False,
            tie_word_embeddings=False,
            quantization=QuantSpec(method="fp8", bits=8, group_size=128 * 128),
        ),
    ),
    (
        "qwen3-30b-a3b.json",
        dict(
            num_layers=48,
            num_kv_heads=4,
            head_dim=128,
            qk_norm=True,
            moe=MoESpec(num_experts=128, experts_per_token=8, expert_intermediate_size=768),
        ),
    ),
    (
        "mixtral-8x7b-instruct-v0.1.json",
        dict(
            num_layers=32,
            num_kv_heads=8,
            sliding_window=None,
            moe=MoESpec(num_experts=8, experts_per_token=2, expert_intermediate_size=14336),
        ),
    ),
    (
        "deepseek-v3.json",
        dict(
            num_layers=61,
            num_attention_heads=128,
            vocab_size=129280,
            tie_word_embeddings=False,
            head_dim=192,
            attention_kind="mla",
            max_context=163840,
            mla=MLASpec(
                kv_lora_rank=512, q_lora_rank=1536, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128
            ),
            moe=MoESpec(
                num_experts=256,
                experts_per_token=8,
                expert_intermediate_size=2048,
                num_shared_experts=1,
                shared_expert_intermediate_size=2048,
                dense_layers=3,
            ),
            quantization=QuantSpec(method="fp8", bits=8, group_size=128 * 128),
        ),
    ),
    (
        "gemma-3-4b-it.json",
        dict(
            num_layers=34,
            hidden_size=2560,
            num_attention_heads=8,
            num_kv_heads=4,
            head_dim=256,
            vocab_size=262208,
            tie_word_embeddings=True,
            max_context=131072,
            qk_norm=True,
            norms_per_layer=4,
            sliding_window=1024,
            sliding_window_layers=29,
            other_params=419_816_304,
        ),
    ),
    (
        "glm-4-9b-chat.json",
        dict(
            name="glm-4-9b-chat",
            num_layers=40,
            num_kv_heads=2,
            head_dim=128,
            intermediate_size=13696,
            vocab_size=151552,
            max_context=131072,
            qkv_bias=True,
            o_bias=False,
            tie_word_embeddings=False,
        ),
    ),
    (
        "llama-3.1-8b-instruct-bnb-4bit.json",
        dict(
            num_layers=32,
            num_kv_heads=8,
            qkv_bias=False,
            max_context=131072,
            quantization=QuantSpec(method="bnb-nf4", bits=4, group_size=64),
        ),
    ),
]


def _llama(**overrides: Any) -> dict[str, Any]:
    cfg: dict[str, Any] = {
        "model_type": "llama",
        "hidden_size": 4096,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "intermediate_size": 14336,
        "vocab_size": 128256,
        "max_position_embeddings": 131072,
        "tie_word_embeddings": False,
    }
    cfg.update(overrides)
    return {k: v for k, v in cfg.items() if v is not None}


def _parse(cfg: dict[str, Any]):
    return architecture_from_config(cfg, name="test", source_url="https://example.invalid/config.json")


@pytest.mark.parametrize(("fixture", "expected"), FIXTURE_CASES, ids=[c[0] for c in FIXTURE_CASES])
def test_fixture_parses_to_expected_fields(fixture: str, expected: dict[str, Any]) -> None:
    arch = load_config_file(FIXTURES / fixture)
    for field, value in expected.items():
        assert getattr(arch, field) == value, field
    assert arch.source_url.startswith("file://")


def test_gemma3_total_matches_published_safetensors_count() -> None:
    # google/gemma-3-4b-it: 4,300,079,472 params (HF safetensors total); text + SigLIP tower + projector.
    arch = load_config_file(FIXTURES / "gemma-3-4b-it.json")
    assert arch.param_breakdown().total == 4_300_079_472
    assert "config-class defaults" in (arch.notes or "")


def test_deepseek_v3_kv_cache_is_the_mla_latent() -> None:
    arch = load_config_file(FIXTURES / "deepseek-v3.json")
    assert arch.kv_cache_elements(1) == 61 * (512 + 64)


def test_model_directory_is_accepted(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps(_llama()), encoding="utf-8")
    arch = load_config_file(tmp_path)
    assert arch.name == tmp_path.name
    assert arch.num_layers == 32


def test_missing_file_and_bad_json_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(ToolInputError, match="does not exist"):
        load_config_file(tmp_path / "nope.json")
    bad = tmp_path / "config.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ToolInputError, match="not readable JSON"):
        load_config_file(bad)


@pytest.mark.parametrize(
    "key",
    [
        "hidden_size",
        "num_hidden_layers",
        "num_attention_heads",
        "vocab_size",
        "intermediate_size",
        "max_position_embeddings",
    ],
)
def test_missing_required_key_names_it(key: str) -> None:
    with pytest.raises(ToolInputError, match=f"'{key}'"):
        _parse(_llama(**{key: None}))


def test_impossible_value_is_an_input_error() -> None:
    with pytest.raises(ToolInputError, match="impossible value"):
        _parse(_llama(num_hidden_layers=0))
    with pytest.raises(ToolInputError, match="whole number"):
        _parse(_llama(hidden_size="4096"))


def test_head_dim_explicit_wins_over_hidden_over_heads() -> None:
    assert _parse(_llama(head_dim=64)).head_dim == 64
    assert _parse(_llama()).head_dim == 128
    with pytest.raises(ToolInputError, match="head_dim"):
        _parse(_llama(hidden_size=4000, num_attention_heads=48))


def test_kv_heads_default_to_heads_and_mqa_is_one() -> None:
    assert _parse(_llama(num_key_value_heads=None)).attention_kind == "mha"
    mqa = _parse(_llama(num_key_value_heads=1))
    assert (mqa.num_kv_heads, mqa.attention_kind) == (1, "mqa")


def test_tie_default_follows_model_type() -> None:
    assert _parse(_llama(tie_word_embeddings=None)).tie_word_embeddings is False
    gemma2 = _llama(model_type="gemma2", tie_word_embeddings=None, head_dim=256)
    assert _parse(gemma2).tie_word_embeddings is True
    unknown = _parse(_llama(model_type="newarch", tie_word_embeddings=None))
    assert unknown.tie_word_embeddings is False
    assert "tie_word_embeddings absent" in (unknown.notes or "")


def test_qwen2_has_qkv_bias_without_a_flag_llama_reads_attention_bias() -> None:
    assert _parse(_llama(model_type="qwen2")).qkv_bias is True
    biased = _parse(_llama(attention_bias=True))
    assert (biased.qkv_bias, biased.o_bias) == (True, True)


def test_internlm2_bias_flag_and_baichuan_without_bias() -> None:
    internlm = _parse(_llama(model_type="internlm2", bias=True))
    assert (internlm.qkv_bias, internlm.o_bias) == (True, True)
    baichuan = _parse(
        _llama(
            model_type="baichuan",
            num_key_value_heads=None,
            max_position_embeddings=None,
            model_max_length=4096,
        )
    )
    assert (baichuan.qkv_bias, baichuan.num_kv_heads, baichuan.max_context) == (False, 32, 4096)


def test_qwen_moe_sparse_step_and_mlp_only_layers_make_dense_layers() -> None:
    cfg = _llama(
        model_type="qwen2_moe",
        num_hidden_layers=24,
        num_experts=60,
        num_experts_per_tok=4,
        moe_intermediate_size=1408,
        shared_expert_intermediate_size=5632,
        decoder_sparse_step=2,
        mlp_only_layers=[1],
    )
    moe = _parse(cfg).moe
    assert moe is not None
    # MoE where (i + 1) % 2 == 0 and i not in [1]: layers 3, 5, ..., 23 -> 11 MoE, 13 dense.
    assert moe.dense_layers == 13
    assert (moe.shared_expert_intermediate_size, moe.num_shared_experts, moe.shared_expert_gate) == (
        5632,
        1,
        True,
    )


def test_moe_key_missing_is_named() -> None:
    with pytest.raises(ToolInputError, match="'moe_intermediate_size'"):
        _parse(_llama(model_type="qwen3_moe", num_experts=128, num_experts_per_tok=8))


def test_sliding_window_layers() -> None:
    qwen = _llama(model_type="qwen2", use_sliding_window=True, sliding_window=4096, max_window_layers=28)
    assert (_parse(qwen).sliding_window, _parse(qwen).sliding_window_layers) == (4096, 4)
    off = _llama(model_type="qwen2", use_sliding_window=False, sliding_window=131072)
    assert _parse(off).sliding_window is None
    mistral = _parse(_llama(model_type="mistral", sliding_window=4096))
    assert mistral.sliding_window_layers == 32
    gemma2 = _parse(_llama(model_type="gemma2", head_dim=256, sliding_window=4096, num_hidden_layers=42))
    assert (gemma2.sliding_window_layers, gemma2.norms_per_layer) == (21, 4)
    typed = _llama(sliding_window=512, layer_types=["sliding_attention", "full_attention"] * 16)
    assert _parse(typed).sliding_window_layers == 16
    unknown = _parse(_llama(model_type="newarch", sliding_window=2048))
    assert unknown.sliding_window is None
    assert "without a layer pattern" in (unknown.notes or "")


@pytest.mark.parametrize(
    ("quantization_config", "expected"),
    [
        (
            {"quant_method": "gptq", "bits": 8, "group_size": -1},
            QuantSpec(method="gptq", bits=8, group_size=-1),
        ),
        (
            {"quant_method": "awq", "w_bit": 4, "q_group_size": 64},
            QuantSpec(method="awq", bits=4, group_size=64),
        ),
        ({"quant_method": "fp8", "activation_scheme": "static"}, QuantSpec(method="fp8", bits=8)),
        ({"quant_method": "bitsandbytes", "load_in_8bit": True}, QuantSpec(method="bnb-int8", bits=8)),
        (
            {
                "quant_method": "compressed-tensors",
                "format": "pack-quantized",
                "config_groups": {
                    "group_0": {
                        "targets": ["Linear"],
                        "weights": {"num_bits": 4, "group_size": 128, "strategy": "group", "type": "int"},
                    }
                },
            },
            QuantSpec(method="compressed-tensors", bits=4, group_size=128),
        ),
        (
            {
                "quant_method": "compressed-tensors",
                "config_groups": {
                    "group_0": {"weights": {"num_bits": 8, "strategy": "channel", "type": "float"}}
                },
            },
            QuantSpec(method="compressed-tensors", bits=8),
        ),
    ],
    ids=["gptq-int8", "awq-legacy-keys", "fp8-per-tensor", "bnb-int8", "ct-w4a16", "ct-fp8"],
)
def test_quantization_config(quantization_config: dict[str, Any], expected: QuantSpec) -> None:
    assert _parse(_llama(quantization_config=quantization_config)).quantization == expected


@pytest.mark.parametrize(
    ("quantization_config", "message"),
    [
        ({"quant_method": "mxfp4"}, "valid: gptq, awq"),
        ({"quant_method": "gptq"}, "'bits'"),
        ({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "fp4"}, "valid: nf4"),
        ({"quant_method": "bitsandbytes"}, "neither load_in_4bit nor load_in_8bit"),
        ({"quant_method": "compressed-tensors"}, "config_groups"),
    ],
)
def test_unusable_quantization_config_is_an_input_error(
    quantization_config: dict[str, Any], message: str
) -> None:
    with pytest.raises(ToolInputError, match=message):
        _parse(_llama(quantization_config=quantization_config))


def test_other_vision_towers_are_noted_not_counted() -> None:
    cfg = {
        "model_type": "llava",
        "text_config": _llama(),
        "vision_config": {"model_type": "clip_vision_model"},
    }
    arch = _parse(cfg)
    assert arch.other_params == 0
    assert "clip_vision_model" in (arch.notes or "")
