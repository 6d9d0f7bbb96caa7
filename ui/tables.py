"""Terminal tables for the core commands (rich); JSON output does not come through here."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from tools.architecture import ModelArchitecture
    from tools.catalog import GPU, InstanceType
    from tools.memory import MemoryEstimate
    from tools.plan import DeploymentOption, Plan


def _console() -> Console:
    # Piped output gets a wide console so tables are not squeezed to 80 columns. No emoji codes: data text
    # (names, URLs) prints as it is, and rich need not load its emoji table. The size is read once: rich
    # otherwise asks the terminal and the environment again for every line it prints (a tenth of a table's
    # rendering), and a command's output takes milliseconds.
    console = Console(highlight=False, emoji=False)
    width = console.size.width + console.legacy_windows if console.is_terminal else 200
    return Console(highlight=False, emoji=False, width=width, height=console.size.height)


def _num(value: float | int | None, fmt: str = "{:,.1f}") -> str:
    return "—" if value is None else fmt.format(value)


def print_estimate(est: MemoryEstimate) -> None:
    """Per-GPU memory terms, totals and what each number means."""
    console = _console()
    table = Table(title=f"{est.model}: {est.task}, {est.num_gpus} GPU(s), GiB per GPU")
    table.add_column("term")
    table.add_column("GiB", justify="right")
    table.add_column("meaning")
    for term, value in est.per_gpu.model_dump().items():
        table.add_row(term.removesuffix("_gib"), _num(value, "{:,.2f}"), est.meanings.get(term, ""))
    table.add_row("tensors", _num(est.per_gpu_tensors_gib, "{:,.2f}"), "what torch allocates")
    table.add_row("total", _num(est.per_gpu_total_gib, "{:,.2f}"), "what nvidia-smi will show", style="bold")
    console.print(table)
    console.print(f"parameters: {est.params_b:,.2f} B")
    _print_list(console, "assumptions", est.assumptions)
    _print_list(console, "warnings", est.warnings)


def print_plan(plan: Plan) -> None:
    """Ranked options, then rejection reasons summarised, then assumptions."""
    console = _console()
    w = plan.workload
    console.print(f"[bold]{plan.model}[/bold] ({plan.params_b:,.1f} B params), {w.task}")
    table = Table(title="options that fit (per-GPU GiB needed / usable)")
    training = w.task != "inference"
    speed_col = "train h" if training else "tok/s"
    for col in ("#", "instance type", "GPU", "GPUs", "layout", "GiB/GPU", "headroom", speed_col, "¥/h", "¥/month"):
        table.add_column(col, justify="right" if col not in ("instance type", "GPU", "layout") else "left")
    for i, o in enumerate(plan.options, start=1):
        gpu = _short_gpu(o)
        layout = f"TP{o.tensor_parallel} x PP{o.pipeline_parallel} x DP{o.data_parallel}"
        speed = _num(o.training_hours, "{:,.1f}") if training else _num(o.decode_tokens_per_s, "{:,.0f}")
        table.add_row(
            str(i),
            f"{o.instance_type} x{o.instances}",
            gpu,
            str(o.total_gpus),
            layout,
            f"{o.per_gpu_gib_needed:.1f} / {o.per_gpu_capacity_gib:.1f}",
            f"{o.headroom_pct:.0f}%" + (" tight" if o.tight_fit else ""),
            speed,
            _num(o.price_cny_per_hour, "{:,.2f}"),
            _num(o.price_cny_per_month, "{:,.0f}"),
        )
    console.print(table)
    # Long inferred names ("Blackwell-Pro-72GB (unnamed, gn9gc/...)") would swamp the table: full name here.
    named = {_short_gpu(o): f"{o.gpu_model_likely} ({o.gpu_confidence})" for o in plan.options if not o.gpu_model}
    _print_list(console, "GPUs Alibaba does not name", [f"{short} = {full}" for short, full in named.items()])
    sources = sorted({o.price_source for o in plan.options if o.price_source})
    _print_list(console, "price sources", sources or ["no list price known for these types"])
    notes = [f"#{i} {note}" for i, o in enumerate(plan.options, start=1) for note in o.notes]
    _print_list(console, "notes", notes)
    # With a GPU filter, "has X, not the requested Y" says nothing the user did not ask for.
    reasons = Counter(f"{r.family}: {r.reason}" for r in plan.rejected if r.reason.code != "reject.not_requested_gpu")
    _print_list(console, "rejected (most common reasons)", [f"{n}x {why}" for why, n in reasons.most_common(8)])
    _print_list(console, "assumptions", plan.assumptions)
    _print_list(console, "warnings", plan.warnings)


def _short_gpu(option: DeploymentOption) -> str:
    """Return a table-sized GPU name: parentheses dropped, "?" when Alibaba does not name the GPU."""
    if option.gpu_model:
        return option.gpu_model
    return re.sub(r"\s*[(（][^)）]*[)）]", "", option.gpu_model_likely or "unnamed").strip() + "?"


def print_instances(instances: Sequence[InstanceType]) -> None:
    """One row per instance type."""
    table = Table(title=f"{len(instances)} instance types")
    for col in ("instance type", "family", "GPU", "GPUs", "GPU memory", "vCPU", "RAM GiB", "retired"):
        table.add_column(col)
    for i in instances:
        gpu = i.gpu_model or (f"{i.gpu_model_likely}?" if i.gpu_model_likely else "unnamed")
        table.add_row(
            i.instance_type, i.family, gpu, _num(i.gpu_count, "{:g}"), _num(i.gpu_memory_gib, "{:g}"),
            _num(i.vcpu, "{:d}"), _num(i.memory_gib, "{:g}"), "yes" if i.retired else "",
        )
    _console().print(table)


def print_gpus(gpus: Sequence[GPU]) -> None:
    """One row per GPU."""
    table = Table(title=f"{len(gpus)} GPUs (dense figures)")
    for col in ("GPU", "memory GiB", "GB/s", "BF16 TFLOPS", "FP8 TFLOPS", "NVLink GB/s"):
        table.add_column(col)
    for g in gpus:
        table.add_row(
            g.name, _num(g.memory_gib, "{:g}"), _num(g.memory_bandwidth_gb_s, "{:,.0f}"),
            _num(g.bf16_dense_tflops, "{:g}"), _num(g.fp8_dense_tflops, "{:g}"), _num(g.nvlink_gb_s, "{:g}"),
        )
    _console().print(table)


def print_models(models: Sequence[ModelArchitecture]) -> None:
    """One row per registry model."""
    table = Table(title=f"{len(models)} models")
    for col in ("model", "family", "params B", "layers", "heads/kv", "attention", "context"):
        table.add_column(col)
    for m in models:
        table.add_row(
            m.name, m.family, f"{m.param_breakdown().total / 1e9:,.1f}", str(m.num_layers),
            f"{m.num_attention_heads}/{m.num_kv_heads}", m.attention_kind, f"{m.max_context:,}",
        )
    console = _console()
    console.print(table)
    console.print("image/video, vision-language, speech and embedding models: gpu-advisor models --kind media")


def _print_list(console: Console, title: str, items: Sequence[object]) -> None:
    if items:
        # One Text, printed once: rich wraps it line by line as it would each line printed on its own
        # (tests/test_cli_speed_paths.py compares the two), at a fraction of the per-print cost.
        text = Text()
        text.append(title, style="bold")
        for item in items:
            text.append(f"\n  - {item}")
        console.print(text)
