"""The per-type price index in the catalog cache: each type's rows read back equal the file's, in file order.

A cold ``plan`` unpickles only the rows of the types it prices (tools.prices._ShippedIndex); these tests
check that this shortcut never changes what any lookup returns: on a cache miss, read back from the cache,
with a live snapshot on top, and from a cache file whose stored rows are damaged.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools import data_cache, prices
from tools.price_snapshot import write_snapshot
from tools.prices import Price, read_prices

A10 = "ecs.gn7i-c8g1.2xlarge"


def _forget() -> None:
    """Start over as a new process would: nothing read yet, only the cache files on disk."""
    prices._shipped_index.cache_clear()
    prices.load_shipped_prices.cache_clear()
    prices._clear_caches()


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Path]:
    previous = data_cache.cache_dir()
    folder = tmp_path / "cache"
    data_cache.set_cache_dir(folder)
    _forget()
    yield folder
    data_cache.set_cache_dir(previous)
    prices.use_live_prices(None)
    _forget()


def _file_rows() -> dict[str, list[Price]]:
    rows: dict[str, list[Price]] = {}
    for price in read_prices():
        rows.setdefault(price.instance_type, []).append(price)
    return rows


def _index_file(cache: Path) -> Path:
    (found,) = cache.glob("prices_by_type-*.pickle")
    return found


def test_every_types_prices_equal_the_files_rows_before_and_after_the_cache(cache: Path) -> None:
    expected = _file_rows()
    regions = list(dict.fromkeys(p.region for p in read_prices() if p.exact_region))
    for attempt in ("built from the file", "read back from the cache"):
        assert {name: prices.prices_for(name) for name in expected} == expected, attempt
        assert prices.price_regions() == regions, attempt
        assert _index_file(cache).is_file()
        _forget()


def test_live_rows_follow_the_shipped_rows_of_their_type(cache: Path, tmp_path: Path) -> None:
    shipped = _file_rows()[A10]
    live = Price(
        instance_type=A10, region="ap-southeast-7", billing="pay-as-you-go", price=9.5, unit="per hour",
        currency="CNY", as_of="2026-12-01T22:10:00Z", authority="live", source="DescribePrice",
    )
    root = tmp_path / "prices"
    write_snapshot(root, "2026-12-01T22:10:00Z", [live], [])
    prices.use_live_prices(root)
    assert prices.prices_for(A10) == [*shipped, live]
    every_row = [*read_prices(), live]
    assert prices.price_regions() == list(dict.fromkeys(p.region for p in every_row if p.exact_region))
    prices.use_live_prices(None)
    assert prices.prices_for(A10) == shipped


def test_damaged_rows_in_the_cache_file_are_read_from_the_validated_rows(cache: Path) -> None:
    expected = _file_rows()
    prices.prices_for(A10)  # writes the cache files
    index = prices._shipped_index()
    blob = index.rows[A10]
    data = _index_file(cache).read_bytes()
    assert data.count(blob) == 1
    # Same length, so the cache file itself still reads back whole: only this type's rows are damaged.
    _index_file(cache).write_bytes(data.replace(blob, b"\x00" * len(blob)))
    _forget()
    with pytest.raises(pickle.UnpicklingError):
        pickle.loads(prices._shipped_index().rows[A10])
    assert prices.prices_for(A10) == expected[A10]
    assert {name: prices.prices_for(name) for name in expected} == expected
