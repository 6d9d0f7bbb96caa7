"""Price data: integrity, lookups, the derived monthly figure and the flagged rows."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from tools import prices
from tools.catalog import DataFileError, get_instance
from tools.errors import UnknownNameError
from tools.prices import (
    HOURS_PER_MONTH,
    Price,
    load_prices,
    monthly_from_hourly,
    price_cny_per_hour,
    price_cny_per_month,
    price_regions,
    prices_for,
    quote,
    read_prices,
)

ARTHURCHIAO = "https://arthurchiao.art/blog/gpu-prices/"


def test_price_file_shape() -> None:
    rows = load_prices()
    # 30 instance types x (pay-as-you-go, monthly subscription), cn-shanghai, CNY, 2023-06.
    assert len(rows) == 60
    assert len({p.instance_type for p in rows}) == 30
    assert {(p.region, p.currency, p.as_of) for p in rows} == {("cn-shanghai", "CNY", "2023-06")}
    assert all(ARTHURCHIAO in p.source for p in rows)
    assert price_regions() == ["cn-shanghai"]


def test_every_priced_instance_is_in_the_catalog() -> None:
    for p in load_prices():
        assert get_instance(p.instance_type).instance_type == p.instance_type


def test_no_price_is_zero() -> None:
    assert all(p.price is None or p.price > 0 for p in load_prices())
    with pytest.raises(ValueError):
        Price(
            instance_type="ecs.gn7i-c8g1.2xlarge",
            region="cn-shanghai",
            billing="pay-as-you-go",
            price=0,
            unit="per hour",
            currency="CNY",
            as_of="2023-06",
            source=ARTHURCHIAO,
        )


# Golden prices transcribed by ArthurChiao (2023-06, cn-shanghai) from Alibaba's buy page; exact.
@pytest.mark.parametrize(
    ("instance", "hourly", "monthly"),
    [
        ("ecs.gn7i-c8g1.2xlarge", 9.53, 4575.66),
        ("gn7i-c32g1.32xlarge", 53.23, 25551.90),
        ("ecs.gn7e-c16g1.4xlarge", 34.74, 16676.00),
        ("ecs.gn7e-c16g1.32xlarge", 277.93, 133408.00),
        ("ecs.ebmgn7e.32xlarge", 277.93, 133408.00),
        ("ecs.gn6i-c4g1.xlarge", 11.63, 3348.00),
        ("ecs.gn6v-c8g1.2xlarge", 26.46, 7620.00),
        ("ecs.gn7-c12g1.3xlarge", 31.58, 15160.00),
    ],
)
def test_golden_prices(instance: str, hourly: float, monthly: float) -> None:
    per_hour = price_cny_per_hour(instance)
    per_month = price_cny_per_month(instance, region="cn-shanghai")
    assert per_hour is not None and per_month is not None
    assert (per_hour.price, per_hour.unit, per_hour.billing) == (hourly, "per hour", "pay-as-you-go")
    assert (per_month.price, per_month.unit, per_month.billing) == (
        monthly,
        "per month",
        "subscription-monthly",
    )
    assert not per_month.derived


def test_missing_price_is_none_not_zero() -> None:
    # gn8is (L20) exists but no price was found.
    assert price_cny_per_hour("ecs.gn8is.2xlarge") is None
    assert price_cny_per_month("ecs.gn8is.2xlarge") is None
    assert price_cny_per_hour("ecs.gn7i-c8g1.2xlarge", region="ap-southeast-1") is None


def test_unknown_instance_raises_with_suggestions() -> None:
    with pytest.raises(UnknownNameError) as err:
        price_cny_per_hour("ecs.gn7e-c32g1.8xlarge")
    assert "ecs.gn7i-c32g1.8xlarge" in err.value.suggestions


def test_prices_for_filters() -> None:
    assert len(prices_for("gn7i-c8g1.2xlarge")) == 2
    assert [p.billing for p in prices_for("gn7i-c8g1.2xlarge", billing="subscription-monthly")] == [
        "subscription-monthly"
    ]


def test_monthly_from_hourly_is_marked_derived() -> None:
    hourly = price_cny_per_hour("ecs.gn7i-c8g1.2xlarge")
    assert hourly is not None
    monthly = monthly_from_hourly(hourly)
    assert HOURS_PER_MONTH == 730
    assert monthly.price == pytest.approx(9.53 * 730, abs=0.01)
    assert (monthly.unit, monthly.billing, monthly.derived) == ("per month", "pay-as-you-go", True)
    assert "730" in (monthly.notes or "")
    assert monthly.source == hourly.source and monthly.as_of == hourly.as_of
    with pytest.raises(ValueError):
        monthly_from_hourly(monthly)


def test_derived_monthly_used_when_no_subscription(tmp_path: Path) -> None:
    # Only an hourly price in the file: the monthly figure must be derived, never invented or 0.
    src = prices.PRICES_FILE.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "prices.csv"
    path.write_text(
        "\n".join([src[0], *[line for line in src[1:] if "gn7i-c8g1.2xlarge,cn-shanghai,pay" in line]]) + "\n"
    )
    rows = read_prices(path)
    assert len(rows) == 1
    derived = monthly_from_hourly(rows[0])
    assert derived.derived and derived.price == pytest.approx(6956.9, abs=0.01)


def test_a_hourly_billing_quoted_per_month_must_be_derived() -> None:
    with pytest.raises(ValueError, match="must be derived"):
        Price(
            instance_type="ecs.gn7i-c8g1.2xlarge",
            region="cn-shanghai",
            billing="pay-as-you-go",
            price=6956.9,
            unit="per month",
            currency="CNY",
            as_of="2023-06",
            source=ARTHURCHIAO,
        )


def test_flagged_rows_are_the_ones_noted_in_the_research() -> None:
    suspect = {p.instance_type for p in load_prices() if p.suspect}
    assert suspect == {"ecs.gn6e-c12g1.3xlarge", "ecs.gn6e-c12g1.24xlarge", "ecs.gn6i-c40g1.10xlarge"}
    assert all("SUSPECT" in (p.notes or "") for p in load_prices() if p.suspect)


def test_non_monotonic_hourly_prices_are_flagged() -> None:
    # Within a family and GPU count, more vCPU should not cost less per hour; where it does, the
    # row must carry the suspect flag so the answer can say so.
    groups: dict[tuple[str, float | None], list[tuple[int, float, Price]]] = defaultdict(list)
    for p in load_prices():
        inst = get_instance(p.instance_type)
        if p.billing == "pay-as-you-go" and p.price is not None and inst.vcpu is not None:
            groups[(inst.family, inst.gpu_count)].append((inst.vcpu, p.price, p))
    for rows in groups.values():
        rows.sort(key=lambda r: r[0])
        for (_, price_small, _), (_, price_big, p_big) in zip(rows, rows[1:], strict=False):
            if price_big < price_small:
                assert p_big.suspect, p_big.instance_type


def test_bad_price_row_names_file_and_row(tmp_path: Path) -> None:
    src = prices.PRICES_FILE.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "prices.csv"
    path.write_text("\n".join([src[0], src[1], src[2].replace(",CNY,", ",RMB,")]) + "\n", encoding="utf-8")
    with pytest.raises(
        DataFileError, match=r"prices\.csv row 3 \(instance_type='ecs\.gn7e-c16g1\.4xlarge'\): currency"
    ):
        read_prices(path)


def test_duplicate_price_row_is_rejected(tmp_path: Path) -> None:
    src = prices.PRICES_FILE.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "prices.csv"
    path.write_text("\n".join([src[0], src[1], src[1]]) + "\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="row 3: duplicate"):
        read_prices(path)


def test_quote_for_the_planner() -> None:
    q = quote("gn7i-c8g1.2xlarge")
    assert q is not None
    assert (q.instance_type, q.region, q.hourly, q.monthly) == (
        "ecs.gn7i-c8g1.2xlarge",
        "cn-shanghai",
        9.53,
        4575.66,
    )
    assert q.monthly_basis == "monthly subscription" and not q.suspect
    assert "cn-shanghai" in q.source_line and "2023-06" in q.source_line and ARTHURCHIAO in q.source_line
    assert quote("ecs.gn8is.2xlarge") is None
    assert quote("ecs.gn7i-c8g1.2xlarge", region="cn-beijing") is None


def test_quote_flags_suspect_prices() -> None:
    q = quote("ecs.gn6i-c40g1.10xlarge", region="cn-shanghai")
    assert q is not None and q.suspect and "verify" in q.source_line
