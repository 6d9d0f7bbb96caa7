"""How many sequences of a given length fit at once on given hardware, from the KV-cache budget.

"How many concurrent 32k users does this hold?": per GPU, vLLM's share of usable memory minus what does not grow with
the number of sequences (weights, overhead, fixed buffers) is the KV budget; each sequence of the stated
length takes its share of K/V. The count is a memory ceiling: latency targets may allow fewer.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from tools.errors import input_problem
from tools.hardware_fit import Hardware, memory_request, resolve_hardware
from tools.memory import estimate_memory
from tools.models import ModelArchitecture
from tools.notes import Note
from tools.plan_notes import VLLM_GPU_MEMORY_UTILIZATION
from tools.workload import Precision, Quant


class Capacity(BaseModel):
    """Concurrent sequences the named hardware holds in memory."""

    model_config = ConfigDict(extra="forbid")

    model: str
    hardware: Hardware
    context: int = Field(description="tokens per sequence (prompt + output)")
    sequences: int = Field(description="concurrent sequences that fit (0: not even one)")
    kv_gib_per_sequence: float = Field(description="K/V per sequence, per GPU")
    fixed_gib_per_gpu: float = Field(description="weights, overhead and buffers that do not grow with sequences")
    kv_budget_gib_per_gpu: float = Field(description="vLLM's share of usable memory left for K/V, per GPU")
    layout: Note


def concurrent_sequences(
    model: str,
    context: int,
    gpu: str | None = None,
    gpus: int | None = None,
    instance_type: str | None = None,
    instances: int = 1,
    precision: Precision = "bf16",
    quant: Quant = "none",
    arch: ModelArchitecture | None = None,
) -> Capacity:
    """Count the sequences of ``context`` tokens the hardware holds at once (a memory ceiling).

    Args:
        model: Registry name or alias.
        context: Tokens per sequence (prompt + output), positive.
        gpu: GPU name when no instance type is named.
        gpus: How many of ``gpu`` (default 1).
        instance_type: An ECS instance type, evaluated as named.
        instances: Instances serving independently (the count is summed over them).
        precision: Weight precision.
        quant: Checkpoint format.
        arch: An already-built architecture (a custom model); None resolves ``model``.

    Raises:
        ToolInputError: unknown names or impossible values.
    """
    if context < 2:
        raise input_problem("error.context_min", least=2, context=context)
    hw = resolve_hardware(gpu, gpus, instance_type, 1)
    req = memory_request(model, "inference", hw.gpus, precision, quant, context)
    one, two = estimate_memory(req | {"batch": 1}, arch), estimate_memory(req | {"batch": 2}, arch)
    per_seq = two.per_gpu_total_gib - one.per_gpu_total_gib
    fixed = one.per_gpu_total_gib - per_seq
    budget = hw.usable_gib_per_gpu * VLLM_GPU_MEMORY_UTILIZATION - fixed
    sequences = max(0, math.floor(budget / per_seq)) if per_seq > 0 else 0
    return Capacity(
        model=one.model,
        hardware=hw.model_copy(update={"instances": instances, "gpus": hw.gpus * instances}),
        context=context,
        sequences=sequences * instances,
        kv_gib_per_sequence=round(per_seq, 3),
        fixed_gib_per_gpu=round(fixed, 2),
        kv_budget_gib_per_gpu=round(budget, 2),
        layout=one.layout,
    )
