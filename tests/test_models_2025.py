"""The 2025 open-weight MoE releases in the registry: totals against the publishers' figures, layouts, names.

Each golden figure below is the publisher's own (model card or README), cited next to it; the count
comes from the row's config through the same parser a user's config.json goes through.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tools.models import load_registry, resolve_model

# (registry name, published total B, published active B, source). Tolerance 3 % ("a few %"): the cards
# round ("1 trillion", "355 billion") and leave the MTP layer of GLM-4.5 / DeepSeek out or in unevenly.
CARD_FIGURES = [
    (
        "Kimi-K2-Instruct",
        1000.0,
        32.0,
        'https://huggingface.co/moonshotai/Kimi-K2-Instruct ("32 billion activated parameters and 1 trillion total")',
    ),
    ("DeepSeek-V3.1", 671.0, 37.0, 'https://huggingface.co/deepseek-ai/DeepSeek-V3.1 ("671B total, 37B activated")'),
    (
        "Qwen3-Coder-480B-A35B-Instruct",
        480.0,
        35.0,
        'https://huggingface.co/Qwen/Qwen3-Coder-480B-A35B-Instruct ("480B in total and 35B activated")',
    ),
    (
        "Qwen3-235B-A22B-Instruct-2507",
        235.0,
        22.0,
        'https://huggingface.co/Qwen/Qwen3-235B-A22B-Instruct-2507 ("235B in total and 22B activated")',
    ),
    (
        "Qwen3-30B-A3B-Instruct-2507",
        30.5,
        3.3,
        'https://huggingface.co/Qwen/Qwen3-30B-A3B-Instruct-2507 ("30.5B in total and 3.3B activated")',
    ),
    ("GLM-4.5", 355.0, 32.0, 'https://github.com/zai-org/GLM-4.5 README ("355 billion total ... 32 billion active")'),
    (
        "GLM-4.5-Air",
        106.0,
        12.0,
        'https://github.com/zai-org/GLM-4.5 README ("106 billion total ... 12 billion active")',
    ),
]


@pytest.mark.parametrize(("name", "total_b", "active_b", "source"), CARD_FIGURES, ids=[c[0] for c in CARD_FIGURES])
def test_total_params_match_the_card(name: str, total_b: float, active_b: float, source: str) -> None:
    arch = load_registry()[name]
    assert (arch.official_params_b, arch.official_active_params_b) == (total_b, active_b), source
    assert arch.param_breakdown().total / 1e9 == pytest.approx(total_b, rel=0.03), source


@pytest.mark.parametrize(("name", "total_b", "active_b", "source"), CARD_FIGURES, ids=[c[0] for c in CARD_FIGURES])
def test_active_params_match_the_card(name: str, total_b: float, active_b: float, source: str) -> None:
    params = load_registry()[name].param_breakdown()
    active = params.active
    if name.startswith("GLM"):
        # GLM's 32B / 12B leave the input embedding and the output layer out (ours: 33.6B / 13.4B with them).
        active -= params.embedding + params.lm_head
    assert active / 1e9 == pytest.approx(active_b, rel=0.03), source


def test_kimi_k2_count_matches_the_checkpoint_inventory() -> None:
    # Sum of the official checkpoint's safetensors tensors, 1,026,470,731,056, as listed in a public model
    # report; it includes the FP8 block-scale tensors (about 62M) that a parameter count leaves out.
    total = resolve_model("Kimi-K2-Instruct").param_breakdown().total
    assert total == pytest.approx(1_026_470_731_056, rel=1e-4)
    assert total < 1_026_470_731_056


def test_kimi_k2_is_deepseek_v3_with_more_experts_and_fewer_heads() -> None:
    kimi, v3 = resolve_model("kimi k2"), resolve_model("DeepSeek-V3")
    assert kimi.mla == v3.mla and kimi.attention_kind == "mla"
    assert kimi.kv_cache_elements_per_token_per_layer() == 512 + 64
    assert kimi.moe is not None and kimi.moe.num_experts == 384 and kimi.moe.dense_layers == 1
    assert (kimi.num_attention_heads, kimi.vocab_size, kimi.max_context) == (64, 163_840, 131_072)
    assert kimi.quantization is not None and kimi.quantization.method == "fp8"
    assert "not known to the parser" not in (kimi.notes or "")


def test_deepseek_v31_has_deepseek_v3_shapes() -> None:
    v31, v3 = resolve_model("deepseek v3.1"), resolve_model("DeepSeek-V3")
    assert v31.param_breakdown() == v3.param_breakdown()
    assert v31.kv_cache_elements(32_768) == v3.kv_cache_elements(32_768)


def test_glm45_layout_biases_and_norms() -> None:
    glm, air = resolve_model("GLM 4.5"), resolve_model("glm-4.5-air")
    for arch, dense, qk_norm in ((glm, 3, True), (air, 1, False)):
        assert arch.moe is not None and arch.moe.dense_layers == dense
        assert arch.moe.num_shared_experts == 1 and arch.moe.shared_expert_intermediate_size
        # Glm4MoeAttention: bias on q/k/v only (Megatron recipe: --add-qkv-bias --disable-bias-linear).
        assert (arch.qkv_bias, arch.o_bias, arch.qk_norm) == (True, False, qk_norm)
        assert arch.attention_kind == "gqa" and arch.kv_cache_elements_per_token_per_layer() == 2 * 8 * 128
        assert "not known to the parser" not in (arch.notes or "")


def test_qwen3_2507_rows_differ_from_the_april_rows_only_in_context() -> None:
    for new, old in (
        ("Qwen3-235B-A22B-Instruct-2507", "Qwen3-235B-A22B"),
        ("Qwen3-30B-A3B-Instruct-2507", "Qwen3-30B-A3B"),
    ):
        a, b = resolve_model(new), resolve_model(old)
        assert a.param_breakdown() == b.param_breakdown()
        assert (a.max_context, b.max_context) == (262_144, 40_960)


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("kimi k2", "Kimi-K2-Instruct"),
        ("k2", "Kimi-K2-Instruct"),
        ("moonshotai/Kimi-K2-Instruct", "Kimi-K2-Instruct"),
        ("GLM 4.5", "GLM-4.5"),
        ("zai-org/GLM-4.5", "GLM-4.5"),
        ("glm-4.5-air", "GLM-4.5-Air"),
        ("qwen3 coder", "Qwen3-Coder-480B-A35B-Instruct"),
        ("Qwen3-Coder-480B-A35B-Instruct", "Qwen3-Coder-480B-A35B-Instruct"),
        ("deepseek v3.1", "DeepSeek-V3.1"),
        ("Qwen/Qwen3-235B-A22B-Instruct-2507", "Qwen3-235B-A22B-Instruct-2507"),
        ("qwen3-30b-a3b-instruct-2507", "Qwen3-30B-A3B-Instruct-2507"),
        # The April rows keep their names: a bare size still means the first release.
        ("qwen3 235b", "Qwen3-235B-A22B"),
        ("qwen3-30b", "Qwen3-30B-A3B"),
        ("deepseek v3", "DeepSeek-V3"),
    ],
)
def test_names_users_write(typed: str, canonical: str) -> None:
    assert resolve_model(typed).name == canonical


def test_cli_estimate_reports_the_card_total() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ui", "estimate", "--model", "glm 4.5 air", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["model"] == "GLM-4.5-Air"
    assert data["params_b"] == pytest.approx(106.0, rel=0.03)  # zai-org/GLM-4.5 README: 106B total
