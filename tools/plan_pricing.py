"""The planner's prices: which region and billing mode an option is priced in, and how options rank.

Kept apart from :mod:`tools.plan` (memory fit, layout, speed) so each stays readable. Every option carries
its pay-as-you-go, subscription and spot prices in separate fields with their region and date; the
ranking uses the billing mode the workload asks for and never mixes modes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tools import catalog, price_quotes, prices
from tools.notes import Note, note
from tools.prices import HOURS_PER_MONTH
from tools.workload import BillingBasis, Workload

if TYPE_CHECKING:
    from tools.plan import DeploymentOption

UNPRICED_SLOTS = 2
HOURS_PER_DAY = 24
HOURS_PER_WEEK = 7 * HOURS_PER_DAY
DAYS_PER_YEAR = 365
HOURS_PER_YEAR = DAYS_PER_YEAR * HOURS_PER_DAY
MONTHS_PER_YEAR = 12


class CostTotals(BaseModel):
    """An option's price over a day, a week, a year and per request: what users budget in besides the month.

    Every figure is for all the option's instances, derived from its own prices (so it names the same region,
    billing mode and date); None where that price is unknown.
    """

    model_config = ConfigDict(extra="forbid")

    payg_cny_per_day: float | None = Field(description="pay-as-you-go x 24 h")
    payg_cny_per_week: float | None = Field(default=None, description="pay-as-you-go x 168 h")
    payg_cny_per_year: float | None = Field(description="pay-as-you-go x 8,760 h (running all year)")
    subscription_cny_per_year: float | None = Field(description="12 months of the subscription price, if listed")
    usage_cny_per_day: float | None = Field(
        default=None, description="pay-as-you-go at the stated hours, averaged over the days of a year"
    )
    usage_cny_per_year: float | None = Field(default=None, description="12 months at the stated hours a month")
    payg_cny_for_rental: float | None = Field(
        default=None, description="pay-as-you-go for the workload's rental_hours, when it is rented only for a while"
    )
    cny_per_1k_requests: float | None = Field(default=None, description="pay-as-you-go per 1,000 requests")
    cny_per_user_month: float | None = Field(
        default=None, description="the option's month (at the stated hours when part-time) over the workload's users"
    )
    requests_basis: Literal["stated_qps", "decode_throughput"] | None = Field(
        default=None,
        description="stated_qps: the hourly price over the requests an hour at the user's QPS; decode_throughput: "
        "the price per million output tokens times the output tokens of a request",
    )


def cost_totals(option: DeploymentOption, w: Workload) -> CostTotals:
    """Return an option's daily, yearly and per-1,000-request prices from its hourly and subscription prices.

    Args:
        option: a priced (or unpriced) deployment option; its prices are already for all its instances.
        w: the workload: its QPS (requests per 1,000 at that rate) and output tokens per request.
    """
    hourly, sub = option.price_cny_per_hour, option.subscription_cny_per_month
    usage = option.usage_cny_per_month
    per_1k, basis = None, None
    if hourly is not None and w.qps:
        per_1k, basis = round(hourly / (w.qps * 3600) * 1000, 4), "stated_qps"
    elif option.cost_cny_per_million_tokens is not None:
        per_1k, basis = round(option.cost_cny_per_million_tokens * w.output_tokens / 1000, 4), "decode_throughput"
    return CostTotals(
        payg_cny_per_day=round(hourly * HOURS_PER_DAY, 0) if hourly is not None else None,
        payg_cny_per_week=round(hourly * HOURS_PER_WEEK, 0) if hourly is not None else None,
        payg_cny_per_year=round(hourly * HOURS_PER_YEAR, 0) if hourly is not None else None,
        subscription_cny_per_year=round(sub * MONTHS_PER_YEAR, 0) if sub is not None else None,
        usage_cny_per_day=round(usage * MONTHS_PER_YEAR / DAYS_PER_YEAR, 0) if usage is not None else None,
        usage_cny_per_year=round(usage * MONTHS_PER_YEAR, 0) if usage is not None else None,
        payg_cny_for_rental=round(hourly * w.rental_hours, 0) if hourly is not None and w.rental_hours else None,
        cny_per_1k_requests=per_1k,
        requests_basis=basis,
        cny_per_user_month=round(month / w.users, 2) if w.users and (month := monthly_cost(option)) else None,
    )


def price_fields(inst: catalog.InstanceType, region: str | None, instances: int) -> dict[str, Any]:
    """Return the price fields of a :class:`~tools.plan.DeploymentOption` for ``instances`` of ``inst``.

    Args:
        inst: the instance type.
        region: a region id, 'any' (its cheapest listed region) or None (the default region order).
        instances: how many instances the option rents; every price is for all of them.
    """
    quote, compared = _quote(inst, region)

    def times(value: float | None, digits: int) -> float | None:
        return round(value * instances, digits) if value is not None else None

    return {
        "price_cny_per_hour": times(quote.hourly, 2) if quote else None,
        "price_cny_per_month": times(quote.monthly, 0) if quote else None,
        "price_month_basis": quote.monthly_basis if quote else None,
        "price_source": quote.source_line if quote else None,
        "price_region": quote.region if quote else None,
        "price_as_of": quote.as_of if quote else None,
        "price_live": quote.live if quote else False,
        "subscription_cny_per_month": times(quote.subscription_monthly, 0) if quote else None,
        "subscription_as_of": quote.subscription_as_of if quote else None,
        "spot_cny_per_hour": times(quote.spot_hourly, 2) if quote else None,
        "price_regions_compared": compared,
    }


def usage_fields(inst: catalog.InstanceType, w: Workload, instances: int) -> dict[str, Any]:
    """Pay-as-you-go for the hours a month the workload runs ("10 h a day on weekdays"), when stated.

    A deployment switched off out of hours pays only the hours it runs; a subscription is paid whole.
    """
    if w.hours_per_month is None:
        return {}
    quote, _ = _quote(inst, w.region)
    hourly = quote.hourly if quote else None
    cost = round(hourly * instances * w.hours_per_month, 0) if hourly is not None else None
    return {"usage_hours_per_month": w.hours_per_month, "usage_cny_per_month": cost}


def monthly_cost(option: DeploymentOption) -> float | None:
    """Return what an option costs a month: at the stated hours when the workload runs part-time, else all month."""
    if option.usage_hours_per_month is not None:
        return option.usage_cny_per_month
    return option.price_cny_per_month


def too_many_gpus(needed: int, allowed: int) -> Note:
    """Return the rejection reason when a layout needs more GPUs in all than the user allows."""
    return note("reject.too_many_gpus", needed=needed, allowed=allowed)


def too_many_instances(needed: int, allowed: int) -> Note:
    """Return the rejection reason when a layout needs more instances than the user allows."""
    return note("reject.too_many_instances", needed=needed, allowed=allowed)


def _quote(inst: catalog.InstanceType, region: str | None) -> tuple[price_quotes.PriceQuote | None, int | None]:
    """Quote an option's prices; with region 'any' also count the regions compared."""
    if region != prices.REGION_ANY:
        return price_quotes.quote(inst.instance_type, region), None
    comparison = price_quotes.compare_regions(inst.instance_type)
    if comparison.cheapest is None:
        return price_quotes.quote(inst.instance_type), 0
    return price_quotes.quote(inst.instance_type, comparison.cheapest.region), len(comparison.regions)


def region_problem(inst: catalog.InstanceType, region: str | None) -> Note | None:
    """Say why a type cannot be bought in the asked region (price list, live availability); None if it can."""
    if region is None or region == prices.REGION_ANY:
        return None
    stock = prices.in_stock(inst.instance_type, region)
    if stock is False:
        return note("reject.no_stock", region=region, snapshot=str(prices.live_snapshot_time()))
    if inst.regions and region not in inst.regions:
        return note("reject.not_sold_in_region", region=region, regions=list(inst.regions))
    listed = prices.listed_regions(inst.instance_type)
    if listed and region not in listed and stock is None:
        code = "reject.not_in_price_list" + ("_more" if len(listed) > 4 else "")
        return note(code, region=region, regions=list(listed[:4]))
    return None


def ranked_options(options: list[DeploymentOption], limit: int, billing: BillingBasis) -> list[DeploymentOption]:
    """Cheapest options under ``billing`` first, but keep room for the best unpriced ones.

    Newer families (L20, H20-class) often have no list price in the data; ranking them after every
    priced option would hide them entirely.
    """
    billing = ranking_billing(options, billing)
    diverse = _diverse(sorted(options, key=lambda o: _rank_key(o, billing)))
    priced = [o for o in diverse if _rank_price(o, billing) is not None]
    unpriced = [o for o in diverse if _rank_price(o, billing) is None]
    unpriced_kept = unpriced[: min(UNPRICED_SLOTS, limit // 2)]
    kept = priced[: limit - len(unpriced_kept)]
    kept += unpriced_kept
    # Identity, not ==: pydantic equality compares every field and showed up in profiles.
    kept_ids = {id(o) for o in kept}
    kept += [o for o in diverse if id(o) not in kept_ids][: limit - len(kept)]
    return _with_cheapest_tight(kept, priced, limit, billing)


def ranking_billing(options: Sequence[DeploymentOption], billing: BillingBasis) -> BillingBasis:
    """Return the billing mode that ranks: the asked one, else pay-as-you-go when no option has the asked price.

    Subscription prices are known for few regions; ranking every option as "unpriced" would put the
    GPUs nobody priced first.
    """
    if billing == "pay-as-you-go" or any(_rank_price(o, billing) is not None for o in options):
        return billing
    return "pay-as-you-go"


def _with_cheapest_tight(
    kept: list[DeploymentOption], priced: list[DeploymentOption], limit: int, billing: BillingBasis
) -> list[DeploymentOption]:
    """Keep the cheapest tight fit in view when it undercuts every comfortable option shown.

    Tight fits rank after comfortable ones, so with many comfortable layouts the cheap one-GPU option a
    user asked about (e.g. LoRA on one A10) would vanish; it stays, last and marked tight.
    """
    tight = [o for o in priced if o.tight_fit]
    if not tight or any(o is tight[0] for o in kept):
        return kept
    comfortable = [_rank_price(o, billing) for o in kept if not o.tight_fit]
    cheapest = _rank_price(tight[0], billing)
    if cheapest is None or any(p is not None and p <= cheapest for p in comfortable):
        return kept
    return [*kept[: limit - 1], tight[0]]


def _rank_price(option: DeploymentOption, billing: BillingBasis) -> float | None:
    """Return the price that ranks an option, CNY per hour (a subscription over 730 h); None = unknown."""
    if billing == "spot":
        return option.spot_cny_per_hour
    if billing == "subscription":
        monthly = option.subscription_cny_per_month
        return monthly / HOURS_PER_MONTH if monthly is not None else None
    return option.price_cny_per_hour


def _rank_key(option: DeploymentOption, billing: BillingBasis) -> tuple[int, bool, float, int, bool, float]:
    # Priced options first, comfortable fits before tight ones, then by the price of the whole deployment
    # under the asked billing mode (the column users compare); unpriced ones by GPU count. TEE variants last.
    tee = option.family.endswith("-tee")
    price = _rank_price(option, billing)
    if price is not None:
        return (0, option.tight_fit, price, option.total_gpus, tee, -option.headroom_pct)
    return (1, option.tight_fit, 0.0, option.total_gpus, tee, -option.headroom_pct)


def _diverse(options: list[DeploymentOption]) -> list[DeploymentOption]:
    """Keep the best option per (family, GPUs per instance): sizes that differ only in vCPU add noise."""
    seen: set[tuple[str, int]] = set()
    kept = []
    for option in options:
        key = (option.family.removesuffix("-tee"), option.gpu_count)
        if key not in seen:
            seen.add(key)
            kept.append(option)
    return kept


def ranking_note(billing: BillingBasis) -> Note:
    """Say which price the options are ranked by."""
    return note(f"plan.ranked.{billing}")


def region_assumption(w: Workload) -> Note:
    if w.region == prices.REGION_ANY:
        return note("plan.region_any")
    if w.region:
        return note("plan.region", region=w.region)
    return note("plan.region_default", order=list(prices.DEFAULT_REGION_ORDER))


def price_warnings(region: str | None, billing: BillingBasis, options: Sequence[Any]) -> list[Note]:
    """Warnings about the prices shown: cheapest region, unknown region, spot, live snapshot."""
    out = []
    if region == prices.REGION_ANY:
        priced = [o for o in options if o.price_cny_per_hour is not None and o.price_region]
        if priced:
            best = min(priced, key=lambda o: o.price_cny_per_hour or 0.0)
            out.append(
                note(
                    "price.cheapest_region",
                    region=best.price_region,
                    instance_type=best.instance_type,
                    instances=best.instances,
                    cny_per_hour=best.price_cny_per_hour or 0.0,
                    as_of=str(best.price_as_of),
                    regions=str(best.price_regions_compared),
                )
            )
    elif region and region not in prices.price_regions():
        out.append(note("price.region_unpriced", region=region))
    if options and ranking_billing(options, billing) != billing:
        kind = "no_spot" if billing == "spot" else "no_subscription"
        if region and region != prices.REGION_ANY:
            out.append(note(f"price.{kind}_in", region=region))
        else:
            out.append(note(f"price.{kind}"))
    if billing == "spot" and any(o.spot_cny_per_hour is not None for o in options):
        out.append(note("price.spot_reclaim"))
    if any(o.price_live for o in options):
        out.append(note("price.live", snapshot=str(prices.live_snapshot_time())))
    return out
