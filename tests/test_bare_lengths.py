"""Per-request lengths written without a unit, and the Chinese comma between two numbers.

Found asking as a new user: "100 concurrent users with 2k prompts and 500 output tokens" planned 2,048 tokens in
all (the 2k read as the whole context), and "input 2k output 500" lost the output; "输出 500，100 并发" read
500,100 users.
"""

from __future__ import annotations

import httpx
import pytest
from engine_helpers import ask_api

from assistant.understanding import understand


@pytest.mark.parametrize(
    ("question", "prompt", "output", "users"),
    [
        ("I need to serve Qwen2.5-32B to 100 concurrent users with 2k prompts and 500 output tokens", 2000, 500, 100),
        ("Qwen2.5-32B, input 2k output 500, 100 users", 2000, 500, 100),
        ("Qwen2.5-32B 输入 2k，输出 500，100 并发", 2000, 500, 100),
        ("qwen2.5-7b prompt: 1500, output: 300", 1500, 300, None),
    ],
)
def test_unit_less_lengths_beside_their_role(question: str, prompt: int, output: int, users: int | None) -> None:
    s = understand(question)
    assert (s.prompt_tokens, s.gen_tokens, s.context, s.concurrency) == (prompt, output, prompt + output, users)


@pytest.mark.parametrize(
    "question",
    [
        "Qwen2.5-7B handles 2k prompts a day, which instance?",  # a load, not a length
        "Qwen2.5-7B, 50 prompts per minute",
        "Qwen2.5-7B input of 3 documents",  # a count of things
    ],
)
def test_counts_and_rates_of_prompts_are_not_lengths(question: str) -> None:
    assert understand(question).prompt_tokens is None


def test_a_prompt_size_alone_stays_the_usual_context_size() -> None:
    s = understand("How many users can Qwen2.5-14B hold on 4 x A10 with 8k prompts?")
    assert s.context == 8192 and s.prompt_tokens is None


def test_api_plans_the_whole_request(client: httpx.Client) -> None:
    body = ask_api(client, "Qwen2.5-32B, input 2k output 500, 100 users: which instance?")
    [plan] = [c for c in body["tool_calls"] if c["name"] == "plan_gpu_deployment"]
    assert plan["args"]["context"] == 2500 and plan["args"]["gen_tokens"] == 500
    assert plan["args"]["concurrency"] == 100


@pytest.mark.parametrize(
    "question",
    [
        "need ~200 tok/s single stream for qwen2.5-7b, what gpu?",
        "need 200 tokens/s for qwen2.5-7b",
        "qwen2.5-7b at 50 tokens per second per user, 10 users",
        "qwen2.5-7b 单路要 100 tokens/s，用什么卡？",
    ],
)
def test_a_speed_is_not_a_context(question: str) -> None:
    # "200 tokens/s" planned a 200-token context: the regex backtracked from "tokens/" to "token" + "s/".
    assert understand(question).context is None
