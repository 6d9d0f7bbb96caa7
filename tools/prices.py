"""Prices of Alibaba Cloud GPU instance types by region and billing mode, from validated price rows.

Rows come from ``tools/data/prices.csv`` (shipped, each with its source) and, once ``gpu-advisor prices
refresh`` has run and the entry point has called :func:`use_live_prices`, from the newest live snapshot
(:mod:`tools.price_snapshot`). Every :class:`Price` carries its region, billing mode, currency, date,
authority and source, and is shown with them. A missing price is ``None`` (unknown), never 0.

Where two rows price the same type, region and billing mode, the more authoritative one wins (live
DescribePrice, then Alibaba's official price file, then third-party transcriptions, quotes and community
articles), then the newer one; the others are kept and can be listed. Quotes, monthly figures and
region comparisons built on these rows are in :mod:`tools.price_quotes`.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): pydantic would
# compile each field's annotation string again on every cold start (see README, Cold starts).
import functools
import pickle
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tools import data_cache
from tools.catalog import DATA_DIR, get_instance
from tools.data_files import DataFileError, read_csv_rows

if TYPE_CHECKING:
    from tools.price_snapshot import LiveSnapshot

PRICES_FILE = DATA_DIR / "prices.csv"

HOURS_PER_MONTH = 730
"""Hours in an average month (8760 h / 12), used to turn an hourly price into a monthly one."""

REGION_ANY = "any"
"""The region value that asks to compare regions instead of pricing in one."""

DEFAULT_REGION_ORDER = ("cn-shanghai", "cn-beijing", "cn-hangzhou", "cn-shenzhen")
"""With no region asked: the first of these that lists the type, else its cheapest listed region."""

Billing = Literal[
    "pay-as-you-go",
    "subscription-monthly",
    "subscription-yearly",
    "reserved-no-upfront",
    "reserved-partial-upfront",
    "spot",
]
"""How the price is charged.

pay-as-you-go: on demand, billed per hour of use.
subscription-monthly: prepaid for one month (包年包月, monthly).
subscription-yearly: prepaid for one year.
reserved-no-upfront / reserved-partial-upfront: reserved-instance hourly fee (a commitment; the
    partial-upfront fee excludes the upfront payment).
spot: preemptible; the price moves with the market and the instance can be reclaimed.
"""

Authority = Literal["live", "official", "third-party", "quote", "community"]
"""Where a price comes from, most authoritative first.

live: DescribePrice called by ``gpu-advisor prices refresh`` with the user's AccessKey.
official: Alibaba's own published price list (machine-collected copy of the China-site price file).
third-party: a list price transcribed by a third party from Alibaba's buy page.
quote: a third party's DescribePrice quote, which may include a system disk and an image.
community: a figure from a user article (promotions, reserved rates); not a list price.
"""

AUTHORITY_RANK: dict[str, int] = {"live": 0, "official": 1, "third-party": 2, "quote": 3, "community": 4}
_AUTHORITY_TEXT = {
    "official": "Alibaba's official China-site price file",
    "third-party": "third-party transcription of Alibaba's buy page",
    "quote": "third-party DescribePrice quote, includes a system disk",
    "community": "community article, not a list price",
}
_REGION_ID = re.compile(r"^[a-z]{2}-[a-z]+(?:-\d+)?$")

Unit = Literal["per hour", "per month", "per year"]
Currency = Literal["CNY", "USD"]
MonthlyBasis = Literal["monthly subscription", "pay-as-you-go x 730 h/month"]


class Price(BaseModel):
    """One price of one instance type in one region under one billing mode, with its provenance."""

    # defer_build: rows read from tools.data_cache are never validated again (see tools.catalog.GPU).
    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    instance_type: str = Field(description="full name, e.g. 'ecs.gn7i-c8g1.2xlarge'")
    region: str = Field(
        description="region id, e.g. 'cn-shanghai'; 'a|b' where the source names two, 'unspecified' where none"
    )
    zone: str | None = Field(default=None, description="zone id, for spot prices that differ by zone")
    billing: Billing
    price: float | None = Field(gt=0, description="amount in `currency` per `unit`; None = unknown, never 0")
    unit: Unit
    currency: Currency
    as_of: str = Field(description="when the price was seen: '2023-06', '2024-12-30' or an ISO timestamp")
    authority: Authority
    includes_disk: bool = Field(default=False, description="the figure includes a system disk (a quote)")
    suspect: bool = Field(default=False, description="looks inconsistent with sibling prices; see notes")
    derived: bool = Field(default=False, description="computed from another price, not read from a source")
    source: str = Field(description="URL(s) or the API call, ' ; '-separated")
    notes: str | None = None

    @field_validator("region")
    @classmethod
    def _region_shape(cls, value: str) -> str:
        if value != "unspecified" and not all(_REGION_ID.match(part) for part in value.split("|")):
            raise ValueError(f"region {value!r} is not a region id (e.g. cn-shanghai), 'a|b' or 'unspecified'")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> "Price":
        if not self.instance_type.startswith("ecs."):
            raise ValueError("instance_type must start with 'ecs.'")
        if "http" not in self.source and not (self.authority == "live" and self.source.startswith("Describe")):
            raise ValueError("source must contain a URL (live rows name the API call, e.g. DescribePrice)")
        natural = {"pay-as-you-go": "per hour", "subscription-monthly": "per month", "spot": "per hour"}
        expected = natural.get(self.billing)
        if expected and self.unit != expected and not self.derived:
            raise ValueError(f"{self.billing} is quoted {expected}; a '{self.unit}' figure must be derived")
        return self

    @property
    def exact_region(self) -> bool:
        """The row names one region (not two, not none)."""
        return bool(_REGION_ID.match(self.region))

    @property
    def provenance(self) -> str:
        """What to print next to the figure: region, billing mode, date and source."""
        if self.authority == "live":
            where = f"{self.region}/{self.zone}" if self.zone else self.region
            return f"live price from {self.source}, {where}, as of {self.as_of} ({self.billing})"
        return (
            f"{self.region} {self.billing} list price, {self.currency}, as of {self.as_of} "
            f"({_AUTHORITY_TEXT[self.authority]}): {self.source}"
        )


def read_prices(path: Path = PRICES_FILE) -> tuple[Price, ...]:
    """Read and validate a price CSV file.

    Raises:
        DataFileError: a bad row (file, line and instance type named) or a duplicate
            (instance type, region, zone, billing, unit, as_of, authority).
    """
    rows = read_csv_rows(path, Price, "instance_type")
    seen: set[tuple[str | None, ...]] = set()
    for line, row in enumerate(rows, start=2):
        key = (row.instance_type, row.region, row.zone, row.billing, row.unit, row.as_of, row.authority)
        if key in seen:
            raise DataFileError(f"{path.name} row {line}: duplicate price {key}")
        seen.add(key)
    return rows


# ---------------------------------------------------------------------------------------------- sources

_live_root: Path | None = None


def use_live_prices(snapshot_root: Path | None) -> None:
    """Let every lookup include the newest live snapshot under ``snapshot_root`` (None: shipped data only).

    Entry points call this with ``<data dir>/prices`` unless the user asked for ``--offline``.
    """
    global _live_root
    _live_root = snapshot_root
    _clear_caches()


def _clear_caches() -> None:
    _live_snapshot.cache_clear()
    load_prices.cache_clear()
    _live_by_type.cache_clear()
    _rows_of.cache_clear()


@functools.cache
def _live_snapshot() -> "LiveSnapshot | None":
    if _live_root is None:
        return None
    from tools.price_snapshot import latest_snapshot

    return latest_snapshot(_live_root)


def live_snapshot_time() -> str | None:
    """When the live snapshot in use was taken (ISO timestamp); None when only shipped data is used."""
    snapshot = _live_snapshot()
    return snapshot.taken_at if snapshot else None


@functools.cache
def load_shipped_prices() -> tuple[Price, ...]:
    """All prices from ``tools/data/prices.csv`` (validated once, then cached)."""
    return data_cache.cached("prices", [PRICES_FILE], lambda: read_prices(PRICES_FILE))


@functools.cache
def load_prices() -> tuple[Price, ...]:
    """Shipped prices plus the newest live snapshot's, when :func:`use_live_prices` named one."""
    snapshot = _live_snapshot()
    return load_shipped_prices() + (snapshot.prices if snapshot else ())


def in_stock(instance_type: str, region: str) -> bool | None:
    """Whether any zone of ``region`` sells the type now, per the live snapshot's DescribeAvailableResource.

    Returns:
        True or False where the live snapshot covers the region and the type; None where it does not
        (no refresh, another region, or a type the refresh did not ask about).
    """
    snapshot = _live_snapshot()
    if snapshot is None:
        return None
    name = get_instance(instance_type).instance_type
    # A region the refresh did not cover, or a type it did not ask about, is unknown, not sold out.
    if not any(a.region == region for a in snapshot.availability):
        return None
    if not any(a.instance_type == name for a in snapshot.availability):
        return None
    return any(a.instance_type == name and a.region == region and a.in_stock for a in snapshot.availability)


class _ShippedIndex:
    """The shipped rows by instance type, each type's rows pickled on their own, and the priced regions.

    A plan prices a few dozen types from about a sixth of the rows, and rebuilding the rows' objects is
    most of what reading them costs (about 2% of a cold ``gpu-advisor plan``), so a type's rows are
    unpickled only when it is first asked for. Kept in the catalog cache beside the rows themselves.
    A plain class: a dataclass would cost a cold start more to create than it saves.
    """

    __slots__ = ("regions", "rows")

    def __init__(self, rows: dict[str, bytes], regions: tuple[str, ...]) -> None:
        self.rows = rows
        self.regions = regions  # exact regions with a price, in file order


@functools.cache
def _shipped_index() -> _ShippedIndex:
    return data_cache.cached("prices_by_type", [PRICES_FILE], _build_shipped_index)


def _build_shipped_index() -> _ShippedIndex:
    shipped = load_shipped_prices()
    rows = {name: pickle.dumps(group, protocol=pickle.HIGHEST_PROTOCOL) for name, group in _by_type(shipped).items()}
    return _ShippedIndex(rows, tuple(dict.fromkeys(p.region for p in shipped if p.exact_region)))


def _by_type(prices: Iterable[Price]) -> dict[str, tuple[Price, ...]]:
    index: dict[str, list[Price]] = {}
    for price in prices:
        index.setdefault(price.instance_type, []).append(price)
    return {name: tuple(rows) for name, rows in index.items()}


@functools.cache
def _live_by_type() -> dict[str, tuple[Price, ...]]:
    snapshot = _live_snapshot()
    return _by_type(snapshot.prices) if snapshot else {}


@functools.cache
def _rows_of(instance_type: str) -> tuple[Price, ...]:
    # The planner asks for every instance type's price on each plan; a scan of all rows each time showed.
    blob = _shipped_index().rows.get(instance_type)
    shipped: tuple[Price, ...] = ()
    if blob is not None:
        try:
            shipped = pickle.loads(blob)
        except Exception as exc:  # noqa: BLE001 - a damaged cache file only costs the speed-up
            import logging  # here only: a plan that reads its cache imports no logging

            logging.getLogger(__name__).debug("ignoring unreadable cached prices of %s: %s", instance_type, exc)
            shipped = _by_type(load_shipped_prices()).get(instance_type, ())
    return shipped + _live_by_type().get(instance_type, ())


def prices_for(instance_type: str, region: str | None = None, billing: Billing | None = None) -> list[Price]:
    """Every known price of one instance type, in file order (shipped, then live).

    Args:
        instance_type: with or without the 'ecs.' prefix.
        region: only rows for exactly this region; None = any region, including rows with two or none.
        billing: only this billing mode; None = any.

    Raises:
        UnknownNameError: the instance type is not in the catalog.
    """
    name = get_instance(instance_type).instance_type
    return [
        p
        for p in _rows_of(name)
        if (region is None or p.region == region) and (billing is None or p.billing == billing)
    ]


def _preferred(rows: Iterable[Price]) -> Price | None:
    """Pick the row to show: most authoritative, then newest; CNY rows with a known figure only."""
    usable = [p for p in rows if p.price is not None and p.currency == "CNY" and not p.derived]
    if not usable:
        return None
    newest_first = sorted(usable, key=lambda p: p.as_of, reverse=True)
    return min(newest_first, key=lambda p: AUTHORITY_RANK[p.authority])


def best_price(instance_type: str, region: str, billing: Billing) -> Price | None:
    """Return the preferred CNY price of a type in one region under one billing mode; None if not listed.

    For spot, live rows are per zone and the cheapest zone is returned (its zone is on the row).

    Raises:
        UnknownNameError: the instance type is not in the catalog.
    """
    rows = prices_for(instance_type, region, billing)
    if billing == "spot":
        live = [p for p in rows if p.authority == "live" and p.price is not None]
        if live:
            newest = max(p.as_of for p in live)
            return min((p for p in live if p.as_of == newest), key=lambda p: p.price or 0.0)
    return _preferred(rows)


def listed_regions(instance_type: str, billing: Billing = "pay-as-you-go") -> list[str]:
    """Regions whose price list names the type under ``billing`` (exact region rows only)."""
    return list(dict.fromkeys(p.region for p in prices_for(instance_type, billing=billing) if p.exact_region))


def price_regions() -> list[str]:
    """Regions that have at least one exact-region price, in file order."""
    snapshot = _live_snapshot()
    live = [p.region for p in snapshot.prices if p.exact_region] if snapshot else []
    return list(dict.fromkeys([*_shipped_index().regions, *live]))


def is_region(region: str) -> bool:
    """Tell whether ``region`` is a well-formed region id ('cn-beijing', 'ap-southeast-1')."""
    return bool(_REGION_ID.match(region))
