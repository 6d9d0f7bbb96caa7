"""The planner's notes: the assumptions and warnings every plan states, and how a fit was checked.

The serving constants live here because the notes quote them; :mod:`tools.plan` uses the same values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.architecture import ModelArchitecture
from tools.memory_band import band_for
from tools.plan_pricing import billing_text, price_warnings, region_assumption
from tools.prices import HOURS_PER_MONTH
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


def band_note(needed: float, upper: float, capacity: float) -> str:
    """Say how the fit was checked: against the band's upper end."""
    if upper > capacity:
        return (
            f"tight: fits at the estimate ({needed:.1f} GiB) but the band's upper end ({upper:.1f} GiB) "
            f"exceeds the usable {capacity:.1f} GiB per GPU"
        )
    return f"fits at the band's upper end ({upper:.1f} of {capacity:.1f} GiB usable per GPU)"


def plan_assumptions(w: Workload) -> list[str]:
    a = SpeedAssumptions()
    items = [
        f"context {w.context_tokens} tokens per sequence"
        + (f", {w.output_tokens} generated" if w.task == "inference" else ""),
    ]
    if w.task == "inference":
        items += [
            concurrency_assumption(w),
            f"vLLM-style serving, gpu_memory_utilization {VLLM_GPU_MEMORY_UTILIZATION}",
            f"decode: {a.step_overhead_s * 1e3:.0f} ms per step + bytes / ({a.eta_bandwidth_dense:.2f} x bandwidth)"
            f" (x{a.eta_bandwidth_quantized} for quantised, x{a.eta_bandwidth_moe} for MoE)",
        ]
    else:
        items += [
            f"micro-batch {w.batch or 1} per GPU, gradient checkpointing {'on' if w.grad_ckpt else 'off'}",
            "full fine-tuning on several GPUs uses ZeRO-3 (FSDP-like sharding)"
            if w.task == "full"
            else "LoRA/QLoRA: plain data parallel, ZeRO-3 when one GPU cannot hold the frozen base",
            f"training time at {a.mfu_training:.0%} model FLOPs utilisation",
        ]
    items += [
        "usable GPU memory: published CUDA-visible figure, else "
        f"{USABLE_FRACTION_HBM:.0%} (HBM) or {USABLE_FRACTION_OTHER:.0%} (GDDR) of nominal",
        f"monthly price: subscription where listed, else {HOURS_PER_MONTH} h of pay-as-you-go (labelled)",
        f"ranked by {billing_text(w.billing)}; tight fits (the memory band's upper end exceeds the usable "
        "memory) after comfortable ones",
        band_for(framework_of(w), w.task).sentence() + "; fits are checked against the upper end",
        region_assumption(w),
    ]
    return items


def concurrency_assumption(w: Workload) -> str:
    if w.concurrency is None and w.qps:
        return f"{w.qps} requests/s; sequences in flight follow from the rate and the latency (Little's law)"
    n = w.concurrency or 1
    text = f"{n} concurrent sequence{'s' if n != 1 else ''}"
    return text + (f", {w.qps} requests/s" if w.qps else "")


def plan_warnings(
    arch: ModelArchitecture,
    w: Workload,
    options: list[DeploymentOption],
    rejected: list[Rejection],
    gpu_offered: bool,
) -> list[str]:
    warnings = []
    if not gpu_offered:
        warnings.append(f"no instance type in the catalog has a {w.gpu} GPU")
    if w.budget_cny_month:
        unpriced = sum(o.price_cny_per_month is None for o in options)
        if unpriced:
            warnings.append(f"{unpriced} option(s) have no list price, so the budget could not be checked for them")
        over = [r for r in rejected if r.reason.startswith("over budget")]
        if over and not any(o.price_cny_per_month is not None for o in options):
            warnings.append(f"every priced option that fits costs more than ¥{w.budget_cny_month:,.0f}/month")
    if w.context_tokens > arch.max_context:
        warnings.append(f"context {w.context_tokens} exceeds {arch.name}'s max_context {arch.max_context}")
    if not options:
        warnings.append("no instance type fits this workload; see the rejections")
    if any(o.gpu_confidence in ("inferred", "uncertain") for o in options):
        warnings.append("some options use GPUs Alibaba does not name; the GPU shown is inferred")
    warnings += price_warnings(w.region, w.billing, options)
    return warnings
