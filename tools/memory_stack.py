"""Which software stack allocates the memory, and how that changes the numbers: one function per behaviour.

The physics (bytes per weight, per cached token, per activation) lives in :mod:`tools.memory_terms`;
this module says what a given framework *does* with it, version by version. Every function names the
behaviour it models and where it is documented; ``tests/test_memory_stack.py`` holds one golden test per
quirk. Versions are compared as numbers (``"4.38.2"`` < ``"4.45"``); an unknown version means the current
behaviour of that framework.
"""

from __future__ import annotations

import math
import re
from typing import Literal

from tools.architecture import ModelArchitecture
from tools.memory_terms import shapes

Framework = Literal["transformers", "vllm", "sglang", "tensorrt-llm", "deepspeed", "torchtune", "peft"]
SERVING_ENGINES: tuple[Framework, ...] = ("vllm", "sglang", "tensorrt-llm")
TRAINING_STACKS: tuple[Framework, ...] = ("transformers", "deepspeed", "torchtune", "peft")
VERSION_PATTERN = r"^\d+(\.\d+){0,3}([.+-]?[0-9A-Za-z.]*)?$"

# Families whose HF code ships with the checkpoint (trust_remote_code) and predates transformers' Cache
# classes: Qwen (v1) modeling_qwen.py keeps tuple KV caches and computes lm_head over every position.
REMOTE_CODE_TUPLE_CACHE_FAMILIES = frozenset({"Qwen", "qwen"})

# transformers v4.45.0 (Sep 2024): generate() asks for the last position's logits only
# (``num_logits_to_keep``) and no longer upcasts every position to fp32.
LAST_POSITION_LOGITS_SINCE = (4, 45)
# transformers v4.36.0 (Dec 2023): DynamicCache replaces each layer's tensors in place; before it the
# legacy tuple cache was concatenated into new tuples while generate() still held the old ones.
IN_PLACE_CACHE_SINCE = (4, 36)


def parse_version(text: str | None) -> tuple[int, ...] | None:
    """``"4.38.2"`` -> ``(4, 38, 2)``; ``"0.6.5.post1"`` -> ``(0, 6, 5)``; None or no digits -> None."""
    if not text:
        return None
    parts = re.findall(r"\d+", text.split("+")[0])[:3]
    return tuple(int(p) for p in parts) if parts else None


def is_serving_engine(framework: str) -> bool:
    """vLLM, SGLang and TensorRT-LLM pre-allocate a KV pool and shard with tensor parallelism."""
    return framework in SERVING_ENGINES


def is_remote_code(arch: ModelArchitecture) -> bool:
    """Say whether the checkpoint runs its own modelling code (trust_remote_code) with tuple caches."""
    return arch.family in REMOTE_CODE_TUPLE_CACHE_FAMILIES


def _older(version: str | None, since: tuple[int, ...]) -> bool:
    parsed = parse_version(version)
    return parsed is not None and parsed < since


def prompt_logits_bytes_per_element(framework: str, version: str | None, arch: ModelArchitecture) -> float:
    """Bytes per (prompt token x vocab entry) that HF generate() keeps for the prompt's logits.

    * transformers < 4.45: ``lm_head`` over every prompt position in bf16, then ``.float()``: 2 + 4 = 6 B
      (Qwen2 speed benchmark, transformers 4.38.2: Qwen2-0.5B at a 30k prompt peaks at 27.6 GiB).
    * remote code without the upcast (Qwen v1 ``modeling_qwen.py``): every position in bf16, 2 B.
    * transformers >= 4.45 and serving engines: the last position only, 0 (negligible).
    """
    if framework != "transformers":
        return 0.0
    if is_remote_code(arch):
        return 2.0  # its own lm_head call, whatever the transformers version
    if _older(version, LAST_POSITION_LOGITS_SINCE):
        return 6.0
    return 0.0


def kv_cache_copies_at_peak(framework: str, version: str | None, arch: ModelArchitecture) -> float:
    """How many copies of the KV cache are alive at the end of a decode step.

    Tuple caches (transformers < 4.36, and remote code such as Qwen v1) build the new cache with
    ``torch.cat`` while generate() still holds the previous step's tuple: two copies. DynamicCache
    (4.36+) and serving engines' paged caches write in place: one.
    """
    if framework != "transformers":
        return 1.0
    if _older(version, IN_PLACE_CACHE_SINCE) or is_remote_code(arch):
        return 2.0
    return 1.0


def untied_lm_head_bytes(arch: ModelArchitecture, untie: bool, tp: int = 1) -> float:
    """Bytes of an LM head a quantising loader keeps apart from the tied embedding, one GPU.

    transformers PR #37905 (``TorchAoConfig(include_embedding=True, untie_embedding_weights=True)``): the
    unquantised weights are loaded and tied, then quantised, which breaks the tie - the embedding and the
    LM head end up as two tensors instead of one shared matrix. llm-compressor PRs #2798/#2835: quantising
    embeddings unties them, and until #2835 re-tied identical ones the checkpoint carried a duplicate
    ``lm_head``. Counted in 16 bits (an upper bound when the head is quantised too); zero for models that
    are not tied, whose head is already counted. Under tensor parallelism the head is vocab-parallel.
    """
    if not untie or not arch.tie_word_embeddings:
        return 0.0
    return arch.vocab_size * arch.hidden_size * 2.0 / tp


# ------------------------------------------------------------------------------------ training stacks


def default_master_weights(framework: str) -> bool:
    """Say whether the stack keeps fp32 master weights: torchtune trains in pure bf16, the others use AMP."""
    return framework != "torchtune"


# PEFT 0.7.0 (Dec 2023) moved LoRA onto a wrapped ``base_layer`` and created adapters in that layer's dtype;
# PEFT 0.11.0 (PR #1706, ``autocast_adapter_dtype=True``) upcasts fp16/bf16 adapters to fp32 again.
PEFT_ADAPTERS_IN_BASE_DTYPE = ((0, 7), (0, 11))


def peft_adapters_in_base_dtype(framework: str, version: str | None, task: str) -> bool:
    """Say whether PEFT creates LoRA adapters in the 16-bit dtype of the weights they wrap.

    PEFT 0.7-0.10 ``LoraLayer.update_layer``: ``weight = self.get_base_layer().weight`` then
    ``self.to(weight.device, dtype=weight.dtype)``, so a bf16 base gets bf16 adapters, bf16 gradients and
    (torch AdamW follows the parameter dtype) bf16 moments. Before 0.7 the LoRA ``Linear`` initialised its own
    fp32 weight before the base weight was swapped in (huggingface/peft#1090: fp32 adapters with 0.6.0);
    from 0.11 ``get_peft_model(autocast_adapter_dtype=True)`` casts them to fp32 (huggingface/peft#1706).
    Quantised bases (uint8 / packed int32 weights) keep fp32 adapters in every version, so only LoRA counts.
    """
    if framework != "peft" or task != "lora":
        return False
    parsed = parse_version(version)
    since, until = PEFT_ADAPTERS_IN_BASE_DTYPE
    return parsed is not None and since <= parsed < until


def modules_to_save_params(arch: ModelArchitecture, modules: tuple[str, ...]) -> int:
    """Parameters PEFT trains in full when ``modules_to_save`` names the embedding and/or the LM head.

    PEFT wraps each named module in ``ModulesToSaveWrapper``: the frozen original stays and a trainable
    copy is added (a tied head is wrapped separately from the embedding, so both count).
    """
    embed = arch.vocab_size * arch.hidden_size
    return embed * sum(1 for m in ("embed", "lm_head") if m in modules)


# Bytes per modules_to_save parameter (16-bit base): trainable copy 2 + gradient 2 (kept across
# gradient-accumulation steps) + AdamW's two moments in the parameter dtype 4 + the foreach step's
# temporary (sqrt of the second moment) 2. Qwen v1 README "LoRA (emb)" minus "LoRA": 10.7-11.2 B per
# wrapped parameter on Qwen-1.8B/7B/14B.
MODULES_TO_SAVE_BYTES = {"weights": 2.0, "gradients": 2.0, "optimizer": 6.0}


def modules_to_save_bytes(arch: ModelArchitecture, modules: tuple[str, ...], act_bytes: float) -> dict[str, float]:
    """Bytes of the trainable copies PEFT keeps for ``modules_to_save``, by memory term, one GPU."""
    params = modules_to_save_params(arch, modules)
    scale = act_bytes / 2
    return {term: params * per * scale for term, per in MODULES_TO_SAVE_BYTES.items()}


def dora_transient_bytes(largest_matrix_elements: int, act_bytes: float = 2) -> float:
    """DoRA's extra working set: PEFT composes ``W + scale * B @ A`` densely to take its column norm.

    One dense copy of the adapted matrix (plus its norm vector, negligible) exists while a layer runs;
    the magnitude vectors add only ``out_features`` parameters per matrix.
    """
    return largest_matrix_elements * act_bytes


def kbit_training_fp32_upcast_bytes(arch: ModelArchitecture, framework: str, quant: str) -> float:
    """Extra bytes when PEFT's ``prepare_model_for_kbit_training`` upcasts the unquantised weights to fp32.

    peft/utils/other.py: for bitsandbytes-loaded models it casts every fp16/bf16 parameter (embeddings,
    LM head, norms) to fp32 (GPTQ/AWQ bases are left alone): 2 more bytes per such parameter.
    """
    if framework != "peft" or not quant.startswith("bnb-"):
        return 0.0
    pb = arch.param_breakdown()
    return (pb.embedding + pb.lm_head + pb.norms) * 2.0


# DeepSpeed defaults (deepspeed/runtime/zero/config.py): reduce_bucket_size and allgather_bucket_size
# 5e8 elements; HF Trainer's "auto" sets reduce_bucket_size = hidden^2,
# stage3_prefetch_bucket_size = 0.9 x hidden^2, stage3_param_persistence_threshold = 10 x hidden.
DEEPSPEED_BUCKET_ELEMENTS = 500_000_000


def deepspeed_overlap_comm(zero: int, overlap_comm: bool | None) -> bool:
    """DeepSpeed's ``overlap_comm`` as it runs: unset means True for ZeRO-3 and False for ZeRO 1/2.

    deepspeed/runtime/zero/config.py ``DeepSpeedZeroConfig.overlap_comm_valid``: ``None`` becomes
    ``stage == 3``. Configs such as HF's and Qwen's ``ds_config_zero2.json`` set it to true.
    """
    return zero == 3 if overlap_comm is None else overlap_comm


def zero_bucket_bytes(
    arch: ModelArchitecture,
    zero: int,
    *,
    hf_auto: bool,
    grad_bytes: float = 2,
    prefetch_elements: int | None = None,
    reduce_elements: int | None = None,
    allgather_elements: int | None = None,
    overlap_comm: bool = False,
    gpus: int | None = None,
) -> float:
    """DeepSpeed ZeRO buffers alive at the gradient peak, one GPU, by their config names.

    ZeRO 1/2 (deepspeed/runtime/zero/stage_1_and_2.py ``backward``): with ``contiguous_gradients`` (the
    default) every backward allocates an ``ipg_buffer`` of ``reduce_bucket_size`` 16-bit elements, and a
    second one when ``overlap_comm`` is on (double buffering) - also on a single GPU. Across GPUs the
    updated partitions are all-gathered in ``allgather_bucket_size`` chunks (none on one GPU; ``gpus``
    None means several). ZeRO 3: the reduce bucket plus the prefetch bucket (the gathered layer itself
    is in the weights term). Unset sizes: HF ``auto`` (hidden^2) or DeepSpeed's 5e8; ``prefetch_elements``
    overrides the prefetch bucket (``stage3_prefetch_bucket_size``).
    """
    if zero == 0:
        return 0.0
    h2 = arch.hidden_size**2
    default = h2 if hf_auto else DEEPSPEED_BUCKET_ELEMENTS
    reduce_elems = default if reduce_elements is None else reduce_elements
    if zero == 3:
        prefetch = prefetch_elements if prefetch_elements is not None else (0.9 * h2 if hf_auto else 50_000_000)
        return (reduce_elems + prefetch) * grad_bytes
    ipg = reduce_elems * (2 if overlap_comm else 1)
    allgather = 0 if gpus == 1 else (default if allgather_elements is None else allgather_elements)
    return (ipg + allgather) * grad_bytes


# deepspeed/runtime/zero/config.py: sub_group_size default 1e9 (HF's and Qwen's ds_config_zero3.json say the same).
DS_SUB_GROUP_SIZE = 1_000_000_000


def deepspeed_fp32_grad_bytes(trainable_params: float, shards: int, zero: int, *, offload: bool) -> float:
    """Return the fp32 gradients DeepSpeed builds on the GPU for its optimizer step, one GPU.

    DeepSpeed keeps gradients in the 16-bit model dtype through backward and converts them for the fp32
    optimizer only at the step. ZeRO 0-2 (deepspeed/runtime/zero/stage_1_and_2.py ``step``): every param
    group's flat gradient partition becomes ``single_grad_partition`` in fp32, all alive until
    ``optimizer.step()``. ZeRO-3 (stage3.py ``_prepare_fp32_grad_for_sub_group``): one ``sub_group_size``
    group at a time. With ``offload_optimizer`` the fp32 gradients are built in host memory: none here.
    """
    if offload:
        return 0.0
    partition = trainable_params / shards
    return 4.0 * (min(partition, DS_SUB_GROUP_SIZE) if zero == 3 else partition)


def loss_in_fp32(framework: str, arch: ModelArchitecture) -> bool:
    """Say whether the cross-entropy's temporaries are fp32 (True) or stay in the 16-bit model dtype.

    HF Trainer turns on ``torch.autocast`` only without DeepSpeed ("deepspeed ... manage their own half
    precision", transformers/trainer.py), and autocast runs ``cross_entropy``/``log_softmax`` in fp32;
    transformers' own models also call ``logits.float()``. Under DeepSpeed the engine casts the module to
    fp16/bf16 and nothing upcasts, so a remote-code model without ``.float()`` (Qwen v1
    ``modeling_qwen.py``: ``CrossEntropyLoss()(shift_logits, ...)`` on 16-bit logits) computes its
    log-softmax and gradients in 16 bits.
    """
    return not (framework == "deepspeed" and is_remote_code(arch))


# AutoGPTQ QuantLinear (qlinear_cuda_old / qlinear_cuda): kernel_switch_threshold=128 input rows.
GPTQ_KERNEL_SWITCH_ROWS = 128


def gptq_training_dequant_bytes(arch: ModelArchitecture, quant: str, tokens: int, *, grad_ckpt: bool) -> float:
    """fp16 weights a GPTQ base keeps for backward while training adapters on it (QLoRA on GPTQ), one GPU.

    auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py ``forward`` (what transformers' ``GPTQConfig(bits=4,
    disable_exllama=True)`` loads, e.g. Qwen v1 ``finetune.py --q_lora``): for ``kernel_switch_threshold``
    (128) input rows or more it dequantises the whole weight, ``weight = scales * (weight - zeros)``, and
    calls ``torch.matmul(x, weight)``; autograd keeps that fp16 weight to compute the input gradient. With
    gradient checkpointing one recomputed layer's linear weights are alive while it runs backward;
    without it every layer's.
    """
    if not quant.startswith("gptq-") or tokens < GPTQ_KERNEL_SWITCH_ROWS:
        return 0.0
    s = shapes(arch)
    layer_linear = s.linear / arch.num_layers
    return layer_linear * 2.0 * (1 if grad_ckpt else arch.num_layers)


# ------------------------------------------------------------------------------------ serving engines

# vLLM 0.8.0 (Mar 2025) made the V1 engine the default; V1 always chunks prefills (vllm/engine/arg_utils.py).
VLLM_V1_SINCE = (0, 8)
# V0 vllm/config.py SchedulerConfig: without chunked prefill max(max_model_len, 2048); arg_utils.py turns
# chunked prefill on by itself above a 32K context, then with 512 batched tokens (0.5.x-0.7.x logs:
# "Chunked prefill is enabled with max_num_batched_tokens=512").
VLLM_V0_MIN_BATCHED_TOKENS = 2048
VLLM_V0_LONG_CONTEXT = 32 * 1024
VLLM_V0_CHUNKED_BATCHED_TOKENS = 512
# CUDA graph batch sizes captured by default: V0 _BATCH_SIZES_TO_CAPTURE [1, 2, 4, 8 .. 256];
# V1 cudagraph_capture_sizes [1, 2, 4, 8 .. 512]. Captured after the KV cache is allocated, so outside
# the profiled peak in both.
VLLM_GRAPH_MAX_BATCH = {"v0": 256, "v1": 512}


def vllm_engine_generation(version: str | None) -> Literal["v0", "v1"]:
    """Say which vLLM engine a version runs by default: V0 before 0.8.0, V1 from 0.8.0 (None = current)."""
    return "v0" if _older(version, VLLM_V1_SINCE) else "v1"


def vllm_profile_tokens(version: str | None, requested: int | None, max_model_len: int) -> int:
    """Tokens in vLLM's start-up profile run, whose activation peak is subtracted from the KV budget.

    An explicit ``max_num_batched_tokens`` is used as given. Otherwise V1 (0.8+) chunks prefills, so the
    profile batch is its default budget (8192, :data:`tools.memory_request` default); V0 profiles a whole
    ``max(max_model_len, 2048)``-token prefill unless the context exceeds 32K, where it switches chunked
    prefill on with 512 tokens. Sources: vllm/config.py SchedulerConfig and vllm/engine/arg_utils.py.
    """
    if requested is not None:
        return requested
    if vllm_engine_generation(version) == "v1":
        return 8192
    if max_model_len > VLLM_V0_LONG_CONTEXT:
        return VLLM_V0_CHUNKED_BATCHED_TOKENS
    return max(max_model_len, VLLM_V0_MIN_BATCHED_TOKENS)


# ------------------------------------------------------------------------------ ZeRO-3 and FSDP details

# deepspeed/runtime/zero/config.py defaults (elements); HF Trainer's "auto" replaces the first two with
# 0.9 x hidden^2 and 10 x hidden (transformers/integrations/deepspeed.py).
DS_STAGE3_PREFETCH_BUCKET_SIZE = 50_000_000
DS_STAGE3_PARAM_PERSISTENCE_THRESHOLD = 100_000
DS_STAGE3_MAX_LIVE_PARAMETERS = 1_000_000_000
FsdpShardingStrategy = Literal["FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD"]


def zero3_settings(
    arch: ModelArchitecture, prefetch: int | None, persistence: int | None, max_live: int | None
) -> tuple[int, int, int]:
    """DeepSpeed ZeRO-3's three sizes in elements, unset ones as HF Trainer's ``auto`` fills them.

    ``stage3_prefetch_bucket_size`` (auto 0.9 x hidden^2), ``stage3_param_persistence_threshold``
    (auto 10 x hidden), ``stage3_max_live_parameters`` (DeepSpeed default 1e9; HF leaves it alone).
    """
    h = arch.hidden_size
    return (
        int(0.9 * h * h) if prefetch is None else prefetch,
        10 * h if persistence is None else persistence,
        DS_STAGE3_MAX_LIVE_PARAMETERS if max_live is None else max_live,
    )


def zero3_persistent_params(arch: ModelArchitecture, threshold: int) -> int:
    """Parameters ZeRO-3 keeps whole on every GPU: each tensor with fewer than ``threshold`` elements.

    ``stage3_param_persistence_threshold`` (deepspeed/runtime/zero/partition_parameters.py): such
    tensors are never partitioned, so norms and biases (and, with a high threshold, whole small
    matrices) sit unsharded on every GPU.
    """
    h, a, d, kv = arch.hidden_size, arch.num_attention_heads, arch.head_dim, arch.num_kv_heads
    layer = [h] * arch.norms_per_layer + [h * a * d, h * kv * d, h * kv * d, a * d * h]
    layer += [h * arch.intermediate_size] * (3 if arch.gated_mlp else 2)
    if arch.qkv_bias:
        layer += [a * d, kv * d, kv * d]
    if arch.o_bias:
        layer.append(h)
    small = sum(n for n in layer if n < threshold) * arch.num_layers
    return small + (h if h < threshold else 0)  # final norm


def zero3_live_params(arch: ModelArchitecture, prefetch: int, max_live: int) -> int:
    """Parameters DeepSpeed ZeRO-3 holds gathered at once: the running sub-module plus the prefetch.

    DeepSpeed gathers leaf modules (one ``nn.Linear`` or the embedding), not whole layers as FSDP does;
    the next ones are fetched ahead up to ``stage3_prefetch_bucket_size`` elements, and the total stays
    under ``stage3_max_live_parameters`` (never below the running module).
    """
    s = shapes(arch)
    current = max(s.largest_matrix, s.embedding, s.lm_head)
    return max(current, min(current + prefetch, max_live))


def fsdp_fp32_shard_weight_bytes(
    weights_16bit: float,
    strategy: FsdpShardingStrategy,
    gpus: int,
    gathered_16bit: float,
    *,
    params_offloaded: bool,
) -> float:
    """Weights on one GPU under FSDP mixed precision: fp32 sharded parameters plus the 16-bit copy computed with.

    torch.distributed.fsdp.MixedPrecision docs: ``param_dtype`` is the dtype "during forward and backward";
    "outside forward and backward, the sharded parameters are kept in full precision (e.g. for the
    optimizer step)". So the fp32 shard is the optimizer's parameter (no separate master copy; its
    gradient is fp32 too). FULL_SHARD adds the gathered 16-bit units (current + next); SHARD_GRAD_OP
    keeps the whole model unsharded in 16 bits through forward and backward; NO_SHARD holds the fp32
    model whole plus its 16-bit copy. With CPU offload only the gathered units stay on the GPU.
    """
    shards = 1 if strategy == "NO_SHARD" else gpus
    fp32 = 0.0 if params_offloaded else weights_16bit * 2 / shards
    return fp32 + (gathered_16bit if strategy == "FULL_SHARD" else weights_16bit)


def fsdp_zero_stage(strategy: FsdpShardingStrategy) -> int:
    """Return the ZeRO stage whose sharding a PyTorch FSDP ``ShardingStrategy`` matches.

    torch.distributed.fsdp.ShardingStrategy docs: FULL_SHARD shards parameters, gradients and optimizer
    states (ZeRO-3; FSDP gathers one wrapped decoder layer at a time and prefetches the next);
    SHARD_GRAD_OP keeps parameters unsharded through forward and backward and shards gradients and
    optimizer states (ZeRO-2); NO_SHARD replicates everything (DDP).
    """
    return {"FULL_SHARD": 3, "SHARD_GRAD_OP": 2, "NO_SHARD": 0}[strategy]


# --------------------------------------------------------------------------------- loss implementations


def fused_linear_ce_bytes(arch: ModelArchitecture, tokens: int, act_bytes: float = 2) -> float:
    """Peak bytes of Liger's fused linear cross-entropy (``LigerFusedLinearCrossEntropyLoss``), one GPU.

    liger_kernel/ops/fused_linear_cross_entropy.py: the hidden states are cut into chunks of
    ``next_power_of_2(ceil(BT / ceil(V / H)))`` tokens so that one chunk's logits are about the size of
    the hidden states; it keeps that chunk's 16-bit logits (turned into their gradient in place), the
    16-bit gradient of the hidden states (computed during forward) and an fp32 loss per token. The full
    ``tokens x vocab`` logits never exist. The LM head's gradient is in the gradients term.
    """
    h, v = arch.hidden_size, arch.vocab_size
    chunk = min(tokens, 1 << max(0, math.ceil(tokens / math.ceil(v / h)) - 1).bit_length())
    return tokens * h * act_bytes + chunk * v * act_bytes + tokens * 4.0


# ------------------------------------------------------------------------------ optimizers by their names

# The optimizer names the stacks use -> (our optimizer, whether its step is the foreach implementation).
# HF TrainingArguments.optim (transformers/training_args.py OptimizerNames, also TRL's configs);
# torchtune recipes name the class (``optimizer._component_``); PyTorch's AdamW defaults to foreach on CUDA.
# Our own names (adamw, sgd, ...) are not in the table: they mean the fused step unless told otherwise.
OPTIMIZER_NAMES: dict[str, tuple[str, bool]] = {
    "adamw_torch": ("adamw", True),
    "adamw_hf": ("adamw", True),
    "adamw_torch_fused": ("adamw", False),
    "adamw_apex_fused": ("adamw", False),
    "adamw_bnb_8bit": ("adamw-8bit", False),
    "adamw_8bit": ("adamw-8bit", False),
    "adamw_torch_8bit": ("adamw-8bit", False),
    "paged_adamw_32bit": ("paged-adamw", False),
    "paged_adamw": ("paged-adamw", False),
    "paged_adamw_8bit": ("paged-adamw-8bit", False),
    "torch.optim.adamw": ("adamw", True),
    "torch.optim.sgd": ("sgd", True),
    "bitsandbytes.optim.adamw8bit": ("adamw-8bit", False),
    "bitsandbytes.optim.pagedadamw": ("paged-adamw", False),
    "bitsandbytes.optim.pagedadamw8bit": ("paged-adamw-8bit", False),
    "bitsandbytes.optim.pagedadamw32bit": ("paged-adamw", False),
    "torchao.optim.adamw8bit": ("adamw-8bit", False),
    "torchao.prototype.low_bit_optim.adamw8bit": ("adamw-8bit", False),
}


def optimizer_from_name(name: str) -> tuple[str, bool] | None:
    """Map a stack's optimizer name to ``(optimizer, foreach)``; None when the name is not a stack's.

    ``adamw_8bit`` / ``bitsandbytes.optim.PagedAdamW8bit`` / ``torch.optim.AdamW`` are spelled as
    HF/TRL ``optim`` values and torchtune ``_component_`` paths; case is ignored.
    """
    return OPTIMIZER_NAMES.get(name.strip().lower())


def foreach_step_temporary_bytes(trainable_params: float, state_bytes: float, shards: int = 1) -> float:
    """Transient bytes of a foreach (multi-tensor) AdamW/SGD step, one GPU.

    torch/optim/adamw.py ``_multi_tensor_adamw``: ``exp_avg_sq_sqrt = torch._foreach_sqrt(exp_avg_sqs)``
    builds one new tensor per parameter, a full copy of the second moment in the state dtype (SGD's
    foreach step likewise copies its momentum); the fused kernel (``fused=True``, HF ``adamw_torch_fused``)
    and DeepSpeed's FusedAdam update in place.
    """
    return trainable_params * state_bytes / shards
