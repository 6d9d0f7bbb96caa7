"""Several models hosted together: the fleet's sum, and when a question asks for it rather than a comparison."""

from __future__ import annotations

import pytest

from assistant.intents.fleet import hosts_together
from assistant.understanding import understand
from tools.fleet import FleetPart, fleet_cost


def _part(model: str, hourly: float | None, gpus: int = 1) -> FleetPart:
    return FleetPart(model=model, instance_type=f"ecs.{model}", instances=1, total_gpus=gpus, price_cny_per_hour=hourly)


def test_the_fleet_sums_instances_gpus_and_the_hour() -> None:
    total = fleet_cost([_part("a", 34.74), _part("b", 9.53, gpus=2), _part("c", 9.53)])
    assert (total.instances, total.total_gpus, total.cny_per_hour) == (3, 4, 53.8)
    assert total.cny_per_month == round(53.8 * total.hours_per_month)


def test_an_unpriced_part_leaves_no_total() -> None:
    total = fleet_cost([_part("a", 34.74), _part("b", None)])
    assert total.cny_per_hour is None and total.cny_per_month is None and total.unpriced == ["ecs.b"]


@pytest.mark.parametrize(
    "question",
    [
        "We need to host 3 models: Qwen2.5-72B-AWQ, Qwen2.5-7B and bge-m3. What cluster do we need?",
        "同时部署 Qwen2.5-7B 和 Qwen2.5-14B，各 10 个并发，需要什么配置",
        "serve both Llama-3.1-8B and Qwen2.5-7B for 10 users each",
    ],
)
def test_hosting_several_models_together(question: str) -> None:
    assert hosts_together(question, understand(question))


@pytest.mark.parametrize(
    "question",
    [
        "Qwen2.5-7B vs Qwen2.5-14B on an A10, which is faster?",
        "Qwen2.5-7B 和 Qwen2.5-14B 哪个更便宜",
        "Qwen2.5-7B and Qwen2.5-14B for 50 users at the same time: which should we pick?",
        "deploy Qwen2.5-7B for 20 users",
    ],
)
def test_a_choice_between_models_is_no_fleet(question: str) -> None:
    assert not hosts_together(question, understand(question))
