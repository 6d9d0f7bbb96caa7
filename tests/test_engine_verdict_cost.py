"""Verdicts, capacity and cost (issue 8, i8verd) through the real faces: ``gpu-advisor ask --json`` and ``/v1/ask``.

Each check reads the domain from the tool results in the answer: the hardware the user named is what was
evaluated, a "yes, but" names an option the plan prices lower, an inverted question ("overkill?", "有必要吗")
is answered in its own polarity, a stated cap holds for every option, and a figure on the first line is
the tool's figure. Beyond the verdict word, no engine wording is copied.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_helpers import ask_api, ask_api_follow_up, ask_cli, ask_cli_follow_up, first_line

pytestmark = pytest.mark.slow

Body = dict[str, Any]


def _results(body: Body, name: str) -> list[tuple[dict[str, Any], Any]]:
    return [(c["args"], c["result"]) for c in body["tool_calls"] if c["name"] == name]


def _line(body: Body) -> str:
    return first_line(body["text"])


def _cheapest_elsewhere(body: Body, gpu: str) -> dict[str, Any]:
    """The top option of the plan on any GPU (the alternative a 'but' must name)."""
    wider = [r for a, r in _results(body, "plan_gpu_deployment") if not a.get("gpu") and r and r["options"]]
    assert wider, "no plan on other GPUs"
    top = wider[0]["options"][0]
    assert (top["gpu_model"] or top["gpu_model_likely"]) != gpu
    return top  # type: ignore[no-any-return]


def _legacy_yes_but(body: Body) -> None:
    [(args, result)] = _results(body, "evaluate_hardware_fit")
    assert result["fits"] and result["hardware"]["gpu"] == "T4" and result["hardware"]["gpus"] == 1
    assert args["concurrency"] == 4 and args["quant"] == "awq-int4"
    other = _cheapest_elsewhere(body, "T4")
    [(_, quote)] = _results(body, "price_of_instance")
    assert other["price_cny_per_hour"] < quote["hourly"]  # cheaper per hour ...
    line = _line(body)
    assert line.startswith("**Yes") and "but" in line and other["instance_type"] in line
    assert "per million" in line.lower()  # ... and per token, both said


def _overkill_yes(body: Body) -> None:
    [(args, result)] = _results(body, "evaluate_hardware_fit")
    assert args["gpu"].startswith("A100") and result["fits"]
    other = _cheapest_elsewhere(body, result["hardware"]["gpu"])
    line = _line(body)
    assert line.startswith("**Yes") and other["instance_type"] in line
    assert f"{other['price_cny_per_hour']:g}" in line.replace(",", "")


def _overkill_no(body: Body) -> None:
    [(args, result)] = _results(body, "evaluate_hardware_fit")
    assert (args["gpu"], args["gpus"]) == ("A100-80GB", 1) and not result["fits"]
    line = _line(body)
    assert line.startswith("**No") and f"{result['per_gpu_needed_gib']:g}" in line


def _not_needed_zh(body: Body) -> None:
    plans = [r for a, r in _results(body, "plan_gpu_deployment") if a.get("gpu") and r and r["options"]]
    assert plans and plans[0]["options"][0]["per_gpu_gib_needed"] < plans[0]["options"][0]["per_gpu_capacity_gib"]
    line = _line(body)
    assert line.startswith("**没必要") and _cheapest_elsewhere(body, "A100-40GB")["instance_type"] in line


def _replicas(body: Body) -> None:
    [(args, result)] = _results(body, "evaluate_hardware_fit")
    assert (args["instance_type"], args["instances"], args["concurrency"]) == ("ecs.gn7i-c8g1.2xlarge", 3, 30)
    assert result["fits"] and result["hardware"]["gpus"] == 3  # three 1-GPU replicas, not a 3-way split
    assert _line(body).startswith("**能放下")


def _unquantised(body: Body) -> None:
    [(args, result)] = _results(body, "evaluate_hardware_fit")
    unquantised = (args.get("precision", "bf16"), args.get("quant", "none"), args["gpus"])  # defaults may be left out
    assert unquantised == ("bf16", "none", 1) and not result["fits"]
    assert _line(body).startswith("**放不下")


def _capped(body: Body) -> None:
    [(args, plan)] = _results(body, "plan_gpu_deployment")
    assert (args["max_instances"], args["concurrency"], args["context"]) == (2, 20, 32768)
    assert plan["options"] and all(o["instances"] <= 2 for o in plan["options"])
    top = plan["options"][0]
    assert _line(body).startswith("**Yes") and top["instance_type"] in _line(body)


def _gpu_cap(body: Body) -> None:
    [(args, plan)] = _results(body, "plan_gpu_deployment")
    assert (args["max_gpus"], args["concurrency"], args["context"]) == (8, 40, 32768) and "gpus" not in args
    assert plan["options"] and all(o["total_gpus"] <= 8 for o in plan["options"])
    assert plan["options"][0]["instance_type"] in _line(body)


def _capacity_everyday(body: Body) -> None:
    [(args, cap)] = _results(body, "concurrent_users")
    assert (args["gpu"], args["gpus"], args["context"], args["quant"]) == ("L20", 4, 32768, "awq-int4")
    assert str(cap["sequences"]) in _line(body)


def _named_cost(body: Body) -> None:
    [(args, result)] = _results(body, "evaluate_hardware_fit")
    assert (args["gpu"], args["gpus"]) == ("L20", 4) and result["fits"]
    named = [r for a, r in _results(body, "plan_gpu_deployment") if a.get("gpu") == "L20"]
    option = next(o for o in named[0]["options"] if o["total_gpus"] == 4)
    assert option["price_cny_per_hour"] is None  # no L20 price is known: said first, then the nearest known price
    assert option["instance_type"] in _line(body)
    [(_, near)] = _results(body, "nearest_known_price")
    assert near["quote"]["as_of"] in body["text"] and near["quote"]["region"] in body["text"]


def _regions(body: Body) -> None:
    hourly: dict[str, float] = {}  # same-date pay-as-you-go: the one basis every region lists
    for args, plan in _results(body, "plan_gpu_deployment"):
        priced = [o["price_cny_per_hour"] for o in plan["options"] if o["price_cny_per_hour"] is not None]
        if args.get("region") and priced:
            hourly[args["region"]] = min(priced)
    assert set(hourly) == {"cn-beijing", "eu-central-1"}
    assert min(hourly, key=lambda r: hourly[r]) in _line(body)


CASES: list[tuple[str, str, Callable[[Body], None]]] = [
    ("legacy", "is a T4 a good choice for serving Qwen2.5-7B AWQ to 4 users? we found gn6i in the console",
     _legacy_yes_but),
    ("overkill", "Is an A100 overkill for Qwen2.5-7B with ~10 users?", _overkill_yes),
    ("overkill-no", "would a single A100 80G be overkill for Qwen2.5-72B in bf16?", _overkill_no),
    ("necessity-zh", "有必要上 A100 吗？就跑个 Qwen2.5-7B，十来个人用", _not_needed_zh),
    ("replicas", "我们有3台 ecs.gn7i-c8g1.2xlarge，部署 Qwen2.5-7B，4k 上下文，总共 30 个并发，够不够？", _replicas),
    ("unquantised", "一张A10够不够跑千问2.5-14B，不量化", _unquantised),
    ("capped", "Hard limit of 2 machines. Can we host Llama-3.1-70B (bf16) for 20 users at 32k context?", _capped),
    ("gpu-cap", "Qwen2.5-72B BF16 推理，32k，40 并发，GPU 不超过 8 张，选什么实例？", _gpu_cap),
    ("capacity", "4 x L20, Qwen2.5-72B-Instruct-AWQ. how many people can chat at once if each convo is 32k tokens?",
     _capacity_everyday),
    ("named-cost", "What does one million tokens cost on Qwen2.5-32B AWQ with 4 x L20?", _named_cost),
    ("regions", "Qwen2.5-14B AWQ on A10, 16 users — how much per month in Beijing vs Frankfurt?", _regions),
]  # fmt: skip
FIRST = "Can Qwen2.5-32B AWQ run on two L20s?"
FOLLOW = "and how many concurrent 32k users does this hold?"


def _capacity_of_earlier_hardware(body: Body) -> None:
    [(args, cap)] = _results(body, "concurrent_users")
    assert (args["model"], args["gpu"], args["gpus"], args["context"]) == ("Qwen2.5-32B-Instruct", "L20", 2, 32768)
    assert str(cap["sequences"]) in _line(body)


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


def test_cli_capacity_follow_up(cli_env: dict[str, str], tmp_path: Path) -> None:
    first = ask_cli(cli_env, FIRST)
    _capacity_of_earlier_hardware(ask_cli_follow_up(cli_env, tmp_path, FIRST, first["text"], FOLLOW))


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


def test_api_capacity_follow_up(client: httpx.Client) -> None:
    _, follow = ask_api_follow_up(client, FIRST, FOLLOW)
    _capacity_of_earlier_hardware(follow)
