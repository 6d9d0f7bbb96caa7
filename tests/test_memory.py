"""Unit tests of the memory estimator: one block per term, the request validation and the API shape."""

from __future__ import annotations

import json
import time

import pytest

from tools import memory_terms as t
from tools.errors import ToolInputError
from tools.memory import EstimateRequest, MemoryBreakdown, estimate_memory, parse_request, per_gpu_requirement
from tools.models import resolve_model
from tools.quantization import weight_format

GIB = 2**30


@pytest.fixture(scope="module")
def qwen7b():
    return resolve_model("Qwen2.5-7B-Instruct")


@pytest.fixture(scope="module")
def llama8b():
    return resolve_model("Llama-3.1-8B")


# ------------------------------------------------------------------------------------------- weights


def test_qwen25_7b_bf16_weights_are_15_23_gb(qwen7b) -> None:
    # 7,615,616,512 parameters x 2 B (config.json; Qwen publishes 7.61 B).
    est = estimate_memory({"model": "Qwen2.5-7B-Instruct", "prompt_tokens": 1, "gen_tokens": 0}, qwen7b)
    assert est.params_b == pytest.approx(7.616, abs=0.001)
    assert est.per_gpu.weights_gib == pytest.approx(15.23e9 / GIB, abs=0.01)
    assert est.per_gpu.weights_gib == pytest.approx(14.18, abs=0.01)


@pytest.mark.parametrize(
    ("quant", "bytes_per_linear_weight"),
    [
        ("gptq-int4", 0.5 + 2.5 / 128),  # 4-bit + fp16 scale + 4-bit zero per group of 128
        ("awq-int4", 0.5 + 2.5 / 128),
        ("gptq-int8", 1 + 3 / 128),
        ("bnb-nf4", 0.5 + 1 / 64 + 4 / (64 * 256)),  # int8 absmax per 64 + fp32 per 256 blocks
        ("bnb-int8", 1.0),
        ("fp8", 1.0),
    ],
)
def test_quantised_formats_cost_per_linear_weight_and_keep_embeddings_16_bit(
    quant: str, bytes_per_linear_weight: float
) -> None:
    fmt = weight_format("bf16", quant)  # type: ignore[arg-type]
    assert fmt.linear_bytes_per_param == pytest.approx(bytes_per_linear_weight)
    assert fmt.other_bytes_per_param == 2


def test_quantised_weights_split_linear_and_embedding_bytes(qwen7b) -> None:
    pb = qwen7b.param_breakdown()
    fmt = weight_format("bf16", "gptq-int4")
    expected = pb.linear * fmt.linear_bytes_per_param + (pb.total - pb.linear) * 2
    assert t.weight_bytes(qwen7b, fmt) == pytest.approx(expected)
    # Qwen2.5-7B-Instruct-GPTQ-Int4 measured 5.52 GiB with a 1-token prompt (KV 0.11 GiB).
    assert expected / GIB == pytest.approx(5.19, abs=0.02)


def test_low_bit_precision_without_quant_means_a_generic_quantised_checkpoint() -> None:
    assert weight_format("int4", "none").linear_bytes_per_param == pytest.approx(0.5 + 2.5 / 128)
    assert weight_format("int8", "none").linear_bytes_per_param == 1.0
    assert weight_format("fp32", "none").other_bytes_per_param == 4


def test_moe_counts_every_expert_in_memory() -> None:
    arch = resolve_model("Qwen3-30B-A3B")
    est = estimate_memory({"model": arch.name, "prompt_tokens": 16, "gen_tokens": 0}, arch)
    assert est.params_b == pytest.approx(30.5, abs=0.1)
    assert est.active_params_b == pytest.approx(3.3, abs=0.1)
    assert est.per_gpu.weights_gib == pytest.approx(est.params_b * 2e9 / GIB, rel=1e-3)


def test_tensor_parallel_splits_linear_and_vocab_but_replicates_norms() -> None:
    arch = resolve_model("Qwen2.5-72B-Instruct")
    fmt = weight_format("bf16", "none")
    total = t.weight_bytes(arch, fmt)
    per_gpu = t.tensor_parallel_weight_bytes(arch, fmt, 4)
    assert per_gpu == pytest.approx(total / 4, rel=1e-3)
    assert per_gpu > total / 4
    # 8 KV heads on 16 GPUs: each GPU keeps a whole head, so K/V projections are duplicated.
    kv_proj = t.shapes(arch).kv_proj_per_layer * arch.num_layers * 2
    assert t.tensor_parallel_weight_bytes(arch, fmt, 16) - total / 16 == pytest.approx(kv_proj / 16, rel=0.02)


def test_layer_split_shards_sum_to_the_whole_model() -> None:
    arch = resolve_model("Qwen2.5-72B-Instruct")
    fmt = weight_format("bf16", "none")
    shards = t.layer_split_weight_bytes(arch, fmt, 3)
    assert sum(shards) == pytest.approx(t.weight_bytes(arch, fmt))
    assert t.layer_split(arch, 3) == [27, 27, 26]


# ------------------------------------------------------------------------------------------- KV cache


def test_llama31_8b_bf16_kv_cache_is_128_kib_per_token(llama8b) -> None:
    # 32 layers x 2 (K, V) x 8 KV heads x 128 dims x 2 B.
    assert t.kv_cache_bytes(llama8b, 1, 1, 2) == 128 * 1024


def test_deepseek_v3_mla_caches_the_latent_per_token() -> None:
    arch = resolve_model("DeepSeek-V3")
    assert t.kv_cache_bytes(arch, 1, 1, 2) == 61 * 576 * 2
    # The latent is replicated on every tensor-parallel GPU.
    assert t.kv_cache_bytes(arch, 1, 1, 2, tp=8) == 61 * 576 * 2
    # HF transformers' DeepSeek code caches decompressed K (192) and V (128) for all 128 heads.
    assert t.kv_cache_bytes(arch, 1, 1, 2, mla_expanded=True) == 61 * 128 * (128 + 64 + 128) * 2


def test_gqa_caches_heads_over_kv_heads_times_less_than_mha() -> None:
    mha = resolve_model("Llama-2-7b")
    gqa = resolve_model("Llama-2-70b")
    per_layer_mha = t.kv_cache_bytes(mha, 1, 1, 2) / mha.num_layers
    per_layer_gqa = t.kv_cache_bytes(gqa, 1, 1, 2) / gqa.num_layers
    assert mha.attention_kind == "mha"
    assert gqa.attention_kind == "gqa"
    assert per_layer_mha == 2 * 32 * 128 * 2
    assert per_layer_gqa == 2 * 8 * 128 * 2


def test_fp8_kv_cache_halves_it(llama8b) -> None:
    base = {"model": llama8b.name, "framework": "vllm", "prompt_tokens": 8000, "gen_tokens": 192, "batch": 4}
    bf16 = estimate_memory(base, llama8b)
    fp8 = estimate_memory({**base, "kv_cache_dtype": "fp8"}, llama8b)
    assert fp8.per_gpu.kv_cache_gib == pytest.approx(bf16.per_gpu.kv_cache_gib / 2, rel=1e-3)


def test_kv_cache_scales_with_batch_and_tokens_and_splits_over_tensor_parallel(llama8b) -> None:
    one = t.kv_cache_bytes(llama8b, 1000, 1, 2)
    assert t.kv_cache_bytes(llama8b, 2000, 3, 2) == 6 * one
    assert t.kv_cache_bytes(llama8b, 1000, 1, 2, tp=4) == one / 4
    assert t.kv_cache_bytes(llama8b, 1000, 1, 2, tp=16) == one / 8  # one head per GPU at most


# ----------------------------------------------------------------------------------- inference runtime


def test_transformers_prefill_transient_is_three_mlp_buffers_and_four_hidden_states(qwen7b) -> None:
    tokens = 30720
    expected = (3 * tokens * 18944 + 4 * tokens * 3584) * 2
    assert t.prefill_activation_bytes(qwen7b, tokens, 1, 2) == expected
    # The calibration README's rule of thumb: 1.15-1.4 x prompt x intermediate x 6 bytes.
    ratio = expected / (tokens * 18944 * 6)
    assert 1.15 <= ratio <= 1.4


def test_old_transformers_prompt_logits_switch_adds_prompt_by_vocab_by_6_bytes(qwen7b) -> None:
    base = {"model": qwen7b.name, "prompt_tokens": 30720, "gen_tokens": 0}
    new = estimate_memory(base, qwen7b)
    old = estimate_memory({**base, "full_prompt_logits": True}, qwen7b)
    extra = old.per_gpu.activations_gib - new.per_gpu.activations_gib
    assert extra == pytest.approx(30720 * 152064 * 6 / GIB, abs=0.002)


def test_gptq_reserves_an_fp16_copy_of_the_largest_matrix(qwen7b) -> None:
    est = estimate_memory({"model": qwen7b.name, "quant": "gptq-int4", "prompt_tokens": 512}, qwen7b)
    assert est.per_gpu.other_gib == pytest.approx(3584 * 18944 * 2 / GIB, abs=0.001)


def test_awq_tied_embedding_load_copy_is_the_peak_for_tiny_prompts() -> None:
    # Qwen2.5-0.5B-Instruct-AWQ measured 0.68 GiB with a 1-token prompt: weights + one embedding copy.
    arch = resolve_model("Qwen2.5-0.5B-Instruct")
    est = estimate_memory({"model": arch.name, "quant": "awq-int4", "prompt_tokens": 1, "gen_tokens": 2048}, arch)
    assert est.per_gpu_tensors_gib == pytest.approx(0.68, abs=0.02)
    longer = estimate_memory({"model": arch.name, "quant": "awq-int4", "prompt_tokens": 6144, "gen_tokens": 0}, arch)
    assert longer.per_gpu.other_gib == pytest.approx(896 * 4864 * 2 / GIB, abs=0.001)


def test_overhead_is_what_nvidia_smi_adds_to_the_tensors(qwen7b) -> None:
    est = estimate_memory({"model": qwen7b.name, "prompt_tokens": 1000, "gen_tokens": 200}, qwen7b)
    slack = est.per_gpu_reserved_gib - est.per_gpu_allocated_gib
    # CUDA context + workspaces, then the allocator's slack: half the largest freed prefill block (one
    # 1000 x 18944 bf16 MLP buffer) plus the weights' 2 MiB segment rounding.
    assert est.per_gpu.overhead_gib == pytest.approx(0.5 + slack, abs=0.002)
    assert slack == pytest.approx(0.5 * 1000 * 18944 * 2 / GIB, abs=0.2)
    assert est.per_gpu_total_gib == pytest.approx(est.per_gpu_tensors_gib + est.per_gpu.overhead_gib, abs=0.002)


def test_layer_split_reports_the_busiest_gpu_and_sums_all_gpus() -> None:
    arch = resolve_model("Qwen2.5-72B-Instruct")
    est = estimate_memory({"model": arch.name, "prompt_tokens": 30720, "gen_tokens": 2048, "gpus": 3}, arch)
    assert est.layout.text.startswith("layers split over 3 GPUs")
    assert est.per_gpu.weights_gib < 135.5 / 2.5
    # Weights and KV once, each GPU's own prefill transient: 164.79 GiB measured (M0109).
    assert est.total_tensors_gib == pytest.approx(164.79, rel=0.05)
    assert est.total_tensors_gib < 3 * est.per_gpu_tensors_gib


# ------------------------------------------------------------------------------------------- vLLM view


def test_vllm_view_splits_the_budget(llama8b) -> None:
    est = estimate_memory(
        {
            "model": llama8b.name,
            "framework": "vllm",
            "prompt_tokens": 1024,
            "gen_tokens": 1024,
            "gpu_memory_gib": 80,
            "gpu_memory_utilization": 0.9,
            "batch": 8,
        },
        llama8b,
    )
    v = est.vllm
    assert v is not None and v.fits
    assert v.budget_gib == pytest.approx(72.0)
    assert v.non_kv_gib == pytest.approx(
        est.per_gpu.weights_gib + est.per_gpu.activations_gib + est.per_gpu.overhead_gib, abs=0.003
    )
    assert v.kv_capacity_gib == pytest.approx(v.budget_gib - v.non_kv_gib, abs=0.002)
    assert v.kv_tokens_capacity == pytest.approx(v.kv_capacity_gib * GIB / (128 * 1024), abs=16)
    assert v.max_concurrent_sequences == int(v.kv_capacity_gib * GIB // (2048 * 128 * 1024))
    assert v.max_context_for_batch == v.kv_tokens_capacity // 8 // 16 * 16
    # The published profile of Llama-3-8B bf16 on an H100: activation peak 1.26 GiB.
    assert est.per_gpu.activations_gib == pytest.approx(1.26, rel=0.1)


def test_vllm_view_says_when_a_sequence_does_not_fit() -> None:
    arch = resolve_model("Qwen2.5-72B-Instruct")
    est = estimate_memory({"model": arch.name, "framework": "vllm", "prompt_tokens": 4096, "gpu_memory_gib": 80}, arch)
    assert est.vllm is not None and not est.vllm.fits
    assert est.vllm.max_concurrent_sequences == 0
    assert any("would not start" in w.text for w in est.warnings)


def test_vllm_max_context_for_batch_is_the_kv_room_shared_by_the_batch(llama8b) -> None:
    est = estimate_memory(
        {"model": llama8b.name, "framework": "vllm", "prompt_tokens": 1000, "batch": 64, "gpu_memory_gib": 24},
        llama8b,
    )
    v = est.vllm
    assert v is not None
    per_seq_tokens = v.kv_capacity_gib * GIB / (128 * 1024) / 64
    assert v.max_context_for_batch == pytest.approx(per_seq_tokens // 16 * 16, abs=16)
    assert any("would queue" in w.text for w in est.warnings)


# ------------------------------------------------------------------------------------------- training


def test_full_finetune_mixed_precision_adamw_is_18_bytes_per_parameter(llama8b) -> None:
    est = estimate_memory({"model": llama8b.name, "task": "full", "seq_len": 512}, llama8b)
    p = llama8b.param_breakdown().total
    assert est.peak_phase == "end of backward / optimizer step"
    assert est.per_gpu.weights_gib == pytest.approx(2 * p / GIB, abs=0.01)
    assert est.per_gpu.gradients_gib == pytest.approx(4 * p / GIB, abs=0.01)
    assert est.per_gpu.optimizer_gib == pytest.approx(12 * p / GIB, abs=0.01)  # master + m + v


def test_pure_bf16_adamw_is_8_bytes_and_8bit_adam_2_bytes_of_states(llama8b) -> None:
    p = llama8b.param_breakdown().total
    base = {"model": llama8b.name, "task": "full", "seq_len": 512, "master_weights": False}
    pure = estimate_memory(base, llama8b)
    assert pure.per_gpu.optimizer_gib == pytest.approx(4 * p / GIB, abs=0.01)
    assert pure.per_gpu.gradients_gib == pytest.approx(2 * p / GIB, abs=0.01)
    eight = estimate_memory({**base, "optimizer": "adamw-8bit"}, llama8b)
    assert eight.per_gpu.optimizer_gib == pytest.approx((2 + 8 / 256) * p / GIB, abs=0.01)
    sgd = estimate_memory({**base, "optimizer": "sgd"}, llama8b)
    assert sgd.per_gpu.optimizer_gib == pytest.approx(2 * p / GIB, abs=0.01)
    paged = estimate_memory({**base, "optimizer": "paged-adamw-8bit"}, llama8b)
    assert paged.per_gpu.optimizer_gib == 0
    assert any("unified memory" in a.text for a in paged.assumptions)


def test_zero_stages_shard_optimizer_then_gradients_then_weights(llama8b) -> None:
    p = llama8b.param_breakdown().total
    base = {"model": llama8b.name, "task": "full", "seq_len": 512, "gpus": 8}
    z1 = estimate_memory({**base, "zero": 1}, llama8b)
    z2 = estimate_memory({**base, "zero": 2}, llama8b)
    z3 = estimate_memory({**base, "zero": 3}, llama8b)
    assert z1.per_gpu.optimizer_gib == pytest.approx(12 * p / 8 / GIB, abs=0.01)
    assert z1.per_gpu.weights_gib == pytest.approx(2 * p / GIB, abs=0.01)
    assert z2.per_gpu.gradients_gib == pytest.approx(4 * p / 8 / GIB, abs=0.01)
    gather = t.zero3_gather_bytes(llama8b, 2) / GIB
    assert z3.per_gpu.weights_gib == pytest.approx(2 * p / 8 / GIB + gather, abs=0.01)
    offload = estimate_memory({**base, "zero": 3, "offload": "optimizer+params"}, llama8b)
    assert offload.per_gpu.optimizer_gib == 0
    assert offload.per_gpu.weights_gib == pytest.approx(gather, abs=0.01)


def test_lora_trainable_parameters_all_linear_rank_16(llama8b) -> None:
    # PEFT reports 41,943,040 trainable parameters for Llama-3-8B, r=16, all linear layers.
    assert t.lora_trainable_params(llama8b, 16, ("q", "k", "v", "o", "gate", "up", "down")) == 41_943_040
    assert t.lora_trainable_params(llama8b, 8, ("q", "v")) == 8 * 32 * ((4096 + 4096) + (4096 + 1024))


def test_lora_keeps_the_base_frozen_and_trains_only_adapters(llama8b) -> None:
    est = estimate_memory({"model": llama8b.name, "task": "lora", "seq_len": 2048}, llama8b)
    lora = 41_943_040
    base = llama8b.param_breakdown().total * 2
    assert est.per_gpu.weights_gib == pytest.approx((base + 4 * lora) / GIB, abs=0.01)  # fp32 adapters (AMP)
    assert est.per_gpu.optimizer_gib == pytest.approx(8 * lora / GIB, abs=0.01)


def test_qlora_base_is_nf4_with_16_bit_embeddings(llama8b) -> None:
    est = estimate_memory({"model": llama8b.name, "task": "qlora", "seq_len": 2048}, llama8b)
    pb = llama8b.param_breakdown()
    base = pb.linear * (0.5 + 1 / 64 + 4 / (64 * 256)) + (pb.total - pb.linear) * 2
    assert est.per_gpu.weights_gib == pytest.approx((base + 4 * 41_943_040) / GIB, abs=0.01)
    assert any("NF4" in a.text for a in est.assumptions)


def test_checkpointing_stores_one_hidden_state_per_layer(llama8b) -> None:
    tokens = 4 * 2048
    stored = t.stored_activation_bytes(llama8b, tokens, grad_ckpt=True, offload=False, compiled=False)
    assert stored == 32 * tokens * 4096 * 2
    full = t.stored_activation_bytes(llama8b, tokens, grad_ckpt=False, offload=False, compiled=False)
    per_layer = (16 * 4096 + 2 * (4096 + 1024 + 1024 + 2 * 4096) + 4 * 32 + 8 * 14336) * tokens
    assert full == pytest.approx(32 * per_layer + 8 * tokens * 4096)


def test_unchunked_cross_entropy_costs_12_bytes_per_logit(llama8b) -> None:
    assert t.loss_logits_bytes(llama8b, 1000, chunked=False, compiled=False) == 1000 * 128256 * 12
    chunked = t.loss_logits_bytes(llama8b, 1000, chunked=True, compiled=True)
    assert chunked == 1000 * 128256 * (2 + 2 / 8)


# ------------------------------------------------------------------------------------------- API, input


def test_estimate_accepts_a_dict_and_resolves_the_model_name() -> None:
    est = estimate_memory({"model": "qwen2.5-7b-instruct", "prompt_tokens": 100})
    assert est.model == "Qwen2.5-7B-Instruct"
    assert set(est.meanings) == set(MemoryBreakdown.model_fields)
    assert est.assumptions and all(a.code and a.text for a in est.assumptions)
    assert "prompt" in est.assumptions[0].text


def test_every_number_has_a_meaning_in_training_too(llama8b) -> None:
    est = estimate_memory({"model": llama8b.name, "task": "qlora", "gpus": 4, "zero": 3}, llama8b)
    assert set(est.meanings) == set(MemoryBreakdown.model_fields)
    assert all(est.meanings.values())


def test_per_gpu_requirement_is_the_same_estimate(qwen7b) -> None:
    fast = per_gpu_requirement(qwen7b, framework="vllm", context_tokens=4096, gen_tokens=512, batch=4, gpus=2)
    slow = estimate_memory(
        EstimateRequest(model=qwen7b.name, framework="vllm", prompt_tokens=3584, gen_tokens=512, batch=4, gpus=2)
    )
    assert fast == slow


def test_tokens_beyond_max_context_are_allowed_with_a_warning(qwen7b) -> None:
    est = estimate_memory({"model": qwen7b.name, "prompt_tokens": 100_000}, qwen7b)
    assert any("max context" in w.text for w in est.warnings)


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"batch": 0}, "batch"),
        ({"batch": -3}, "batch"),
        ({"batch": 200_000}, "batch"),
        ({"prompt_tokens": 20_000_000}, "prompt_tokens"),
        ({"seq_len": -1}, "seq_len"),
        ({"gpus": 0}, "gpus"),
        ({"quant": "gptq-int3"}, "'gptq-int4'"),
        ({"precision": "int2"}, "'bf16'"),
        ({"task": "full", "quant": "gptq-int4"}, "qlora"),
        ({"task": "lora", "quant": "awq-int4"}, "qlora"),
        ({"task": "qlora", "quant": "gptq-int8"}, "4-bit"),
        ({"zero": 3}, "training"),
        ({"task": "full", "prompt_tokens": 100}, "seq_len"),
        ({"task": "full", "framework": "vllm"}, "inference engine"),
        ({"task": "full", "zero": 1, "offload": "optimizer+params"}, "zero=3"),
        ({"precision": "int4", "quant": "gptq-int8"}, "contradicts"),
        ({"prompt_tokens": 100, "gen_tokens": 20, "seq_len": 50}, "seq_len"),
        ({"gpu_memory_utilization": 1.5}, "gpu_memory_utilization"),
        ({"lora_targets": "q,x"}, "lora_targets"),
        ({"bogus": 1}, "bogus"),
    ],
)
def test_bad_input_gives_one_clear_line(data: dict, fragment: str) -> None:
    with pytest.raises(ToolInputError) as err:
        parse_request({"model": "Qwen2.5-7B-Instruct", **data})
    message = str(err.value)
    assert fragment in message
    assert "\n" not in message


def test_unknown_model_is_a_tool_input_error() -> None:
    with pytest.raises(ToolInputError):
        estimate_memory({"model": "Qwen2.5-70B"})


def test_none_values_and_text_numbers_are_accepted_from_the_cli() -> None:
    req = parse_request({"model": "x", "task": "full", "zero": "2", "seq_len": None, "lora_targets": "q, v"})
    assert req.zero == 2 and req.seq_len is None and req.lora_targets == ("q", "v")


def test_thousand_estimates_with_json_take_well_under_two_seconds(qwen7b) -> None:
    requests = [
        EstimateRequest(model=qwen7b.name, framework="vllm", prompt_tokens=1000 + i, gpus=2, gpu_memory_gib=80)
        for i in range(1000)
    ]
    estimate_memory(requests[0], qwen7b)
    start = time.perf_counter()
    for req in requests:
        json.loads(estimate_memory(req, qwen7b).model_dump_json())
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize(
    ("request_fields", "message"),
    [
        ({"model": "llama3.1-8b", "framework": "vllm", "gpus": 3}, "does not divide"),
        ({"model": "qwen2.5-7b", "gpus": 1000}, "at most"),
    ],
)
def test_layouts_no_engine_accepts_are_refused(request_fields: dict[str, object], message: str) -> None:
    with pytest.raises(ToolInputError, match=message):
        estimate_memory(request_fields)
