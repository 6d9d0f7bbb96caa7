"""Golden tests for what a training recipe's framework allocates beyond the model's own tensors.

One test per behaviour, each naming the source code it reads; the expected numbers are derived from that
code (sizes in its config files), not from any measurement, so no tolerance hides a fitted constant.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tools.errors import ToolInputError
from tools.memory import estimate_memory
from tools.memory_request import ALL_LORA_TARGETS
from tools.memory_stack import (
    deepspeed_fp32_grad_bytes,
    deepspeed_overlap_comm,
    gptq_training_dequant_bytes,
    loss_in_fp32,
    peft_adapters_in_base_dtype,
    zero_bucket_bytes,
)
from tools.memory_terms import GIB, lora_trainable_params, loss_logits_bytes, shapes
from tools.models import resolve_model

# Qwen v1 finetune/ds_config_zero2.json: stage 2, overlap_comm true, contiguous_gradients true,
# reduce_bucket_size 2e8, allgather_bucket_size 2e8 (QwenLM/Qwen finetune/ at the README's commit).
QWEN_ZERO2 = {
    "framework": "deepspeed",
    "zero": 2,
    "reduce_bucket_size": 200_000_000,
    "allgather_bucket_size": 200_000_000,
    "overlap_comm": True,
}


def test_deepspeed_zero2_allocates_its_gradient_buffers_on_one_gpu_too() -> None:
    # deepspeed/runtime/zero/stage_1_and_2.py backward(): with contiguous_gradients it allocates
    # ipg_buffer = [torch.empty(reduce_bucket_size, dtype=self.dtype)], and a second one when overlap_comm
    # is on - whatever the number of GPUs. No all-gather happens on one GPU.
    arch = resolve_model("Qwen-7B-Chat")
    req = {"model": arch.name, "task": "qlora", "quant": "gptq-int4", "precision": "fp16", "seq_len": 512}
    plain = estimate_memory({**req, "framework": "peft"}, arch)
    ds = estimate_memory({**req, **QWEN_ZERO2}, arch)
    assert (ds.per_gpu.other_gib - plain.per_gpu.other_gib) * GIB == pytest.approx(2 * 2e8 * 2, rel=0.001)
    assert any("two (overlap_comm on)" in line.text and "no all-gather" in line.text for line in ds.assumptions)
    # Unset overlap_comm is DeepSpeed's default: on for ZeRO-3 only (config.py overlap_comm_valid).
    assert deepspeed_overlap_comm(2, None) is False and deepspeed_overlap_comm(3, None) is True
    single = zero_bucket_bytes(arch, 2, hf_auto=False, reduce_elements=10, allgather_elements=7, gpus=1)
    several = zero_bucket_bytes(arch, 2, hf_auto=False, reduce_elements=10, allgather_elements=7, gpus=4)
    assert (single, several) == (10 * 2, (10 + 7) * 2)


def test_deepspeed_keeps_a_remote_code_models_loss_in_16_bits() -> None:
    # transformers/trainer.py: autocast only "if (args.fp16 or args.bf16) and not (self.is_deepspeed_enabled
    # ...)": DeepSpeed casts the module to 16 bits itself. Qwen v1 modeling_qwen.py computes
    # CrossEntropyLoss on its 16-bit logits without .float(), so nothing upcasts; transformers' own models
    # (Qwen2.5 here) call logits.float() and keep fp32 temporaries under DeepSpeed too.
    qwen1, qwen25 = resolve_model("Qwen-7B-Chat"), resolve_model("Qwen2.5-7B-Instruct")
    assert not loss_in_fp32("deepspeed", qwen1)
    assert loss_in_fp32("peft", qwen1) and loss_in_fp32("deepspeed", qwen25)
    tokens = 8192
    per_logit_16 = loss_logits_bytes(qwen1, tokens, chunked=False, compiled=False, fp32_loss=False)
    assert per_logit_16 == tokens * qwen1.vocab_size * 8  # logits, log-softmax and both gradients, 2 B each
    req = {"model": qwen1.name, "task": "lora", "precision": "fp16", "seq_len": tokens, "zero": 2}
    amp = estimate_memory({**req, "framework": "peft", "zero": 0}, qwen1)
    ds = estimate_memory({**req, "framework": "deepspeed", "reduce_bucket_size": 0}, qwen1)
    # At 8192 tokens the loss is the start-of-backward peak: 4 B per logit less (12 -> 8).
    assert (amp.per_gpu.activations_gib - ds.per_gpu.activations_gib) * GIB == pytest.approx(
        tokens * qwen1.vocab_size * 4, rel=0.001
    )
    assert any("loss in 16 bits" in line.text for line in ds.assumptions)


def test_gptq_qlora_keeps_the_running_layers_weights_dequantised_for_backward() -> None:
    # auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py forward(): from kernel_switch_threshold = 128 input
    # rows it builds weight = scales * (weight - zeros) in fp16 and calls torch.matmul(x, weight); autograd
    # keeps that weight for the input gradient. With checkpointing one layer's linears, without all layers'.
    arch = resolve_model("Qwen-72B-Chat")
    layer_fp16 = shapes(arch).linear / arch.num_layers * 2
    assert gptq_training_dequant_bytes(arch, "gptq-int4", 256, grad_ckpt=True) == pytest.approx(layer_fp16)
    assert gptq_training_dequant_bytes(arch, "gptq-int4", 127, grad_ckpt=True) == 0.0  # the CUDA kernel path
    assert gptq_training_dequant_bytes(arch, "bnb-nf4", 256, grad_ckpt=True) == 0.0
    everything = gptq_training_dequant_bytes(arch, "gptq-int4", 256, grad_ckpt=False)
    assert everything == pytest.approx(layer_fp16 * arch.num_layers)
    req = {"model": arch.name, "task": "qlora", "quant": "gptq-int4", "seq_len": 256, "framework": "peft"}
    est = estimate_memory(req, arch)
    assert est.per_gpu.activations_gib * GIB > layer_fp16  # the running layer's dequantised weights
    assert any("dequantises its weight to fp16" in line.text for line in est.assumptions)


def _accuracy_module() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "estimator_accuracy.py"
    spec = importlib.util.spec_from_file_location("estimator_accuracy", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("estimator_accuracy", module)  # dataclasses look their module up by name
    spec.loader.exec_module(sys.modules["estimator_accuracy"])
    return sys.modules["estimator_accuracy"]


def test_heldout_rows_pass_their_recipe_to_the_estimate() -> None:
    # A row's stated optimizer (HF optim=adamw_torch: the foreach step) and the Qwen v1 Q-LoRA script's flags
    # (finetune_qlora_single_gpu.sh: --fp16 --deepspeed finetune/ds_config_zero2.json) reach the request.
    acc = _accuracy_module()
    row = {
        "case_id": "T1",
        "source_id": "qwen1-finetune",
        "model": "Qwen-7B-Chat",
        "task": "qlora",
        "stack": "peft",
        "stack_version": "transformers 4.32 / peft<0.8",
        "num_gpus": "1",
        "precision": "bf16",
        "quant": "gptq-int4",
        "batch": "1",
        "prompt_tokens": "",
        "gen_tokens": "",
        "seq_len": "256",
        "settings": "lora_r=64;grad_ckpt=yes;optim=adamw_torch",
        "metric": "unknown",
        "measured": "11.5",
        "unit": "GB",
    }
    case = acc.heldout_case(row)
    assert case.request["optimizer"] == "adamw_torch"
    assert {k: case.request[k] for k in QWEN_ZERO2} == QWEN_ZERO2
    assert case.request["precision"] == "fp16"
    lora = acc.heldout_case({**row, "task": "lora", "quant": "none"})
    assert lora.request["framework"] == "peft" and "zero" not in lora.request


def test_deepspeed_keeps_16_bit_gradients_and_builds_fp32_ones_only_for_the_step() -> None:
    # ZeRO paper / DeepSpeed memory docs: model states are 2 (16-bit params) + 2 (16-bit grads) + 12 (fp32
    # master, m, v) bytes per parameter. stage_1_and_2.py step(): each group's gradient partition becomes an
    # fp32 single_grad_partition, all alive until optimizer.step(); stage3.py converts one sub_group_size
    # (1e9) group at a time; with offload_optimizer the fp32 gradients are built on the host.
    assert deepspeed_fp32_grad_bytes(3e9, 1, 2, offload=False) == 12e9
    assert deepspeed_fp32_grad_bytes(3e9, 1, 3, offload=False) == 4e9
    assert deepspeed_fp32_grad_bytes(3e9, 1, 2, offload=True) == 0.0
    arch = resolve_model("Qwen2.5-1.5B-Instruct")
    n = shapes(arch).total
    est = estimate_memory(
        {"model": arch.name, "task": "full", "seq_len": 256, "framework": "deepspeed", "zero": 2}, arch
    )
    assert est.peak_phase == "optimizer step (DeepSpeed fp32 gradients)"
    assert est.per_gpu.gradients_gib * GIB == pytest.approx(n * 2, rel=0.001)
    assert est.per_gpu.optimizer_gib * GIB == pytest.approx(n * (12 + 4), rel=0.001)  # states + fp32 gradients


def test_fsdp_mixed_precision_keeps_fp32_parameter_shards_as_the_master_copy() -> None:
    # torch.distributed.fsdp.MixedPrecision docs: param_dtype is used "during forward and backward";
    # "outside forward and backward, the sharded parameters are kept in full precision (e.g. for the
    # optimizer step)". Model states are 4 (fp32 shard) + 4 (fp32 grad) + 8 (AdamW) = 16 B per parameter / N,
    # not DeepSpeed's 2 + 2 + 12 or AMP's 2 + 4 + 12; the 16-bit copies computed with come on top.
    arch = resolve_model("Llama-3.1-8B-Instruct")
    n = shapes(arch).total
    req = {"model": arch.name, "task": "full", "seq_len": 2048, "gpus": 8, "fsdp_fp32_shards": True}
    full = estimate_memory({**req, "fsdp_sharding_strategy": "FULL_SHARD"}, arch)
    gathered = full.per_gpu.weights_gib * GIB - n * 4 / 8
    assert 0 < gathered < n * 2 / 8  # a couple of 16-bit units, far less than a 16-bit shard of the model
    assert full.per_gpu.optimizer_gib * GIB == pytest.approx(n * 8 / 8, rel=0.001)  # no separate master copy
    grad_op = estimate_memory({**req, "fsdp_sharding_strategy": "SHARD_GRAD_OP"}, arch)
    assert grad_op.per_gpu.weights_gib * GIB == pytest.approx(n * 4 / 8 + n * 2, rel=0.001)
    pure = estimate_memory({**req, "fsdp_sharding_strategy": "FULL_SHARD", "master_weights": False}, arch)
    assert pure.per_gpu.weights_gib < full.per_gpu.weights_gib  # pure bf16 (torchtune-style) shards 2 B
    assert any("fp32" in line.text and "FSDP" in line.text for line in full.assumptions)
    # Unset, FSDP keeps mapping onto the ZeRO stage's AMP accounting (2 + 4 + 12 B).
    as_zero = estimate_memory({**req, "fsdp_fp32_shards": False, "fsdp_sharding_strategy": "FULL_SHARD"}, arch)
    assert as_zero.per_gpu.optimizer_gib * GIB == pytest.approx(n * 12 / 8, rel=0.001)


def test_peft_0_7_to_0_10_create_lora_adapters_in_the_base_dtype() -> None:
    # PEFT 0.7-0.10 lora/layer.py update_layer: self.to(weight.device, dtype=weight.dtype) with the base
    # layer's weight; huggingface/peft#1090 (0.6.0: fp32 adapters on creation); huggingface/peft#1706
    # (0.11: autocast_adapter_dtype=True casts fp16/bf16 adapters to fp32).
    assert peft_adapters_in_base_dtype("peft", "0.7.1", "lora")
    assert peft_adapters_in_base_dtype("peft", "0.10.0", "lora")
    assert not peft_adapters_in_base_dtype("peft", "0.6.2", "lora")
    assert not peft_adapters_in_base_dtype("peft", "0.11.0", "lora")
    assert not peft_adapters_in_base_dtype("peft", "0.7.1", "qlora")  # packed/uint8 bases keep fp32 adapters
    assert not peft_adapters_in_base_dtype("peft", None, "lora")
    arch = resolve_model("Qwen2.5-7B-Instruct")
    req = {"model": arch.name, "task": "lora", "seq_len": 512, "framework": "peft", "lora_r": 64}
    new, old = estimate_memory(req, arch), estimate_memory({**req, "framework_version": "0.7.1"}, arch)
    trainable = lora_trainable_params(arch, 64, ALL_LORA_TARGETS)
    # fp32 adapter 4 + AdamW 8 (+ fp32 grad 4 at the end of backward) -> bf16 adapter 2 + AdamW 4 (+ grad 2).
    assert (new.per_gpu.optimizer_gib - old.per_gpu.optimizer_gib) * GIB == pytest.approx(trainable * 4, rel=0.01)
    weights_saved = (new.per_gpu.weights_gib - old.per_gpu.weights_gib) * GIB
    assert weights_saved == pytest.approx(trainable * 2, rel=0.01)
    assert any("PEFT 0.7.1" in line.text for line in old.assumptions)


def test_a_fused_qkv_projection_gets_one_adapter_not_three() -> None:
    # Qwen v1 finetune.py LoraArguments: lora_target_modules = ["c_attn", "c_proj", "w1", "w2"]; c_attn is one
    # nn.Linear(hidden, 3 * hidden), so PEFT adds one A (hidden x r) and one B (r x 3 hidden): r x 4 hidden,
    # where separate q, k, v projections take r x 6 hidden.
    arch = resolve_model("Qwen-7B-Chat")
    h, layers = arch.hidden_size, arch.num_layers
    fused = lora_trainable_params(arch, 64, ("qkv",))
    split = lora_trainable_params(arch, 64, ("q", "k", "v"))
    assert (fused, split) == (64 * 4 * h * layers, 64 * 6 * h * layers)
    with pytest.raises(ToolInputError, match="fused query/key/value"):
        estimate_memory({"model": arch.name, "task": "lora", "lora_targets": ("qkv", "q")}, arch)


def test_a_loader_that_unties_embeddings_holds_the_lm_head_twice() -> None:
    # transformers PR #37905: TorchAoConfig(include_embedding=True, untie_embedding_weights=True) loads, ties,
    # then quantises, leaving the embedding and lm_head as two tensors; llm-compressor PRs #2798/#2835 (a
    # duplicate lm_head in checkpoints whose embeddings were quantised). Untied models are unaffected.
    tied, untied = resolve_model("Qwen2.5-0.5B-Instruct"), resolve_model("Qwen2.5-7B-Instruct")
    assert tied.tie_word_embeddings and not untied.tie_word_embeddings
    req = {"model": tied.name, "prompt_tokens": 128, "gen_tokens": 128}
    base = estimate_memory(req, tied)
    twice = estimate_memory({**req, "untie_embedding_weights": True}, tied)
    head = tied.vocab_size * tied.hidden_size * 2
    assert (twice.per_gpu.weights_gib - base.per_gpu.weights_gib) * GIB == pytest.approx(head, rel=0.002)
    assert any("untie_embedding_weights" in line.text for line in twice.assumptions)
    tp2 = {**req, "framework": "vllm", "gpus": 2, "gpu_memory_gib": 80}
    split = estimate_memory({**tp2, "untie_embedding_weights": True}, tied).per_gpu.weights_gib
    assert (split - estimate_memory(tp2, tied).per_gpu.weights_gib) * GIB == pytest.approx(head / 2, rel=0.01)
    other = {"model": untied.name, "prompt_tokens": 128, "gen_tokens": 128}
    assert estimate_memory({**other, "untie_embedding_weights": True}, untied) == estimate_memory(other, untied)
    with pytest.raises(ToolInputError, match="loading option for inference"):
        estimate_memory({"model": tied.name, "task": "lora", "untie_embedding_weights": True}, tied)


def test_heldout_vllm_rows_pass_their_stated_engine_settings() -> None:
    # A vLLM log row's stated max_model_len and gpu_memory_utilization reach the request (they set V0's
    # profile batch and the KV budget), like max_num_batched_tokens and max_num_seqs before them.
    acc = _accuracy_module()
    row = {
        "case_id": "T2",
        "source_id": "vllm-logs",
        "model": "Qwen3-32B",
        "task": "inference",
        "stack": "vllm",
        "stack_version": "0.6.5 (V0)",
        "num_gpus": "2",
        "precision": "bf16",
        "quant": "none",
        "batch": "1",
        "prompt_tokens": "1",
        "gen_tokens": "1",
        "seq_len": "",
        "settings": "tp=2;max_num_seqs=1;max_model_len=4096;gpu_memory_utilization=0.85",
        "metric": "vllm_weights",
        "measured": "11.62",
        "unit": "GiB",
    }
    req = acc.heldout_case(row).request
    assert (req["max_model_len"], req["max_num_seqs"], req["gpu_memory_utilization"]) == (4096, 1, 0.85)
    assert req["framework_version"] == "0.6.5"
