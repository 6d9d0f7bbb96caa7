"""The model registry: validation, parameter counts against published totals, name resolution."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tools.architecture import ModelArchitecture
from tools.errors import ToolInputError, UnknownNameError
from tools.models import (
    REGISTRY_PATH,
    ModelRegistryError,
    list_models,
    load_registry,
    load_registry_file,
    normalize_name,
    parse_size_b,
    resolve_model,
)

FIXTURES = Path(__file__).parent / "fixtures" / "configs"
CALIBRATION_SOURCE = "shared/calibration/model_configs_dev.csv (params_b_exact_if_known)"


# Published totals rounded more coarsely than their digits show. Kimi K2's card says "1 trillion"
# (one significant figure); the count is 1,026.4B and agrees with the checkpoint's safetensors inventory
# to 0.01 % (tests/test_models_2025.py), so 3 % ("a few %") is the card's own rounding, not slack.
_COARSE_PUBLISHED_TOTALS = {"Kimi-K2-Instruct": 0.03}


def _published_tolerance(published_b: float, name: str = "") -> float:
    """Relative tolerance for a published total: 1 %, or half its last published digit if coarser.

    "1.7B" on a model card means 1.65-1.75B, so a 1.72B count agrees with it.
    """
    if name in _COARSE_PUBLISHED_TOTALS:
        return _COARSE_PUBLISHED_TOTALS[name]
    exponent = Decimal(repr(published_b)).as_tuple().exponent
    assert isinstance(exponent, int)
    half_digit = 0.5 * 10.0**exponent
    return max(0.01, half_digit / published_b)


def _published_rows() -> list[ModelArchitecture]:
    return [m for m in load_registry().values() if m.official_params_b is not None]


def test_registry_is_large_and_every_row_validates() -> None:
    registry = load_registry()
    assert len(registry) >= 40
    for name, arch in registry.items():
        assert arch.name == name
        assert arch.source_url.startswith("https://huggingface.co/") and arch.source_url.endswith(
            "config.json"
        )
        assert arch.notes, f"{name}: every row says how its values were checked"


def test_rows_with_published_totals() -> None:
    missing = sorted(m.name for m in load_registry().values() if m.official_params_b is None)
    # Baichuan2 publishes no exact total (the names say 7B and 13B).
    assert missing == ["Baichuan2-13B-Chat", "Baichuan2-7B-Chat"]


@pytest.mark.parametrize("arch", _published_rows(), ids=lambda a: a.name)
def test_total_params_match_published_total(arch: ModelArchitecture) -> None:
    # Source: each row's official_params_source. Tolerance: 1 % or the published rounding.
    published = arch.official_params_b
    assert published is not None
    computed_b = arch.param_breakdown().total / 1e9
    assert computed_b == pytest.approx(published, rel=_published_tolerance(published, arch.name)), (
        arch.official_params_source
    )


# (model, params_b_exact_if_known) from the calibration set; tolerance 1 %.
CALIBRATION_ROWS = [
    ("Qwen2.5-0.5B-Instruct", 0.494),
    ("Qwen2.5-1.5B-Instruct", 1.5437),
    ("Qwen2.5-3B-Instruct", 3.0859),
    ("Qwen2.5-7B-Instruct", 7.6156),
    ("Qwen2.5-14B-Instruct", 14.77),
    ("Qwen2.5-32B-Instruct", 32.7639),
    ("Qwen2.5-72B-Instruct", 72.7062),
    ("Llama-2-7b", 6.7384),
    ("Llama-2-70b", 68.9766),
    ("Llama-3.1-8B", 8.0303),
    ("Llama-3.1-70B", 70.5537),
    ("Llama-3.1-405B", 405.8534),
    ("Llama-3.2-3B", 3.2127),
]


@pytest.mark.parametrize(("model", "params_b"), CALIBRATION_ROWS)
def test_calibration_rows_resolve_and_match(model: str, params_b: float) -> None:
    # Source: CALIBRATION_SOURCE; tolerance 1 %.
    arch = resolve_model(model)
    assert arch.param_breakdown().total / 1e9 == pytest.approx(params_b, rel=0.01)


# (model, published active params in billions, source); tolerance 3 %: the published figures are
# rounded and some leave the embedding lookup out (DeepSeek's 37B; ours counts it, 37.5B).
MOE_ACTIVE = [
    ("Qwen3-30B-A3B", 3.3, "https://huggingface.co/Qwen/Qwen3-30B-A3B (model card)"),
    ("Qwen3-235B-A22B", 22.0, "https://huggingface.co/Qwen/Qwen3-235B-A22B (model card)"),
    ("DeepSeek-V3", 37.0, "https://github.com/deepseek-ai/DeepSeek-V3 (README)"),
    ("Mixtral-8x7B-Instruct-v0.1", 12.9, "https://mistral.ai/news/mixtral-of-experts"),
    ("Mixtral-8x22B-Instruct-v0.1", 39.0, "https://mistral.ai/news/mixtral-8x22b"),
    ("Qwen1.5-MoE-A2.7B-Chat", 2.7, "https://huggingface.co/Qwen/Qwen1.5-MoE-A2.7B (model card)"),
    ("Qwen2-57B-A14B-Instruct", 14.0, "https://arxiv.org/abs/2407.10671 (Table 1)"),
]


@pytest.mark.parametrize(("model", "active_b", "source"), MOE_ACTIVE, ids=[m[0] for m in MOE_ACTIVE])
def test_moe_active_params_match_published(model: str, active_b: float, source: str) -> None:
    arch = load_registry()[model]
    assert arch.official_active_params_b == active_b
    assert arch.param_breakdown().active / 1e9 == pytest.approx(active_b, rel=0.03), source


def test_deepseek_v3_layout() -> None:
    arch = resolve_model("DeepSeek-V3")
    assert arch.mla is not None and arch.moe is not None
    assert (arch.mla.kv_lora_rank, arch.mla.qk_rope_head_dim, arch.mla.q_lora_rank) == (512, 64, 1536)
    assert (arch.moe.num_experts, arch.moe.experts_per_token, arch.moe.num_shared_experts) == (256, 8, 1)
    assert (arch.moe.dense_layers, arch.moe.expert_intermediate_size, arch.num_layers) == (3, 2048, 61)
    assert arch.quantization is not None and arch.quantization.method == "fp8"
    assert "MTP" in (arch.notes or "")


def test_gemma_sliding_window_layouts() -> None:
    gemma2_9b, gemma3_27b = resolve_model("gemma-2-9b"), resolve_model("gemma-3-27b")
    assert (gemma2_9b.sliding_window, gemma2_9b.sliding_window_layers, gemma2_9b.head_dim) == (4096, 21, 256)
    assert resolve_model("gemma-2-27b").head_dim == 128
    # 62 layers, every 6th global: 10 global, 52 local with a 1024-token window.
    assert (gemma3_27b.sliding_window, gemma3_27b.sliding_window_layers) == (1024, 52)
    assert gemma3_27b.other_params > 400_000_000


ALIASES = [
    ("qwen2.5 72b", "Qwen2.5-72B-Instruct"),
    ("qwen2.5-72b", "Qwen2.5-72B-Instruct"),
    ("Qwen2.5-72B-Instruct", "Qwen2.5-72B-Instruct"),
    ("Qwen/Qwen2.5-72B-Instruct", "Qwen2.5-72B-Instruct"),
    ("QWEN2.5_72B_INSTRUCT", "Qwen2.5-72B-Instruct"),
    ("Qwen2.5-7B", "Qwen2.5-7B-Instruct"),
    ("Qwen2.5-7B-Instruct", "Qwen2.5-7B-Instruct"),
    ("千问72B", "Qwen2.5-72B-Instruct"),
    ("通义千问72B", "Qwen2.5-72B-Instruct"),
    ("通义千问2.5-72B", "Qwen2.5-72B-Instruct"),
    ("千问 32B", "Qwen3-32B"),
    ("qwen 7b", "Qwen2.5-7B-Instruct"),
    ("qwen 235b", "Qwen3-235B-A22B"),
    ("千问110B", "Qwen1.5-110B-Chat"),
    ("llama3-70b", "Llama-3-70B-Instruct"),
    ("llama 3 70b", "Llama-3-70B-Instruct"),
    ("Meta-Llama-3-70B-Instruct", "Llama-3-70B-Instruct"),
    ("llama-3.1-8b", "Llama-3.1-8B-Instruct"),
    ("Llama-2-7b-chat-hf", "Llama-2-7B-Chat"),
    ("DeepSeek R1", "DeepSeek-R1"),
    ("deepseek-r1", "DeepSeek-R1"),
    ("r1", "DeepSeek-R1"),
    ("ds-v3", "DeepSeek-V3"),
    ("deepseek v3", "DeepSeek-V3"),
    ("DeepSeek-R1-Distill-Qwen-32B", "DeepSeek-R1-Distill-Qwen-32B"),
    ("mixtral 8x7b", "Mixtral-8x7B-Instruct-v0.1"),
    ("glm4-9b", "GLM-4-9B-Chat"),
    ("THUDM/glm-4-9b-chat", "GLM-4-9B-Chat"),
    ("internlm/internlm2_5-7b-chat", "InternLM2.5-7B-Chat"),
    ("gemma-2-9b-it", "Gemma-2-9B-it"),
    ("yi 34b", "Yi-1.5-34B-Chat"),
    ("qwen3-30b-a3b", "Qwen3-30B-A3B"),
    ("mistral 7b", "Mistral-7B-Instruct-v0.3"),
    ("Baichuan2-13B-Chat", "Baichuan2-13B-Chat"),
]


@pytest.mark.parametrize(("typed", "canonical"), ALIASES)
def test_alias_resolution(typed: str, canonical: str) -> None:
    assert resolve_model(typed).name == canonical


def test_normalize_name_keeps_version_dots() -> None:
    assert normalize_name("Qwen2.5-7B") != normalize_name("Qwen2-57B")
    assert normalize_name(" Llama 3.1 8B Instruct ") == normalize_name("meta-llama/Meta-Llama-3.1-8B")


@pytest.mark.parametrize(
    ("typed", "first_suggestion"),
    [
        ("Qwen2.5-70B", "Qwen2.5-72B-Instruct"),
        ("qwen3-7b", "Qwen3-8B"),
        ("llama-3.1-7b", "Llama-3.1-8B-Instruct"),
        ("deepsek-v3", "DeepSeek-V3"),
        ("Qwen2.5-72B-Instruct-AWQ", "Qwen2.5-72B-Instruct"),
        # The original article's "Qwen-70B" (no such model): the newest Qwen near that size.
        ("Qwen-70B", "Qwen2.5-72B-Instruct"),
        ("qwen3-200b", "Qwen3-235B-A22B"),
        ("llama-65b", "Llama-3.3-70B-Instruct"),
    ],
)
def test_unknown_name_suggests_nearest(typed: str, first_suggestion: str) -> None:
    with pytest.raises(UnknownNameError) as info:
        resolve_model(typed)
    assert info.value.kind == "model"
    assert 1 <= len(info.value.suggestions) <= 3
    assert info.value.suggestions[0] == first_suggestion
    assert f"Did you mean {first_suggestion}" in str(info.value)


def test_unrelated_name_has_no_suggestions_and_empty_name_is_an_error() -> None:
    with pytest.raises(UnknownNameError) as info:
        resolve_model("gpt-4")
    assert info.value.suggestions == []
    with pytest.raises(ToolInputError, match="empty"):
        resolve_model("  ")


def test_resolve_a_config_path() -> None:
    arch = resolve_model(str(FIXTURES / "qwen2.5-72b-instruct-awq.json"))
    assert arch.quantization is not None and arch.quantization.method == "awq"
    with pytest.raises(ToolInputError, match="does not exist"):
        resolve_model("./no/such/config.json")


def test_list_models_by_family() -> None:
    qwen3 = list_models("qwen3")
    assert {m.name for m in qwen3} >= {"Qwen3-8B", "Qwen3-235B-A22B"}
    assert all(m.family == "Qwen3" for m in qwen3)
    assert len(list_models()) == len(load_registry())
    with pytest.raises(UnknownNameError) as info:
        list_models("Qwen4")
    assert info.value.kind == "model family"


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("Qwen2.5-72B", 72.0),
        ("qwen 0.5b", 0.5),
        ("Qwen3-30B-A3B", 30.0),
        ("Mixtral-8x7B", 56.0),
        ("千问72B", 72.0),
        ("DeepSeek-V3", None),
    ],
)
def test_parse_size_b(text: str, size: float | None) -> None:
    assert parse_size_b(text) == size


def _write_registry(tmp_path: Path, rows: str) -> Path:
    path = tmp_path / "models.yaml"
    path.write_text("models:\n" + rows, encoding="utf-8")
    return path


_GOOD_ROW = """\
  - name: Tiny-1B
    family: Tiny
    hf_id: org/tiny-1b
    source_url: https://huggingface.co/org/tiny-1b/blob/main/config.json
    check: unchecked
    config: {model_type: llama, hidden_size: 2048, num_hidden_layers: 16, num_attention_heads: 16,
             intermediate_size: 8192, vocab_size: 32000, max_position_embeddings: 4096}
"""


def test_registry_file_loads_a_good_row(tmp_path: Path) -> None:
    registry = load_registry_file(_write_registry(tmp_path, _GOOD_ROW))
    assert registry["Tiny-1B"].num_kv_heads == 16


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (_GOOD_ROW.replace("check: unchecked", "check: maybe"), "row 0 ('Tiny-1B')"),
        (_GOOD_ROW.replace("hidden_size: 2048, ", ""), "row 0 ('Tiny-1B'): config.json has no 'hidden_size'"),
        (_GOOD_ROW + _GOOD_ROW, "row 1 repeats the name 'Tiny-1B'"),
        (
            _GOOD_ROW + _GOOD_ROW.replace("Tiny-1B", "Tiny-1B-Chat").replace("org/tiny-1b", "org/t"),
            "also names 'Tiny-1B'",
        ),
        (
            _GOOD_ROW.replace("check: unchecked", "check: unchecked\n    official_params_b: 1.0"),
            "official_params_source",
        ),
    ],
    ids=["bad-check", "missing-key", "duplicate-name", "alias-collision", "figure-without-source"],
)
def test_bad_registry_row_names_file_and_row(tmp_path: Path, rows: str, message: str) -> None:
    path = _write_registry(tmp_path, rows)
    with pytest.raises(ModelRegistryError) as info:
        load_registry_file(path)
    assert str(path) in str(info.value)
    assert message in str(info.value)


def test_registry_path_is_package_data() -> None:
    assert REGISTRY_PATH.is_file()
    assert REGISTRY_PATH.parent.name == "data"


@pytest.mark.parametrize(
    ("typed", "model"),
    [
        ("llama 70b", "Llama-3.3-70B-Instruct"),  # the newest Llama with a 70B model
        ("llama 8b", "Llama-3.1-8B-Instruct"),
        ("llama 7b", "Llama-2-7B-Chat"),  # only Llama 2 has a 7B
        ("gemma 27b", "Gemma-3-27B-it"),
        ("llama 3 70b", "Llama-3-70B-Instruct"),  # a version written is kept
        ("qwen 72b", "Qwen2.5-72B-Instruct"),
    ],
)
def test_a_bare_brand_and_size_names_the_newest_version_with_that_size(typed: str, model: str) -> None:
    assert resolve_model(typed).name == model
