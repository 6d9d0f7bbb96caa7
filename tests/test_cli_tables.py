"""Terminal tables: long inferred GPU names stay out of the plan table and are spelled out below it."""

from __future__ import annotations

import pytest

from assistant.toolbox import plan_gpu_deployment
from ui.tables import print_plan


def test_plan_table_shows_short_gpu_names_and_lists_the_full_ones(capsys: pytest.CaptureFixture[str]) -> None:
    plan = plan_gpu_deployment(model="Llama-3.1-405B-Instruct", precision="bf16")
    inferred = [o for o in plan.options if not o.gpu_model]
    assert inferred, "the catalog has GPUs Alibaba does not name"
    print_plan(plan)
    out = capsys.readouterr().out
    table, _, notes = out.partition("GPUs Alibaba does not name")
    for option in inferred:
        assert f"{option.gpu_model_likely} ({option.gpu_confidence})" in notes
        assert option.gpu_model_likely not in table or "(" not in option.gpu_model_likely
