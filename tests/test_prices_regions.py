"""Regions and billing modes: comparisons, the planner's region filter and 'any', and how answers say it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from assistant.price_phrases import basis_label, region_comparison_phrase, source_label
from tools import price_quotes, prices
from tools.errors import ToolInputError, UnknownNameError
from tools.plan import plan_deployment
from tools.workload import Workload, parse_workload

A10 = "ecs.gn7i-c8g1.2xlarge"
QWEN72_AWQ = {"model": "qwen2.5-72b", "quant": "awq-int4", "context": 32768, "concurrency": 20}


def test_compare_regions_is_cheapest_first_and_names_the_cheapest() -> None:
    comparison = price_quotes.compare_regions(A10)
    figures = [r.price_cny for r in comparison.regions]
    assert figures == sorted(figures) and len(figures) == len(set(r.region for r in comparison.regions))
    assert comparison.cheapest == comparison.regions[0]
    # Every region in the comparison lists the type in its own price file, and only those.
    assert {r.region for r in comparison.regions} == set(prices.listed_regions(A10))
    # cn-heyuan is the cheapest A10 1-GPU region in the 2024-12-30 official list; Tokyo about twice that.
    assert (comparison.cheapest.region, comparison.cheapest.price_cny) == ("cn-heyuan", 8.5794)
    tokyo = next(r for r in comparison.regions if r.region == "ap-northeast-1")
    assert tokyo.price_cny == pytest.approx(2.09 * comparison.cheapest.price_cny, rel=0.01)


def test_a_type_listed_nowhere_has_no_cheapest_region() -> None:
    comparison = price_quotes.compare_regions("ecs.gn8is.2xlarge")
    assert comparison.regions == [] and comparison.cheapest is None


def test_cheapest_region_for_a_gpu_across_types() -> None:
    result = price_quotes.cheapest_region_for_gpu("A10")
    assert result.gpu == "A10" and result.assumed is None and result.gpu_count == 1
    assert result.cheapest is not None and result.cheapest_instance_type == A10
    assert all(result.cheapest.price_cny <= c.cheapest.price_cny for c in result.options if c.cheapest)


def test_an_ambiguous_gpu_uses_its_stated_default_and_says_so() -> None:
    result = price_quotes.cheapest_region_for_gpu("A100", gpu_count=8)
    assert result.gpu == "A100-80GB" and result.assumed and "A100-40GB" in result.assumed
    assert result.cheapest_instance_type is not None
    with pytest.raises(UnknownNameError):
        price_quotes.cheapest_region_for_gpu("V100")  # no stated default: the caller asks back


def test_region_filter_prices_and_rejects_types_that_region_does_not_list() -> None:
    plan = plan_deployment(Workload(model="qwen2.5-7b", context=4096, region="cn-chengdu"))
    assert plan.options and all(o.price_region in (None, "cn-chengdu") for o in plan.options)
    reasons = [r.reason.text for r in plan.rejected]
    # gn7e is listed in 9 regions, none of them cn-chengdu: not recommended there.
    assert any(r.startswith("not in cn-chengdu's price list") for r in reasons)
    for option in plan.options:
        listed = prices.listed_regions(option.instance_type)
        assert not listed or "cn-chengdu" in listed


def test_region_any_prices_each_option_in_its_cheapest_region_and_names_it() -> None:
    plan = plan_deployment(parse_workload({**QWEN72_AWQ, "region": "any"}))
    priced = [o for o in plan.options if o.price_cny_per_hour is not None]
    assert priced
    for option in priced:
        cheapest = price_quotes.cheapest_region(option.instance_type)
        assert cheapest is not None and option.price_region == cheapest.region
        assert option.price_regions_compared == len(prices.listed_regions(option.instance_type))
    best = min(priced, key=lambda o: o.price_cny_per_hour or 0.0)
    named = [w.text for w in plan.warnings if w.code == "price.cheapest_region"]
    assert named and f"cheapest region: {best.price_region} for {best.instance_type}" in named[0]
    assert any("region any" in a.text for a in plan.assumptions)


def test_the_issue_workloads_show_priced_options_with_region_and_date() -> None:
    for workload in ({"model": "deepseek-r1", "quant": "fp8"}, QWEN72_AWQ):
        plan = plan_deployment(parse_workload(workload))
        priced = [o for o in plan.options if o.price_cny_per_hour is not None]
        assert priced, workload
        for option in priced:
            assert option.price_region and option.price_as_of and option.price_source
            assert option.price_source.startswith(f"{option.price_region} pay-as-you-go list price")


def test_monthly_basis_is_stated_and_billing_modes_stay_apart() -> None:
    plan = plan_deployment(parse_workload({**QWEN72_AWQ, "region": "cn-shanghai"}))
    for option in plan.options:
        if option.price_cny_per_month is None:
            continue
        assert option.price_month_basis in ("monthly subscription", "pay-as-you-go x 730 h/month")
        if option.price_month_basis == "monthly subscription":
            assert option.price_cny_per_month == option.subscription_cny_per_month
        else:
            assert option.subscription_cny_per_month is None
            assert option.price_cny_per_month == pytest.approx((option.price_cny_per_hour or 0) * 730, rel=1e-4)


def test_subscription_billing_ranks_by_subscription_and_puts_unknown_ones_after() -> None:
    plan = plan_deployment(parse_workload({**QWEN72_AWQ, "region": "cn-shanghai", "billing": "subscription"}))
    known = [o.subscription_cny_per_month for o in plan.options if o.subscription_cny_per_month is not None]
    assert known and known == sorted(known)
    first_unknown = next((i for i, o in enumerate(plan.options) if o.subscription_cny_per_month is None), None)
    if first_unknown is not None:
        assert all(o.subscription_cny_per_month is None for o in plan.options[first_unknown:])
    assert any("monthly subscription price" in a.text for a in plan.assumptions)


def test_bad_region_is_one_clear_error() -> None:
    with pytest.raises(ToolInputError, match="region"):
        parse_workload({"model": "qwen2.5-7b", "region": "Shanghai"})


def test_source_phrases_in_chinese_keep_region_billing_and_date() -> None:
    q = price_quotes.quote(A10, "cn-shanghai")
    assert q is not None
    zh = source_label(q.source_line, "zh")
    assert zh.startswith("cn-shanghai 按量付费目录价，CNY，截至 2024-12-30（阿里云中国站官方价格文件）：[github.com](https://")
    live = "live price from DescribePrice, cn-beijing, as of 2026-12-01T22:10:00Z (spot)"
    assert source_label(live, "zh") == "DescribePrice 实时价格，cn-beijing，截至 2026-12-01T22:10:00Z（抢占式）"
    assert source_label(live, "en") == live
    assert basis_label("pay-as-you-go x 730 h/month", "en") == "730 h of pay-as-you-go, not a subscription"
    assert basis_label("pay-as-you-go x 730 h/month", "zh") == "按量价 × 730 小时/月，非包月价"


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "cheapest is cn-heyuan at ¥8.579/h (as of 2024-12-30)"),
        ("zh", "最便宜的是 cn-heyuan：¥8.579/小时（截至 2024-12-30）"),
    ],
)
def test_region_comparison_phrase(lang: str, expected: str) -> None:
    assert expected in region_comparison_phrase(price_quotes.compare_regions(A10), lang)  # type: ignore[arg-type]


def test_cli_prices_compare_names_the_cheapest_region() -> None:
    out = subprocess.run([sys.executable, "-m", "ui", "prices", "compare", "gn7i-c8g1.2xlarge", "--offline"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1].startswith("cheapest: cn-heyuan at ¥8.5794/h (pay-as-you-go")


def test_cli_plan_region_any_names_the_cheapest_region() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ui", "plan", "--model", "qwen2.5-7b", "--region", "any", "--offline"],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "cheapest region: cn-heyuan for ecs.gn7i-c8g1.2xlarge" in out.stdout
    assert "prices by billing mode" in out.stdout and "730 h/month" in out.stdout
