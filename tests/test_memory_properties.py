"""Properties every estimate must have, whatever the model and settings (hypothesis)."""

from __future__ import annotations

from functools import cache
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tools.architecture import ModelArchitecture
from tools.memory import MemoryEstimate, estimate_memory
from tools.models import resolve_model

# Dense GQA, dense MHA, tied small, MoE and MLA: each exercises a different branch of the formulas.
MODELS = ("Qwen2.5-7B-Instruct", "Llama-2-7b", "Qwen2.5-0.5B-Instruct", "Qwen3-30B-A3B", "DeepSeek-V3")
PROPERTY_SETTINGS = settings(max_examples=40, deadline=None)

models = st.sampled_from(MODELS)
tokens = st.integers(min_value=1, max_value=200_000)
batches = st.integers(min_value=1, max_value=256)
training_tasks = st.sampled_from(["full", "lora", "qlora"])
optimizers = st.sampled_from(["adamw", "adamw-8bit", "sgd"])
frameworks = st.sampled_from(["transformers", "vllm"])


@cache
def _arch(name: str) -> ModelArchitecture:
    return resolve_model(name)


def _estimate(model: str, **data: Any) -> MemoryEstimate:
    return estimate_memory({"model": model, **data}, _arch(model))


def _total(model: str, **data: Any) -> float:
    return _estimate(model, **data).per_gpu_total_gib


@PROPERTY_SETTINGS
@given(models, frameworks, tokens, tokens, batches, st.integers(min_value=1, max_value=8))
def test_more_context_never_needs_less(model: str, framework: str, a: int, b: int, batch: int, gpus: int) -> None:
    # vLLM's tensor parallel must divide the attention heads; other GPU counts are refused (tested elsewhere).
    assume(framework != "vllm" or resolve_model(model).num_attention_heads % gpus == 0)
    short, long = sorted((a, b))
    common = {"framework": framework, "batch": batch, "gpus": gpus, "gen_tokens": 64}
    assert _total(model, prompt_tokens=short, **common) <= _total(model, prompt_tokens=long, **common)


@PROPERTY_SETTINGS
@given(models, training_tasks, st.integers(min_value=1, max_value=32_768), st.integers(min_value=1, max_value=32_768))
def test_longer_training_sequences_never_need_less(model: str, task: str, a: int, b: int) -> None:
    short, long = sorted((a, b))
    assert _total(model, task=task, seq_len=short) <= _total(model, task=task, seq_len=long)


@PROPERTY_SETTINGS
@given(models, frameworks, batches, batches, st.integers(min_value=1, max_value=32_768))
def test_larger_batch_never_needs_less(model: str, framework: str, a: int, b: int, prompt: int) -> None:
    small, large = sorted((a, b))
    common = {"framework": framework, "prompt_tokens": prompt, "gen_tokens": 128}
    assert _total(model, batch=small, **common) <= _total(model, batch=large, **common)


@PROPERTY_SETTINGS
@given(models, training_tasks, st.integers(min_value=1, max_value=8), st.integers(min_value=1, max_value=6))
def test_zero3_on_more_gpus_never_needs_more_per_gpu(model: str, task: str, batch: int, doublings: int) -> None:
    # From 2 GPUs up: going from 1 to 2 GPUs adds NCCL buffers and a gather buffer, which can cost
    # more than half of a tiny model saves.
    gpus = 2**doublings
    common = {"task": task, "batch": batch, "seq_len": 2048, "zero": 3}
    assert _total(model, gpus=2 * gpus, **common) <= _total(model, gpus=gpus, **common)


@PROPERTY_SETTINGS
@given(models, training_tasks, optimizers, st.integers(min_value=1, max_value=64), st.booleans())
def test_higher_zero_stage_never_needs_more_per_gpu(
    model: str, task: str, optimizer: str, gpus: int, master: bool
) -> None:
    common = {"task": task, "optimizer": optimizer, "gpus": gpus, "seq_len": 1024, "master_weights": master}
    per_stage = [_total(model, zero=stage, **common) for stage in (0, 1, 2, 3)]
    assert per_stage == sorted(per_stage, reverse=True)


@PROPERTY_SETTINGS
@given(models, frameworks, st.sampled_from(["gptq-int4", "awq-int4", "bnb-nf4"]), tokens, batches)
def test_int4_never_needs_more_than_bf16(model: str, framework: str, quant: str, prompt: int, batch: int) -> None:
    common = {"framework": framework, "prompt_tokens": prompt, "batch": batch}
    assert _total(model, quant=quant, **common) <= _total(model, **common)
    assert _total(model, precision="int4", **common) <= _total(model, **common)


@PROPERTY_SETTINGS
@given(models, training_tasks, st.integers(min_value=1, max_value=16_384), batches, st.booleans(), st.booleans())
def test_gradient_checkpointing_never_needs_more(
    model: str, task: str, seq: int, batch: int, compiled: bool, chunked: bool
) -> None:
    common = {"task": task, "seq_len": seq, "batch": batch, "torch_compile": compiled, "chunked_ce": chunked}
    assert _total(model, grad_ckpt=True, **common) <= _total(model, grad_ckpt=False, **common)


@PROPERTY_SETTINGS
@given(
    models,
    st.sampled_from(["inference", "full", "lora", "qlora"]),
    st.integers(min_value=1, max_value=65_536),
    batches,
    st.integers(min_value=1, max_value=16),
)
def test_terms_are_non_negative_and_add_up(model: str, task: str, length: int, batch: int, gpus: int) -> None:
    lengths = {"prompt_tokens": length} if task == "inference" else {"seq_len": length, "zero": 3}
    est = _estimate(model, task=task, batch=batch, gpus=gpus, **lengths)
    terms = est.per_gpu.model_dump()
    assert all(v >= 0 for v in terms.values())
    tensors = sum(v for k, v in terms.items() if k != "overhead_gib")
    assert abs(tensors - est.per_gpu_tensors_gib) < 0.01
    assert est.per_gpu_total_gib >= est.per_gpu_tensors_gib
    assert est.total_gib >= est.per_gpu_total_gib
