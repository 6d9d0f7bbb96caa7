"""The region-name table (tools/data/regions.yaml): valid, complete for the price data, and read from questions."""

from __future__ import annotations

import pytest

from assistant.understanding import understand
from tools import prices
from tools.regions import region_aliases, region_names


def test_every_priced_region_has_a_name() -> None:
    named = {r.id for r in region_names()}
    priced = {p.region for p in prices.load_shipped_prices() if p.exact_region}
    assert priced <= named, sorted(priced - named)
    assert all(r.source.startswith("https://") for r in region_names())


@pytest.mark.parametrize(
    ("question", "region"),
    [
        ("ecs.gn7i-c8g1.2xlarge 在华东2（上海）按量多少钱？", "cn-shanghai"),
        ("华北6 的 gn7i 按量多少钱", "cn-wulanchabu"),
        ("乌兰察布 A10 包月多少钱", "cn-wulanchabu"),
        ("张家口 gn7i 抢占式价格", "cn-zhangjiakou"),
        ("How much is gn7i in Hangzhou on subscription?", "cn-hangzhou"),
        ("pay-as-you-go price of ecs.gn7i-c8g1.2xlarge in cn-beijing", "cn-beijing"),
    ],
)
def test_region_names_map_to_ids(question: str, region: str) -> None:
    slots = understand(question)
    assert slots.region == region and slots.intent == "prices"


def test_longer_aliases_are_tried_first() -> None:
    aliases = list(region_aliases())
    assert aliases.index("kuala lumpur") < aliases.index("上海")


@pytest.mark.parametrize(
    ("question", "region"),
    [
        ("Qwen2.5-7B on A10 in HK, price per month?", "cn-hongkong"),
        ("Qwen2.5-7B 部署在美西多少钱", "us-west-1"),
        ("serve Qwen2.5-7B from us-west, what does it cost", "us-west-1"),
        ("Qwen2.5-7B in the UK, monthly cost", "eu-west-1"),
        ("Qwen2.5-7B in Australia on L20", "ap-southeast-2"),
        ("Qwen2.5-7B 放张北", "cn-zhangjiakou"),
        ("serve qwen2.5-7b out of us-east-1", "us-east-1"),
    ],
)
def test_everyday_region_names_map_to_ids(question: str, region: str) -> None:
    assert understand(question).region == region


def test_an_unknown_region_id_is_refused_by_name_not_priced_as_nothing() -> None:
    # A well-formed id no table knows used to price nothing and read as "no instance fits".
    from assistant.toolbox import plan_gpu_deployment
    from tools.errors import ToolInputError

    with pytest.raises(ToolInputError, match="unknown region 'cn-foo-1'; known regions: cn-qingdao"):
        plan_gpu_deployment("Qwen2.5-7B-Instruct", region="cn-foo-1")
    assert understand("Qwen2.5-7B 用 A10 放在 cn-foo-1 每月多少钱").region == "cn-foo-1"  # passed on, then refused
