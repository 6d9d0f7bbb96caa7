"""Verdicts and comparisons through the real faces: ``gpu-advisor ask --json`` and ``POST /v1/ask``.

Each check reads what the domain requires: the hardware the user named is what the tools evaluated, every
side of a comparison got the same workload, and the first line answers (yes/no, or the side the tool
results say wins), never a copy of the engine's wording beyond the verdict word.
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


def _fits(body: Body) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(c["args"], c["result"]) for c in body["tool_calls"] if c["name"] == "evaluate_hardware_fit"]


def _first_line(body: Body) -> str:
    return first_line(body["text"])


def _one_card_verdict(body: Body) -> None:
    [(args, result)] = _fits(body)
    assert (args["gpu"], args["gpus"], args["concurrency"], args["context"]) == ("RTX-4090", 1, 4, 8192)
    assert _first_line(body).startswith("**Yes" if result["fits"] else "**No")


def _methods_swept(body: Body) -> None:
    fits = _fits(body)
    assert {a["task"] for a, _ in fits} == {"full", "lora", "qlora"}
    assert all((a["gpu"], a["gpus"]) == ("A10", 1) for a, _ in fits)
    fitting = [a["task"] for a, r in fits if r["fits"]]
    assert fitting == ["qlora"]  # 14B: full and BF16 LoRA exceed 24 GB, QLoRA does not
    assert _first_line(body).startswith("**No") and "QLoRA" in _first_line(body)


def _instance_types_compared(body: Body) -> None:
    fits = _fits(body)
    assert [a["instance_type"] for a, _ in fits] == ["ecs.gn7i-c8g1.2xlarge", "ecs.gn6i-c4g1.xlarge"]
    assert {a["concurrency"] for a, _ in fits} == {5}
    winners = [a["instance_type"] for a, r in fits if r["fits"]]
    assert winners and winners[0] in _first_line(body)


def _models_compared(body: Body) -> None:
    fits = _fits(body)
    assert [a["model"] for a, _ in fits] == ["Qwen2.5-14B-Instruct", "Qwen2.5-32B-Instruct"]
    assert {(a["gpu"], a["gpus"], a["concurrency"], a["context"]) for a, _ in fits} == {("H20", 1, 8, 32768)}
    fitting = [a["model"] for a, r in fits if r["fits"]]
    assert fitting and fitting[0] in _first_line(body)


def _claim_checked(body: Body) -> None:
    found = [c["result"] for c in body["tool_calls"] if c["name"] == "gpu_specs" and c["result"]]
    assert found and found[-1]["fp16_dense_tflops"] == 312  # "A100" resolves to one of its variants
    assert _first_line(body).startswith("**Yes")


def _comparative_claim_refuted(body: Body) -> None:
    results = {c["result"]["name"]: c["result"] for c in body["tool_calls"] if c["name"] == "gpu_specs" and c["result"]}
    assert results["H800"]["bf16_dense_tflops"] > results["A100-80GB"]["bf16_dense_tflops"]
    assert _first_line(body).startswith("**不对")


def _dear_but_fits(body: Body) -> None:
    [(args, result)] = _fits(body)
    assert args["instance_type"] == "ecs.gn7e-c16g1.4xlarge" and result["fits"]
    assert any(c["name"] == "price_of_instance" for c in body["tool_calls"])
    assert _first_line(body).startswith("**Yes, it fits, but") and "A10" in _first_line(body)


def _slow_for_training(body: Body) -> None:
    specs = {c["result"]["name"]: c["result"] for c in body["tool_calls"] if c["name"] == "gpu_specs" and c["result"]}
    assert specs["H20"]["bf16_dense_tflops"] * 2 <= max(s["bf16_dense_tflops"] for s in specs.values())
    assert _first_line(body).startswith("**能放下，但") and "148" in _first_line(body)


CASES: list[tuple[str, str, Callable[[Body], None]]] = [
    ("one-card", "will a single RTX 4090 handle Qwen2.5-14B AWQ for 4 users at 8k context?", _one_card_verdict),
    ("methods", "can I fine-tune Qwen2.5-14B on one A10?", _methods_swept),
    (
        "instance-types",
        "ecs.gn7i-c8g1.2xlarge or ecs.gn6i-c4g1.xlarge for a Qwen2.5-7B chatbot with 5 users?",
        _instance_types_compared,
    ),
    ("models", "Qwen2.5-14B 和 Qwen2.5-32B 用一张 H20 部署，32k 上下文 8 并发，各自够不够？", _models_compared),
    ("claim", "The A100 does 312 TFLOPS in FP16, true?", _claim_checked),
    ("comparative-claim", "H800 性能略低于 A100，这个说法靠谱吗？", _comparative_claim_refuted),
    ("dear-but-fits", "Is ecs.gn7e-c16g1.4xlarge a sensible choice for Qwen2.5-7B with 4 users?", _dear_but_fits),
    ("slow-for-training", "H20 适合拿来做 Qwen2.5-72B 全参微调吗？", _slow_for_training),
]
FIRST = "Can one L20 serve Qwen2.5-32B AWQ for 10 users at 8k context?"
FOLLOW = "how does that compare with two A10s?"


def _both_sides_of_the_follow_up(body: Body) -> None:
    fits = _fits(body)
    assert [(a.get("gpu"), a.get("gpus")) for a, _ in fits] == [("L20", 1), ("A10", 2)]
    assert {(a["concurrency"], a["context"], a["quant"]) for a, _ in fits} == {(10, 8192, "awq-int4")}
    assert "2 x A10" in body["text"] and "1 x L20" in body["text"]


# ---------------------------------------------------------------------------------------------- CLI


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


def test_cli_comparison_follow_up(cli_env: dict[str, str], tmp_path: Path) -> None:
    first = ask_cli(cli_env, FIRST)
    _both_sides_of_the_follow_up(ask_cli_follow_up(cli_env, tmp_path, FIRST, first["text"], FOLLOW))


# ---------------------------------------------------------------------------------------------- API


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


def test_api_comparison_follow_up(client: httpx.Client) -> None:
    _, follow = ask_api_follow_up(client, FIRST, FOLLOW)
    _both_sides_of_the_follow_up(follow)
