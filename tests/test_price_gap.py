"""Instance types side by side per month (tools/price_gap.py), from the shipped price list.

cn-shanghai pay-as-you-go (2024-12-30): gn7i-c8g1.2xlarge ¥9.5326/h, gn7i-c16g1.4xlarge ¥10.0934/h; 730 h of
each is ¥6,958.80 and ¥7,368.18. Subscriptions (2023-06): ¥4,575.66 and ¥4,844.81. gn8is types have no price.
"""

from __future__ import annotations

import pytest

from tools.errors import UnknownNameError
from tools.price_gap import compare_instance_months


def test_types_are_ranked_by_their_month_with_the_gap_to_the_cheapest() -> None:
    gap = compare_instance_months(["gn7i-c16g1.4xlarge", "ecs.gn7i-c8g1.2xlarge"])
    assert [t.instance_type for t in gap.types] == ["ecs.gn7i-c8g1.2xlarge", "ecs.gn7i-c16g1.4xlarge"]
    assert [t.monthly_cny for t in gap.types] == [6958.8, 7368.18]
    assert [t.more_than_cheapest_cny for t in gap.types] == [0.0, 409.38]
    assert gap.basis == "pay-as-you-go" and gap.hours_per_month == 730


def test_the_subscription_basis_uses_the_listed_subscriptions() -> None:
    gap = compare_instance_months(["ecs.gn7i-c16g1.4xlarge", "ecs.gn7i-c8g1.2xlarge"], basis="subscription")
    assert [(t.monthly_cny, t.as_of) for t in gap.types] == [(4575.66, "2023-06"), (4844.81, "2023-06")]
    assert gap.types[1].more_than_cheapest_cny == 269.15


def test_an_unpriced_type_stays_unpriced_and_comes_last() -> None:
    gap = compare_instance_months(["ecs.gn8is.2xlarge", "ecs.gn7i-c8g1.2xlarge"])
    assert gap.types[0].instance_type == "ecs.gn7i-c8g1.2xlarge"
    assert (gap.types[1].monthly_cny, gap.types[1].more_than_cheapest_cny) == (None, None)


def test_an_unknown_type_fails_with_suggestions() -> None:
    with pytest.raises(UnknownNameError):
        compare_instance_months(["ecs.gn7i-c8g1.3xlarge", "ecs.gn7i-c8g1.2xlarge"])
