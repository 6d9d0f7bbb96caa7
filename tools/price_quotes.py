"""Prices as users see them: one type's quote in one region, its monthly figure, and regions compared.

Built on the price rows and lookups of :mod:`tools.prices` (which row wins, which regions list a type).
A quote keeps pay-as-you-go, subscription and spot apart, each with its region, date and source; a
monthly figure is a subscription price or :data:`~tools.prices.HOURS_PER_MONTH` hours of pay-as-you-go
and says which; a missing price stays ``None``.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): pydantic would
# compile each field's annotation string again on every cold start (see README, Cold starts).
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.catalog import get_instance
from tools.prices import (
    DEFAULT_REGION_ORDER,
    HOURS_PER_MONTH,
    Authority,
    Billing,
    MonthlyBasis,
    Price,
    best_price,
    listed_regions,
    prices_for,
)

# ---------------------------------------------------------------------------------------------- derived


def monthly_from_hourly(price: Price) -> Price:
    """Derive the monthly cost of running an hourly-priced instance all month (HOURS_PER_MONTH hours).

    The result is marked ``derived`` and its notes state the assumption. A subscription is usually
    cheaper than this figure.

    Raises:
        ValueError: ``price`` is not an hourly price.
    """
    if price.unit != "per hour":
        raise ValueError(f"expected an hourly price, got one '{price.unit}'")
    amount = None if price.price is None else round(price.price * HOURS_PER_MONTH, 2)
    note = (
        f"Derived: {price.price} {price.currency}/h x {HOURS_PER_MONTH} h/month ({price.billing} running "
        f"24/7; a monthly subscription is usually cheaper). Hourly source notes: {price.notes or '-'}"
    )
    return price.model_copy(update={"price": amount, "unit": "per month", "derived": True, "notes": note})


def _resolve_region(instance_type: str, region: str | None) -> str | None:
    if region is not None:
        return region
    listed = listed_regions(instance_type)
    for preferred in DEFAULT_REGION_ORDER:
        if preferred in listed:
            return preferred
    if listed:
        return cheapest_region(instance_type).region  # type: ignore[union-attr]
    known = prices_for(instance_type)
    return known[0].region if known else None


def price_cny_per_hour(instance_type: str, region: str | None = None) -> Price | None:
    """Return the pay-as-you-go hourly price in CNY, or None if no price is known.

    Args:
        instance_type: with or without the 'ecs.' prefix.
        region: e.g. 'cn-shanghai'; None = the default region order, else the cheapest listed region.

    Raises:
        UnknownNameError: the instance type is not in the catalog.
    """
    where = _resolve_region(instance_type, region)
    return best_price(instance_type, where, "pay-as-you-go") if where else None


def price_cny_per_month(instance_type: str, region: str | None = None) -> Price | None:
    """Return the monthly CNY price: the subscription if known, else derived from the hourly price.

    A derived figure has ``derived=True`` and assumes :data:`HOURS_PER_MONTH` hours of pay-as-you-go use.

    Raises:
        UnknownNameError: the instance type is not in the catalog.
    """
    where = _resolve_region(instance_type, region)
    if where is None:
        return None
    subscription = best_price(instance_type, where, "subscription-monthly")
    if subscription is not None:
        return subscription
    hourly = best_price(instance_type, where, "pay-as-you-go")
    return monthly_from_hourly(hourly) if hourly else None


# ---------------------------------------------------------------------------------------------- quotes


class PriceQuote(BaseModel):
    """Prices of one instance type in one region, each billing mode kept apart, ready to show."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    instance_type: str
    region: str
    currency: Literal["CNY"] = "CNY"
    hourly: float | None = Field(description="pay-as-you-go CNY per hour; None = unknown")
    monthly: float | None = Field(description="CNY per month: subscription, else 730 h pay-as-you-go")
    monthly_basis: MonthlyBasis | None = Field(description="which of the two `monthly` is")
    subscription_monthly: float | None = Field(default=None, description="monthly subscription, if listed")
    subscription_as_of: str | None = Field(default=None, description="date of the subscription price")
    payg_monthly: float | None = Field(default=None, description="730 h of pay-as-you-go, CNY, if priced")
    subscription_saving_monthly: float | None = Field(
        default=None, description="payg_monthly minus subscription_monthly (negative: subscription dearer)"
    )
    spot_hourly: float | None = Field(default=None, description="spot (preemptible) CNY per hour, if known")
    spot_zone: str | None = Field(default=None, description="zone of the spot price")
    hours: float | None = Field(default=None, description="hours asked about (a 3-day test: 72), if any")
    payg_for_hours: float | None = Field(default=None, description="pay-as-you-go for those hours, CNY")
    as_of: str = Field(description="date of the first price shown (pay-as-you-go where known)")
    authority: Authority
    live: bool = Field(description="the pay-as-you-go price comes from a live DescribePrice snapshot")
    suspect: bool = Field(description="one of the prices is flagged as inconsistent in the data")
    source_line: str = Field(description="region, billing mode, date and source of the first price shown")
    other_sources: list[str] = Field(default_factory=lambda: [], description="provenance of the other prices shown")


def quote(instance_type: str, region: str | None = None, hours: float | None = None) -> PriceQuote | None:
    """Return an instance type's CNY prices in one region, or None if none is known there.

    Args:
        instance_type: with or without the 'ecs.' prefix.
        region: e.g. 'cn-shanghai'; None = the first of :data:`DEFAULT_REGION_ORDER` that lists the
            type, else its cheapest listed region, else a row whose region the source does not pin down.
        hours: hours it would run (a day: 24); the quote then also gives pay-as-you-go for them.

    Raises:
        UnknownNameError: the instance type is not in the catalog.
    """
    where = _resolve_region(instance_type, region)
    if where is None:
        return None
    hourly = best_price(instance_type, where, "pay-as-you-go")
    subscription = best_price(instance_type, where, "subscription-monthly")
    spot = best_price(instance_type, where, "spot")
    shown = [p for p in (hourly, subscription, spot) if p is not None]
    if not shown:
        return None
    first = shown[0]
    if subscription is not None:
        monthly, basis = subscription.price, "monthly subscription"
    elif hourly is not None and hourly.price is not None:
        monthly, basis = round(hourly.price * HOURS_PER_MONTH, 2), "pay-as-you-go x 730 h/month"
    else:
        monthly, basis = None, None
    payg_month = round(hourly.price * HOURS_PER_MONTH, 2) if hourly and hourly.price is not None else None
    sub_price = subscription.price if subscription else None
    saving = round(payg_month - sub_price, 2) if payg_month is not None and sub_price is not None else None
    suspect = any(p.suspect for p in shown)
    line = first.provenance + (" (flagged as inconsistent with sibling prices; verify)" if first.suspect else "")
    return PriceQuote(
        instance_type=first.instance_type,
        region=where,
        hourly=hourly.price if hourly else None,
        monthly=monthly,
        monthly_basis=basis,  # type: ignore[arg-type]
        subscription_monthly=subscription.price if subscription else None,
        subscription_as_of=subscription.as_of if subscription else None,
        payg_monthly=payg_month,
        subscription_saving_monthly=saving,
        spot_hourly=spot.price if spot else None,
        spot_zone=spot.zone if spot else None,
        hours=hours,
        payg_for_hours=round(hourly.price * hours, 2) if hours and hourly and hourly.price is not None else None,
        as_of=first.as_of,
        authority=first.authority,
        live=first.authority == "live",
        suspect=suspect,
        source_line=line,
        other_sources=[p.provenance for p in shown[1:] if p.provenance != first.provenance],
    )


class RegionPrice(BaseModel):
    """One region's preferred price of an instance type under one billing mode."""

    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    region: str
    price_cny: float = Field(description="CNY per hour (per month for subscription-monthly)")
    as_of: str
    authority: Authority
    source_line: str


class RegionComparison(BaseModel):
    """The same instance type priced across every region that lists it, cheapest first."""

    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    instance_type: str
    billing: Billing
    regions: list[RegionPrice] = Field(description="cheapest first; only regions that list the type")
    cheapest: RegionPrice | None = Field(description="None when no region lists the type")


def compare_regions(instance_type: str, billing: Billing = "pay-as-you-go") -> RegionComparison:
    """Price one instance type in every region that lists it under ``billing``, cheapest first.

    Raises:
        UnknownNameError: the instance type is not in the catalog.
    """
    name = get_instance(instance_type).instance_type
    found = []
    for region in listed_regions(name, billing):
        best = best_price(name, region, billing)
        if best is not None and best.price is not None:
            found.append(
                RegionPrice(
                    region=region,
                    price_cny=best.price,
                    as_of=best.as_of,
                    authority=best.authority,
                    source_line=best.provenance,
                )
            )
    found.sort(key=lambda r: (r.price_cny, r.region))
    return RegionComparison(instance_type=name, billing=billing, regions=found, cheapest=found[0] if found else None)


def cheapest_region(instance_type: str, billing: Billing = "pay-as-you-go") -> RegionPrice | None:
    """Return the region with the lowest preferred price for the type; None if no region lists it.

    Raises:
        UnknownNameError: the instance type is not in the catalog.
    """
    return compare_regions(instance_type, billing).cheapest


class GpuRegionPrices(BaseModel):
    """Instance types with a given GPU and count, each in its cheapest region; cheapest overall first."""

    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    gpu: str = Field(description="canonical GPU name the comparison used")
    assumed: str | None = Field(description="set when an ambiguous GPU name was read as its stated default")
    gpu_count: int
    billing: Billing
    options: list[RegionComparison] = Field(description="one per instance type that some region lists")
    cheapest_instance_type: str | None
    cheapest: RegionPrice | None
    unpriced: list[str] = Field(description="types with this GPU and count that no region's price list names")


def cheapest_region_for_gpu(gpu: str, gpu_count: int = 1, billing: Billing = "pay-as-you-go") -> GpuRegionPrices:
    """Find where an instance with ``gpu_count`` x ``gpu`` is cheapest, across types and regions.

    Args:
        gpu: GPU name ('A10', 'L20', 'A100'); an ambiguous name with a stated default uses it and says so.
        gpu_count: GPUs per instance.
        billing: the billing mode to compare.

    Raises:
        UnknownNameError: unknown GPU, or an ambiguous name without a stated default (ask back).
    """
    from tools.catalog import choose_gpu, list_instances

    choice = choose_gpu(gpu)
    priced: list[RegionComparison] = []
    unpriced: list[str] = []
    for inst in list_instances(gpu=choice.gpu.name):
        if inst.gpu_count != gpu_count:
            continue
        comparison = compare_regions(inst.instance_type, billing)
        if comparison.cheapest is None:
            unpriced.append(inst.instance_type)
        else:
            priced.append(comparison)
    priced.sort(key=lambda c: c.cheapest.price_cny if c.cheapest else 0.0)
    best = priced[0] if priced else None
    return GpuRegionPrices(
        gpu=choice.gpu.name,
        assumed=choice.assumed,
        gpu_count=gpu_count,
        billing=billing,
        options=priced,
        cheapest_instance_type=best.instance_type if best else None,
        cheapest=best.cheapest if best else None,
        unpriced=unpriced,
    )
