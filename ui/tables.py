"""Tables for the core commands: rich's on a terminal, the same layout without rich elsewhere.

Each ``print_*`` describes what it prints (lines, a table, titled lists) and :func:`_emit` prints it: to a
pipe or file through :mod:`ui.plain_text` (the layout rich would print there, without importing rich), to a
terminal or wherever that cannot be exact with rich. Cells and lines are plain text, never rich markup, so
both print a name with brackets as it is. JSON output does not come through here.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Sequence, Set
from typing import TYPE_CHECKING

from ui import plain_text

if TYPE_CHECKING:
    from rich.console import Console

    from tools.architecture import ModelArchitecture
    from tools.catalog import GPU, InstanceType
    from tools.memory import MemoryEstimate
    from tools.plan import DeploymentOption, Plan


class _Line:
    """A line of text; its first ``bold`` characters are bold on a terminal."""

    __slots__ = ("bold", "text")

    def __init__(self, text: str, bold: str = "") -> None:
        self.text, self.bold = text, bold


class _Table:
    """A titled table of one-line cells; columns are (header, "left" | "right")."""

    __slots__ = ("bold_rows", "columns", "rows", "title")

    def __init__(
        self,
        title: str,
        columns: Sequence[tuple[str, str]],
        rows: Sequence[Sequence[str]],
        bold_rows: Set[int] = frozenset(),
    ) -> None:
        self.title, self.columns, self.rows, self.bold_rows = title, columns, rows, bold_rows


class _List:
    """A bold title, then one ``  - item`` line per item; nothing at all without items."""

    __slots__ = ("items", "title")

    def __init__(self, title: str, items: Sequence[object]) -> None:
        self.title, self.items = title, items


_Block = _Line | _Table | _List


def _console() -> Console:
    # Piped output gets a wide console so tables are not squeezed to 80 columns. No emoji codes: data text
    # (names, URLs) prints as it is, and rich need not load its emoji table. The size is read once: rich
    # otherwise asks the terminal and the environment again for every line it prints (a tenth of a table's
    # rendering), and a command's output takes milliseconds.
    from rich.console import Console

    console = Console(highlight=False, emoji=False)
    width = console.size.width + console.legacy_windows if console.is_terminal else plain_text.WIDTH
    return Console(highlight=False, emoji=False, width=width, height=console.size.height)


def _emit(blocks: Sequence[_Block]) -> None:
    """Print ``blocks`` without rich where its output is plain text, else with rich."""
    lines = _plain_lines(blocks) if plain_text.writes_plain() else None
    if lines is not None:
        sys.stdout.write("".join(f"{line}\n" for line in lines))
        return
    from rich.table import Table
    from rich.text import Text

    console = _console()
    for block in blocks:
        if isinstance(block, _Line):
            console.print(Text.assemble((block.bold, "bold"), block.text[len(block.bold) :]))
        elif isinstance(block, _Table):
            table = Table(title=Text(block.title, style="table.title"))
            for header, justify in block.columns:
                table.add_column(header, justify="right" if justify == "right" else "left")
            for i, row in enumerate(block.rows):
                table.add_row(*(Text(cell) for cell in row), style="bold" if i in block.bold_rows else None)
            console.print(table)
        else:
            _print_list(console, block.title, block.items)


def _plain_lines(blocks: Sequence[_Block]) -> list[str] | None:
    out: list[str] = []
    for block in blocks:
        if isinstance(block, _Line):
            lines = plain_text.text_lines([block.text])
        elif isinstance(block, _Table):
            lines = plain_text.table_lines(block.title, block.columns, block.rows)
        else:
            items = [f"  - {item}" for item in block.items]
            lines = plain_text.text_lines([block.title, *items]) if items else []
        if lines is None:
            return None
        out.extend(lines)
    return out


def _num(value: float | int | None, fmt: str = "{:,.1f}") -> str:
    return "—" if value is None else fmt.format(value)


def print_estimate(est: MemoryEstimate) -> None:
    """Per-GPU memory terms, totals and what each number means."""
    rows = [
        [term.removesuffix("_gib"), _num(value, "{:,.2f}"), est.meanings.get(term, "")]
        for term, value in est.per_gpu.model_dump().items()
    ]
    rows.append(["tensors", _num(est.per_gpu_tensors_gib, "{:,.2f}"), "what torch allocates"])
    rows.append(["total", _num(est.per_gpu_total_gib, "{:,.2f}"), "what nvidia-smi will show"])
    title = f"{est.model}: {est.task}, {est.num_gpus} GPU(s), GiB per GPU"
    _emit([
        _Table(title, [("term", "left"), ("GiB", "right"), ("meaning", "left")], rows, {len(rows) - 1}),
        _Line(f"parameters: {est.params_b:,.2f} B"),
        _List("assumptions", est.assumptions),
        _List("warnings", est.warnings),
    ])


def print_plan(plan: Plan) -> None:
    """Ranked options, then rejection reasons summarised, then assumptions."""
    w = plan.workload
    training = w.task != "inference"
    speed_col = "train h" if training else "tok/s"
    columns = [
        (col, "left" if col in ("instance type", "GPU", "layout") else "right")
        for col in ("#", "instance type", "GPU", "GPUs", "layout", "GiB/GPU", "headroom", speed_col, "¥/h", "¥/month")
    ]
    rows = []
    for i, o in enumerate(plan.options, start=1):
        layout = f"TP{o.tensor_parallel} x PP{o.pipeline_parallel} x DP{o.data_parallel}"
        speed = _num(o.training_hours, "{:,.1f}") if training else _num(o.decode_tokens_per_s, "{:,.0f}")
        rows.append([
            str(i),
            f"{o.instance_type} x{o.instances}",
            _short_gpu(o),
            str(o.total_gpus),
            layout,
            f"{o.per_gpu_gib_needed:.1f} / {o.per_gpu_capacity_gib:.1f}",
            f"{o.headroom_pct:.0f}%" + (" tight" if o.tight_fit else ""),
            speed,
            _num(o.price_cny_per_hour, "{:,.2f}"),
            _num(o.price_cny_per_month, "{:,.0f}"),
        ])
    # Long inferred names ("Blackwell-Pro-72GB (unnamed, gn9gc/...)") would swamp the table: full name here.
    named = {_short_gpu(o): f"{o.gpu_model_likely} ({o.gpu_confidence})" for o in plan.options if not o.gpu_model}
    sources = sorted({o.price_source for o in plan.options if o.price_source})
    notes = [f"#{i} {note}" for i, o in enumerate(plan.options, start=1) for note in o.notes]
    # With a GPU filter, "has X, not the requested Y" says nothing the user did not ask for.
    reasons = Counter(f"{r.family}: {r.reason}" for r in plan.rejected if r.reason.code != "reject.not_requested_gpu")
    _emit([
        _Line(f"{plan.model} ({plan.params_b:,.1f} B params), {w.task}", plan.model),
        _Table("options that fit (per-GPU GiB needed / usable)", columns, rows),
        _List("GPUs Alibaba does not name", [f"{short} = {full}" for short, full in named.items()]),
        _List("price sources", sources or ["no list price known for these types"]),
        _List("notes", notes),
        _List("rejected (most common reasons)", [f"{n}x {why}" for why, n in reasons.most_common(8)]),
        _List("assumptions", plan.assumptions),
        _List("warnings", plan.warnings),
    ])


def _short_gpu(option: DeploymentOption) -> str:
    """Return a table-sized GPU name: parentheses dropped, "?" when Alibaba does not name the GPU."""
    if option.gpu_model:
        return option.gpu_model
    return re.sub(r"\s*[(（][^)）]*[)）]", "", option.gpu_model_likely or "unnamed").strip() + "?"


def print_instances(instances: Sequence[InstanceType]) -> None:
    """One row per instance type."""
    columns = [
        (col, "left") for col in ("instance type", "family", "GPU", "GPUs", "GPU memory", "vCPU", "RAM GiB", "retired")
    ]
    rows = []
    for i in instances:
        gpu = i.gpu_model or (f"{i.gpu_model_likely}?" if i.gpu_model_likely else "unnamed")
        rows.append([
            i.instance_type, i.family, gpu, _num(i.gpu_count, "{:g}"), _num(i.gpu_memory_gib, "{:g}"),
            _num(i.vcpu, "{:d}"), _num(i.memory_gib, "{:g}"), "yes" if i.retired else "",
        ])
    _emit([_Table(f"{len(instances)} instance types", columns, rows)])


def print_gpus(gpus: Sequence[GPU]) -> None:
    """One row per GPU."""
    columns = [(col, "left") for col in ("GPU", "memory GiB", "GB/s", "BF16 TFLOPS", "FP8 TFLOPS", "NVLink GB/s")]
    rows = [
        [
            g.name, _num(g.memory_gib, "{:g}"), _num(g.memory_bandwidth_gb_s, "{:,.0f}"),
            _num(g.bf16_dense_tflops, "{:g}"), _num(g.fp8_dense_tflops, "{:g}"), _num(g.nvlink_gb_s, "{:g}"),
        ]
        for g in gpus
    ]
    _emit([_Table(f"{len(gpus)} GPUs (dense figures)", columns, rows)])


def print_models(models: Sequence[ModelArchitecture]) -> None:
    """One row per registry model."""
    columns = [(col, "left") for col in ("model", "family", "params B", "layers", "heads/kv", "attention", "context")]
    rows = [
        [
            m.name, m.family, f"{m.param_breakdown().total / 1e9:,.1f}", str(m.num_layers),
            f"{m.num_attention_heads}/{m.num_kv_heads}", m.attention_kind, f"{m.max_context:,}",
        ]
        for m in models
    ]
    _emit([
        _Table(f"{len(models)} models", columns, rows),
        _Line("image/video, vision-language, speech and embedding models: gpu-advisor models --kind media"),
    ])


def _print_list(console: Console, title: str, items: Sequence[object]) -> None:
    if items:
        # One Text, printed once: rich wraps it line by line as it would each line printed on its own
        # (tests/test_cli_speed_paths.py compares the two), at a fraction of the per-print cost.
        from rich.text import Text

        text = Text()
        text.append(title, style="bold")
        for item in items:
            text.append(f"\n  - {item}")
        console.print(text)
