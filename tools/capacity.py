"""How many sequences of a given length fit at once on given hardware, from the KV-cache budget.

"How many concurrent 32k users does this hold?": per GPU, vLLM's share of usable memory minus what does not grow with
the number of sequences (weights, overhead, fixed buffers) is the KV budget; each sequence of the stated
length takes its share of K/V. The count is a memory ceiling: latency targets may allow fewer.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.errors import input_problem
from tools.hardware_fit import Hardware, memory_request, resolve_hardware
from tools.memory import estimate_memory
from tools.models import ModelArchitecture, resolve_model
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


_SHORTEST_CONTEXT = 256  # tokens: below this no chat fits, so "not even" is the answer


class ContextBudget(BaseModel):
    """The longest sequence each of ``users`` concurrent users gets on the named hardware."""

    model_config = ConfigDict(extra="forbid")

    model: str
    hardware: Hardware
    users: int = Field(description="concurrent sequences, all instances together")
    context: int = Field(description="longest tokens per sequence (prompt + output); 0 = not even 256 tokens")
    limited_by: Literal["memory", "model"] = Field(description="the K/V budget, or the model's own context window")
    model_max_context: int = Field(description="the model's max_position_embeddings")
    kv_gib_per_sequence: float = Field(description="K/V per sequence at that context, per GPU")
    kv_budget_gib_per_gpu: float = Field(description="vLLM's share of usable memory left for K/V, per GPU")
    layout: Note


def longest_context(
    model: str,
    users: int,
    gpu: str | None = None,
    gpus: int | None = None,
    instance_type: str | None = None,
    instances: int = 1,
    precision: Precision = "bf16",
    quant: Quant = "none",
    arch: ModelArchitecture | None = None,
) -> ContextBudget:
    """Find the longest context each of ``users`` concurrent users gets on the hardware (a memory ceiling).

    The K/V budget of :func:`concurrent_sequences` is shared by ``users`` sequences (spread evenly over the
    instances); the longest length at which they all fit is found by bisection, and never exceeds the model's
    own context window.

    Args:
        model: Registry name or alias.
        users: Sequences served at once, positive.
        gpu: GPU name when no instance type is named.
        gpus: How many of ``gpu`` per instance (default 1).
        instance_type: An ECS instance type, evaluated as named.
        instances: Instances sharing the users.
        precision: Weight precision.
        quant: Checkpoint format.
        arch: An already-built architecture (a custom model); None resolves ``model``.

    Raises:
        ToolInputError: unknown names or impossible values.
    """
    if users < 1:
        raise input_problem("error.users_min", users=users)
    arch = arch or resolve_model(model)
    each = math.ceil(users / instances)

    def fit(context: int) -> Capacity:
        return concurrent_sequences(model, context, gpu, gpus, instance_type, 1, precision, quant, arch)

    top = arch.max_context
    low, high = _SHORTEST_CONTEXT, top
    if fit(top).sequences >= each:
        low = top
    elif fit(low).sequences < each:
        low = 0
    else:
        while high - low > 1:  # fewer sequences fit as each grows longer: bisect for the last length that holds
            mid = (low + high) // 2
            low, high = (mid, high) if fit(mid).sequences >= each else (low, mid)
    at = fit(max(low, _SHORTEST_CONTEXT))
    return ContextBudget(
        model=at.model,
        hardware=at.hardware.model_copy(update={"instances": instances, "gpus": at.hardware.gpus * instances}),
        users=users,
        context=low,
        limited_by="model" if low == top else "memory",
        model_max_context=top,
        kv_gib_per_sequence=at.kv_gib_per_sequence,
        kv_budget_gib_per_gpu=at.kv_budget_gib_per_gpu,
        layout=at.layout,
    )
