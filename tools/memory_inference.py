"""Inference memory per GPU: HF transformers ``generate`` peak and the vLLM budget view."""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): pydantic would
# compile each field's annotation string again on every cold start (see README, Cold starts).
import math
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from tools import memory_terms as t
from tools.architecture import ModelArchitecture
from tools.errors import ToolInputError
from tools.memory_allocator import allocator_slack_bytes, weight_rounding_bytes
from tools.memory_request import EstimateRequest
from tools.memory_stack import (
    VLLM_GRAPH_MAX_BATCH,
    is_remote_code,
    is_serving_engine,
    kv_cache_copies_at_peak,
    prompt_logits_bytes_per_element,
    untied_lm_head_bytes,
    vllm_engine_generation,
    vllm_profile_tokens,
)
from tools.notes import Note, NoteValue, note
from tools.quantization import WeightFormat

DEFAULT_CONTEXT_TOKENS = 4096
VLLM_BLOCK_TOKENS = 16
_GIB = t.GIB


class VllmView(BaseModel):
    """How vLLM would split one GPU: its memory budget, what is not KV cache, and the KV room left."""

    model_config = ConfigDict(extra="forbid")

    budget_gib: float = Field(description="gpu_memory_utilization x GPU capacity, per GPU")
    non_kv_gib: float = Field(description="weights + profile-run activation peak + non-torch memory, per GPU")
    kv_capacity_gib: float = Field(description="budget - non_kv: what vLLM pre-allocates for the KV cache")
    kv_tokens_capacity: int = Field(description="tokens of KV cache that fit (all sequences together)")
    kv_gib_per_sequence: float = Field(description="KV cache of one sequence of prompt + generated tokens")
    max_concurrent_sequences: int = Field(description="sequences of prompt + generated tokens held at once")
    max_context_for_batch: int = Field(description="longest context per sequence when `batch` run at once")
    fits: bool = Field(description="at least one full sequence fits")


@dataclass
class Assembly:
    """Per-GPU terms in bytes plus the words that explain them; :mod:`tools.memory` turns it into GiB."""

    weights: float = 0.0
    kv_cache: float = 0.0
    activations: float = 0.0
    gradients: float = 0.0
    optimizer: float = 0.0
    other: float = 0.0
    overhead: float = 0.0
    total_tensors_all_gpus: float = 0.0
    layout: Note = field(default_factory=lambda: note("layout.one_gpu"))
    peak_phase: str | None = None
    assumptions: list[Note] = field(default_factory=list)
    meanings: dict[str, str] = field(default_factory=dict)
    warnings: list[Note] = field(default_factory=list)
    vllm: VllmView | None = None

    @property
    def tensors(self) -> float:
        """Bytes torch allocates on the busiest GPU (every term but the overhead)."""
        return self.weights + self.kv_cache + self.activations + self.gradients + self.optimizer + self.other


def _check_layout(arch: ModelArchitecture, parallel: str, gpus: int) -> None:
    """Refuse layouts no serving engine accepts, instead of computing numbers for them."""
    if parallel == "tensor" and gpus > 1 and arch.num_attention_heads % gpus:
        valid = [d for d in range(1, arch.num_attention_heads + 1) if arch.num_attention_heads % d == 0]
        said = note(
            "error.tp_heads",
            gpus=gpus,
            model=arch.name,
            heads=arch.num_attention_heads,
            valid=", ".join(map(str, valid[:8])),
        )
        raise ToolInputError(said.text, [said])
    if parallel == "layer-split" and gpus > arch.num_layers:
        said = note("error.layer_split_gpus", model=arch.name, layers=arch.num_layers)
        raise ToolInputError(said.text, [said])


def inference_lengths(req: EstimateRequest, arch: ModelArchitecture) -> tuple[int, int, Note]:
    """Prompt and generated tokens per sequence, and a note saying how they were chosen."""
    if req.prompt_tokens is not None:
        gen = req.gen_tokens if req.gen_tokens is not None else (req.seq_len - req.prompt_tokens if req.seq_len else 0)
        code = "est.lengths" if req.gen_tokens is not None or req.seq_len else "est.lengths_no_gen"
        return req.prompt_tokens, gen, note(code, prompt=req.prompt_tokens, gen=gen)
    if req.seq_len is not None:
        gen = req.gen_tokens or 0
        code = "est.seq_len" if req.gen_tokens is not None else "est.seq_len_all_prompt"
        return req.seq_len - gen, gen, note(code, seq_len=req.seq_len)
    if req.gen_tokens is not None:
        return 1, req.gen_tokens, note("est.gen_only", gen=req.gen_tokens)
    context = min(DEFAULT_CONTEXT_TOKENS, arch.max_context)
    gen = min(512, context // 4)
    return context - gen, gen, note("est.default_context", prompt=context - gen, gen=gen)


def _kv_bytes(req: EstimateRequest, act_bytes: float) -> tuple[float, str]:
    match req.kv_cache_dtype:
        case "fp8" | "int8":
            return 1.0, req.kv_cache_dtype
        case "fp16" | "bf16":
            return 2.0, req.kv_cache_dtype
    return act_bytes, "fp32" if act_bytes == 4 else ("fp16" if req.precision == "fp16" else "bf16")


def inference_terms(req: EstimateRequest, arch: ModelArchitecture, fmt: WeightFormat) -> Assembly:
    """Per-GPU inference memory for a transformers or vLLM deployment, in bytes."""
    prompt, gen, lengths = inference_lengths(req, arch)
    act_bytes = 4.0 if req.precision == "fp32" else 2.0
    kv_bytes, kv_name = _kv_bytes(req, act_bytes)
    n = req.gpus
    parallel = (
        req.parallelism
        if req.parallelism != "auto"
        else ("tensor" if is_serving_engine(req.framework) else "layer-split")
    )
    if n == 1:
        parallel = "tensor"
    _check_layout(arch, parallel, n)
    vllm = is_serving_engine(req.framework)
    mla_expanded = arch.mla is not None and not vllm
    a = Assembly(assumptions=[lengths])
    if parallel == "tensor":
        tp, fraction = n, 1.0
        a.weights = t.tensor_parallel_weight_bytes(arch, fmt, tp) + untied_lm_head_bytes(
            arch, req.untie_embedding_weights, tp
        )
        a.layout = note("layout.tensor_parallel", gpus=n) if n > 1 else note("layout.one_gpu")
    else:
        tp = 1
        weights = t.layer_split_weight_bytes(arch, fmt, n)
        weights[-1] += untied_lm_head_bytes(arch, req.untie_embedding_weights)  # the head sits on the last GPU
        layers = t.layer_split(arch, n)
        kv_layer = (
            t.kv_cache_bytes(arch, prompt + gen, req.batch, kv_bytes, mla_expanded=mla_expanded) / arch.num_layers
        )
        busiest = max(range(n), key=lambda i: weights[i] + layers[i] * kv_layer)
        a.weights = weights[busiest]
        fraction = layers[busiest] / arch.num_layers
        a.layout = note("layout.layer_split", gpus=n, busiest=layers[busiest], layers=arch.num_layers)
    if untied_lm_head_bytes(arch, req.untie_embedding_weights):
        a.assumptions.append(note("est.untied_head"))
    a.kv_cache = t.kv_cache_bytes(
        arch, prompt + gen, req.batch, kv_bytes, tp=tp, layers_fraction=fraction, mla_expanded=mla_expanded
    ) * kv_cache_copies_at_peak(req.framework, req.framework_version, arch)
    if vllm:
        _vllm_terms(a, req, arch, tp, act_bytes)
    else:
        _transformers_terms(a, req, arch, fmt, prompt, tp, act_bytes)
    kv_total = (
        t.kv_cache_bytes(arch, prompt + gen, req.batch, kv_bytes, tp=tp, mla_expanded=mla_expanded)
        * tp
        * kv_cache_copies_at_peak(req.framework, req.framework_version, arch)
    )
    if parallel == "tensor":
        a.total_tensors_all_gpus = a.tensors * n
    else:
        a.total_tensors_all_gpus = t.weight_bytes(arch, fmt) + kv_total + n * (a.activations + a.other)
    _inference_words(a, req, arch, fmt, prompt, gen, kv_name, tp)
    if vllm and req.gpu_memory_gib is not None:
        a.vllm = vllm_view(a, req, arch, prompt + gen, kv_bytes, tp, fraction)
        if not a.vllm.fits:
            a.warnings.append(
                note(
                    "est.vllm_no_start",
                    non_kv_gib=a.vllm.non_kv_gib,
                    tokens=prompt + gen,
                    budget_gib=a.vllm.budget_gib,
                )
            )
        elif (held := a.vllm.max_concurrent_sequences) < req.batch:
            queue: dict[str, NoteValue] = {"tokens": prompt + gen, "queued": req.batch - held, "batch": req.batch}
            a.warnings.append(
                note("est.vllm_queue_one", **queue) if held == 1 else note("est.vllm_queue", held=held, **queue)
            )
    if parallel == "tensor" and n > 1 and arch.num_attention_heads % n:
        a.warnings.append(note("est.tp_heads", gpus=n, heads=arch.num_attention_heads))
    if prompt + gen > arch.max_context:
        a.warnings.append(
            note("est.over_max_context", tokens=prompt + gen, model=arch.name, max_context=arch.max_context)
        )
    return a


def _transformers_terms(
    a: Assembly,
    req: EstimateRequest,
    arch: ModelArchitecture,
    fmt: WeightFormat,
    prompt: int,
    tp: int,
    act_bytes: float,
) -> None:
    a.activations = t.prefill_activation_bytes(arch, prompt, req.batch, act_bytes, tp=tp)
    if req.attn_implementation == "eager":
        scores = t.eager_attention_score_bytes(arch, prompt, prompt, req.batch, tp=tp)
        a.activations = max(a.activations, scores + 4 * req.batch * prompt * arch.hidden_size * act_bytes)
    per_logit = (
        6.0 if req.full_prompt_logits else prompt_logits_bytes_per_element(req.framework, req.framework_version, arch)
    )
    if per_logit:
        a.activations += t.prompt_logits_bytes(arch, prompt, req.batch, tp=tp, bytes_per_element=per_logit)
    a.other = t.dequant_scratch_bytes(arch, fmt, tp)
    load_extra = t.awq_tied_load_bytes(arch, fmt, tp)
    if load_extra > a.tensors - a.weights:
        # The load-time copy outlives nothing but is the peak when the run itself needs less.
        a.other += load_extra - (a.tensors - a.weights)
    block = _largest_prefill_block_bytes(req, arch, prompt, tp, act_bytes, per_logit)
    slack = allocator_slack_bytes(weight_rounding_bytes(arch, fmt.linear_bytes_per_param, tp), block)
    a.overhead = t.cuda_overhead_bytes(slack, collective=tp > 1)


def _largest_prefill_block_bytes(
    req: EstimateRequest, arch: ModelArchitecture, prompt: int, tp: int, act_bytes: float, per_logit: float
) -> float:
    """Return the largest single tensor a transformers prefill frees: an MLP buffer, logits or eager scores."""
    tokens = prompt * req.batch
    blocks = [tokens * arch.intermediate_size / tp * act_bytes]
    if arch.moe is not None:
        m = arch.moe
        blocks.append(tokens * m.num_shared_experts * m.shared_expert_intermediate_size / tp * act_bytes)
    if per_logit:
        # The fp32 upcast (4 B) is the largest of the logits' copies; remote code keeps only bf16 (2 B).
        blocks.append(tokens * arch.vocab_size / tp * min(per_logit, 4.0))
    if req.attn_implementation == "eager":
        blocks.append(t.eager_attention_score_bytes(arch, prompt, prompt, req.batch, tp=tp, per_score=4.0))
    return max(blocks)


def _vllm_terms(a: Assembly, req: EstimateRequest, arch: ModelArchitecture, tp: int, act_bytes: float) -> None:
    a.activations = t.vllm_profile_activation_bytes(arch, _profile_tokens(req, arch), req.max_num_seqs, tp, act_bytes)
    a.overhead = t.vllm_non_torch_bytes(req.gpus, enforce_eager=req.enforce_eager)


def _vllm_engine_sentence(req: EstimateRequest, arch: ModelArchitecture, tp: int) -> Note:
    gen = vllm_engine_generation(req.framework_version)
    code = f"est.vllm_engine.{'v1' if gen == 'v1' else 'v0'}.{'eager' if req.enforce_eager else 'graphs'}"
    values: dict[str, NoteValue] = {
        "engine": gen.upper(),
        "version": req.framework_version or "current",
        "profile_tokens": _profile_tokens(req, arch),
    }
    if not req.enforce_eager:
        values["graph_batch"] = VLLM_GRAPH_MAX_BATCH[gen]
    if tp > 1:
        code, values["tp"] = code + "_tp", tp
    return note(code, **values)


def _profile_tokens(req: EstimateRequest, arch: ModelArchitecture) -> int:
    """Tokens of the engine's start-up profile batch: vLLM's version decides the default, others take the field."""
    if req.framework != "vllm":
        return req.max_num_batched_tokens
    requested = req.max_num_batched_tokens if "max_num_batched_tokens" in req.model_fields_set else None
    return vllm_profile_tokens(req.framework_version, requested, req.max_model_len or arch.max_context)


def vllm_view(
    a: Assembly,
    req: EstimateRequest,
    arch: ModelArchitecture,
    context: int,
    kv_bytes: float,
    tp: int,
    fraction: float,
) -> VllmView:
    """VLLM's budget for one GPU: KV room after weights, profile activations and non-torch memory."""
    assert req.gpu_memory_gib is not None
    budget = req.gpu_memory_utilization * req.gpu_memory_gib * _GIB
    non_kv = a.weights + a.activations + a.overhead
    room = max(0.0, budget - non_kv)

    def kv(tokens: int, batch: int = 1) -> float:
        blocks = math.ceil(tokens / VLLM_BLOCK_TOKENS) * VLLM_BLOCK_TOKENS
        return t.kv_cache_bytes(arch, blocks, batch, kv_bytes, tp=tp, layers_fraction=fraction)

    per_token = kv(VLLM_BLOCK_TOKENS) / VLLM_BLOCK_TOKENS
    per_seq = kv(context)
    tokens_capacity = int(room // per_token) // VLLM_BLOCK_TOKENS * VLLM_BLOCK_TOKENS if per_token else 0
    return VllmView(
        budget_gib=round(budget / _GIB, 3),
        non_kv_gib=round(non_kv / _GIB, 3),
        kv_capacity_gib=round(room / _GIB, 3),
        kv_tokens_capacity=tokens_capacity,
        kv_gib_per_sequence=round(per_seq / _GIB, 4),
        max_concurrent_sequences=int(room // per_seq) if per_seq else 0,
        max_context_for_batch=_longest_context(kv, room, req.batch, arch.max_context),
        fits=per_seq <= room,
    )


def _longest_context(kv: object, room: float, batch: int, limit: int) -> int:
    """Largest tokens per sequence with ``batch x kv(tokens) <= room``, capped at the model's max context."""
    assert callable(kv)
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if kv(mid, batch) <= room:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _inference_words(
    a: Assembly,
    req: EstimateRequest,
    arch: ModelArchitecture,
    fmt: WeightFormat,
    prompt: int,
    gen: int,
    kv_name: str,
    tp: int,
) -> None:
    split = a.layout.text  # the meanings stay English (answers in Chinese do not show them)
    kv_split = (
        ""
        if tp == 1
        else (
            ", MLA latent replicated on every GPU"
            if arch.mla and is_serving_engine(req.framework)
            else f", {t.kv_heads_per_gpu(arch, tp):g} of {arch.num_kv_heads} KV heads per GPU"
        )
    )
    kv_kind = (
        "decompressed per-head K/V (HF DeepSeek code)"
        if (arch.mla and not is_serving_engine(req.framework))
        else (f"{arch.attention_kind.upper()} K and V")
    )
    a.meanings = {
        "weights_gib": f"{fmt.description}; {split}",
        "kv_cache_gib": (f"{kv_kind} for {req.batch} x ({prompt}+{gen}) tokens in {kv_name}, per GPU{kv_split}"),
        "gradients_gib": "none (inference)",
        "optimizer_gib": "none (inference)",
    }
    if is_serving_engine(req.framework):
        a.meanings["activations_gib"] = (
            f"vLLM profile-run activation peak: {_profile_tokens(req, arch)} batched tokens "
            "through one layer "
            f"+ sampler logits for {req.max_num_seqs} sequences"
        )
        a.meanings["other_gib"] = "none (vLLM's Marlin/FP8 kernels read packed weights)"
        a.meanings["overhead_gib"] = (
            "non-torch memory vLLM budgets: CUDA context and workspaces"
            + ("" if req.enforce_eager else ", CUDA graphs")
            + (", NCCL/all-reduce buffers" if req.gpus > 1 else "")
        )
        a.assumptions += [
            note(
                "est.vllm_blocks",
                block=VLLM_BLOCK_TOKENS,
                utilization=req.gpu_memory_utilization,
                batched=_profile_tokens(req, arch),
                seqs=req.max_num_seqs,
            ),
            note("est.vllm_preallocates"),
        ]
        if req.framework == "vllm":
            a.assumptions.append(_vllm_engine_sentence(req, arch, tp))
    else:
        phase = "MLP buffers" if arch.moe is None else "MLP or attention buffers"
        per_logit = (
            6.0
            if req.full_prompt_logits
            else prompt_logits_bytes_per_element(req.framework, req.framework_version, arch)
        )
        a.meanings["activations_gib"] = (
            f"prefill transient of HF generate: one layer's {phase} for {req.batch} x {prompt} tokens "
            "+ 4 hidden-state copies"
            + (
                f" + logits for every prompt position ({per_logit:g} B each)"
                if per_logit
                else " (last-position logits only)"
            )
        )
        load_copy = t.awq_tied_load_bytes(arch, fmt, tp)
        a.meanings["other_gib"] = (
            "none for this format"
            if not a.other
            else "fp16 scratch to dequantise the largest weight matrix"
            + (", or AutoAWQ's load-time copy of the tied embedding if larger" if load_copy else "")
        )
        a.meanings["overhead_gib"] = (
            "what nvidia-smi shows beyond the tensors: CUDA context and workspaces (0.5 GiB) "
            "+ caching-allocator slack (2 MiB segment rounding + half the largest freed prefill block)"
            + (" + NCCL buffers" if tp > 1 else "")
        )
        version = req.framework_version or ">= 4.45 (current)"
        copies = kv_cache_copies_at_peak(req.framework, req.framework_version, arch)
        a.assumptions += [
            note("est.hf_transformers_remote", version=version, model=arch.name)
            if is_remote_code(arch)
            else note("est.hf_transformers", version=version),
            note("est.hf_peak"),
        ]
        if req.gpus > 1 and tp == 1:
            a.assumptions.append(note("est.device_map_auto"))
        if copies > 1:
            a.assumptions.append(note("est.tuple_kv_cache"))
