"""Planner limits the user states (at most N instances, part-time hours) and the nearest known price."""

from __future__ import annotations

import pytest

from tools import price_quotes, prices
from tools.errors import ToolInputError
from tools.plan import plan_deployment
from tools.price_nearest import nearest_known_price
from tools.workload import parse_workload

# Qwen2.5-14B, 200 x 8k sequences: ~300 GiB of K/V, more than one 8-GPU A10 instance holds.
_LOAD = {"model": "Qwen2.5-14B-Instruct", "concurrency": 200, "context": 8192, "gpu": "A10"}


def test_max_instances_rejects_layouts_that_need_more() -> None:
    free = plan_deployment(parse_workload(_LOAD))
    assert any(o.instances > 3 for o in [*free.options]), "the load should need many small instances"
    capped = plan_deployment(parse_workload({**_LOAD, "max_instances": 3}))
    assert capped.options and all(o.instances <= 3 for o in capped.options)
    assert any("at most 3 allowed" in r.reason.text for r in capped.rejected)


def test_part_time_hours_price_pay_as_you_go_for_those_hours() -> None:
    hours = 10 * 730 / 24 * 5 / 7  # 10 h a day on weekdays
    plan = plan_deployment(parse_workload({"model": "Qwen2.5-7B-Instruct", "concurrency": 8, "hours_per_month": hours}))
    priced = [o for o in plan.options if o.price_cny_per_hour is not None]
    assert priced
    for option in priced:
        assert option.usage_hours_per_month == hours
        assert option.usage_cny_per_month == pytest.approx(option.price_cny_per_hour * hours, abs=1)


def test_part_time_budget_is_checked_at_the_hours_run() -> None:
    # One A10 costs ~¥9.5/h: ~¥7,000 around the clock, ~¥2,100 at 217 h; a ¥3,000 budget allows it part-time.
    base = {"model": "Qwen2.5-7B-Instruct", "concurrency": 4, "gpu": "A10", "budget_cny_month": 3000.0}
    assert not [o for o in plan_deployment(parse_workload(base)).options if o.price_cny_per_hour]
    part_time = plan_deployment(parse_workload({**base, "hours_per_month": 217.3}))
    assert any(o.usage_cny_per_month and o.usage_cny_per_month <= 3000 for o in part_time.options)


def test_impossible_hours_are_refused() -> None:
    with pytest.raises(ToolInputError):
        parse_workload({"model": "Qwen2.5-7B-Instruct", "hours_per_month": 800})


def test_nearest_price_of_an_unpriced_type_is_a_similar_priced_type() -> None:
    assert price_quotes.quote("ecs.gn8is.4xlarge", "cn-beijing") is None  # L20: no list price in the data
    near = nearest_known_price("ecs.gn8is.4xlarge", "cn-beijing")
    assert near is not None and near.basis == "similar_type"
    assert near.gpu_count == 1 and near.quote.region == "cn-beijing" and near.quote.hourly


def test_nearest_price_of_a_type_priced_elsewhere_is_itself() -> None:
    listed = prices.listed_regions("ecs.gn7i-4x.8xlarge")
    assert "cn-shenzhen" not in listed and listed
    near = nearest_known_price("ecs.gn7i-4x.8xlarge", "cn-shenzhen")
    assert near is not None and near.basis == "same_type_other_region"
    assert near.quote.instance_type == "ecs.gn7i-4x.8xlarge" and near.quote.region in listed


def test_subscription_ranking_falls_back_to_pay_as_you_go_where_none_is_listed() -> None:
    # The shipped subscription prices are cn-shanghai's only: in cn-hangzhou the plan ranks by pay-as-you-go.
    plan = plan_deployment(
        parse_workload(
            {"model": "Qwen2.5-14B-Instruct", "concurrency": 50, "region": "cn-hangzhou", "billing": "subscription"}
        )
    )
    assert plan.options[0].price_cny_per_hour is not None
    assert any("ranked by pay-as-you-go instead" in w.text for w in plan.warnings)


def test_max_gpus_rejects_layouts_with_more_gpus_in_all() -> None:
    free = plan_deployment(parse_workload(_LOAD))
    assert any(o.total_gpus > 4 for o in free.options), "the load should need more than 4 A10 somewhere"
    capped = plan_deployment(parse_workload({**_LOAD, "max_gpus": 4}))
    assert all(o.total_gpus <= 4 for o in capped.options)
    assert any("at most 4 allowed" in r.reason.text for r in capped.rejected)


def test_named_instances_serving_inference_are_replicas() -> None:
    from tools.hardware_fit import evaluate_hardware

    # Qwen2.5-7B has 28 attention heads: a tensor split over 3 GPUs is impossible, three 1-GPU replicas are not.
    fit = evaluate_hardware("Qwen2.5-7B-Instruct", instance_type="ecs.gn7i-c8g1.2xlarge", instances=3,
                            context=4096, concurrency=30)  # fmt: skip
    one = evaluate_hardware("Qwen2.5-7B-Instruct", instance_type="ecs.gn7i-c8g1.2xlarge", context=4096, concurrency=10)
    assert fit.hardware.gpus == 3 and fit.per_gpu_needed_gib == one.per_gpu_needed_gib  # each serves its 10
    with pytest.raises(ToolInputError):
        evaluate_hardware("Qwen2.5-7B-Instruct", gpu="A10", gpus=3, context=4096, concurrency=30)  # one 3-GPU box
