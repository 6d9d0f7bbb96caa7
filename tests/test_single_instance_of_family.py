"""One instance of a family named without its size is that family's widest type, evaluated as named.

Found asking as a new user: "Can we run DeepSeek-V3 on a single gn8v instance at FP8 for 10 users?" answered
"Yes, but not on one card ... 2 x gn8v-8x.16xlarge": the single instance was replaced by two.
"""

from __future__ import annotations

import httpx
import pytest
from engine_helpers import ask_api, ask_cli, first_line

from assistant.understanding import understand


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("Can we run DeepSeek-V3 on a single gn8v instance at FP8 for 10 users?", 1),
        ("Can one gn8v box serve DeepSeek-V3 for 10 users?", 1),
        ("一台 gn8v 能跑 DeepSeek-V3 吗，10 个人用", 1),
        ("两台 gn8v 能跑 DeepSeek-V3 吗", 2),
    ],
)
def test_instances_of_a_family_are_read(question: str, count: int) -> None:
    s = understand(question)
    assert s.families == ["gn8v"] and s.instances == count


def _fit(body: dict) -> dict:
    [fit] = [c for c in body["tool_calls"] if c["name"] == "evaluate_hardware_fit"]
    return fit


def test_api_single_instance_is_the_widest_type_and_the_verdict_is_on_it(client: httpx.Client) -> None:
    body = ask_api(client, "Can we run DeepSeek-V3 on a single gn8v instance at FP8 for 10 users?")
    fit = _fit(body)
    assert fit["args"]["instances"] == 1 and fit["args"]["instance_type"].startswith("ecs.gn8v")
    listed = next(c for c in body["tool_calls"] if c["name"] == "find_instance_types")["result"]["instances"]
    widest = max(i["gpu_count"] for i in listed if isinstance(i["gpu_count"], int) and not i["vgpu"])
    assert fit["result"]["hardware"]["gpus"] == widest
    verdict = "**Yes" if fit["result"]["fits"] else "**No"
    assert first_line(body["text"]).startswith(verdict)


def test_cli_chinese_one_instance(cli_env: dict[str, str]) -> None:
    body = ask_cli(cli_env, "一台 gn8v 能跑 DeepSeek-V3 吗，10 个人用")
    fit = _fit(body)
    assert fit["args"]["instances"] == 1 and fit["args"]["concurrency"] == 10
    assert fit["args"]["instance_type"] in first_line(body["text"])
