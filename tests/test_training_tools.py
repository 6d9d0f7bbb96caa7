"""Golden numbers for the new sizing tools: text lengths, training volume, named hardware, capacity."""

from __future__ import annotations

import pytest

from tools.capacity import concurrent_sequences
from tools.errors import ToolInputError
from tools.hardware_fit import evaluate_hardware
from tools.lengths import load_ratios, text_tokens
from tools.training_volume import training_compute, training_tokens

LLAMA2_PAPER = "https://arxiv.org/abs/2307.09288"  # Table 2: Llama 2 7B, 2.0T tokens, 184,320 A100 GPU hours


def test_every_token_ratio_has_a_source() -> None:
    assert all(r.source.startswith("https://") for r in load_ratios().values())


@pytest.mark.parametrize(
    ("amount", "unit", "tokens"),
    [
        (800, "zh_characters", 480),  # 0.6 token per Chinese character (DeepSeek's published ratio)
        (1000, "en_characters", 300),  # 0.3 token per English character
        (75, "en_words", 100),  # 100 tokens ≈ 75 words (OpenAI)
        (2, "pages", 1330),
        (4096, "tokens", 4096),
    ],
)
def test_text_lengths_become_tokens(amount: float, unit: str, tokens: int) -> None:
    count = text_tokens(amount, unit)  # type: ignore[arg-type]
    assert count.tokens == tokens
    assert (count.source is None) == (unit == "tokens")


@pytest.mark.parametrize("amount", [0, -5, 1e308, float("nan")])
def test_impossible_lengths_are_refused(amount: float) -> None:
    with pytest.raises(ToolInputError):
        text_tokens(amount, "zh_characters")


def test_samples_times_tokens_times_epochs() -> None:
    assert training_tokens(40_000, 2_000, 2).training_tokens == 160_000_000


def test_training_volume_refuses_zero_and_absurd_totals() -> None:
    with pytest.raises(ToolInputError):
        training_tokens(0, 2000)
    with pytest.raises(ToolInputError):
        training_tokens(1e308, 1e308)


def test_llama2_7b_pretraining_gpu_hours_match_the_paper_at_its_mfu() -> None:
    """Llama 2 7B: 2T tokens took 184,320 A100 GPU hours; 6·N·D at about 39% MFU reproduces it (±10%)."""
    run = training_compute("Llama-2-7B-Chat", 2e12, "A100-80GB", 1024, task="full", mfu=0.39, grad_ckpt=False)
    assert run.flops_rule == "6·N·D"
    assert run.gpu_hours == pytest.approx(184_320, rel=0.10)


def test_training_cost_is_hours_times_price() -> None:
    run = training_compute("Qwen2.5-7B", 1e9, "H800", 8, price_cny_per_hour=100.0)
    assert run.cost_cny == pytest.approx(run.hours * 100.0)


def test_72b_int4_does_not_fit_one_l20_and_the_fix_is_more_cards() -> None:
    """Qwen measured Qwen-72B-Chat-Int4 at 48.86 GB; one 48 GB L20 cannot hold it."""
    fit = evaluate_hardware("Qwen2.5-72B", gpu="L20", gpus=1, precision="int4", quant="awq-int4")
    assert not fit.fits and fit.reason == "memory_per_gpu" and fit.headroom_gib < 0
    assert fit.changes and fit.changes[0].fits and fit.changes[0].code == "more_gpus"


def test_a_named_instance_type_is_evaluated_as_named() -> None:
    fit = evaluate_hardware("Qwen2.5-7B", instance_type="ecs.gn8is.4xlarge")
    assert fit.hardware.instance_type == "ecs.gn8is.4xlarge" and fit.hardware.gpus == 1
    assert fit.fits and fit.headroom_gib > 0


def test_full_training_on_too_few_cards_suggests_sharding_or_lora() -> None:
    fit = evaluate_hardware("Qwen2.5-72B", task="full", gpu="A100-80GB", gpus=8)
    assert not fit.fits
    assert {c.code for c in fit.changes if c.fits} & {"zero3_offload", "qlora", "more_gpus"}


def test_capacity_counts_sequences_from_the_kv_budget() -> None:
    """Qwen2.5-7B keeps 28 layers x 4 KV heads x 128 x 2 (K,V) x 2 bytes = 56 KiB per token: 1.75 GiB at 32k."""
    cap = concurrent_sequences("Qwen2.5-7B", 32768, gpu="L20")
    assert cap.kv_gib_per_sequence == pytest.approx(1.75, rel=0.05)
    assert cap.sequences == int(cap.kv_budget_gib_per_gpu // cap.kv_gib_per_sequence)
