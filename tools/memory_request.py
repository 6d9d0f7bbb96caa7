"""The input of the memory estimator: one validated request, with clear messages for bad input."""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): pydantic would
# compile each field's annotation string again on every cold start (see README, Cold starts).
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from tools.errors import input_error
from tools.memory_stack import (
    SERVING_ENGINES,
    VERSION_PATTERN,
    Framework,
    FsdpShardingStrategy,
    fsdp_zero_stage,
    is_serving_engine,
    optimizer_from_name,
)
from tools.memory_terms import LoraTarget, Optimizer
from tools.quantization import Precision, Quant

Task = Literal["inference", "full", "lora", "qlora"]
ModuleToSave = Literal["embed", "lm_head"]
KvCacheDtype = Literal["auto", "fp16", "bf16", "fp8", "int8"]
Offload = Literal["none", "optimizer", "optimizer+params"]
OffloadDevice = Literal["cpu", "nvme"]
Parallelism = Literal["auto", "tensor", "layer-split"]
AttnImplementation = Literal["flash_attention_2", "sdpa", "eager"]

MAX_TOKENS = 10_000_000
MAX_BATCH = 100_000
MAX_GPUS = 4096  # the largest GPU count one estimate spreads a model over
ALL_LORA_TARGETS: tuple[LoraTarget, ...] = ("q", "k", "v", "o", "gate", "up", "down")
_FOUR_BIT_BASES = ("bnb-nf4", "gptq-int4", "awq-int4")
_QUANT_BITS = {
    "gptq-int4": "int4",
    "awq-int4": "int4",
    "bnb-nf4": "int4",
    "gptq-int8": "int8",
    "bnb-int8": "int8",
    "fp8": "fp8",
}


class EstimateRequest(BaseModel):
    """What to estimate: the model, the task and how it runs. Field names match the CLI flags."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(min_length=1, max_length=500, description="registry name/alias or path to a config.json")
    task: Task = Field(default="inference", description="inference, full fine-tuning, LoRA or QLoRA")
    precision: Precision = Field(default="bf16", description="weight/compute precision")
    quant: Quant = Field(default="none", description="checkpoint quantisation format")
    batch: int = Field(
        default=1,
        ge=1,
        le=MAX_BATCH,
        description="sequences at once (inference) or micro-batch per GPU (training)",
    )
    prompt_tokens: int | None = Field(default=None, ge=1, le=MAX_TOKENS, description="inference prompt length")
    gen_tokens: int | None = Field(default=None, ge=0, le=MAX_TOKENS, description="inference output length")
    seq_len: int | None = Field(
        default=None,
        ge=1,
        le=MAX_TOKENS,
        description="training sequence length; for inference the total tokens per sequence",
    )
    framework: Framework = Field(
        default="transformers",
        description="software stack: transformers, vllm, sglang, tensorrt-llm (inference); transformers, "
        "deepspeed, torchtune, peft (training)",
    )
    framework_version: str | None = Field(
        default=None,
        max_length=40,
        pattern=VERSION_PATTERN,
        description="stack version, e.g. 4.38.2; older versions change what is allocated (None = current)",
    )
    gpus: int = Field(default=1, ge=1, le=MAX_GPUS, description="GPUs the model is spread over")
    zero: Literal[0, 1, 2, 3] = Field(default=0, description="DeepSpeed ZeRO stage (training); FSDP full shard = 3")
    grad_ckpt: bool = Field(default=True, description="activation (gradient) checkpointing per decoder layer")
    lora_r: int = Field(default=16, ge=1, le=4096, description="LoRA rank")
    optimizer: Optimizer = Field(
        default="adamw", description="adamw, adamw-8bit, sgd, paged-adamw, paged-adamw-8bit, or a stack's name for one"
    )
    optimizer_foreach: bool = Field(
        default=False, description="the step is PyTorch's foreach implementation (HF adamw_torch): one more moment"
    )
    fused_linear_ce: bool = Field(
        default=False, description="Liger fused linear cross-entropy: logits in chunks, never all at once"
    )
    kv_cache_dtype: KvCacheDtype = Field(default="auto", description="auto = the activation dtype")
    lora_targets: tuple[LoraTarget, ...] = Field(
        default=ALL_LORA_TARGETS, min_length=1, description="matrices that get adapters (default: all linear)"
    )
    offload: Offload = Field(default="none", description="ZeRO CPU offload (FSDP cpu_offload = optimizer+params)")
    gpu_memory_gib: float | None = Field(default=None, gt=0, le=4096, description="GPU capacity for the vLLM view")
    gpu_memory_utilization: float = Field(default=0.9, gt=0, le=1, description="vLLM's share of each GPU")
    parallelism: Parallelism = Field(
        default="auto",
        description="inference on >1 GPU: auto = tensor for vLLM, layer split for transformers",
    )
    master_weights: bool = Field(
        default=True, description="fp32 master weights and fp32 grads (AMP); False = pure 16-bit (torchtune)"
    )
    optimizer_in_backward: bool = Field(default=False, description="step each parameter as its gradient is ready")
    chunked_ce: bool = Field(default=False, description="cross-entropy over 8 logit chunks (torchtune)")
    activation_offload: bool = Field(default=False, description="saved activations go to CPU memory (torchtune)")
    torch_compile: bool = Field(default=False, description="torch.compile'd training step (fuses norms, SwiGLU)")
    full_prompt_logits: bool = Field(
        default=False, description="transformers < 4.45: logits for every prompt position (bf16 + fp32)"
    )
    modules_to_save: tuple[ModuleToSave, ...] = Field(
        default=(), description="PEFT modules_to_save trained in full: embed and/or lm_head"
    )
    use_dora: bool = Field(default=False, description="PEFT DoRA (weight-decomposed LoRA)")
    attn_implementation: AttnImplementation = Field(
        default="sdpa", description="HF attention kernel; eager materialises the seq x seq score matrix"
    )
    max_num_batched_tokens: int = Field(default=8192, ge=1, le=MAX_TOKENS, description="vLLM profile batch")
    max_num_seqs: int = Field(default=256, ge=1, le=MAX_BATCH, description="vLLM sequences per step")
    enforce_eager: bool = Field(default=False, description="vLLM without CUDA graphs")
    stage3_prefetch_bucket_size: int | None = Field(
        default=None, ge=0, le=10**12, description="DeepSpeed ZeRO-3 prefetch elements (None = HF auto 0.9 h^2)"
    )
    stage3_param_persistence_threshold: int | None = Field(
        default=None, ge=0, le=10**12, description="DeepSpeed ZeRO-3: smaller tensors stay whole (None = 10 h)"
    )
    stage3_max_live_parameters: int | None = Field(
        default=None, ge=0, le=10**13, description="DeepSpeed ZeRO-3 gathered-parameter cap (None = 1e9)"
    )
    reduce_bucket_size: int | None = Field(
        default=None, ge=0, le=10**12, description="DeepSpeed reduce_bucket_size elements (None = HF auto h^2)"
    )
    allgather_bucket_size: int | None = Field(
        default=None, ge=0, le=10**12, description="DeepSpeed ZeRO 1/2 allgather_bucket_size (None = HF auto h^2)"
    )
    overlap_comm: bool | None = Field(
        default=None, description="DeepSpeed overlap_comm: double gradient buffers (None = on for ZeRO-3 only)"
    )
    offload_device: OffloadDevice = Field(default="cpu", description="where offloaded states go: cpu or nvme")
    fsdp_sharding_strategy: FsdpShardingStrategy | None = Field(
        default=None, description="PyTorch FSDP: FULL_SHARD (= zero 3), SHARD_GRAD_OP (= zero 2), NO_SHARD (DDP)"
    )
    untie_embedding_weights: bool = Field(
        default=False,
        description="inference: the quantising loader keeps the tied embedding and LM head apart (TorchAO option)",
    )
    fsdp_fp32_shards: bool = Field(
        default=False,
        description="FSDP MixedPrecision: parameter shards stay fp32 and act as master weights (16 B/param, not 18)",
    )
    max_model_len: int | None = Field(
        default=None, ge=1, le=MAX_TOKENS, description="vLLM --max-model-len (None = the model's context)"
    )

    @model_validator(mode="before")
    @classmethod
    def _optimizer_by_stack_name(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("optimizer"), str):
            known = optimizer_from_name(data["optimizer"])
            if known is not None:
                data = {**data, "optimizer": known[0]}
                data.setdefault("optimizer_foreach", known[1])
        return data

    @field_validator("zero", mode="before")
    @classmethod
    def _zero_from_text(cls, value: Any) -> Any:
        return int(value) if isinstance(value, str) and value.strip().isdigit() else value

    @field_validator("modules_to_save", mode="before")
    @classmethod
    def _split_modules(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("lora_targets", mode="before")
    @classmethod
    def _split_targets(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @model_validator(mode="after")
    def _consistent(self) -> "EstimateRequest":
        if self.fsdp_sharding_strategy is not None and self.task != "inference":
            stage = fsdp_zero_stage(self.fsdp_sharding_strategy)
            if "zero" in self.model_fields_set and self.zero != stage:
                raise ValueError(
                    f"fsdp_sharding_strategy {self.fsdp_sharding_strategy} shards like zero {stage}; "
                    f"leave zero unset (got {self.zero})"
                )
            self.zero = stage  # type: ignore[assignment]
        problem = _inference_problem(self) if self.task == "inference" else _training_problem(self)
        if problem:
            raise ValueError(problem)
        return self


def _inference_problem(r: EstimateRequest) -> str | None:
    if r.fused_linear_ce or r.optimizer_foreach:
        return "fused_linear_ce and optimizer_foreach are training options; leave them unset for inference"
    if r.fsdp_sharding_strategy is not None or r.offload_device != "cpu":
        return "fsdp_sharding_strategy and offload_device are training options; leave them unset for inference"
    if r.zero:
        return "zero (ZeRO stage) is for training; for inference spread the model with gpus and parallelism"
    if r.offload != "none":
        return "offload is a training option (ZeRO CPU offload); set offload=none for inference"
    if r.quant != "none" and r.precision in ("fp8", "int8", "int4") and _QUANT_BITS[r.quant] != r.precision:
        return (
            f"precision {r.precision} contradicts quant {r.quant}; with a quantised checkpoint use "
            "precision bf16 or fp16 (the compute dtype)"
        )
    if r.seq_len is not None and r.prompt_tokens is not None:
        expected = r.prompt_tokens + (r.gen_tokens or 0)
        if r.gen_tokens is not None and r.seq_len != expected:
            return f"seq_len {r.seq_len} != prompt_tokens + gen_tokens ({expected}); give two of the three"
    if r.seq_len is not None and r.prompt_tokens is not None and r.prompt_tokens > r.seq_len:
        return f"prompt_tokens {r.prompt_tokens} exceeds seq_len {r.seq_len} (seq_len = prompt + generated)"
    if r.seq_len is not None and r.gen_tokens is not None and r.gen_tokens >= r.seq_len:
        return "gen_tokens must be smaller than seq_len (seq_len = prompt + generated tokens)"
    if (r.prompt_tokens or 0) + (r.gen_tokens or 0) > MAX_TOKENS:
        return f"prompt_tokens + gen_tokens must be at most {MAX_TOKENS:,}"
    if r.framework == "transformers" and r.kv_cache_dtype in ("fp8", "int8"):
        return "kv_cache_dtype fp8/int8 is a vLLM option; transformers keeps the KV cache in the model dtype"
    if not (r.framework == "transformers" or is_serving_engine(r.framework)):
        return f"{r.framework} is a training stack; for inference use transformers, {', '.join(SERVING_ENGINES)}"
    if r.modules_to_save or r.use_dora:
        return "modules_to_save and use_dora are PEFT training options; leave them unset for inference"
    return None


def _training_problem(r: EstimateRequest) -> str | None:
    if is_serving_engine(r.framework):
        return f"{r.framework} is an inference engine; use transformers, deepspeed, torchtune or peft for training"
    if r.task == "full" and (r.modules_to_save or r.use_dora):
        return "modules_to_save and use_dora are LoRA options; full fine-tuning already trains every module"
    if r.prompt_tokens is not None or r.gen_tokens is not None:
        return "prompt_tokens and gen_tokens are for inference; use seq_len for training"
    if r.parallelism != "auto":
        return "training on several GPUs is data parallel (use zero); parallelism is an inference option"
    if r.task == "full" and r.quant != "none":
        return f"full fine-tuning cannot update a quantised ({r.quant}) checkpoint; use task=qlora or quant=none"
    if r.task == "lora" and r.quant != "none":
        return f"LoRA on a quantised ({r.quant}) base is QLoRA; use task=qlora"
    if r.task in ("full", "lora") and r.precision in ("fp8", "int8", "int4"):
        return f"{r.task} training needs bf16, fp16 or fp32 weights; for a 4-bit base use task=qlora"
    if r.task == "qlora" and r.quant not in ("none", *_FOUR_BIT_BASES):
        return f"qlora needs a 4-bit base: quant one of {', '.join(_FOUR_BIT_BASES)} (got {r.quant})"
    if r.task == "qlora" and r.precision in ("fp8", "int8"):
        return "qlora computes in bf16/fp16 over a 4-bit base; use precision bf16"
    if r.untie_embedding_weights:
        return "untie_embedding_weights is a loading option for inference; leave it unset for training"
    if r.fsdp_fp32_shards and r.fsdp_sharding_strategy is None:
        return "fsdp_fp32_shards describes PyTorch FSDP mixed precision; set fsdp_sharding_strategy too"
    if r.fsdp_sharding_strategy is not None and r.framework == "deepspeed":
        return "fsdp_sharding_strategy is PyTorch FSDP; with framework deepspeed use zero 1, 2 or 3"
    if r.offload_device == "nvme" and r.offload == "none":
        return "offload_device nvme needs offload=optimizer or optimizer+params (DeepSpeed ZeRO-Infinity)"
    if "qkv" in r.lora_targets and {"q", "k", "v"} & set(r.lora_targets):
        return "lora_targets qkv is the fused query/key/value projection; do not combine it with q, k or v"
    if r.fused_linear_ce and r.chunked_ce:
        return "fused_linear_ce (Liger) and chunked_ce (torchtune) are two ways to chunk the loss; choose one"
    if r.offload == "optimizer+params" and r.zero != 3:
        return "offload=optimizer+params needs zero=3 (parameters are only offloadable when sharded)"
    if r.offload == "optimizer" and r.zero == 0:
        return "offload=optimizer needs zero 1, 2 or 3 (DeepSpeed ZeRO-Offload)"
    return None


def parse_request(data: dict[str, Any]) -> EstimateRequest:
    """Validate a request dict; a bad value becomes one :class:`ToolInputError` line naming the field.

    ``None`` values are dropped so that callers can pass unset CLI flags straight through.
    """
    try:
        return EstimateRequest.model_validate({k: v for k, v in data.items() if v is not None})
    except ValidationError as exc:
        raise input_error(exc) from None
