"""Fresh wording through the real faces: ``gpu-advisor ask --json`` and ``POST /v1/ask``.

Four problems seen with new wording, each checked against the domain: a GPU's memory asked in a few words is
answered by the number first (not a table); "memory need of X" is a memory estimate, not a plan; a number
before "-token" is a length, never a request rate; a GPU count above 512 ("1024 张 H800") is honoured, and one
beyond the estimator's limit is refused explicitly. Plus the billing mode a workload question names ranks the
plan, a throughput question leads with the decode speed, and a memory question answered "inference" after
the one clarifying question gets the estimate.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_helpers import ask_api, ask_cli, ask_cli_follow_up, first_line

from tools.memory_request import MAX_GPUS

pytestmark = pytest.mark.slow

Body = dict[str, Any]


def _calls(body: Body, name: str) -> list[dict[str, Any]]:
    return [c for c in body["tool_calls"] if c["name"] == name]


def _first_line(body: Body) -> str:
    return first_line(body["text"])


def _memory_first(body: Body) -> None:
    [spec] = _calls(body, "gpu_specs")
    assert spec["args"]["name"] == "A10" and spec["result"]["memory_gib"] == 24  # the A10 is a 24 GB card
    line = _first_line(body)
    assert not line.startswith("|") and "24" in line


def _bandwidth_first(body: Body) -> None:
    [spec] = _calls(body, "gpu_specs")
    assert spec["result"]["memory_bandwidth_gb_s"] == 3350  # H800 SXM: 3.35 TB/s HBM3
    assert "3350" in _first_line(body).replace(",", "")


def _estimate_not_plan(body: Body) -> None:
    assert body["kind"] == "estimate" and not _calls(body, "plan_gpu_deployment")
    [est] = _calls(body, "estimate_gpu_memory")
    assert {k: est["args"][k] for k in ("task", "seq_len", "batch")} == {"task": "lora", "seq_len": 4096, "batch": 4}
    total = est["result"]["per_gpu_total_gib"]
    assert f"{total:g}" in _first_line(body) or f"{round(total, 2):g}" in _first_line(body)


def _length_is_not_a_rate(body: Body) -> None:
    [plan] = _calls(body, "plan_gpu_deployment")
    assert plan["args"]["qps"] == 20 and plan["args"]["gpu"] == "A10"


def _big_cluster_honoured(body: Body) -> None:
    [run] = _calls(body, "training_run")
    assert (run["args"]["gpu"], run["args"]["gpus"], run["args"]["tokens"]) == ("H800", 1024, 1e12)
    # 6·N·D for a 70B model on 1T tokens at 1024 x ~989 TFLOPS and 40% MFU: one to three weeks.
    assert 7 * 24 < run["result"]["hours"] < 21 * 24
    assert all(c["args"]["gpus"] == 1024 for c in _calls(body, "evaluate_hardware_fit"))


def _too_big_cluster_refused(body: Body) -> None:
    assert not _calls(body, "evaluate_hardware_fit")  # never evaluated on some other count
    text = body["text"].replace(",", "")
    assert "10000" in text and str(MAX_GPUS) in text


def _billing_honoured(body: Body) -> None:
    [plan] = _calls(body, "plan_gpu_deployment")
    assert plan["args"]["billing"] == "subscription" and plan["args"]["concurrency"] == 10


def _speed_first(body: Body) -> None:
    # The plan on the named GPU gives the speed (a wider plan may follow, for a cheaper alternative).
    plan = _calls(body, "plan_gpu_deployment")[0]
    assert plan["args"]["gpu"] == "A10"
    top = plan["result"]["options"][0]
    assert top["gpu_model"] == "A10" and f"{top['decode_tokens_per_s']:g}" in _first_line(body)


CASES: list[tuple[str, str, Callable[[Body], None]]] = [
    ("memory-first", "A10 显存多大？", _memory_first),
    ("bandwidth-first", "H800 memory bandwidth?", _bandwidth_first),
    ("memory-need-of", "memory need of Qwen2.5-7B for a LoRA fine-tune, seq length 4096, batch 4?", _estimate_not_plan),
    ("token-length-not-qps", "we need 20 QPS of 128-token queries against Qwen2.5-7B on A10s. how many cards?",
     _length_is_not_a_rate),
    ("1024-gpus", "我们有 1024 张 H800，想从头预训练一个 Llama-3.1-70B 规模的模型，1T tokens 大概要训多久？",
     _big_cluster_honoured),
    ("10000-gpus", "We have 10,000 H800 GPUs; pretraining Llama-3.1-70B on 1T tokens, how long?",
     _too_big_cluster_refused),
    ("billing", "Qwen2.5-14B 按包月算一个月大概多少钱？10 路并发", _billing_honoured),
    ("speed-first", "What's the throughput of Qwen2.5-7B on one A10 in tokens per second?", _speed_first),
]  # fmt: skip
FIRST = "how much VRAM does DeepSeek-R1-Distill-Qwen-32B need?"
REPLY = "just serving it, inference only"


def _asked_then_estimated(first: Body, second: Body) -> None:
    assert first["kind"] == "clarification" and not first["tool_calls"]
    [est] = _calls(second, "estimate_gpu_memory")
    assert est["args"]["model"] == "DeepSeek-R1-Distill-Qwen-32B" and est["args"]["task"] == "inference"
    assert second["kind"] == "estimate" and not _calls(second, "plan_gpu_deployment")
    # 32.8B parameters in BF16: about 61 GiB of weights, so the total is above that and below one 80 GB card.
    assert 61 < est["result"]["per_gpu_total_gib"] < 80


# ---------------------------------------------------------------------------------------------- CLI


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


def test_cli_memory_clarified_then_estimated(cli_env: dict[str, str], tmp_path: Path) -> None:
    first = ask_cli(cli_env, FIRST)
    _asked_then_estimated(first, ask_cli_follow_up(cli_env, tmp_path, FIRST, first["text"], REPLY))


# ---------------------------------------------------------------------------------------------- API


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


def test_api_memory_clarified_then_estimated(client: httpx.Client) -> None:
    first = client.post("/v1/ask", json={"question": FIRST}).json()
    second = client.post("/v1/ask", json={"question": REPLY, "session_id": first["session_id"]}).json()
    _asked_then_estimated(first, second)
