"""English as people write it (issue 8, area i8en): terse, verbose, non-native, numbers in words, negations.

Each case states what the question fixes in the domain (a concurrency, a precision, a GPU ruled out, a
token count from tools/data/token_ratios.yaml) and checks the tool call the engine made for it, or the
answer's first line; the faces tests run the same capabilities through ``gpu-advisor ask --json`` and
``POST /v1/ask``, multi-turn included.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_helpers import (
    ask,
    ask_api,
    ask_api_follow_up,
    ask_cli,
    ask_cli_follow_up,
    call_args,
    first_line,
    ungrounded,
)

from assistant.answer import Answer
from assistant.toolbox import plan_gpu_deployment

# ------------------------------------------------------------------------------------------ readers

READS: list[tuple[str, str, dict[str, Any]]] = [
    ("couple-of-hundred", "Qwen3-8B for a couple of hundred concurrent users - what instances?", {"concurrency": 200}),
    ("a-dozen", "a dozen concurrent users on Qwen2.5-7B, 4k context. cheapest instance?", {"concurrency": 12}),
    ("conc-abbrev", "monthly bill for Qwen2.5-32B, 10 conc, pay-as-you-go, Hangzhou?", {"concurrency": 10}),
    ("ppl-at-once", "cheapest gpu instnace to run qwen2.5 7b for like 3 ppl at once?", {"concurrency": 3}),
    ("in-same-time", "which instance for deploy Qwen3-32B, we have 25 user in same time", {"concurrency": 25}),
    ("of-whom", "Qwen2.5-7B for 200 customers, perhaps forty of whom chat at the same time", {"concurrency": 40}),
    ("without-quantisation", "Serve Qwen2.5-32B without quantisation for 12 users", {"precision": "bf16"}),
    ("thousand-context", "Qwen2.5-14B with a 32 thousand token context for 4 users", {"context": 32768}),
    ("size-with-figures", "72b awq, 32k ctx, 20 conc — box?", {"model": "Qwen2.5-72B-Instruct", "quant": "awq-int4"}),
]


@pytest.mark.parametrize(("case", "question", "want"), READS, ids=[c[0] for c in READS])
def test_plan_reads_what_the_user_said(case: str, question: str, want: dict[str, Any]) -> None:
    args = call_args(ask(question), "plan_gpu_deployment")
    assert {k: args.get(k) for k in want} == want


def test_not_on_a_gpu_rules_it_out_instead_of_planning_on_it() -> None:
    answer = ask("Need to serve Qwen2.5-14B for ~15 users with 8k ctx, but not on A10s please. What should we rent?")
    args = call_args(answer, "plan_gpu_deployment")
    assert args.get("gpu") is None and args["exclude_gpus"] == ["A10"]
    assert not re.search(r"\bA10\b", first_line(answer.text))  # "A100" is another GPU


def test_a_ruled_out_gpu_stays_ruled_out_in_a_follow_up() -> None:
    answer = ask("and 40 users?", "Qwen2.5-14B 推理，15 并发，8k 上下文，不要 A10，用什么实例？")
    args = call_args(answer, "plan_gpu_deployment")
    assert args["concurrency"] == 40 and args["exclude_gpus"] == ["A10"]


def test_planner_rejects_the_excluded_gpu() -> None:
    plan = plan_gpu_deployment("Qwen2.5-7B-Instruct", concurrency=4, exclude_gpus=["A10"])
    assert plan.options and all(o.gpu_model != "A10" for o in plan.options)
    assert any(r.reason.code == "reject.excluded_gpu" for r in plan.rejected if r.gpu_model == "A10")


def test_same_thing_but_with_another_model_keeps_the_constraints() -> None:
    answer = ask(
        "ok, same thing but with Qwen2.5-32B",
        "We need to serve Llama-3.1-8B to 30 users at 8k context, at most 2 machines.",
    )
    args = call_args(answer, "plan_gpu_deployment")
    assert (args["model"], args["concurrency"], args["context"], args["max_instances"]) == (
        "Qwen2.5-32B-Instruct", 30, 8192, 2,
    )  # fmt: skip


def test_swapping_the_gpus_in_a_follow_up_keeps_the_count_and_the_workload() -> None:
    answer = ask(
        "Swap the L20s for A10s - still OK?", "Qwen2.5-32B AWQ on two L20s, 16k context, 10 users: does it fit?"
    )
    args = call_args(answer, "evaluate_hardware_fit")
    assert (args["gpu"], args["gpus"], args["context"], args["concurrency"]) == ("A10", 2, 16384, 10)


def test_a_single_machine_only_caps_the_instances() -> None:
    args = call_args(ask("Serve Qwen2.5-72B in bf16 for 8 users, a single machine only."), "plan_gpu_deployment")
    assert args["max_instances"] == 1


def test_samples_named_with_a_qualifier_count_as_training_volume() -> None:
    question = "LoRA fine-tuning Qwen2.5-14B on eighty thousand Q&A pairs, each around 800 tokens, for three epochs"
    assert call_args(ask(question), "plan_gpu_deployment")["train_tokens"] == 80_000 * 800 * 3


def test_key_value_heads_in_words_build_the_architecture() -> None:
    answer = ask(
        "Our model has 40 layers, a hidden dimension of 5120, 40 attention heads with 8 key-value heads, an "
        "intermediate size of 13824 and a vocabulary of 152,064. Which instance serves it for 10 users at 8k?"
    )
    args = call_args(answer, "plan_gpu_deployment")
    assert args["architecture"]["num_key_value_heads"] == 8  # type: ignore[index]


def test_half_a_trillion_tokens_on_128_gpus_leads_with_the_time() -> None:
    question = "We want to pretrain a 7B model from scratch on half a trillion tokens using 128 H800s. Ballpark time?"
    answer = ask(question)
    run = call_args(answer, "training_run")
    assert (run["tokens"], run["gpus"], run["gpu"], run["task"]) == (5e11, 128, "H800", "full")
    assert "days" in first_line(answer.text) or "hours" in first_line(answer.text)


def test_numbers_in_words_ground_the_figures_they_name() -> None:
    question = (
        "full fine-tune of Llama-3.1-8B, fifty thousand examples averaging 1k tokens, two epochs — which instances?"
    )
    answer = ask(question)
    assert call_args(answer, "plan_gpu_deployment")["train_tokens"] == 50_000 * 1_000 * 2
    assert ungrounded(answer, question) == []


def test_images_an_hour_with_the_model_between() -> None:
    args = call_args(
        ask("we need to churn out ~2,000 SDXL images an hour at 1024x1024 — what GPUs?"), "plan_media_deployment"
    )
    assert args["images_per_hour"] == 2000


def test_cost_per_million_tokens_on_named_hardware_answers_with_the_cost() -> None:
    answer = ask("What would it cost per million output tokens if I serve Llama-3.1-8B on one A10?")
    assert "¥" in first_line(answer.text)


def test_concept_of_what_fills_memory_is_guidance() -> None:
    answer = ask("apart from the weights, what actually eats GPU memory when you serve an LLM?")
    assert answer.kind == "guidance" and "KV cache" in first_line(answer.text)


# ------------------------------------------------------------------------------------------ lengths

# tools/data/token_ratios.yaml: 1.33 tokens per English word, 0.6 per Chinese character.
LENGTHS = [
    ("en-words", "How many tokens is 1,500 English words, roughly?", 1500, "en_words", "1995"),
    ("zh-chars-in-english", "Roughly how many tokens are 800 Chinese characters?", 800, "zh_characters", "480"),
    ("zh-chars-in-chinese", "800 个汉字大概是多少 token？", 800, "zh_characters", "480"),
    ("en-words-in-chinese", "1500 个英文单词大概是多少 token？", 1500, "en_words", "1995"),
]


def test_a_document_summarised_is_the_prompt_and_the_summary_the_output() -> None:
    # 3 pages x 665 = 1,995 tokens in; 200 Chinese characters x 0.6 = 120 out
    answer = ask("用 Qwen2.5-32B 总结 3 页英文报告，摘要 200 字左右，同时 5 个人用，要什么配置？")
    args = call_args(answer, "plan_gpu_deployment")
    assert (args["context"], args["gen_tokens"]) == (1995 + 120, 120)


def _converts(answer: Answer, amount: float, unit: str, tokens: str) -> None:
    assert answer.kind == "estimate"
    assert call_args(answer, "text_length_tokens") == {"amount": amount, "unit": unit}
    assert tokens in first_line(answer.text)


@pytest.mark.parametrize(("case", "question", "amount", "unit", "tokens"), LENGTHS, ids=[c[0] for c in LENGTHS])
def test_length_question_is_converted(case: str, question: str, amount: float, unit: str, tokens: str) -> None:
    _converts(ask(question), amount, unit, tokens)


# ------------------------------------------------------------------------------------------ faces

Body = dict[str, Any]


def _body_args(body: Body, name: str) -> dict[str, Any]:
    calls = [c["args"] for c in body["tool_calls"] if c["name"] == name]
    assert calls, f"{name} not called: {[c['name'] for c in body['tool_calls']]}"
    return calls[0]  # type: ignore[no-any-return]


def _excluded(body: Body) -> None:
    assert _body_args(body, "plan_gpu_deployment")["exclude_gpus"] == ["A10"]


def _length(body: Body) -> None:
    assert _body_args(body, "text_length_tokens") == {"amount": 1500, "unit": "en_words"} and body["kind"] == "estimate"


def _spoken(body: Body) -> None:
    assert _body_args(body, "plan_gpu_deployment")["concurrency"] == 200


FACES: list[tuple[str, str, Callable[[Body], None]]] = [
    ("not-on-a10", "Qwen2.5-14B for 15 users, 8k ctx, not on A10s please", _excluded),
    ("lengths", "How many tokens is 1,500 English words?", _length),
    ("couple-of-hundred", "Qwen3-8B for a couple of hundred concurrent users", _spoken),
]
FIRST = "We need to serve Llama-3.1-8B to 30 users at 8k context, no more than 2 machines."
FOLLOW = "ok, same thing but with Qwen2.5-32B"


def _keeps_constraints(body: Body) -> None:
    args = _body_args(body, "plan_gpu_deployment")
    assert (args["model"], args["concurrency"], args["max_instances"]) == ("Qwen2.5-32B-Instruct", 30, 2)


@pytest.mark.slow
@pytest.mark.parametrize(("case", "question", "check"), FACES, ids=[c[0] for c in FACES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


@pytest.mark.slow
def test_cli_follow_up_same_thing_other_model(cli_env: dict[str, str], tmp_path: Path) -> None:
    first = ask_cli(cli_env, FIRST)
    _keeps_constraints(ask_cli_follow_up(cli_env, tmp_path, FIRST, first["text"], FOLLOW))


@pytest.mark.slow
@pytest.mark.parametrize(("case", "question", "check"), FACES, ids=[c[0] for c in FACES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


@pytest.mark.slow
def test_api_follow_up_same_thing_other_model(client: httpx.Client) -> None:
    _, follow = ask_api_follow_up(client, FIRST, FOLLOW)
    _keeps_constraints(follow)
