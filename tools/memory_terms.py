"""One function per GPU-memory term, in bytes (B), from a :class:`ModelArchitecture`.

Every function is pure arithmetic on the architecture; :mod:`tools.memory` assembles the terms into
a per-GPU breakdown for a request. ``act_bytes`` is the activation dtype width (2 for bf16/fp16, 4
for fp32). A "token" below is one position of one sequence: ``tokens = batch x sequence length``.

Coefficients come from the tensors the frameworks keep alive, counted operation by operation
(transformers 4.45+ modelling code, torchtune recipes, vLLM's profile run); the module docstring of
:mod:`tools.memory` lists the assumptions and limits, and ``benchmarks/estimator_accuracy.py`` checks
the result against published measurements.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): pydantic would
# compile each field's annotation string again on every cold start (see README, Cold starts).
import math
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict

from tools.architecture import ModelArchitecture
from tools.quantization import WeightFormat

GIB = 2**30
LoraTarget = Literal["q", "k", "v", "o", "gate", "up", "down", "qkv"]
Optimizer = Literal["adamw", "adamw-8bit", "sgd", "paged-adamw", "paged-adamw-8bit"]

# bitsandbytes/torchao 8-bit optimizers: one fp32 absmax per 256-value block, for each of m and v.
_EIGHT_BIT_STATE_BYTES = 2 + 2 * 4 / 256
# Hidden-size tensors alive during a transformers prefill MLP: inputs_embeds, the layer input held
# by the model's loop, the post-attention residual and the normed MLP input.
_PREFILL_RESIDENT_HIDDEN = 4
# Cross-entropy bytes per logit: bf16 logits + fp32 log-softmax + fp32 grad + bf16 grad (unchunked);
# chunked keeps the 16-bit logits and one chunk (of 8) of temporaries; compiled fuses the fp32 ones.
_CE_CHUNKS = 8
# vLLM sampler during the profile run: fp32 logits plus ~2 same-size copies (probs, sorted top-p/k).
_VLLM_SAMPLER_COPIES = 3


class Shapes(BaseModel):
    """Parameter counts per part, from :meth:`ModelArchitecture.param_breakdown`, and matrix shapes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    total: int
    active: int
    linear: int
    embedding: int
    lm_head: int
    rest: int
    layer_params_max: int
    largest_matrix: int
    attention_per_layer: int
    kv_proj_per_layer: int


@lru_cache(maxsize=256)
def shapes(arch: ModelArchitecture) -> Shapes:
    """Parameter counts the memory terms need, cached per architecture (the planner's hot path)."""
    pb = arch.param_breakdown()
    L = arch.num_layers
    attention = pb.attention // L
    dense_mlp = (3 if arch.gated_mlp else 2) * arch.hidden_size * arch.intermediate_size
    moe_mlp = 0
    if arch.moe is not None and arch.moe_layers:
        moe_mlp = (pb.routed_experts + pb.shared_experts + pb.router) // arch.moe_layers
    has_dense = arch.moe is None or arch.moe.dense_layers > 0
    layer_max = attention + max(dense_mlp if has_dense else 0, moe_mlp) + arch.norms_per_layer * arch.hidden_size
    kv_proj = 0 if arch.mla else 2 * arch.hidden_size * arch.num_kv_heads * arch.head_dim
    return Shapes(
        total=pb.total,
        active=pb.active,
        linear=pb.linear,
        embedding=pb.embedding,
        lm_head=pb.lm_head,
        rest=pb.total - pb.linear - pb.embedding - pb.lm_head,
        layer_params_max=layer_max,
        largest_matrix=_largest_matrix(arch, has_dense),
        attention_per_layer=attention,
        kv_proj_per_layer=kv_proj,
    )


def _largest_matrix(arch: ModelArchitecture, has_dense: bool) -> int:
    h = arch.hidden_size
    sizes = [h * arch.num_attention_heads * arch.head_dim]
    if has_dense:
        sizes.append(h * arch.intermediate_size)
    if arch.moe is not None:
        sizes.append(h * arch.moe.expert_intermediate_size)
        sizes.append(h * arch.moe.shared_expert_intermediate_size)
    if arch.mla is not None:
        m = arch.mla
        sizes.append(m.kv_lora_rank * arch.num_attention_heads * (m.qk_nope_head_dim + m.v_head_dim))
        sizes.append(h * arch.num_attention_heads * m.v_head_dim)
    return max(sizes)


# ---------------------------------------------------------------------------------------------- weights


def weight_bytes(arch: ModelArchitecture, fmt: WeightFormat) -> float:
    """Bytes of all weights on one device: linear layers in ``fmt``, the rest in 16-bit (fp32 if fp32).

    MoE models count every expert (all experts sit in memory even though few run per token).
    """
    s = shapes(arch)
    return s.linear * fmt.linear_bytes_per_param + (s.embedding + s.lm_head + s.rest) * fmt.other_bytes_per_param


def tensor_parallel_weight_bytes(arch: ModelArchitecture, fmt: WeightFormat, tp: int) -> float:
    """Bytes of weights on ONE GPU of a ``tp``-way tensor-parallel group (vLLM / Megatron layout).

    Linear layers are split column/row-wise, the embedding and lm_head vocab-parallel; norms and MoE
    routers are replicated. K/V projections are replicated when there are fewer KV heads than GPUs
    (each GPU keeps ``max(1, kv_heads / tp)`` heads).
    """
    s = shapes(arch)
    kv_share = max(1 / tp, 1 / arch.num_kv_heads) if s.kv_proj_per_layer else 1 / tp
    kv_linear = s.kv_proj_per_layer * arch.num_layers
    linear = (s.linear - kv_linear) / tp + kv_linear * kv_share
    return linear * fmt.linear_bytes_per_param + ((s.embedding + s.lm_head) / tp + s.rest) * fmt.other_bytes_per_param


def layer_split(arch: ModelArchitecture, stages: int) -> list[int]:
    """Count decoder layers per GPU when layers are split in order (HF ``device_map="auto"``, pipeline).

    The first ``L mod stages`` GPUs take one extra layer; GPU 0 also holds the embedding and the last
    GPU the final norm and lm_head.
    """
    base, extra = divmod(arch.num_layers, stages)
    return [base + (1 if i < extra else 0) for i in range(stages)]


def layer_split_weight_bytes(arch: ModelArchitecture, fmt: WeightFormat, stages: int) -> list[float]:
    """Bytes of weights on each GPU of a layer split (they sum to :func:`weight_bytes`)."""
    s = shapes(arch)
    per_layer = (weight_bytes(arch, fmt) - (s.embedding + s.lm_head) * fmt.other_bytes_per_param) / arch.num_layers
    out = [n * per_layer for n in layer_split(arch, stages)]
    out[0] += s.embedding * fmt.other_bytes_per_param
    out[-1] += s.lm_head * fmt.other_bytes_per_param
    return out


def dequant_scratch_bytes(arch: ModelArchitecture, fmt: WeightFormat, tp: int = 1) -> float:
    """fp16 scratch for dequantising the largest weight matrix (GPTQ exllama, AWQ long-input, bnb 4-bit).

    Zero for formats whose kernels read packed weights directly (fp8, int8, plain 16-bit).
    """
    if not fmt.dequant_scratch:
        return 0.0
    return shapes(arch).largest_matrix * 2 / tp


def awq_tied_load_bytes(arch: ModelArchitecture, fmt: WeightFormat, tp: int = 1) -> float:
    """Extra bytes while AutoAWQ loads a checkpoint with tied embeddings: one more fp16 embedding copy.

    Seen as the peak of Qwen2.5-0.5B/1.5B/3B-AWQ with a 1-token prompt (weights + exactly one
    embedding); longer prompts' prefill transients hide it.
    """
    if fmt.name != "awq-int4" or not arch.tie_word_embeddings:
        return 0.0
    return shapes(arch).embedding * fmt.other_bytes_per_param / tp


# ---------------------------------------------------------------------------------------------- KV cache


def kv_heads_per_gpu(arch: ModelArchitecture, tp: int) -> float:
    """KV heads one GPU stores under tensor parallelism: ``max(1, kv_heads / tp)`` (replicated if fewer)."""
    return max(1.0, arch.num_kv_heads / tp)


def kv_cache_bytes(
    arch: ModelArchitecture,
    tokens: int,
    batch: int,
    kv_bytes: float,
    *,
    tp: int = 1,
    layers_fraction: float = 1.0,
    mla_expanded: bool = False,
) -> float:
    """Bytes of K and V for ``batch`` sequences of ``tokens`` tokens each, on one GPU.

    Uses :meth:`ModelArchitecture.kv_cache_elements` (MHA/GQA/MQA/MLA, sliding windows). Under tensor
    parallelism each GPU keeps ``max(1, kv_heads/tp)`` heads; an MLA latent is replicated on every GPU
    (vLLM/SGLang). ``mla_expanded``: HF transformers' DeepSeek code caches decompressed per-head K and V
    (``heads x (qk_nope + qk_rope + v_head)`` numbers per token per layer) instead of the latent.
    ``layers_fraction`` is the share of layers on this GPU (layer split).
    """
    if arch.mla is not None and mla_expanded:
        m = arch.mla
        per_token_layer = arch.num_attention_heads / tp * (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim)
        elements = per_token_layer * arch.num_layers * tokens
    elif arch.mla is not None:
        elements = arch.kv_cache_elements(tokens)
    else:
        elements = arch.kv_cache_elements(tokens) * kv_heads_per_gpu(arch, tp) / arch.num_kv_heads
    return elements * kv_bytes * batch * layers_fraction


# ---------------------------------------------------------------------------------------------- inference


def prefill_activation_bytes(
    arch: ModelArchitecture, prompt_tokens: int, batch: int, act_bytes: float, *, tp: int = 1
) -> float:
    """Transient bytes at the peak of a HF transformers prefill (generate's first forward), one GPU.

    The peak is the larger of two phases of one decoder layer, on top of four hidden-size tensors
    that stay alive (inputs_embeds, the layer input held by the model loop, the residual, the normed
    input):

    * MLP (dense SwiGLU): ``act(gate(x))``, ``up(x)`` and their product coexist, three
      ``tokens x intermediate`` buffers. MoE (HF loop over experts): fp32 router logits and softmax,
      the int64 one-hot expert mask, an output accumulator, and three buffers for the tokens routed to
      one expert (``tokens x k / E`` on average) or for the shared experts;
    * attention: q and its RoPE temporaries (``q*cos``, ``rotate_half(q)*sin``, their sum: four
      q-sized tensors) plus k and v. FlashAttention/SDPA never builds the ``s x s`` score matrix.

    Dense models peak in the MLP (checked on Qwen2.5 0.5B-72B); MoE models with narrow experts
    peak in attention.
    """
    tokens = prompt_tokens * batch
    h = arch.hidden_size
    has_dense = arch.moe is None or arch.moe.dense_layers > 0
    mlp = 3 * tokens * arch.intermediate_size / tp * act_bytes if has_dense else 0.0
    if arch.moe is not None:
        m = arch.moe
        routed = 3 * math.ceil(tokens * m.experts_per_token / m.num_experts) * m.expert_intermediate_size / tp
        shared = 3 * tokens * m.num_shared_experts * m.shared_expert_intermediate_size / tp
        router = tokens * m.num_experts * (4 + 4 + 8 * m.experts_per_token)
        mlp = max(mlp, (max(routed, shared) + tokens * h) * act_bytes + router)
    q_width, kv_width = _attention_widths(arch)
    attention = tokens * (4 * q_width + 2 * kv_width) / tp * act_bytes
    return max(mlp, attention) + _PREFILL_RESIDENT_HIDDEN * tokens * h * act_bytes


def _attention_widths(arch: ModelArchitecture) -> tuple[int, int]:
    """Numbers per token of the query and of ONE of key/value, as the attention kernel sees them."""
    if arch.mla is not None:
        m = arch.mla
        qk = arch.num_attention_heads * (m.qk_nope_head_dim + m.qk_rope_head_dim)
        return qk, (qk + arch.num_attention_heads * m.v_head_dim) // 2
    return arch.num_attention_heads * arch.head_dim, arch.num_kv_heads * arch.head_dim


def prompt_logits_bytes(
    arch: ModelArchitecture, prompt_tokens: int, batch: int, *, tp: int = 1, bytes_per_element: float = 6.0
) -> float:
    """Logits for every prompt position: ``tokens x vocab x bytes`` (6 = bf16 + fp32, transformers < 4.45).

    transformers 4.45+ computes logits only for the last position during generate (negligible); which
    stacks keep which copies is :func:`tools.memory_stack.prompt_logits_bytes_per_element`.
    """
    return prompt_tokens * batch * arch.vocab_size * bytes_per_element / tp


def eager_attention_score_bytes(
    arch: ModelArchitecture, query_tokens: int, key_tokens: int, batch: int, *, tp: int = 1, per_score: float = 6.0
) -> float:
    """Bytes of the ``seq x seq`` attention matrix HF's eager attention builds in one layer, one GPU.

    ``eager_attention_forward``: ``q @ k^T`` in the compute dtype (2 B), softmax in fp32 (4 B), cast back:
    ``batch x heads x q x k x 6`` B alive at once. FlashAttention and SDPA's fused kernels never build it.
    """
    return batch * arch.num_attention_heads / tp * query_tokens * key_tokens * per_score


def vllm_profile_activation_bytes(
    arch: ModelArchitecture, max_num_batched_tokens: int, max_num_seqs: int, tp: int, act_bytes: float = 2
) -> float:
    """Peak activation bytes of vLLM's profile run (a dummy batch of ``max_num_batched_tokens``), one GPU.

    Dense MLP: merged gate_up output (``2 x intermediate/tp``) plus the activation output
    (``intermediate/tp``), with three hidden-size tensors (input, residual, normed). MoE (fused_moe):
    ``tokens x k x (2 I_e/tp + I_e/tp + h)`` intermediate caches. Sampler: ``max_num_seqs x vocab``
    fp32 logits and about two copies. Published check: Llama-3-8B bf16 on H100 peaks at 1.26 GiB.
    """
    n = max_num_batched_tokens
    h = arch.hidden_size
    mlp = 3 * n * arch.intermediate_size / tp if (arch.moe is None or arch.moe.dense_layers) else 0.0
    if arch.moe is not None:
        m = arch.moe
        fused = n * m.experts_per_token * (3 * m.expert_intermediate_size / tp + h)
        shared = 3 * n * m.num_shared_experts * m.shared_expert_intermediate_size / tp
        mlp = max(mlp, fused + shared)
    sampler = max_num_seqs * arch.vocab_size * 4 * _VLLM_SAMPLER_COPIES
    return (mlp + 3 * n * h) * act_bytes + sampler


# ---------------------------------------------------------------------------------------------- training


def lora_trainable_params(arch: ModelArchitecture, rank: int, targets: tuple[LoraTarget, ...]) -> int:
    """LoRA adapter parameters: ``rank x (in + out)`` for every targeted matrix of every layer.

    MoE: "gate"/"up"/"down" also wrap every routed and shared expert (PEFT ``all-linear`` behaviour).
    MLA: "q" covers the q down/up projections, "k"/"v" split the joint kv down/up projections.
    "qkv" is one fused query/key/value projection (Qwen v1 ``c_attn``, GPT-NeoX ``query_key_value``,
    Phi-3 ``qkv_proj``): one adapter ``rank x (h + q + k + v)``, not three with ``h`` on each.
    """
    h, a, d, kv = arch.hidden_size, arch.num_attention_heads, arch.head_dim, arch.num_kv_heads
    attn: dict[str, int] = {"q": h + a * d, "k": h + kv * d, "v": h + kv * d, "o": a * d + h}
    if arch.mla is not None:
        m = arch.mla
        qk = m.qk_nope_head_dim + m.qk_rope_head_dim
        q = h + a * qk if not m.q_lora_rank else (h + m.q_lora_rank) + (m.q_lora_rank + a * qk)
        kv_joint = (h + m.kv_lora_rank + m.qk_rope_head_dim) + (
            m.kv_lora_rank + a * (m.qk_nope_head_dim + m.v_head_dim)
        )
        attn = {"q": q, "k": kv_joint // 2, "v": kv_joint - kv_joint // 2, "o": a * m.v_head_dim + h}
    attn["qkv"] = attn["q"] + attn["k"] + attn["v"] - (0 if arch.mla is not None else 2 * h)
    per_layer = sum(attn[t] for t in targets if t in attn) * arch.num_layers
    mlp_targets = sum(1 for t in targets if t in ("gate", "up", "down"))
    if not mlp_targets:
        return rank * per_layer
    if not arch.gated_mlp:
        mlp_targets = min(mlp_targets, 2)
    moe = arch.moe
    dense_layers = arch.num_layers - arch.moe_layers
    mlp = dense_layers * (h + arch.intermediate_size)
    if moe is not None:
        experts = moe.num_experts * (h + moe.expert_intermediate_size)
        experts += moe.num_shared_experts * (h + moe.shared_expert_intermediate_size)
        mlp += arch.moe_layers * experts
    return rank * (per_layer + mlp_targets * mlp)


def layer_activation_bytes_per_token(arch: ModelArchitecture, *, compiled: bool, act_bytes: float = 2) -> float:
    """Bytes one decoder layer saves for backward, per token (average over dense and MoE layers).

    Eager (HF/torchtune modelling code, FlashAttention/SDPA, SwiGLU), per token:
    * each RMSNorm: fp32 input (4h) + bf16 normalised value (2h) + its output, read by the next
      linear layers (2h): ``2 x 8h``;
    * attention: q, k, v after RoPE (kept by flash attention), its output and the contiguous copy fed
      to o_proj: ``2 (q + k + v + 2 o)`` widths, plus fp32 log-sum-exp per head;
    * SwiGLU MLP: gate out, SiLU out, up out, their product: ``4 x 2I``.
    ``torch.compile`` fuses the norms (saves 16-bit input and output: ``2 x 4h``) and SiLU-times-up
    (recomputes the SiLU: ``3 x 2I``). MoE layers: per routed expert ``k x (MLP + 2 x 2h)`` token
    copies, plus shared experts and fp32 router logits/probabilities. No ``s^2`` attention term.
    """
    h, a = arch.hidden_size, arch.num_attention_heads
    if arch.mla is not None:
        m = arch.mla
        q = k = a * (m.qk_nope_head_dim + m.qk_rope_head_dim)
        v = o = a * m.v_head_dim
        extra = float((m.q_lora_rank or 0) + m.kv_lora_rank + m.qk_rope_head_dim)
    else:
        q = o = a * arch.head_dim
        k = v = arch.num_kv_heads * arch.head_dim
        extra = 0.0
    norms = 2 * (4 * h if compiled else 8 * h)
    attention = 2 * (q + k + v + 2 * o + extra) + 4 * a
    mlp_factor = (6 if compiled else 8) if arch.gated_mlp else (4 if compiled else 6)
    dense = mlp_factor * arch.intermediate_size
    mlp = float(dense)
    if arch.moe is not None:
        m2 = arch.moe
        moe = m2.experts_per_token * (mlp_factor * m2.expert_intermediate_size + 4 * h)
        moe += m2.num_shared_experts * mlp_factor * m2.shared_expert_intermediate_size + 8 * m2.num_experts
        mlp = (moe * arch.moe_layers + dense * (arch.num_layers - arch.moe_layers)) / arch.num_layers
    return (norms + attention + mlp) * act_bytes / 2


def stored_activation_bytes(
    arch: ModelArchitecture,
    tokens: int,
    *,
    grad_ckpt: bool,
    offload: bool,
    compiled: bool,
    act_bytes: float = 2,
) -> float:
    """Activations held from the end of the forward pass into the backward pass, bytes on one GPU.

    Without checkpointing every layer's saved tensors; with it, one hidden-state checkpoint
    (``tokens x h``) per layer. Activation offloading (torchtune) moves the saved tensors to host
    memory, leaving about one layer's worth in flight.
    """
    per_layer = layer_activation_bytes_per_token(arch, compiled=compiled, act_bytes=act_bytes) * tokens
    if offload:
        return per_layer if not grad_ckpt else tokens * arch.hidden_size * act_bytes
    if grad_ckpt:
        return arch.num_layers * tokens * arch.hidden_size * act_bytes
    final = tokens * arch.hidden_size * (4 if compiled else 8) * act_bytes / 2
    return arch.num_layers * per_layer + final


def layer_backward_bytes(arch: ModelArchitecture, tokens: int, *, compiled: bool, act_bytes: float = 2) -> float:
    """Working set while one layer runs backward: its saved tensors plus gradients of three MLP buffers.

    With checkpointing the saved tensors are the recomputed ones; without, they are already counted in
    the stored activations, so callers pass only the gradient part (see :mod:`tools.memory`).
    """
    width = arch.intermediate_size
    if arch.moe is not None:
        m = arch.moe
        width = max(
            width,
            m.experts_per_token * m.expert_intermediate_size + m.num_shared_experts * m.shared_expert_intermediate_size,
        )
    grads = 3 * tokens * width * act_bytes
    return layer_activation_bytes_per_token(arch, compiled=compiled, act_bytes=act_bytes) * tokens + grads


def loss_logits_bytes(
    arch: ModelArchitecture,
    tokens: int,
    *,
    chunked: bool,
    compiled: bool,
    act_bytes: float = 2,
    fp32_loss: bool = True,
) -> float:
    """Peak bytes of the output logits and cross-entropy loss around the loss backward, one GPU.

    Unchunked (HF ``ForCausalLMLoss``): 16-bit logits, their fp32 log-softmax, the fp32 gradient and
    the 16-bit gradient: ``tokens x vocab x (2 + 4 + 4 + 2)``; with ``fp32_loss=False`` (no autocast and
    no ``.float()``, see :func:`tools.memory_stack.loss_in_fp32`) all four stay 16-bit. Chunked CE
    (torchtune ``CEWithChunkedOutputLoss``, 8 chunks) keeps the 16-bit logits and one chunk's fp32
    temporaries; compiled, the chunk's fp32 work is fused and only its 16-bit gradient remains.
    """
    loss_width = 4 if fp32_loss else act_bytes
    per_logit = act_bytes + loss_width + loss_width + act_bytes
    if chunked:
        per_logit = act_bytes + (act_bytes if compiled else per_logit - act_bytes) / _CE_CHUNKS
    return tokens * arch.vocab_size * per_logit


def gradient_bytes(trainable_params: float, bytes_per_grad: float, shards: int = 1) -> float:
    """Gradient bytes on one GPU: ``params x bytes / shards`` (ZeRO-2/3 shard them over data parallel)."""
    return trainable_params * bytes_per_grad / shards


def optimizer_state_bytes_per_param(optimizer: Optimizer, *, fp32_states: bool, master_copy: bool) -> float:
    """Optimizer bytes per trainable parameter, including an fp32 master copy when kept.

    AdamW: two moments (m, v), fp32 (8 B) or in the 16-bit parameter dtype (4 B, torchtune pure
    bf16); 8-bit AdamW (bitsandbytes/torchao): 2 B + block absmax; SGD: one momentum buffer.
    """
    base = optimizer.removeprefix("paged-")
    width = 4 if fp32_states else 2
    states = {"adamw": 2 * width, "adamw-8bit": _EIGHT_BIT_STATE_BYTES, "sgd": width}[base]
    return states + (4 if master_copy else 0)


def optimizer_state_bytes(trainable_params: float, bytes_per_param: float, shards: int = 1) -> float:
    """Optimizer-state bytes on one GPU: ``params x bytes / shards`` (ZeRO-1+ shards them)."""
    return trainable_params * bytes_per_param / shards


def zero3_gather_bytes(arch: ModelArchitecture, bytes_per_param: float) -> float:
    """Unsharded parameters ZeRO-3/FSDP hold while computing: the current module plus the next layer.

    The largest module is a decoder layer or the (separately wrapped) embedding/lm_head; the next
    decoder layer is prefetched. DeepSpeed's own estimator uses ``4 x largest layer`` bytes.
    """
    s = shapes(arch)
    return (max(s.layer_params_max, s.embedding, s.lm_head) + s.layer_params_max) * bytes_per_param


# ---------------------------------------------------------------------------------------------- runtime

# CUDA context with lazy module loading (PyTorch >= 1.13 sets CUDA_MODULE_LOADING=LAZY, default in CUDA >= 12.2):
# 0.27 GiB for a one-kernel program (0.62 GiB eager), pytorch/pytorch#86509; the kernels a model runs load on
# first use, hence 0.5. cuBLAS/cuBLASLt workspaces (4-8 MiB per stream on A100, 32 MiB on Hopper: pytorch
# PRs #83461, #120925) come from the caching allocator, so they are tensors, not context. Training's extra
# unused reserve is fitted on dev rows (tools/data/memory_reserve.yaml); its split between context and
# allocator is not identified by those rows (both show only in nvidia-smi).
CUDA_CONTEXT_GIB = 0.5
# NCCL communicator buffers: NCCL_BUFFSIZE (default 4 MiB) per channel, peer and protocol (NCCL docs,
# Environment Variables); a few hundred MiB on one node. Not fitted: no dev row isolates it.
NCCL_BUFFERS_GIB = 0.5
VLLM_NON_TORCH_GIB = 1.0
VLLM_CUDA_GRAPHS_GIB = 0.5
VLLM_TP_COMM_GIB = 1.5


def cuda_overhead_bytes(slack_bytes: float, *, collective: bool) -> float:
    """Bytes nvidia-smi shows beyond the tensors torch allocated, one GPU (PyTorch frameworks).

    CUDA context with lazy module loading plus cuBLAS/cuDNN workspaces (~0.5 GiB on Ampere/Hopper),
    NCCL communicator buffers when GPUs exchange data (~0.5 GiB), and the caching allocator's
    reserved-but-unused blocks (``slack_bytes``, from :func:`tools.memory_allocator.allocator_slack_bytes`).
    """
    fixed = CUDA_CONTEXT_GIB + (NCCL_BUFFERS_GIB if collective else 0.0)
    return fixed * GIB + slack_bytes


def vllm_non_torch_bytes(tp: int, *, enforce_eager: bool) -> float:
    """VLLM memory outside torch tensors, one GPU: context, workspaces, CUDA graphs, TP all-reduce buffers.

    ~1 GiB (context, cuBLAS, kernels) + 0.5 GiB CUDA graphs (0 with ``enforce_eager``) + 1.5 GiB NCCL and
    custom all-reduce buffers when ``tp > 1``. Published: Llama-3-8B on H100 1.79 GiB (TP1), 3.58 (TP2).
    """
    graphs = 0.0 if enforce_eager else VLLM_CUDA_GRAPHS_GIB
    comm = VLLM_TP_COMM_GIB if tp > 1 else 0.0
    return (VLLM_NON_TORCH_GIB + graphs + comm) * GIB
