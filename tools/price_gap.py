"""How far apart two or more instance types are per month: "how much more is gn7i-c16g1.4xlarge than c8g1.2xlarge?".

Each type is quoted by :func:`tools.price_quotes.quote` in the region asked (or its default region) on one billing basis
for all: 730 hours of pay-as-you-go, or the monthly subscription. The gap to the cheapest priced type is computed
here, so an answer can state it as a tool's figure; a type with no price on that basis stays unpriced, never free.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools import catalog
from tools.price_quotes import quote
from tools.prices import HOURS_PER_MONTH

MonthBasis = Literal["pay-as-you-go", "subscription"]


class TypeMonth(BaseModel):
    """One instance type's month on the compared basis."""

    model_config = ConfigDict(extra="forbid")

    instance_type: str
    region: str | None = Field(description="where it is priced; None = no price known anywhere")
    monthly_cny: float | None = Field(description="CNY per month on the basis compared; None = unknown")
    hourly_cny: float | None = Field(default=None, description="pay-as-you-go CNY per hour, if known")
    as_of: str | None = Field(default=None, description="date of the price used")
    more_than_cheapest_cny: float | None = Field(
        default=None, description="CNY per month above the cheapest priced type (0 for the cheapest)"
    )


class InstancePriceGap(BaseModel):
    """Instance types side by side per month, cheapest first (unpriced last)."""

    model_config = ConfigDict(extra="forbid")

    basis: MonthBasis
    hours_per_month: float = Field(description="hours of pay-as-you-go in a month (730); for the subscription too")
    types: list[TypeMonth]


def compare_instance_months(
    instance_types: list[str], region: str | None = None, basis: MonthBasis = "pay-as-you-go"
) -> InstancePriceGap:
    """Return each type's monthly price on one basis and how much more each costs than the cheapest.

    Raises:
        UnknownNameError: an instance type is not in the catalog.
    """
    rows = []
    for name in instance_types:
        catalog.get_instance(name)  # an unknown name fails with suggestions, not "no price"
        q = quote(name, region)
        monthly = None if q is None else q.payg_monthly if basis == "pay-as-you-go" else q.subscription_monthly
        as_of = None if q is None else q.as_of if basis == "pay-as-you-go" else q.subscription_as_of
        rows.append(
            TypeMonth(
                instance_type=q.instance_type if q else catalog.get_instance(name).instance_type,
                region=q.region if q else None,
                monthly_cny=monthly,
                hourly_cny=q.hourly if q else None,
                as_of=as_of,
            )
        )
    priced = sorted((r for r in rows if r.monthly_cny is not None), key=lambda r: r.monthly_cny or 0.0)
    low = priced[0].monthly_cny if priced else None
    for r in priced:
        r.more_than_cheapest_cny = round((r.monthly_cny or 0.0) - (low or 0.0), 2)
    unpriced = [r for r in rows if r.monthly_cny is None]
    return InstancePriceGap(basis=basis, hours_per_month=HOURS_PER_MONTH, types=[*priced, *unpriced])
