"""Offline engine, plans and memory estimates: real tools, a real knowledge base, grounded numbers."""

from __future__ import annotations

import re

import pytest
from engine_helpers import call_args, full_text, shared_engine, ungrounded

from assistant.answer import Answer
from tools.plan import Plan


def _plan(answer: Answer) -> Plan:
    call = next(c for c in answer.tool_calls if c.name == "plan_gpu_deployment")
    return Plan.model_validate(call.result)


def test_zh_plan_with_every_slot_calls_the_planner_and_renders_a_grounded_table() -> None:
    question = "Qwen2.5-72B-Instruct 用 L20 部署，AWQ，32k 上下文，20 并发，预算每月 5 万，上海"
    answer = shared_engine().answer(question)

    assert (answer.kind, answer.language, answer.engine) == ("recommendation", "zh", "offline")
    assert call_args(answer, "plan_gpu_deployment") == {
        "model": "Qwen2.5-72B-Instruct",
        "task": "inference",
        "precision": "int4",
        "quant": "awq-int4",
        "context": 32768,
        "concurrency": 20,
        "budget_cny_month": 50000.0,
        "region": "cn-shanghai",
        "gpu": "L20",
    }
    plan = _plan(answer)
    top = plan.options[0]
    assert top.gpu_model == "L20" and top.per_gpu_gib_needed <= top.per_gpu_capacity_gib
    assert f"`{top.instance_type}`" in answer.text and "| ★" in answer.text
    assert "**推荐：**" in answer.text and "**单张 L20 不够：**" in answer.text
    assert ungrounded(answer, question) == []


def test_en_plan_states_price_with_source_and_cites_guidance() -> None:
    question = "Which instance should I use to serve Qwen2.5-7B-Instruct for 8 concurrent users?"
    answer = shared_engine().answer(question)

    assert answer.kind == "recommendation" and answer.language == "en"
    top = _plan(answer).options[0]
    assert top.price_cny_per_month is not None
    assert f"¥{top.price_cny_per_hour}/h" in answer.text and f"as of {top.price_as_of}" in answer.text
    assert answer.citations and "[1]" in full_text(answer)
    assert "http" not in re.sub(r"\]\([^)]*\)", "]", answer.text)  # links only; the faces list the sources
    assert ungrounded(answer, question) == []


def test_unpriced_option_says_price_unknown_and_budget_unchecked() -> None:
    answer = shared_engine().answer("Serve Qwen2.5-72B-Instruct with AWQ on L20, budget 50k CNY/month")
    assert "price unknown" in answer.text
    assert "budget could not be checked" in answer.text


def test_training_plan_maps_context_to_seq_len_and_shows_hours() -> None:
    question = "Llama-3.1-8B LoRA fine-tuning, batch 4, 4096-token sequences, 1B tokens"
    answer = shared_engine().answer(question)

    args = call_args(answer, "plan_gpu_deployment")
    assert args["task"] == "lora" and args["seq_len"] == 4096 and args["train_tokens"] == 1e9
    assert "context" not in args and "concurrency" not in args
    assert "training (h)" in answer.text and "Training takes about" in answer.text
    assert ungrounded(answer, question) == []


def test_lora_on_a_4bit_base_is_planned_as_qlora() -> None:
    answer = shared_engine().answer("Qwen2.5-32B LoRA 4bit 微调")
    assert call_args(answer, "plan_gpu_deployment")["task"] == "qlora"


def test_gpu_count_adds_the_per_gpu_estimate_on_that_many_gpus() -> None:
    question = "Serve Llama-3.1-70B with 16k context for 10 concurrent users on 4 GPUs"
    answer = shared_engine().answer(question)

    estimate = call_args(answer, "estimate_gpu_memory")
    assert estimate["gpus"] == 4 and estimate["framework"] == "vllm" and estimate["batch"] == 10
    assert "**On 4 GPUs:**" in full_text(answer)
    assert ungrounded(answer, question) == []


def test_a10_70b_quantised_answers_with_a_representative_model_and_corrects_the_claim() -> None:
    question = "A10 24G 能跑 70B 量化吗"
    answer = shared_engine().answer(question)

    args = call_args(answer, "plan_gpu_deployment")
    assert args["model"] == "Llama-3.1-70B-Instruct" and args["gpu"] == "A10" and args["precision"] == "int4"
    assert "同规模的代表模型" in answer.text and "单张 A10 不够" in answer.text  # "A10 24G" is one card
    assert all(o.total_gpus > 1 for o in _plan(answer).options)
    assert any(c.doc == "original-article-corrections" for c in answer.citations)
    assert ungrounded(answer, question) == []


def test_memory_question_estimates_term_by_term() -> None:
    question = "How much VRAM does Qwen2.5-7B need for inference with batch 8?"
    answer = shared_engine().answer(question)

    assert answer.kind == "estimate"
    args = call_args(answer, "estimate_gpu_memory")
    assert args["model"] == "Qwen2.5-7B-Instruct" and args["batch"] == 8
    assert "GiB per GPU" in answer.text and "| weights |" in answer.text
    assert ungrounded(answer, question) == []


def test_memory_with_a_context_splits_prompt_and_output_like_the_planner() -> None:
    answer = shared_engine().answer("Qwen2.5-7B 推理 32k 上下文需要多少显存")
    args = call_args(answer, "estimate_gpu_memory")
    assert args["prompt_tokens"] + args["gen_tokens"] == 32768


@pytest.mark.parametrize(
    "question",
    ["Qwen2.5-72B-Instruct 全参微调 1B tokens 需要几张卡", "DeepSeek-R1 推理 8 并发 FP8 需要什么实例"],
)
def test_large_plans_stay_grounded(question: str) -> None:
    answer = shared_engine().answer(question)
    assert answer.kind == "recommendation"
    assert ungrounded(answer, question) == []


def test_stream_emits_tool_events_then_tokens_then_the_answer() -> None:
    events = list(shared_engine().stream("Qwen2.5-7B-Instruct 推理部署用什么实例"))
    kinds = [e.type for e in events]
    assert kinds[0] == "tool_start" and kinds[-1] == "answer"
    assert kinds.index("token") > max(i for i, k in enumerate(kinds) if k == "tool_end")
    tool_ends = [e.tool_call for e in events if e.type == "tool_end"]
    assert tool_ends[0] is not None and tool_ends[0].name == "plan_gpu_deployment" and tool_ends[0].result
    final = events[-1].answer
    assert final is not None and "".join(e.text or "" for e in events if e.type == "token") == final.text
