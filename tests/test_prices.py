"""Price data: integrity, provenance on every row, preference between sources, lookups, derived months."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pytest

from tools import prices
from tools.catalog import get_instance
from tools.data_files import DataFileError
from tools.errors import UnknownNameError
from tools.price_quotes import monthly_from_hourly, price_cny_per_hour, price_cny_per_month, quote
from tools.prices import (
    HOURS_PER_MONTH,
    Price,
    best_price,
    load_prices,
    price_regions,
    prices_for,
    read_prices,
)

ARTHURCHIAO = "https://arthurchiao.art/blog/gpu-prices/"
CLOUDPILOT = "https://github.com/cloudpilot-ai/karpenter-provider-alibabacloud/blob/5d2e077"
REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "aliyun_gpu_prices_recent.csv"


def test_price_file_shape() -> None:
    rows = load_prices()
    by_authority = defaultdict(list)
    for p in rows:
        by_authority[p.authority].append(p)
    # 2023-06 third-party transcription (cn-shanghai, both billing modes), the 2024-12-30 official
    # China-site price file (pay-as-you-go, 22 regions) and the community figures.
    assert len(by_authority["third-party"]) == 60
    assert {(p.region, p.as_of) for p in by_authority["third-party"]} == {("cn-shanghai", "2023-06")}
    official = by_authority["official"]
    assert len(official) == 691
    assert {(p.billing, p.currency, p.as_of) for p in official} == {("pay-as-you-go", "CNY", "2024-12-30")}
    assert len({p.region for p in official}) == 22
    assert all(CLOUDPILOT in p.source for p in official)
    assert all(p.region == "unspecified" for p in by_authority["community"])
    assert "live" not in by_authority  # nothing live is shipped
    assert set(price_regions()) == {p.region for p in official}


def test_every_row_carries_region_billing_currency_date_and_source() -> None:
    for p in load_prices():
        assert p.region and p.billing and p.currency and p.as_of and p.authority
        assert "http" in p.source


@pytest.mark.skipif(not REFERENCE.is_file(), reason="shared reference material not present")
def test_official_rows_match_the_reference_file() -> None:
    # Verify the import: every official reference row is in the data with the same figure.
    with REFERENCE.open(encoding="utf-8") as fh:
        reference = [r for r in csv.DictReader(fh) if "cloudpilot" in r["source"]]
    shipped = {(p.instance_type, p.region): p.price for p in load_prices() if p.authority == "official"}
    assert len(reference) == len(shipped) == 691
    for row in reference:
        assert shipped[(row["instance_type"], row["region"])] == pytest.approx(float(row["price"]))


def test_the_two_sources_agree_where_they_overlap() -> None:
    # The 2023-06 transcription and the 2024-12-30 official file give the same cn-shanghai prices
    # (to the cent): the transcription was faithful and list prices did not move.
    compared = 0
    for old in (p for p in load_prices() if p.authority == "third-party" and p.billing == "pay-as-you-go"):
        same = prices_for(old.instance_type, "cn-shanghai", "pay-as-you-go")
        official = [p for p in same if p.authority == "official"]
        if official:
            compared += 1
            assert official[0].price == pytest.approx(old.price, abs=0.01), old.instance_type
    assert compared >= 25


def test_every_priced_instance_is_in_the_catalog() -> None:
    for p in load_prices():
        assert get_instance(p.instance_type).instance_type == p.instance_type


def test_no_price_is_zero() -> None:
    assert all(p.price is None or p.price > 0 for p in load_prices())
    with pytest.raises(ValueError):
        Price(
            instance_type="ecs.gn7i-c8g1.2xlarge", region="cn-shanghai", billing="pay-as-you-go", price=0,
            unit="per hour", currency="CNY", as_of="2023-06", authority="third-party", source=ARTHURCHIAO,
        )


def test_region_must_be_a_region_id() -> None:
    with pytest.raises(ValueError, match="region"):
        Price(
            instance_type="ecs.gn7i-c8g1.2xlarge", region="Shanghai", billing="pay-as-you-go", price=9.5,
            unit="per hour", currency="CNY", as_of="2023-06", authority="third-party", source=ARTHURCHIAO,
        )


def test_newer_official_price_is_preferred_and_the_older_one_kept() -> None:
    rows = prices_for("gn7i-c8g1.2xlarge", "cn-shanghai", "pay-as-you-go")
    assert {(p.authority, p.as_of) for p in rows} == {("third-party", "2023-06"), ("official", "2024-12-30")}
    best = best_price("gn7i-c8g1.2xlarge", "cn-shanghai", "pay-as-you-go")
    assert best is not None and (best.authority, best.price) == ("official", 9.5326)


# Official 2024-12-30 pay-as-you-go list prices (CNY/h) from Alibaba's China-site price file.
@pytest.mark.parametrize(
    ("instance", "region", "hourly"),
    [
        ("ecs.gn7i-c8g1.2xlarge", "cn-shanghai", 9.5326),
        ("ecs.gn7i-c8g1.2xlarge", "cn-heyuan", 8.5794),
        ("ecs.gn7i-c8g1.2xlarge", "ap-northeast-1", 17.973),
        ("ecs.gn7e-c16g1.4xlarge", "ap-northeast-1", 37.185),
        ("ecs.gn6i-c4g1.xlarge", "cn-shanghai", 11.63),
    ],
)
def test_golden_official_prices(instance: str, region: str, hourly: float) -> None:
    price = price_cny_per_hour(instance, region)
    assert price is not None
    expected = (hourly, "pay-as-you-go", "official", "2024-12-30")
    assert (price.price, price.billing, price.authority, price.as_of) == expected


# Monthly subscriptions transcribed by ArthurChiao (2023-06, cn-shanghai); the only subscription list prices.
@pytest.mark.parametrize(
    ("instance", "monthly"),
    [("ecs.gn7i-c8g1.2xlarge", 4575.66), ("ecs.gn7e-c16g1.32xlarge", 133408.00), ("ecs.gn6v-c8g1.2xlarge", 7620.00)],
)
def test_golden_subscription_prices(instance: str, monthly: float) -> None:
    per_month = price_cny_per_month(instance, region="cn-shanghai")
    assert per_month is not None
    assert (per_month.price, per_month.billing, per_month.derived) == (monthly, "subscription-monthly", False)


def test_missing_price_is_none_not_zero() -> None:
    # gn8is (L20) is sold but is in no price list we have.
    assert price_cny_per_hour("ecs.gn8is.2xlarge") is None
    assert price_cny_per_month("ecs.gn8is.2xlarge") is None
    assert quote("ecs.gn8is.2xlarge") is None
    assert price_cny_per_hour("ecs.gn7i-c8g1.2xlarge", region="us-west-1") is None


def test_unknown_instance_raises_with_suggestions() -> None:
    with pytest.raises(UnknownNameError) as err:
        price_cny_per_hour("ecs.gn7e-c32g1.8xlarge")
    assert "ecs.gn7i-c32g1.8xlarge" in err.value.suggestions


def test_monthly_from_hourly_is_marked_derived() -> None:
    hourly = price_cny_per_hour("ecs.gn7i-c8g1.2xlarge", "cn-shanghai")
    assert hourly is not None
    monthly = monthly_from_hourly(hourly)
    assert HOURS_PER_MONTH == 730
    assert monthly.price == pytest.approx(9.5326 * 730, abs=0.01)
    assert (monthly.unit, monthly.billing, monthly.derived) == ("per month", "pay-as-you-go", True)
    assert "730" in (monthly.notes or "")
    with pytest.raises(ValueError):
        monthly_from_hourly(monthly)


def test_monthly_says_subscription_or_730_hours() -> None:
    with_subscription = quote("gn7i-c8g1.2xlarge", "cn-shanghai")
    assert with_subscription is not None
    assert (with_subscription.monthly, with_subscription.monthly_basis) == (4575.66, "monthly subscription")
    without = quote("gn7i-c8g1.2xlarge", "cn-beijing")
    assert without is not None and without.hourly is not None
    assert without.monthly == pytest.approx(without.hourly * 730, abs=0.01)
    assert without.monthly_basis == "pay-as-you-go x 730 h/month" and without.subscription_monthly is None


def test_quote_provenance_names_region_billing_date_and_source() -> None:
    q = quote("gn7i-c8g1.2xlarge", "cn-shanghai")
    assert q is not None and (q.region, q.hourly, q.authority, q.live) == ("cn-shanghai", 9.5326, "official", False)
    assert q.source_line.startswith("cn-shanghai pay-as-you-go list price, CNY, as of 2024-12-30")
    assert CLOUDPILOT in q.source_line
    # The subscription comes from another source and date; it is listed, not folded into the first.
    assert any("subscription-monthly" in s and "2023-06" in s and ARTHURCHIAO in s for s in q.other_sources)


def test_quote_without_region_uses_the_stated_order() -> None:
    shanghai = quote("gn7i-c8g1.2xlarge")
    assert shanghai is not None and shanghai.region == prices.DEFAULT_REGION_ORDER[0]
    # ebmgn7ex is listed only in cn-beijing and cn-shenzhen: the next region in the order.
    beijing = quote("ebmgn7ex.32xlarge")
    assert beijing is not None and beijing.region == "cn-beijing"


def test_community_figures_are_kept_but_never_quoted_as_a_region_price() -> None:
    community = [p for p in load_prices() if p.authority == "community"]
    assert {p.billing for p in community} >= {"reserved-no-upfront", "reserved-partial-upfront"}
    q = quote("gn7i-c8g1.2xlarge", "cn-shanghai")
    assert q is not None and "community" not in q.source_line + " ".join(q.other_sources)


def test_suspect_rows_are_the_ones_noted_in_the_research() -> None:
    suspect = {p.instance_type for p in load_prices() if p.suspect}
    assert suspect == {"ecs.gn6e-c12g1.3xlarge", "ecs.gn6e-c12g1.24xlarge", "ecs.gn6i-c40g1.10xlarge"}
    assert all("SUSPECT" in (p.notes or "") for p in load_prices() if p.suspect)


def test_non_monotonic_prices_within_one_list_are_flagged_or_official() -> None:
    # Within one list (source, region, date), a family and GPU count, more vCPU should not cost less per
    # hour. Where the third-party transcription does, the row is flagged; the official list shows the
    # same dips (so they are Alibaba's prices, not transcription errors) and is kept as published.
    groups: dict[tuple[str, str, str, str, float | None], list[tuple[int, float, Price]]] = defaultdict(list)
    for p in load_prices():
        inst = get_instance(p.instance_type)
        if p.billing == "pay-as-you-go" and p.price is not None and inst.vcpu is not None:
            groups[(p.authority, p.region, p.as_of, inst.family, inst.gpu_count)].append((inst.vcpu, p.price, p))
    for rows in groups.values():
        rows.sort(key=lambda r: r[0])
        for (_, small, _), (_, big, p_big) in zip(rows, rows[1:], strict=False):
            if big < small:
                assert p_big.suspect or p_big.authority == "official", p_big.instance_type


def test_bad_price_row_names_file_and_row(tmp_path: Path) -> None:
    src = prices.PRICES_FILE.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "prices.csv"
    path.write_text("\n".join([src[0], src[1], src[2].replace(",CNY,", ",RMB,")]) + "\n", encoding="utf-8")
    with pytest.raises(
        DataFileError, match=r"prices\.csv row 3 \(instance_type='ecs\.gn7e-c16g1\.4xlarge'\): currency"
    ):
        read_prices(path)


def test_row_without_source_url_is_rejected(tmp_path: Path) -> None:
    src = prices.PRICES_FILE.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "prices.csv"
    path.write_text("\n".join([src[0], src[1].replace("https://", "")]) + "\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="source must contain a URL"):
        read_prices(path)


def test_duplicate_price_row_is_rejected(tmp_path: Path) -> None:
    src = prices.PRICES_FILE.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "prices.csv"
    path.write_text("\n".join([src[0], src[1], src[1]]) + "\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="row 3: duplicate"):
        read_prices(path)


def test_quote_flags_suspect_prices() -> None:
    rows = [p for p in prices_for("ecs.gn6i-c40g1.10xlarge", "cn-shanghai") if p.authority == "third-party"]
    assert rows and all(p.suspect for p in rows)
    assert all("verify" in (p.notes or "") for p in rows)
