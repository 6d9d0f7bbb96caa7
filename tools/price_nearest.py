"""The nearest known price of an instance type whose own price is unknown (many newer types are unpriced).

An answer must say once that a price is unknown and then give the closest figure it does know, with that
figure's region and date, never a silent substitute. "Nearest" is, in order:

1. the same instance type in another region (the default region order, else its cheapest region);
2. another priced instance type with the same number of whole GPUs, the GPU memory closest to the asked
   type's (in the asked region when it has one there), cheaper first on a tie.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools import catalog, price_quotes

NearestBasis = Literal["same_type_other_region", "similar_type"]


class NearestPrice(BaseModel):
    """A known price standing in for an unknown one, with what it is a price of."""

    model_config = ConfigDict(extra="forbid")

    asked_instance_type: str
    asked_region: str | None
    basis: NearestBasis = Field(description="the same type elsewhere, or a similar type (same GPU count)")
    quote: price_quotes.PriceQuote = Field(description="the price shown, with its own region, date and source")
    gpu: str | None = Field(description="GPU of the priced type")
    gpu_count: int | None = Field(description="GPUs per instance of the priced type")
    gpu_memory_gib: float | None = Field(description="memory per GPU of the priced type")


def nearest_known_price(instance_type: str, region: str | None = None) -> NearestPrice | None:
    """Return the nearest known price for ``instance_type`` (None when nothing comparable is priced).

    Raises:
        UnknownNameError: the instance type is not in the catalog.
    """
    inst = catalog.get_instance(instance_type)
    elsewhere = price_quotes.quote(inst.instance_type)
    if elsewhere is not None and elsewhere.region != region:
        return _nearest(inst, region, "same_type_other_region", inst, elsewhere)
    best: tuple[tuple[float, float], catalog.InstanceType, price_quotes.PriceQuote] | None = None
    for other in _comparable(inst):
        here = price_quotes.quote(other.instance_type, region) if region else None
        found = here or price_quotes.quote(other.instance_type)
        if found is None or found.hourly is None:
            continue
        key = (_memory_distance(inst, other) + (0.0 if found.region == region or not region else 0.5), found.hourly)
        if best is None or key < best[0]:
            best = (key, other, found)
    return _nearest(inst, region, "similar_type", best[1], best[2]) if best else None


def _comparable(inst: catalog.InstanceType) -> list[catalog.InstanceType]:
    """Return current whole-GPU types with the same GPU count, other than ``inst``."""
    return [
        other
        for other in catalog.list_instances()
        if other.instance_type != inst.instance_type
        and not other.vgpu
        and isinstance(other.gpu_count, int)
        and other.gpu_count == inst.gpu_count
        and other.gpu_memory_gib
    ]


def _memory_distance(inst: catalog.InstanceType, other: catalog.InstanceType) -> float:
    if not inst.gpu_memory_gib or not other.gpu_memory_gib:
        return math.inf
    return abs(math.log(other.gpu_memory_gib / inst.gpu_memory_gib))


def _nearest(
    asked: catalog.InstanceType,
    region: str | None,
    basis: NearestBasis,
    priced: catalog.InstanceType,
    quote: price_quotes.PriceQuote,
) -> NearestPrice:
    count = priced.gpu_count if isinstance(priced.gpu_count, int) else None
    return NearestPrice(
        asked_instance_type=asked.instance_type, asked_region=region, basis=basis, quote=quote,
        gpu=priced.gpu_name, gpu_count=count, gpu_memory_gib=priced.gpu_memory_gib,
    )  # fmt: skip
