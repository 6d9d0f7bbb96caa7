"""The planner's notes: the assumptions and warnings every plan states, and how a fit was checked.

The serving constants live here because the notes quote them; :mod:`tools.plan` and
:mod:`tools.plan_layout` use the same values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.architecture import ModelArchitecture
from tools.memory_band import band_for
from tools.notes import Note, note
from tools.plan_pricing import price_warnings, ranking_note, region_assumption
from tools.prices import HOURS_PER_MONTH
from tools.speed_targets import target_notes
from tools.throughput import SpeedAssumptions
from tools.workload import Workload

if TYPE_CHECKING:
    from tools.plan import DeploymentOption, Rejection

VLLM_GPU_MEMORY_UTILIZATION = 0.9
# Where no CUDA-visible size is published: HBM parts show ~99% of nominal (A100-80GB: 81251 of 81920
# MiB), GDDR parts with ECC ~92% (A10: 22731 of 24576 MiB; L20: 45056 of 49152), per Alibaba's
# Karpenter GPU table. Slightly below those, to stay on the safe side.
USABLE_FRACTION_HBM = 0.98
USABLE_FRACTION_OTHER = 0.92


def framework_of(w: Workload) -> str:
    """Return the stack the estimate models: the workload's, else vLLM to serve and HF Trainer to train."""
    return w.framework or ("vllm" if w.task == "inference" else "transformers")


def band_note(needed: float, upper: float, capacity: float) -> Note:
    """Say how the fit was checked: against the band's upper end."""
    if upper > capacity:
        return note("option.band_tight", need=round(needed, 2), upper=round(upper, 2), usable=round(capacity, 2))
    return note("option.band_fits", upper=round(upper, 2), usable=round(capacity, 2))


def plan_assumptions(w: Workload) -> list[Note]:
    a = SpeedAssumptions()
    items = [
        note("plan.context_generated", context=w.context_tokens, output=w.output_tokens)
        if w.task == "inference"
        else note("plan.context", context=w.context_tokens)
    ]
    if w.task == "inference":
        items += [
            concurrency_assumption(w),
            *target_notes(w),
            note("plan.vllm_serving", utilization=VLLM_GPU_MEMORY_UTILIZATION),
            note(
                "plan.decode_model",
                step_ms=a.step_overhead_s * 1e3,
                eta=a.eta_bandwidth_dense,
                eta_quantized=a.eta_bandwidth_quantized,
                eta_moe=a.eta_bandwidth_moe,
            ),
        ]
    else:
        items += [
            note("plan.micro_batch", batch=w.batch or 1, grad_ckpt=w.grad_ckpt),
            note("plan.full_zero3" if w.task == "full" else "plan.lora_dp"),
            note("plan.mfu", mfu=a.mfu_training),
        ]
    items += [
        note("plan.usable_memory", hbm=USABLE_FRACTION_HBM, other=USABLE_FRACTION_OTHER),
        note("plan.monthly_price", hours=HOURS_PER_MONTH),
        ranking_note(w.billing),
        band_for(framework_of(w), w.task).note(checked=True),
        region_assumption(w),
    ]
    return items


def concurrency_assumption(w: Workload) -> Note:
    if w.concurrency is None and w.qps:
        return note("plan.qps_little", qps=w.qps)
    n = w.concurrency or 1
    code = "plan.one_sequence" if n == 1 else "plan.sequences"
    return note(code + "_qps", concurrency=n, qps=w.qps) if w.qps else note(code, concurrency=n)


def plan_warnings(
    arch: ModelArchitecture,
    w: Workload,
    options: list[DeploymentOption],
    rejected: list[Rejection],
    gpu_offered: bool,
) -> list[Note]:
    warnings = []
    if not gpu_offered:
        warnings.append(note("plan.no_gpu_in_catalog", gpu=str(w.gpu)))
    if w.budget_cny_month:
        unpriced = sum(o.price_cny_per_month is None for o in options)
        if unpriced:
            warnings.append(note("plan.unpriced_budget", count=unpriced))
        over = [r for r in rejected if r.reason.code == "reject.over_budget"]
        if over and not any(o.price_cny_per_month is not None for o in options):
            warnings.append(note("plan.all_over_budget", budget=w.budget_cny_month))
    if w.context_tokens > arch.max_context:
        warnings.append(
            note("plan.context_over_max", context=w.context_tokens, model=arch.name, max_context=arch.max_context)
        )
    if not options and any(r.reason.code in ("reject.speed_per_stream", "reject.ttft") for r in rejected):
        warnings.append(note("plan.nothing_fast_enough"))
    elif not options:
        warnings.append(note("plan.nothing_fits"))
    if any(o.gpu_confidence in ("inferred", "uncertain") for o in options):
        warnings.append(note("plan.gpu_inferred"))
    warnings += price_warnings(w.region, w.billing, options)
    return warnings
