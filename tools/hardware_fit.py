"""Evaluate exactly the hardware a user names (N x GPU, an instance type, at most M instances).

"我们现在有 4 张 L20", "on ecs.gn8is.4xlarge", "最多用两台": the user fixes the hardware, so the answer is
first whether the workload fits on that hardware (per-GPU need against usable memory, headroom), with a
reason code, and only then the smallest change that makes it fit (ZeRO-3 + offload, LoRA, quantisation,
a shorter sequence, more GPUs), each re-estimated with the same estimator.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tools import catalog
from tools.errors import ToolInputError, input_problem
from tools.memory import MemoryEstimate, estimate_memory
from tools.models import ModelArchitecture
from tools.notes import Note, note
from tools.plan_layout import usable_fraction, usable_memory_gib
from tools.plan_notes import VLLM_GPU_MEMORY_UTILIZATION
from tools.workload import Precision, Quant, Task

FitReason = Literal["fits", "memory_per_gpu", "gpu_memory_unknown"]
ChangeCode = Literal[
    "zero3", "zero3_offload", "lora", "qlora", "int8", "int4", "shorter_sequence", "fewer_sequences", "more_gpus",
    "sharded_adapters", "qlora_sharded",
]
DEFAULT_INFERENCE_CONTEXT = 4096
DEFAULT_TRAIN_SEQ_LEN = 2048


class Hardware(BaseModel):
    """The hardware as named: a GPU and how many, from an instance type or a GPU name."""

    model_config = ConfigDict(extra="forbid")

    gpu: str
    gpus: int = Field(description="GPUs in total (per instance x instances)")
    instance_type: str | None = None
    instances: int = 1
    usable_gib_per_gpu: float
    usable_note: Note


class FitChange(BaseModel):
    """One change to the workload or hardware, re-estimated with the same estimator."""

    model_config = ConfigDict(extra="forbid")

    code: ChangeCode
    value: str = Field(description="the changed setting, e.g. '4096' for a shorter sequence, '8' for more GPUs")
    per_gpu_gib: float
    fits: bool


class HardwareFit(BaseModel):
    """Whether a workload fits the named hardware, why, and the smallest change that makes it fit."""

    model_config = ConfigDict(extra="forbid")

    fits: bool
    reason: FitReason
    hardware: Hardware
    model: str
    task: Task
    per_gpu_needed_gib: float
    per_gpu_usable_gib: float = Field(
        description="the limit compared against: vLLM's share of usable memory when serving"
    )
    headroom_gib: float = Field(description="usable minus needed, per GPU (negative: short by that much)")
    headroom_pct: float = Field(description="headroom as a share of usable memory, percent")
    shortfall_gib: float = Field(description="needed minus usable per GPU when it does not fit, else 0")
    layout: Note
    zero: int = Field(default=0, description="ZeRO stage assumed: 3 for full training on several GPUs, else 0")
    changes: list[FitChange] = Field(default_factory=lambda: [], description="tried in order; the fitting ones first")


def resolve_hardware(
    gpu: str | None = None, gpus: int | None = None, instance_type: str | None = None, instances: int = 1
) -> Hardware:
    """Turn "4 x L20" or "ecs.gn8is.4xlarge (x2)" into GPUs, a count and the usable memory per GPU.

    Raises:
        ToolInputError: unknown names, a vGPU slice, or a count that is not a positive whole number.
    """
    if instances < 1:
        raise input_problem("error.instances_min", instances=instances)
    if instance_type:
        inst = catalog.get_instance(instance_type)
        name = inst.gpu_model or inst.gpu_model_likely
        if name is None or not isinstance(inst.gpu_count, int) or inst.vgpu:
            raise input_problem("error.no_whole_gpus", instance_type=inst.instance_type)
        spec, per_instance, memory = catalog.get_gpu(name), inst.gpu_count, inst.gpu_memory_gib
        total, itype = per_instance * instances, inst.instance_type
    else:
        if gpu is None:
            raise input_problem("error.name_hardware")
        if gpus is not None and gpus < 1:
            raise input_problem("error.gpus_positive", gpus=gpus)
        spec, memory, total, itype = catalog.get_gpu(gpu), None, (gpus or 1) * instances, None
    usable = usable_memory_gib(spec, memory)
    if spec.usable_memory_gib:
        said = note("hardware.usable_reported")
    else:
        said = note("hardware.usable_fraction", fraction=usable_fraction(spec))
    return Hardware(
        gpu=spec.name, gpus=total, instance_type=itype, instances=instances, usable_gib_per_gpu=usable, usable_note=said
    )


def evaluate_hardware(
    model: str,
    task: Task = "inference",
    gpu: str | None = None,
    gpus: int | None = None,
    instance_type: str | None = None,
    instances: int = 1,
    precision: Precision = "bf16",
    quant: Quant = "none",
    context: int | None = None,
    gen_tokens: int | None = None,
    concurrency: int | None = None,
    batch: int | None = None,
    seq_len: int | None = None,
    arch: ModelArchitecture | None = None,
    *,
    with_changes: bool = True,
) -> HardwareFit:
    """Check whether a workload fits exactly the named hardware, then the smallest change that fits.

    Args:
        model: Registry name or alias.
        task: inference, full (incl. pretraining), lora or qlora.
        gpu: GPU name when no instance type is named (e.g. 'L20').
        gpus: How many of ``gpu`` per instance (default 1).
        instance_type: An ECS instance type, evaluated as named (its GPU and count).
        instances: How many instances (the hardware is all of them together).
        precision: Weight precision.
        quant: Checkpoint format.
        context: Inference tokens per sequence (prompt + output).
        gen_tokens: Inference output tokens per sequence.
        concurrency: Sequences served at once (inference).
        batch: Micro-batch per GPU (training).
        seq_len: Training sequence length.
        arch: An already-built architecture (a custom model); None resolves ``model``.
        with_changes: False skips the search for changes (a caller judging many models only needs the verdict).

    Raises:
        ToolInputError: unknown names or impossible values.
    """
    hw = resolve_hardware(gpu, gpus, instance_type, instances)
    base = memory_request(model, task, hw.gpus, precision, quant, context, gen_tokens, concurrency, batch, seq_len)
    # Serving is judged like the planner judges it: vLLM may use its utilisation share of usable memory.
    usable = hw.usable_gib_per_gpu * (VLLM_GPU_MEMORY_UTILIZATION if task == "inference" else 1.0)
    if task == "inference":
        base |= {"gpu_memory_gib": hw.usable_gib_per_gpu, "gpu_memory_utilization": VLLM_GPU_MEMORY_UTILIZATION}
    elif task == "full" and hw.gpus > 1:
        base["zero"] = 3  # full training on several GPUs is sharded (ZeRO-3/FSDP) in practice, not replicated
    est = _replicas(base, hw, arch, usable) if task == "inference" and hw.instances > 1 else None
    if est is not None:  # each instance serves its share of the sequences, as the planner lays out replicas
        base |= {"gpus": hw.gpus // hw.instances, "batch": -(-base["batch"] // hw.instances)}
    else:
        est = estimate_memory(base, arch)
    need = est.per_gpu_total_gib
    fits = need <= usable
    changes = [] if fits or not with_changes else _changes(base, usable, hw.gpus, arch)
    return HardwareFit(
        fits=fits,
        reason="fits" if fits else "memory_per_gpu",
        hardware=hw,
        model=est.model,
        task=task,
        per_gpu_needed_gib=round(need, 2),
        per_gpu_usable_gib=round(usable, 2),
        headroom_gib=round(usable - need, 2),
        headroom_pct=round(100 * (usable - need) / usable, 1),
        shortfall_gib=round(max(0.0, need - usable), 2),
        layout=est.layout,
        zero=base.get("zero", 0),
        changes=sorted(changes, key=lambda c: not c.fits),
    )


def _replicas(
    base: dict[str, Any], hw: Hardware, arch: ModelArchitecture | None, usable: float
) -> MemoryEstimate | None:
    """Several instances serving inference: one replica per instance, the sequences shared among them.

    Chosen when that fits, or when one model split over every GPU of every instance is not a valid layout
    (tensor parallel must divide the attention heads); None keeps the split over all GPUs (a model too big
    for one instance).
    """
    share = base | {"gpus": hw.gpus // hw.instances, "batch": -(-base["batch"] // hw.instances)}
    try:
        replica = estimate_memory(share, arch)
    except ToolInputError:
        return None
    if replica.per_gpu_total_gib <= usable:
        return replica
    try:
        estimate_memory(base, arch)
    except ToolInputError:
        return replica
    return None


def memory_request(
    model: str,
    task: Task,
    gpus: int,
    precision: Precision = "bf16",
    quant: Quant = "none",
    context: int | None = None,
    gen_tokens: int | None = None,
    concurrency: int | None = None,
    batch: int | None = None,
    seq_len: int | None = None,
) -> dict[str, Any]:
    """Return the :func:`~tools.memory.estimate_memory` request for a workload on ``gpus`` GPUs.

    Serving is estimated as vLLM runs it, with ``concurrency`` sequences of ``context`` tokens (default
    4,096), a quarter of them output (at most 512) unless ``gen_tokens`` says; training uses ``batch`` and
    ``seq_len`` (QLoRA's base is 4-bit, so its precision and quant are the adapters' bf16).
    """
    req: dict[str, Any] = {"model": model, "task": task, "gpus": gpus, "precision": precision, "quant": quant}
    if task == "inference":
        total = context or DEFAULT_INFERENCE_CONTEXT
        gen = gen_tokens or min(512, max(1, total // 4))
        req |= {"framework": "vllm", "batch": concurrency or 1, "prompt_tokens": max(1, total - gen)}
        req["gen_tokens"] = gen
    else:
        if task == "qlora":
            req |= {"precision": "bf16", "quant": "none"}
        req |= {"batch": batch or 1, "seq_len": seq_len or context or DEFAULT_TRAIN_SEQ_LEN}
    return req


def _try(
    req: dict[str, Any], code: ChangeCode, value: str, usable: float, arch: ModelArchitecture | None = None
) -> FitChange | None:
    try:
        est: MemoryEstimate = estimate_memory(req, arch)
    except ToolInputError:
        return None
    need = est.per_gpu_total_gib
    return FitChange(code=code, value=value, per_gpu_gib=round(need, 2), fits=need <= usable)


def _changes(base: dict[str, Any], usable: float, gpus: int, arch: ModelArchitecture | None) -> list[FitChange]:
    """Candidate changes, cheapest in quality and money first; each is one step away from ``base``."""
    out: list[FitChange | None] = []
    if base["task"] == "inference":
        if base["precision"] in ("bf16", "fp16", "fp32"):
            out.append(_try(base | {"precision": "int8", "quant": "none"}, "int8", "int8", usable, arch))
            out.append(_try(base | {"precision": "int4", "quant": "awq-int4"}, "int4", "awq-int4", usable, arch))
        out += _more_gpus(base, usable, gpus, arch)  # keeps every stated requirement; the cuts below do not
        if base["prompt_tokens"] > 2048:
            shorter = base["prompt_tokens"] // 2
            value = str(shorter + base["gen_tokens"])
            out.append(_try(base | {"prompt_tokens": shorter}, "shorter_sequence", value, usable, arch))
        if base["batch"] > 1:
            fewer = max(1, base["batch"] // 2)
            out.append(_try(base | {"batch": fewer}, "fewer_sequences", str(fewer), usable, arch))
        return [c for c in out if c is not None]
    else:
        if base["task"] == "full":
            if gpus > 1 and base.get("zero", 0) != 3:
                out.append(_try(base | {"zero": 3}, "zero3", "ZeRO-3", usable, arch))
            offload = base | {"zero": 3, "offload": "optimizer"}
            out.append(_try(offload, "zero3_offload", "ZeRO-3 + CPU offload", usable, arch))
            out.append(_try(base | {"task": "lora"}, "lora", "LoRA", usable, arch))
        if base["task"] in ("lora", "qlora") and gpus > 1 and base.get("zero", 0) != 3:
            # Adapters on several GPUs: the frozen base is sharded (FSDP / ZeRO-3), as PEFT and FSDP+QLoRA do.
            out.append(_try(base | {"zero": 3}, "sharded_adapters", "ZeRO-3", usable, arch))
        if base["task"] in ("full", "lora"):
            out.append(
                _try(base | {"task": "qlora", "precision": "bf16", "quant": "none"}, "qlora", "QLoRA", usable, arch)
            )
            if gpus > 1:  # two steps at once: a 4-bit base that is also sharded (70B on two 24 GB cards)
                qlora_sharded = base | {"task": "qlora", "precision": "bf16", "quant": "none", "zero": 3}
                out.append(_try(qlora_sharded, "qlora_sharded", "QLoRA + ZeRO-3", usable, arch))
        if base["seq_len"] > 1024:
            shorter = base["seq_len"] // 2
            out.append(_try(base | {"seq_len": shorter}, "shorter_sequence", str(shorter), usable, arch))
    out += _more_gpus(base, usable, gpus, arch)
    return [c for c in out if c is not None]


def _more_gpus(
    base: dict[str, Any], usable: float, gpus: int, arch: ModelArchitecture | None
) -> list[FitChange | None]:
    """Double the GPUs up to three times, stopping at the first count that fits."""
    # More GPUs help a full run only when its states are sharded (ZeRO-3), not replicated (DDP).
    wider = base | {"zero": 3} if base["task"] == "full" else base
    out: list[FitChange | None] = []
    for more in (2 * gpus, 4 * gpus, 8 * gpus):
        change = _try(wider | {"gpus": more}, "more_gpus", str(more), usable, arch)
        out.append(change)
        if change and change.fits:
            break
    return out
