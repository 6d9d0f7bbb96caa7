"""The catalog and price tools both engines call: instance types and their prices by region.

Plain typed functions over :mod:`tools.catalog`, :mod:`tools.prices` and :mod:`tools.price_nearest`,
listed with the other tools in :data:`assistant.toolbox.DOMAIN_TOOLS`; their schemas come from these
signatures.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from tools import catalog, price_gap, price_nearest, price_quotes, prices
from tools.errors import input_problem


class InstanceList(BaseModel):
    """Instance types matching a filter."""

    model_config = ConfigDict(extra="forbid")

    count: int
    instances: list[catalog.InstanceType]


def find_instance_types(
    family: str | None = None,
    gpu: str | None = None,
    min_gpu_memory_gib: float | None = None,
    include_retired: bool = False,
) -> InstanceList:
    """List Alibaba Cloud GPU instance types with their GPU, count, memory, vCPU and RAM.

    Args:
        family: Instance family, e.g. "gn7i", "gn8is", "ebmgn7ex".
        gpu: GPU name, e.g. "A10", "L20", "A100-80GB".
        min_gpu_memory_gib: Minimum memory per GPU in GiB.
        include_retired: Include retired instance types.
    """
    found = catalog.list_instances(
        family=family, gpu=gpu, min_gpu_memory_gib=min_gpu_memory_gib, include_retired=include_retired
    )
    return InstanceList(count=len(found), instances=found)


def price_of_instance(
    instance_type: str, region: str | None = None, hours: float | None = None
) -> price_quotes.PriceQuote | None:
    """Quote an instance type's CNY prices in one region: pay-as-you-go per hour, per month, subscription and spot.

    Each figure names its region, billing mode, date and source; monthly = subscription or 730 h pay-as-you-go.

    Args:
        instance_type: Instance type, e.g. "ecs.gn7i-c8g1.2xlarge" (the "ecs." prefix is optional).
        region: Region id, e.g. "cn-beijing"; omitted = cn-shanghai, cn-beijing, cn-hangzhou or cn-shenzhen
            (the first that lists the type), else its cheapest region.
        hours: Hours it would run when asked for a while ("3 days": 72, "a day": 24); the quote then also
            gives its pay-as-you-go cost for them.

    Returns:
        The quote, or None when no price is known for the type (it exists but is unpriced).
    """
    catalog.get_instance(instance_type)  # an unknown name fails with suggestions, not "no price"
    if hours is not None and not 0 < hours <= 87_600:
        raise input_problem("error.quote_hours", hours=hours, limit=87_600)
    return price_quotes.quote(instance_type, region, hours)


def nearest_known_price(instance_type: str, region: str | None = None) -> price_nearest.NearestPrice | None:
    """Give the nearest known price for an instance type whose price is unknown, with what it is a price of.

    First the same type in another region, else a priced type with the same GPU count and the closest GPU
    memory. Say that the asked price is unknown and show this one with its own region and date.

    Args:
        instance_type: Instance type, e.g. "ecs.gn8is.4xlarge" (the "ecs." prefix is optional).
        region: Region id the user asked about, e.g. "cn-beijing"; omitted = any.

    Returns:
        The stand-in price, or None when nothing comparable is priced.
    """
    return price_nearest.nearest_known_price(instance_type, region)


def compare_instance_prices(
    instance_types: list[str], region: str | None = None, basis: price_gap.MonthBasis = "pay-as-you-go"
) -> price_gap.InstancePriceGap:
    """Put two or more instance types side by side per month, cheapest first, with how much more each costs.

    Args:
        instance_types: Instance types, e.g. ["ecs.gn7i-c16g1.4xlarge", "ecs.gn7i-c8g1.2xlarge"].
        region: Region id, e.g. "cn-beijing"; omitted = each type's default region (see price_of_instance).
        basis: "pay-as-you-go" (730 h of the hourly price) or "subscription" (the monthly subscription).
    """
    return price_gap.compare_instance_months(instance_types, region, basis)


def compare_region_prices(
    instance_type: str, billing: prices.Billing = "pay-as-you-go"
) -> price_quotes.RegionComparison:
    """Price one instance type in every region that lists it, cheapest first, and name the cheapest region.

    Args:
        instance_type: Instance type, e.g. "ecs.gn7i-c8g1.2xlarge" (the "ecs." prefix is optional).
        billing: "pay-as-you-go" (CNY/h), "subscription-monthly" (CNY/month) or "spot" (CNY/h).
    """
    return price_quotes.compare_regions(instance_type, billing)


def cheapest_region_for_gpu(
    gpu: str, gpu_count: int = 1, billing: prices.Billing = "pay-as-you-go"
) -> price_quotes.GpuRegionPrices:
    """Find the cheapest region and instance type for instances with a given GPU and GPU count.

    Args:
        gpu: GPU name, e.g. "A10", "L20", "A100" (an ambiguous name is read as its stated default, which
            the result names in `assumed`).
        gpu_count: GPUs per instance, e.g. 1, 4 or 8.
        billing: "pay-as-you-go" (CNY/h), "subscription-monthly" (CNY/month) or "spot" (CNY/h).
    """
    return price_quotes.cheapest_region_for_gpu(gpu, gpu_count, billing)
