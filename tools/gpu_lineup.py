"""Which GPUs Alibaba Cloud's ECS instance families carry, with the cheapest listed price per GPU-hour.

The first question of many new users ("what GPUs does Alibaba have?", "阿里云有哪些 GPU") is about the catalog as a
whole: each GPU once, its memory, the families that carry it, and the cheapest pay-as-you-go hour of one of its GPUs
in any region of the price list (the instance price over its GPU count), so the line-up can be read for cost.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tools import catalog, price_quotes, prices


class GpuLineupRow(BaseModel):
    """One GPU of the line-up."""

    model_config = ConfigDict(extra="forbid")

    gpu: str = Field(description="canonical GPU name")
    named_by_alibaba: bool = Field(description="False where Alibaba does not name the GPU and it is inferred")
    memory_gib: float = Field(description="nominal memory per GPU")
    families: list[str] = Field(description="current instance families carrying it")
    instance_types: int = Field(description="current (not retired) instance types carrying it")
    cny_per_gpu_hour: float | None = Field(description="cheapest pay-as-you-go price of one of its GPUs, any region")
    cheapest_instance_type: str | None = None
    cheapest_region: str | None = None


class GpuLineup(BaseModel):
    """Every GPU in current instance types, the largest memory first."""

    model_config = ConfigDict(extra="forbid")

    rows: list[GpuLineupRow]
    billing: prices.Billing = "pay-as-you-go"


def gpu_lineup() -> GpuLineup:
    """List the GPUs of current Alibaba ECS GPU instance types with their families and cheapest GPU-hour."""
    by_gpu: dict[str, list[catalog.InstanceType]] = {}
    for inst in catalog.list_instances():
        name = inst.gpu_model or inst.gpu_model_likely
        if name and inst.gpu_count:
            by_gpu.setdefault(name, []).append(inst)
    rows = [_row(name, types) for name, types in by_gpu.items()]
    rows.sort(key=lambda r: (-r.memory_gib, r.gpu))
    return GpuLineup(rows=rows)


def _row(name: str, types: list[catalog.InstanceType]) -> GpuLineupRow:
    best: tuple[float, str, str] | None = None
    for inst in types:
        cheapest = price_quotes.cheapest_region(inst.instance_type)
        if cheapest is None or not inst.gpu_count:
            continue
        per_gpu = cheapest.price_cny / inst.gpu_count
        if best is None or per_gpu < best[0]:
            best = (per_gpu, inst.instance_type, cheapest.region)
    try:
        memory = catalog.get_gpu(name).memory_gib
    except catalog.UnknownNameError:
        memory = max(t.gpu_memory_gib or 0.0 for t in types)
    return GpuLineupRow(
        gpu=name,
        named_by_alibaba=any(t.gpu_model for t in types),
        memory_gib=memory,
        families=sorted({t.family for t in types}),
        instance_types=len(types),
        cny_per_gpu_hour=round(best[0], 2) if best else None,
        cheapest_instance_type=best[1] if best else None,
        cheapest_region=best[2] if best else None,
    )
