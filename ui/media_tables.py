"""Terminal tables for image/video, speech and embedding estimates and plans (rich)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from rich.table import Table

from ui.tables import _console, _num, _print_list

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tools.media_memory import MediaMemoryEstimate
    from tools.media_models import MediaModel
    from tools.media_plan import MediaPlan


def print_media_estimate(est: MediaMemoryEstimate) -> None:
    """Component weights, each stage's peak, and the total."""
    console = _console()
    table = Table(title=f"{est.model} ({est.kind}), {est.dtype}, offload {est.offload}: GiB on one GPU")
    for col in ("stage", "weights resident", "activations", "stage total"):
        table.add_column(col, justify="left" if col == "stage" else "right")
    for s in est.stages:
        style = "bold" if s.stage == est.peak_stage else None
        table.add_row(s.stage, _num(s.weights_gib, "{:,.2f}"), _num(s.activations_gib, "{:,.2f}"),
                      _num(s.total_gib, "{:,.2f}"), style=style)
    table.add_row("CUDA context", "", "", _num(est.cuda_context_gib, "{:,.2f}"))
    table.add_row("total", "", "", _num(est.total_gib, "{:,.2f}"), style="bold")
    console.print(table)
    weights = ", ".join(f"{name} {gib:,.2f}" for name, gib in est.component_weights_gib.items())
    console.print(f"weights (GiB): {weights}", markup=False)
    _print_list(console, "assumptions", est.assumptions)


def print_media_plan(plan: MediaPlan) -> None:
    """Ranked options with speed and cost per unit, rejections summarised, assumptions."""
    console = _console()
    console.print(f"[bold]{plan.model}[/bold] ({plan.kind}): needs {plan.memory.total_gib:,.1f} GiB on one GPU")
    unit = plan.options[0].speed_per_gpu.unit if plan.options else "item"
    cost_unit = plan.options[0].cost_unit if plan.options else unit
    table = Table(title="options that fit (one replica per GPU)")
    plural = {"image": "images", "video": "videos", "audio hour": "audio hours"}.get(unit, unit)
    cols = ("#", "instance type", "GPU", "GPUs", "GiB/GPU", "headroom", f"{plural}/h per GPU", "¥/h",
            f"¥ per {cost_unit}")
    for col in cols:
        table.add_column(col, justify="left" if col in ("instance type", "GPU") else "right")
    for i, o in enumerate(plan.options, start=1):
        table.add_row(
            str(i), f"{o.instance_type} x{o.instances}", o.gpu_model or f"{o.gpu_model_likely or 'unnamed'}?",
            str(o.total_gpus), f"{o.per_gpu_gib_needed:.1f} / {o.per_gpu_capacity_gib:.1f}",
            f"{o.headroom_pct:.0f}%" + (" tight" if o.tight_fit else ""),
            _num(o.speed_per_gpu.items_per_hour, "{:,.1f}"), _num(o.price_cny_per_hour, "{:,.2f}"),
            _num(o.cost_cny_per_unit, "{:,.2f}"),
        )
    console.print(table)
    sources = sorted({o.price_source for o in plan.options if o.price_source})
    _print_list(console, "price sources", sources or ["no list price known for these types"])
    reasons = Counter(f"{r.family}: {r.reason}" for r in plan.rejected)
    _print_list(console, "rejected (most common reasons)", [f"{n}x {why}" for why, n in reasons.most_common(8)])
    _print_list(console, "assumptions", plan.assumptions)
    _print_list(console, "warnings", plan.warnings)


def print_media_models(models: Sequence[MediaModel]) -> None:
    """One row per model: kind, parameters, default dtype and the names users type."""
    console = _console()
    table = Table(title="image/video, vision-language, speech and embedding models")
    for col in ("model", "kind", "params (B)", "dtype", "also called"):
        table.add_column(col, justify="right" if col == "params (B)" else "left")
    for m in models:
        table.add_row(m.name, m.kind, f"{m.total_params / 1e9:,.2f}", m.default_dtype, ", ".join(m.aliases[:4]))
    console.print(table)
    console.print("vision-language rows count the vision tower only; the language model is in `models`")
