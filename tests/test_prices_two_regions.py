"""A price asked in two regions is given in both, the cheaper first, on one billing basis.

Found asking as a new user: "How much does ecs.gn7i-c8g1.2xlarge cost per month in Singapore vs Hangzhou?" priced
Singapore only. Prices from tools/data/prices.csv through the price tool.
"""

from __future__ import annotations

import httpx
import pytest
from engine_helpers import ask_api, ask_cli, first_line

from assistant.hardware_words import named_regions
from tools.price_quotes import quote


@pytest.mark.parametrize(
    ("text", "regions"),
    [
        ("in Singapore vs Hangzhou?", ["ap-southeast-1", "cn-hangzhou"]),
        ("gn7i 在北京和上海哪个便宜", ["cn-beijing", "cn-shanghai"]),
        ("price in cn-beijing", ["cn-beijing"]),
    ],
)
def test_every_region_named_in_order(text: str, regions: list[str]) -> None:
    assert named_regions(text) == regions


def test_api_two_regions_cheaper_first(client: httpx.Client) -> None:
    body = ask_api(client, "How much does ecs.gn7i-c8g1.2xlarge cost per month in Singapore vs Hangzhou?")
    priced = {c["args"].get("region") for c in body["tool_calls"] if c["name"] == "price_of_instance"}
    assert {"ap-southeast-1", "cn-hangzhou"} <= priced
    sg, hz = quote("ecs.gn7i-c8g1.2xlarge", "ap-southeast-1"), quote("ecs.gn7i-c8g1.2xlarge", "cn-hangzhou")
    assert sg is not None and hz is not None and sg.hourly and hz.hourly
    cheaper = "cn-hangzhou" if hz.hourly < sg.hourly else "ap-southeast-1"
    assert f"cheaper in {cheaper}" in first_line(body["text"])


def test_cli_subscription_listed_in_one_region_only(cli_env: dict[str, str]) -> None:
    body = ask_cli(cli_env, "ecs.gn7i-c8g1.2xlarge 在北京和上海包月哪个便宜")
    sh, bj = quote("ecs.gn7i-c8g1.2xlarge", "cn-shanghai"), quote("ecs.gn7i-c8g1.2xlarge", "cn-beijing")
    assert sh is not None and bj is not None
    if (sh.subscription_monthly is None) != (bj.subscription_monthly is None):
        listed = sh if sh.subscription_monthly is not None else bj
        assert first_line(body["text"]).startswith(f"**包月价只有 {listed.region} 有")
