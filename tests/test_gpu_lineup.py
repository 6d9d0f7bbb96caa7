"""The GPU line-up tool and its intent: each GPU once, with the families carrying it and its cheapest hour."""

from __future__ import annotations

import pytest

from assistant.understanding import understand
from tools import catalog, price_quotes
from tools.gpu_lineup import gpu_lineup


def test_every_current_gpu_appears_once_largest_memory_first() -> None:
    rows = gpu_lineup().rows
    names = [r.gpu for r in rows]
    assert len(names) == len(set(names))
    carried = {i.gpu_model or i.gpu_model_likely for i in catalog.list_instances() if i.gpu_count}
    assert set(names) == carried - {None}
    assert [r.memory_gib for r in rows] == sorted((r.memory_gib for r in rows), reverse=True)


def test_the_gpu_hour_is_the_cheapest_listed_instance_price_over_its_gpus() -> None:
    for row in gpu_lineup().rows:
        families = {i.family for i in catalog.list_instances() if (i.gpu_model or i.gpu_model_likely) == row.gpu}
        assert set(row.families) == families
        if row.cny_per_gpu_hour is None:
            continue
        assert row.cheapest_instance_type is not None
        inst = catalog.get_instance(row.cheapest_instance_type)
        cheapest = price_quotes.cheapest_region(inst.instance_type)
        assert cheapest is not None and cheapest.region == row.cheapest_region
        assert row.cny_per_gpu_hour == pytest.approx(cheapest.price_cny / (inst.gpu_count or 1), abs=0.01)


@pytest.mark.parametrize(
    "question", ["what gpus does alibaba have", "阿里云有哪些 GPU", "list all the gpus", "阿里云有哪些卡可以选"]
)
def test_the_line_up_is_asked(question: str) -> None:
    assert understand(question).intent == "gpu_lineup"


@pytest.mark.parametrize(
    "question", ["有哪些 GPU 可以跑 Qwen2.5-72B", "which gpus can run Qwen2.5-72B?", "A10 有哪些规格"]
)
def test_a_workload_or_a_named_gpu_is_not_the_line_up(question: str) -> None:
    assert understand(question).intent != "gpu_lineup"
