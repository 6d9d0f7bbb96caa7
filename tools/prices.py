"""List prices of Alibaba Cloud GPU instance types, loaded from ``tools/data/prices.csv``.

Prices are indicative only: every :class:`Price` carries its region, currency, date and source, and
must be shown with them. A missing price is ``None`` (unknown), never 0. Where only an hourly price is
known, a monthly figure can be derived at :data:`HOURS_PER_MONTH` hours and is marked ``derived``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tools.catalog import DATA_DIR, DataFileError, get_instance, read_csv_rows

PRICES_FILE = DATA_DIR / "prices.csv"

HOURS_PER_MONTH = 730
"""Hours in an average month (8760 h / 12), used to turn an hourly price into a monthly one."""

Billing = Literal["pay-as-you-go", "subscription-monthly", "subscription-yearly", "reserved", "spot"]
"""How the price is charged.

pay-as-you-go: on demand, billed per hour of use.
subscription-monthly: prepaid for one month (包月).
subscription-yearly: prepaid for one year.
reserved: reserved-instance rate (commitment, usually billed hourly).
spot: preemptible; the price moves with the market.
"""

Unit = Literal["per hour", "per month"]
Currency = Literal["CNY", "USD"]


class Price(BaseModel):
    """One list price of one instance type in one region under one billing method."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    instance_type: str = Field(description="full name, e.g. 'ecs.gn7i-c8g1.2xlarge'")
    region: str = Field(description="region id, e.g. 'cn-shanghai'")
    billing: Billing
    price: float | None = Field(gt=0, description="amount in `currency` per `unit`; None = unknown, never 0")
    unit: Unit
    currency: Currency
    as_of: str = Field(description="when the price was seen, e.g. '2023-06'")
    suspect: bool = Field(default=False, description="looks inconsistent with sibling prices; see notes")
    derived: bool = Field(default=False, description="computed from another price, not read from a source")
    source: str = Field(description="URL(s), ' ; '-separated")
    notes: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Price:
        if not self.instance_type.startswith("ecs."):
            raise ValueError("instance_type must start with 'ecs.'")
        if "http" not in self.source:
            raise ValueError("source must contain at least one URL")
        # A source's own figure is quoted in the billing method's natural unit; other units are derived.
        natural = {"pay-as-you-go": "per hour", "subscription-monthly": "per month", "spot": "per hour"}
        expected = natural.get(self.billing)
        if expected and self.unit != expected and not self.derived:
            raise ValueError(f"{self.billing} is quoted {expected}; a '{self.unit}' figure must be derived")
        return self


def read_prices(path: Path = PRICES_FILE) -> tuple[Price, ...]:
    """Read and validate a price CSV file.

    Raises:
        DataFileError: a bad row (file, line and instance type named) or a duplicate
            (instance type, region, billing, unit).
    """
    rows = read_csv_rows(path, Price, "instance_type")
    seen: set[tuple[str, str, str, str]] = set()
    for line, row in enumerate(rows, start=2):
        key = (row.instance_type, row.region, row.billing, row.unit)
        if key in seen:
            raise DataFileError(f"{path.name} row {line}: duplicate price {key}")
        seen.add(key)
    return rows


@functools.cache
def load_prices() -> tuple[Price, ...]:
    """All prices from ``tools/data/prices.csv`` (validated once, then cached)."""
    return read_prices(PRICES_FILE)


def prices_for(instance_type: str, region: str | None = None, billing: Billing | None = None) -> list[Price]:
    """Known prices of one instance type, in file order.

    Args:
        instance_type: with or without the 'ecs.' prefix.
        region: only this region; None = any region.
        billing: only this billing method; None = any.

    Raises:
        UnknownNameError: the instance type is not in the catalog.
    """
    name = get_instance(instance_type).instance_type
    return [
        p
        for p in _prices_by_type().get(name, ())
        if (region is None or p.region == region) and (billing is None or p.billing == billing)
    ]


@functools.cache
def _prices_by_type() -> dict[str, tuple[Price, ...]]:
    # The planner asks for every instance type's price on each plan; a scan of all rows each time showed.
    index: dict[str, list[Price]] = {}
    for price in load_prices():
        index.setdefault(price.instance_type, []).append(price)
    return {name: tuple(rows) for name, rows in index.items()}


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


def price_cny_per_hour(instance_type: str, region: str | None = None) -> Price | None:
    """Return the pay-as-you-go hourly price in CNY, or None if no price is known.

    Args:
        instance_type: with or without the 'ecs.' prefix.
        region: e.g. 'cn-shanghai'; None = the first region with a price, in file order.

    Raises:
        UnknownNameError: the instance type is not in the catalog.
    """
    for p in prices_for(instance_type, region, "pay-as-you-go"):
        if p.currency == "CNY" and p.unit == "per hour" and p.price is not None:
            return p
    return None


def price_cny_per_month(instance_type: str, region: str | None = None) -> Price | None:
    """Return the monthly CNY price: the subscription if known, else derived from the hourly price.

    A derived figure has ``derived=True`` and assumes :data:`HOURS_PER_MONTH` hours of pay-as-you-go use.
    Returns None if neither is known.

    Raises:
        UnknownNameError: the instance type is not in the catalog.
    """
    for p in prices_for(instance_type, region, "subscription-monthly"):
        if p.currency == "CNY" and p.unit == "per month" and p.price is not None:
            return p
    hourly = price_cny_per_hour(instance_type, region)
    return monthly_from_hourly(hourly) if hourly else None


class PriceQuote(BaseModel):
    """Hourly and monthly CNY price of one instance type in one region, ready to multiply and show."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    instance_type: str
    region: str
    currency: Literal["CNY"] = "CNY"
    hourly: float | None = Field(description="pay-as-you-go CNY per hour; None = unknown")
    monthly: float | None = Field(description="CNY per month; None = unknown")
    monthly_basis: str | None = Field(description="'monthly subscription' or the derivation used")
    as_of: str
    suspect: bool = Field(description="one of the prices is flagged as inconsistent in the data")
    source_line: str = Field(description="region, date and source URL(s), for showing next to the number")


def quote(instance_type: str, region: str | None = None) -> PriceQuote | None:
    """Return the hourly and monthly CNY price of an instance type, or None if no price is known.

    The monthly figure is the monthly subscription when known, else pay-as-you-go x HOURS_PER_MONTH.

    Args:
        instance_type: with or without the 'ecs.' prefix.
        region: e.g. 'cn-shanghai'; None = the first region with a price, in file order.

    Raises:
        UnknownNameError: the instance type is not in the catalog.
    """
    if region is None:
        known = prices_for(instance_type)
        if not known:
            return None
        region = known[0].region
    hourly = price_cny_per_hour(instance_type, region)
    monthly = price_cny_per_month(instance_type, region)
    shown = [p for p in (hourly, monthly) if p is not None]
    if not shown:
        return None
    first = shown[0]
    basis = None
    if monthly is not None:
        basis = f"pay-as-you-go x {HOURS_PER_MONTH} h/month" if monthly.derived else "monthly subscription"
    suspect = any(p.suspect for p in shown)
    line = f"{first.region} list price, {first.currency}, as of {first.as_of}: {first.source}"
    if suspect:
        line += " (flagged as inconsistent with sibling prices; verify)"
    return PriceQuote(
        instance_type=first.instance_type,
        region=first.region,
        hourly=hourly.price if hourly else None,
        monthly=monthly.price if monthly else None,
        monthly_basis=basis,
        as_of=first.as_of,
        suspect=suspect,
        source_line=line,
    )


def price_regions() -> list[str]:
    """Regions that have at least one price, in file order."""
    return list(dict.fromkeys(p.region for p in load_prices()))
