"""Several models hosted together, each on its own instances: the fleet's GPUs and its price in all.

"We host Qwen2.5-72B-AWQ, Qwen2.5-7B and bge-m3: what cluster?" plans each model with its own planner; this sums
what they need on one billing basis (pay-as-you-go by the hour, and 730 such hours a month), so an unknown price
is said rather than left out of the total.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tools.prices import HOURS_PER_MONTH


class FleetPart(BaseModel):
    """One model's chosen option."""

    model_config = ConfigDict(extra="forbid")

    model: str
    instance_type: str
    instances: int = Field(gt=0)
    total_gpus: int = Field(ge=0)
    price_cny_per_hour: float | None = Field(description="all its instances, pay-as-you-go; None = unknown")


class FleetCost(BaseModel):
    """The fleet in all."""

    model_config = ConfigDict(extra="forbid")

    parts: list[FleetPart]
    instances: int
    total_gpus: int
    cny_per_hour: float | None = Field(description="pay-as-you-go for every part; None when a part is unpriced")
    cny_per_month: float | None = Field(description="cny_per_hour x 730 h")
    hours_per_month: float = HOURS_PER_MONTH
    unpriced: list[str] = Field(description="instance types of the parts with no price")


def fleet_cost(models: Sequence[FleetPart | dict[str, Any]]) -> FleetCost:
    """Sum the instances, GPUs and pay-as-you-go price of models hosted side by side on their own instances.

    Args:
        models: one chosen option per model (as :class:`FleetPart` or its JSON form).
    """
    parts = [FleetPart.model_validate(p) for p in models]
    unpriced = [p.instance_type for p in parts if p.price_cny_per_hour is None]
    hourly = None if unpriced else round(sum(p.price_cny_per_hour or 0.0 for p in parts), 2)
    return FleetCost(
        parts=parts,
        instances=sum(p.instances for p in parts),
        total_gpus=sum(p.total_gpus for p in parts),
        cny_per_hour=hourly,
        cny_per_month=round(hourly * HOURS_PER_MONTH, 0) if hourly is not None else None,
        unpriced=unpriced,
    )
