"""Training memory per GPU: full fine-tuning, LoRA and QLoRA under DDP, ZeRO 1-3/FSDP and CPU offload.

The peak is taken at whichever of two moments needs more (both are real peaks seen in profiles):

* **start of backward**: weights + optimizer states + every stored activation + the loss/logits
  buffers (or, with checkpointing, one recomputed layer) + the first gradients (lm_head/embedding);
* **end of backward / optimizer step**: weights + optimizer states + all gradients + the first
  layer's activations being back-propagated.

A sum of all terms (what most calculators print) double-counts: activations are freed while
gradients appear.
"""

from __future__ import annotations

from tools import memory_terms as t
from tools.architecture import ModelArchitecture
from tools.memory_allocator import training_slack_bytes, weight_rounding_bytes
from tools.memory_inference import Assembly
from tools.memory_request import EstimateRequest
from tools.memory_stack import (
    deepspeed_fp32_grad_bytes,
    deepspeed_overlap_comm,
    default_master_weights,
    dora_transient_bytes,
    foreach_step_temporary_bytes,
    fsdp_fp32_shard_weight_bytes,
    fused_linear_ce_bytes,
    gptq_training_dequant_bytes,
    kbit_training_fp32_upcast_bytes,
    loss_in_fp32,
    modules_to_save_bytes,
    peft_adapters_in_base_dtype,
    zero3_live_params,
    zero3_persistent_params,
    zero3_settings,
    zero_bucket_bytes,
)
from tools.notes import Note, NoteValue, note
from tools.quantization import WeightFormat, half

DEFAULT_TRAIN_SEQ_LEN = 2048
_GIB = t.GIB

# What each strategy keeps on one GPU (the ``zero``, ``offload`` and ``optimizer`` request fields) is said by
# the notes train.zero.<stage>, train.offload.<mode> and train.optimizer.<name> (tools/data/note_texts.yaml).


class _Recipe:
    """Bytes per parameter implied by the request's precision policy."""

    def __init__(self, req: EstimateRequest) -> None:
        fp32 = req.precision == "fp32"
        self.act_bytes = 4.0 if fp32 else 2.0
        # An unset master_weights follows the stack (torchtune: pure bf16; HF/PEFT/DeepSpeed: AMP).
        chosen = (
            req.master_weights if "master_weights" in req.model_fields_set else default_master_weights(req.framework)
        )
        self.master = chosen and not fp32
        full = req.task == "full"
        # LoRA adapters are fp32 under AMP (PEFT upcasts them), 16-bit in pure-bf16 recipes.
        self.param_bytes = self.act_bytes if full else (4.0 if (self.master or fp32) else 2.0)
        self.grad_bytes = 4.0 if (self.master or fp32) else 2.0
        fp32_states = self.master or fp32
        master_copy = self.master and full
        # DeepSpeed casts the whole module (adapters too) to 16 bits and keeps 16-bit gradients; its
        # optimizer holds the fp32 master copy of every trainable parameter.
        self.deepspeed_16bit = req.framework == "deepspeed" and self.master
        if self.deepspeed_16bit:
            self.param_bytes = self.grad_bytes = self.act_bytes
            master_copy = True
        self.peft_16bit_adapters = self.master and peft_adapters_in_base_dtype(
            req.framework, req.framework_version, req.task
        )
        if self.peft_16bit_adapters:
            self.param_bytes = self.grad_bytes = self.act_bytes
            fp32_states = False
        # FSDP mixed precision: the fp32 parameter shard is the master (weights term), not an optimizer state.
        self.fsdp_fp32_shards = req.fsdp_fp32_shards and self.master and full
        if self.fsdp_fp32_shards:
            master_copy = False
        self.state_bytes = t.optimizer_state_bytes_per_param(
            req.optimizer, fp32_states=fp32_states, master_copy=master_copy
        )

    def describe(self, req: EstimateRequest) -> Note:
        """Describe the precision policy."""
        if req.precision == "fp32":
            return note("train.recipe.fp32")
        if self.peft_16bit_adapters:
            return note("train.recipe.peft_16bit", version=str(req.framework_version), precision=req.precision)
        if self.master:
            code = "train.recipe.mixed_master" if req.task == "full" else "train.recipe.mixed"
            return note(code, precision=req.precision)
        return note("train.recipe.pure", precision=req.precision)


def training_terms(req: EstimateRequest, arch: ModelArchitecture, base_fmt: WeightFormat) -> Assembly:
    """Per-GPU training memory in bytes at the peak moment, with its meaning."""
    seq = req.seq_len or DEFAULT_TRAIN_SEQ_LEN
    tokens = req.batch * seq
    n, zero = req.gpus, req.zero
    s = t.shapes(arch)
    recipe = _Recipe(req)
    full = req.task == "full"
    trainable = s.total if full else t.lora_trainable_params(arch, req.lora_r, req.lora_targets)
    fmt = base_fmt if req.task == "qlora" else (half(req.precision) if req.precision in ("bf16", "fp16") else base_fmt)
    a = Assembly()
    a.weights = _weights(req, arch, fmt, trainable, recipe)
    opt_shards = n if zero >= 1 else 1
    opt_bytes = t.optimizer_state_bytes(trainable, recipe.state_bytes, opt_shards)
    paged = req.optimizer.startswith("paged-")
    a.optimizer = 0.0 if (paged or req.offload != "none") else opt_bytes
    a.other = t.dequant_scratch_bytes(arch, fmt) if req.task == "qlora" else 0.0
    grads_start, grads_end = _gradients(req, arch, trainable, recipe)
    acts_start, acts_end = _activations(req, arch, tokens, recipe.act_bytes)
    if req.use_dora:
        dora = dora_transient_bytes(s.largest_matrix, recipe.act_bytes)
        acts_start, acts_end = acts_start + dora, acts_end + dora
    saved = modules_to_save_bytes(arch, req.modules_to_save, recipe.act_bytes)
    upcast = kbit_training_fp32_upcast_bytes(arch, req.framework, fmt.name) if req.task == "qlora" else 0.0
    a.weights += saved["weights"] + upcast
    a.optimizer += 0.0 if (paged or req.offload != "none") else saved["optimizer"]
    # Their gradients stay alive across micro-batches (gradient accumulation), so in both phases.
    grads_start, grads_end = grads_start + saved["gradients"], grads_end + saved["gradients"]
    if req.framework == "deepspeed" and zero >= 1:
        a.other += zero_bucket_bytes(
            arch,
            zero,
            hf_auto=True,
            grad_bytes=recipe.act_bytes,
            prefetch_elements=_prefetch_elements(req, arch),
            reduce_elements=req.reduce_bucket_size,
            allgather_elements=req.allgather_bucket_size,
            overlap_comm=deepspeed_overlap_comm(zero, req.overlap_comm),
            gpus=n,
        )
    step_temp, step_phase = _foreach_temporary(req, trainable, recipe, opt_shards), STEP_FOREACH
    if recipe.deepspeed_16bit:
        step_temp = deepspeed_fp32_grad_bytes(trainable, opt_shards, zero, offload=req.offload != "none")
        step_phase = STEP_DEEPSPEED
    start, end = acts_start + grads_start, acts_end + grads_end
    if step_temp and grads_end + step_temp > max(start, end):
        # The step runs after backward has freed the activations; its temporaries count as optimizer memory.
        a.activations, a.gradients, a.peak_phase = 0.0, grads_end, step_phase
        a.optimizer += step_temp
    elif start >= end:
        a.activations, a.gradients, a.peak_phase = acts_start, grads_start, "start of backward"
    else:
        a.activations, a.gradients, a.peak_phase = acts_end, grads_end, "end of backward / optimizer step"
    a.overhead = t.cuda_overhead_bytes(_allocator_slack(req, arch, fmt, tokens, recipe), collective=n > 1)
    a.total_tensors_all_gpus = a.tensors * n
    a.layout = _layout(req)
    _training_words(a, req, arch, fmt, seq, trainable, recipe, opt_bytes if paged else 0.0)
    return a


STEP_FOREACH = "optimizer step (foreach temporaries)"
STEP_DEEPSPEED = "optimizer step (DeepSpeed fp32 gradients)"
_PEAK_CODES = {
    "start of backward": "peak.start_of_backward",
    "end of backward / optimizer step": "peak.end_of_backward",
    STEP_FOREACH: "peak.foreach_step",
    STEP_DEEPSPEED: "peak.deepspeed_step",
}


def peak_phase_note(phase: str) -> Note:
    """Return the note naming the moment a training peak occurs (``MemoryEstimate.peak_phase``)."""
    return note(_PEAK_CODES[phase])


def _foreach_temporary(req: EstimateRequest, trainable: int, recipe: _Recipe, shards: int) -> float:
    """Bytes the foreach optimizer step adds (HF ``adamw_torch``); fused, 8-bit, paged and offloaded steps add none.

    DeepSpeed steps with its own FusedAdam/CPUAdam, and optimizer-in-backward steps one parameter at a time.
    """
    if not req.optimizer_foreach or req.optimizer not in ("adamw", "sgd") or req.offload != "none":
        return 0.0
    if req.framework == "deepspeed" or req.optimizer_in_backward:
        return 0.0
    state_width = 4.0 if recipe.grad_bytes == 4 else 2.0  # the moments' dtype
    return foreach_step_temporary_bytes(trainable, state_width, shards)


def _allocator_slack(
    req: EstimateRequest, arch: ModelArchitecture, fmt: WeightFormat, tokens: int, recipe: _Recipe
) -> float:
    """Caching-allocator slack: per-tensor segment rounding + the fitted training reserve.

    Under DDP every parameter's gradient and optimizer states are tensors of their own (rounded like the
    weights); ZeRO flattens them into contiguous partitions. The blocks a step frees and re-allocates are
    the loss's logits (fp32 where the loss upcasts, one chunk when chunked, none under Liger's fused
    linear cross-entropy) and each recomputed layer's MLP intermediates; the unused share of each and a
    base come from development rows (:func:`tools.memory_allocator.training_slack_bytes`).
    """
    rounding = weight_rounding_bytes(arch, fmt.linear_bytes_per_param)
    if req.task == "full" and req.zero == 0:
        per_param_tensors = 1 + recipe.state_bytes / recipe.grad_bytes  # gradient, moments, master copy
        rounding += weight_rounding_bytes(arch, recipe.grad_bytes) * per_param_tensors
    loss_width = 4.0 if loss_in_fp32(req.framework, arch) else recipe.act_bytes
    logits = 0.0 if req.fused_linear_ce else tokens * arch.vocab_size * loss_width / (8 if req.chunked_ce else 1)
    mlp_block = tokens * arch.intermediate_size * recipe.act_bytes
    return training_slack_bytes(rounding, logits, mlp_block)


def _layout(req: EstimateRequest) -> Note:
    offloaded: dict[str, NoteValue] = {"zero": req.zero, "offload": req.offload, "device": req.offload_device}
    if req.gpus == 1:
        return note("layout.one_gpu") if req.offload == "none" else note("layout.one_gpu_offload", **offloaded)
    if req.zero == 0:
        return note("layout.ddp", gpus=req.gpus)
    if req.offload == "none":
        return note("layout.zero", zero=req.zero, gpus=req.gpus)
    return note("layout.zero_offload", gpus=req.gpus, **offloaded)


def _weights(
    req: EstimateRequest, arch: ModelArchitecture, fmt: WeightFormat, trainable: int, recipe: _Recipe
) -> float:
    """Model weights on one GPU: base (+ LoRA adapters), sharded by ZeRO-3 with a gather buffer."""
    base = t.weight_bytes(arch, fmt)
    adapters = 0.0 if req.task == "full" else trainable * recipe.param_bytes
    per_param = base / t.shapes(arch).total
    if req.zero == 3 and req.framework == "deepspeed":
        return _deepspeed_zero3_weights(req, arch, base + adapters, per_param)
    params_offloaded = req.offload == "optimizer+params"
    if recipe.fsdp_fp32_shards and req.fsdp_sharding_strategy is not None:
        gathered = t.zero3_gather_bytes(arch, per_param)
        return fsdp_fp32_shard_weight_bytes(
            base, req.fsdp_sharding_strategy, req.gpus, gathered, params_offloaded=params_offloaded
        )
    if req.zero < 3 or (req.gpus == 1 and not params_offloaded):
        return base + adapters
    gather = t.zero3_gather_bytes(arch, per_param)
    if params_offloaded:
        return gather
    return (base + adapters) / req.gpus + gather


def _deepspeed_zero3_weights(req: EstimateRequest, arch: ModelArchitecture, whole: float, per_param: float) -> float:
    """DeepSpeed ZeRO-3 by its config names: partitions, persistent small tensors, live gathered modules.

    Also on one GPU: the partition is then the whole model, and the gathered copies come on top unless
    the parameters are offloaded (ZeRO-Infinity on a single GPU holds only what is gathered).
    """
    prefetch, persistence, max_live = zero3_settings(
        arch, req.stage3_prefetch_bucket_size, req.stage3_param_persistence_threshold, req.stage3_max_live_parameters
    )
    persistent = zero3_persistent_params(arch, persistence) * per_param
    live = zero3_live_params(arch, 0, max_live) * per_param  # the prefetch bucket is in the bucket term
    partition = 0.0 if req.offload == "optimizer+params" else (whole - persistent) / req.gpus
    return partition + persistent + live


def _prefetch_elements(req: EstimateRequest, arch: ModelArchitecture) -> int:
    """ZeRO-3 prefetch actually held: the configured bucket, within stage3_max_live_parameters."""
    prefetch, _, max_live = zero3_settings(
        arch, req.stage3_prefetch_bucket_size, req.stage3_param_persistence_threshold, req.stage3_max_live_parameters
    )
    return zero3_live_params(arch, prefetch, max_live) - zero3_live_params(arch, 0, max_live)


def _gradients(req: EstimateRequest, arch: ModelArchitecture, trainable: int, recipe: _Recipe) -> tuple[float, float]:
    """Gradient bytes on one GPU at the start and at the end of the backward pass."""
    s = t.shapes(arch)
    g = recipe.grad_bytes
    if req.task != "full":
        return 0.0, t.gradient_bytes(trainable, g, req.gpus if req.zero >= 2 else 1)
    first = arch.vocab_size * arch.hidden_size * g  # lm_head (or tied embedding) gradient
    if req.optimizer_in_backward:
        return first, max(first, s.largest_matrix * g)
    if req.offload != "none":
        # ZeRO-Offload streams reduced gradients to host memory; one layer's worth is in flight.
        return first, max(first, s.layer_params_max * g)
    all_grads = t.gradient_bytes(trainable, g, req.gpus if req.zero >= 2 else 1)
    if req.zero == 0 and req.gpus > 1:
        all_grads *= 2  # DDP reducer buckets hold a second copy of every gradient
    return first, max(first, all_grads)


def _activations(req: EstimateRequest, arch: ModelArchitecture, tokens: int, act_bytes: float) -> tuple[float, float]:
    """Activation bytes on one GPU at the start and at the end of the backward pass."""
    compiled = req.torch_compile
    stored = t.stored_activation_bytes(
        arch,
        tokens,
        grad_ckpt=req.grad_ckpt,
        offload=req.activation_offload,
        compiled=compiled,
        act_bytes=act_bytes,
    )
    loss = (
        fused_linear_ce_bytes(arch, tokens, act_bytes)
        if req.fused_linear_ce
        else t.loss_logits_bytes(
            arch,
            tokens,
            chunked=req.chunked_ce,
            compiled=compiled,
            act_bytes=act_bytes,
            fp32_loss=loss_in_fp32(req.framework, arch),
        )
    )
    layer = t.layer_backward_bytes(arch, tokens, compiled=compiled, act_bytes=act_bytes)
    if req.task == "qlora":
        # Dequantised GPTQ weights autograd keeps for the layer running backward (all layers without ckpt).
        dequant = gptq_training_dequant_bytes(arch, req.quant, tokens, grad_ckpt=True)
        layer += dequant
        if not (req.grad_ckpt or req.activation_offload):
            stored += gptq_training_dequant_bytes(arch, req.quant, tokens, grad_ckpt=False) - dequant
    if req.attn_implementation == "eager":
        seq = tokens // req.batch
        # Backward keeps the layer's probabilities (2 B) and builds their gradient (6 B with the fp32 softmax).
        scores = t.eager_attention_score_bytes(arch, seq, seq, req.batch, per_score=2.0 + 6.0)
        layer += scores
        if not (req.grad_ckpt or req.activation_offload):
            stored += (arch.num_layers - 1) * t.eager_attention_score_bytes(arch, seq, seq, req.batch, per_score=2.0)
    saved = t.layer_activation_bytes_per_token(arch, compiled=compiled, act_bytes=act_bytes) * tokens
    first_layer = layer if (req.grad_ckpt or req.activation_offload) else layer - saved
    return stored + max(loss, first_layer), layer


def _training_words(
    a: Assembly,
    req: EstimateRequest,
    arch: ModelArchitecture,
    fmt: WeightFormat,
    seq: int,
    trainable: int,
    recipe: _Recipe,
    paged_bytes: float,
) -> None:
    n, zero = req.gpus, req.zero
    shard = f" / {n} GPUs" if n > 1 else ""
    targets = ",".join(req.lora_targets)
    master = ".master" if recipe.master and req.task == "full" else ""
    a.assumptions = [
        note(f"train.micro_batch{'' if req.seq_len else '_default'}.{req.task}", batch=req.batch, seq=seq),
        recipe.describe(req),
        note(f"train.optimizer.{req.optimizer}{master}", state_bytes=recipe.state_bytes),
        note("train.activations_compiled" if req.torch_compile else "train.activations"),
        note("train.peak_rule"),
        note("train.foreach_step" if _foreach_temporary(req, 1, recipe, 1) else "train.fused_step"),
    ]
    if req.task != "full":
        a.assumptions.append(note("train.lora_rank", rank=req.lora_r, targets=targets, trainable_m=trainable / 1e6))
    if req.modules_to_save:
        a.assumptions.append(note("train.modules_to_save", modules=",".join(req.modules_to_save)))
    if req.use_dora:
        a.assumptions.append(note("train.dora"))
    if req.task == "qlora" and kbit_training_fp32_upcast_bytes(arch, req.framework, fmt.name):
        a.assumptions.append(note("train.kbit_upcast"))
    if req.framework == "deepspeed" and zero >= 1:
        a.assumptions.append(_deepspeed_bucket_sentence(req, arch))
    if not loss_in_fp32(req.framework, arch) and not (req.chunked_ce or req.fused_linear_ce):
        a.assumptions.append(note("train.loss_16bit"))
    if req.task == "qlora" and gptq_training_dequant_bytes(arch, req.quant, req.batch * seq, grad_ckpt=True):
        a.assumptions.append(note("train.gptq_dequant" if req.grad_ckpt else "train.gptq_dequant_no_ckpt"))
    a.assumptions += _sharding_sentences(req, arch)
    if paged_bytes:
        a.assumptions.append(note("train.paged_optimizer", gib=paged_bytes / _GIB))
    if n > 1:
        a.assumptions.append(note(f"train.zero.{zero}"))
    if req.offload != "none":
        a.assumptions.append(note(f"train.offload.{req.offload}"))
    optim_where = "host RAM (offload)" if req.offload != "none" else ("unified memory (paged)" if paged_bytes else "")
    a.meanings = {
        "weights_gib": (
            f"{fmt.description}"
            + ("" if req.task == "full" else " (frozen base) + LoRA adapters")
            + (f"{shard} (ZeRO-3) + gathered current/next layer" if zero == 3 and n > 1 else "")
        ),
        "kv_cache_gib": "none (training)",
        "activations_gib": _activation_meaning(req, a.peak_phase),
        "gradients_gib": (
            f"gradients alive at the {a.peak_phase}, {recipe.grad_bytes:g} B each"
            + (f", sharded{shard} (ZeRO-2+)" if zero >= 2 and n > 1 else "")
        ),
        "optimizer_gib": (
            f"optimizer states in {optim_where}: none on the GPU"
            if optim_where
            else "optimizer states"
            + (" incl. fp32 master weights" if recipe.master and req.task == "full" else "")
            + (f", sharded{shard} (ZeRO-1+)" if zero >= 1 and n > 1 else "")
        ),
        "other_gib": (
            ("bf16 scratch to dequantise the largest 4-bit matrix" if req.task == "qlora" else "")
            + (" + DeepSpeed gradient/prefetch buckets" if req.framework == "deepspeed" and zero >= 1 else "")
        ).strip(" +")
        or "none",
        "overhead_gib": (
            "what nvidia-smi shows beyond the tensors: CUDA context and workspaces (0.5 GiB)"
            + (" + NCCL buffers (0.5 GiB)" if n > 1 else "")
            + " + caching-allocator slack (2 MiB segment rounding + cached blocks left unused: a base and "
            "shares of one logits block and one MLP block, fitted on published nvidia-smi vs allocated runs)"
        ),
    }
    if seq > arch.max_context:
        a.warnings.append(note("train.seq_over_max", seq=seq, model=arch.name, max_context=arch.max_context))
    if req.lora_r > arch.hidden_size and req.task != "full":
        a.warnings.append(note("train.lora_r_over_hidden", rank=req.lora_r, hidden=arch.hidden_size))


def _deepspeed_bucket_sentence(req: EstimateRequest, arch: ModelArchitecture) -> Note:
    """Name the DeepSpeed buffers counted, with the sizes used (config value or HF 'auto')."""
    h2 = arch.hidden_size**2
    reduce = f"{req.reduce_bucket_size:,}" if req.reduce_bucket_size is not None else f"auto hidden^2 = {h2:,}"
    if req.zero == 3:
        return note("train.ds_buckets_zero3", reduce=reduce)
    overlap = "overlap" if deepspeed_overlap_comm(req.zero, req.overlap_comm) else "no_overlap"
    if req.gpus == 1:
        return note(f"train.ds_buckets.{overlap}", zero=req.zero, reduce=reduce)
    gather = f"{req.allgather_bucket_size:,}" if req.allgather_bucket_size is not None else f"auto {h2:,}"
    return note(f"train.ds_buckets_gather.{overlap}", zero=req.zero, reduce=reduce, gather=gather)


def _sharding_sentences(req: EstimateRequest, arch: ModelArchitecture) -> list[Note]:
    """Say how ZeRO-3 / FSDP / offload were configured, by their own config names."""
    out: list[Note] = []
    if req.zero == 3 and req.framework == "deepspeed":
        prefetch, persistence, max_live = zero3_settings(
            arch,
            req.stage3_prefetch_bucket_size,
            req.stage3_param_persistence_threshold,
            req.stage3_max_live_parameters,
        )
        kept = zero3_persistent_params(arch, persistence)
        code = "train.zero3_gather_one_gpu" if req.gpus == 1 else "train.zero3_gather"
        out.append(note(code, prefetch=prefetch, persistence=persistence, kept_m=kept / 1e6, max_live=max_live))
    if req.fsdp_sharding_strategy is not None:
        fp32 = req.fsdp_fp32_shards and req.task == "full" and req.master_weights and req.precision != "fp32"
        code = "train.fsdp_fp32_shards" if fp32 else "train.fsdp"
        out.append(note(code, strategy=req.fsdp_sharding_strategy, zero=req.zero))
    if req.offload != "none" and req.offload_device == "nvme":
        out.append(note("train.nvme"))
    return out


def _activation_meaning(req: EstimateRequest, phase: str | None) -> str:
    ckpt = "one checkpoint per layer" if req.grad_ckpt else "all layers' saved tensors"
    if req.activation_offload:
        ckpt = "saved activations offloaded to CPU"
    loss = "chunked cross-entropy" if req.chunked_ce else "logits + cross-entropy (bf16 + fp32 copies)"
    if req.fused_linear_ce:
        loss = "Liger fused linear cross-entropy (one logits chunk + the hidden-state gradient)"
    if phase in (STEP_FOREACH, STEP_DEEPSPEED):
        return "none: the optimizer step runs after backward has freed the activations"
    if phase == "start of backward":
        return f"at the start of backward: {ckpt} + the larger of {loss} and one layer's backward working set"
    return "at the end of backward: the first layer's activations and their gradients"
