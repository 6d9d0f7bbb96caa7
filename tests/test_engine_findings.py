"""Offline engine on the QA findings: refused values, guidance routing, defaults, comparisons, prices."""

from __future__ import annotations

import pytest
from engine_helpers import call_args, shared_engine, ungrounded

from tools.plan import Plan


def _calls(answer: object, name: str) -> list[dict[str, object]]:
    return [c.args for c in answer.tool_calls if c.name == name]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("question", "shown", "lang"),
    [
        ("Qwen2.5-72B 推理 INT4 并发 -5", "并发 -5", "zh"),
        ("Serve Qwen2.5-7B for -5 users", "-5 users", "en"),
        ("Serve Qwen2.5-7B on 0.5 GPUs", "0.5 GPUs", "en"),
    ],
)
def test_impossible_values_are_refused_not_replaced(question: str, shown: str, lang: str) -> None:
    answer = shared_engine().answer(question)
    assert answer.kind == "error" and answer.language == lang
    assert shown in answer.text and not answer.tool_calls
    assert ungrounded(answer, question) == []


def test_a_huge_context_is_a_context_and_the_model_limit_is_stated() -> None:
    question = "Qwen2.5-7B 推理, 上下文 10M tokens"
    answer = shared_engine().answer(question)
    card = next(c for c in answer.tool_calls if c.name == "model_card")
    assert answer.kind == "error" and "训练 tokens" not in answer.text
    assert "上下文 10,000,000 tokens 远超" in answer.text
    assert f"最大上下文 {card.result['max_context']:,}" in answer.text or str(card.result["max_context"]) in answer.text
    assert ungrounded(answer, question) == []


@pytest.mark.parametrize(
    ("question", "tool"),
    [("抢占式实例适合训练吗", None), ("H20 适合训练吗", "gpu_specs"), ("what is ZeRO-3", None)],
)
def test_guidance_questions_are_answered_with_citations(question: str, tool: str | None) -> None:
    answer = shared_engine().answer(question)
    assert answer.kind == "guidance" and answer.citations
    assert "请问是哪个模型" not in answer.text and "Which model" not in answer.text
    if tool:
        assert _calls(answer, tool)
    assert ungrounded(answer, question) == []


@pytest.mark.parametrize(
    ("question", "gpu"), [("DeepSeek-V3 FP8 on H20, how many instances?", "H20"), ("千问2.5 72B 用几张 L20", "L20")]
)
def test_a_deployment_question_defaults_to_inference_and_says_so(question: str, gpu: str) -> None:
    answer = shared_engine().answer(question)
    assert answer.kind == "recommendation"
    assert call_args(answer, "plan_gpu_deployment")["task"] == "inference"
    assert call_args(answer, "plan_gpu_deployment")["gpu"] == gpu
    assert "task taken as inference" in answer.text or "任务按推理部署计算" in answer.text


def test_a_made_up_instance_type_is_called_out_before_the_plan() -> None:
    question = "Is ecs.l20-c32g1.8xlarge good for Qwen 72B?"
    answer = shared_engine().answer(question)
    assert "**`ecs.l20-c32g1.8xlarge` does not exist**" in answer.text
    assert "`ecs.gn8is.2xlarge`" in answer.text  # a real L20 type
    assert call_args(answer, "plan_gpu_deployment")["gpu"] == "L20"
    # "good for" asks for a verdict: it (or the recommendation) follows the correction of the name.
    lead = "**Recommended:**" if "**Recommended:**" in answer.text else "**Yes"
    assert answer.text.index("does not exist") < answer.text.index(lead)
    assert ungrounded(answer, question) == []


def test_two_models_are_both_planned_and_compared() -> None:
    question = "Qwen3-30B-A3B vs Qwen2.5-32B which is cheaper"
    answer = shared_engine().answer(question)
    planned = [a["model"] for a in _calls(answer, "plan_gpu_deployment")]
    assert planned == ["Qwen3-30B-A3B", "Qwen2.5-32B-Instruct"]
    # the winner leads: the cheaper per million tokens (both cheapest options cost the same per hour)
    plans = {c.args["model"]: c.result["options"] for c in answer.tool_calls if c.name == "plan_gpu_deployment"}
    priced = {m: [o for o in opts if o["price_cny_per_hour"]] for m, opts in plans.items()}
    best = {m: min(opts, key=lambda o: o["price_cny_per_hour"]) for m, opts in priced.items()}
    cheaper = min(best, key=lambda m: (best[m]["price_cny_per_hour"], best[m]["cost_cny_per_million_tokens"]))
    assert answer.text.startswith(f"**{cheaper} is the pick on cost:**") and "| Qwen2.5-32B-Instruct |" in answer.text
    assert ungrounded(answer, question) == []


def test_two_named_gpus_are_each_planned() -> None:
    question = "Qwen2.5-14B 推理 16k 上下文，用 L20 还是 A10 划算?"
    answer = shared_engine().answer(question)
    assert [a["gpu"] for a in _calls(answer, "plan_gpu_deployment")] == ["L20", "A10"]
    assert "| L20 |" in answer.text and "| A10 |" in answer.text and "**结论：**" in answer.text
    assert ungrounded(answer, question) == []


def test_price_of_a_named_instance_type_with_source_and_date() -> None:
    question = "how much does ecs.gn7i-c8g1.2xlarge cost per month"
    answer = shared_engine().answer(question)
    quote = next(c.result for c in answer.tool_calls if c.name == "price_of_instance")
    assert quote is not None and quote["monthly"] is not None
    assert "**`ecs.gn7i-c8g1.2xlarge` price:**" in answer.text and "as of 2024-12-30" in answer.text
    assert ungrounded(answer, question) == []


def test_concurrency_capacity_and_cost_per_million_tokens_are_stated() -> None:
    question = "Qwen2.5-14B AWQ on A10, 16k context, how many concurrent requests fit?"
    answer = shared_engine().answer(question)
    top = Plan.model_validate(next(c.result for c in answer.tool_calls if c.name == "plan_gpu_deployment")).options[0]
    assert top.max_concurrent_sequences is not None and top.cost_cny_per_million_tokens is not None
    assert f"holds about {top.max_concurrent_sequences} sequences" in answer.text
    assert "**Cost per million tokens:**" in answer.text
    assert ungrounded(answer, question) == []


def test_nothing_fits_on_the_named_gpu_says_so_and_suggests_what_would() -> None:
    question = "LoRA finetune llama3-8b on 4x A10, seq 8192, batch 4"
    answer = shared_engine().answer(question)
    assert "no instance type in the catalog" not in answer.text
    assert "**No A10 instance type fits:**" in answer.text
    assert "gradient accumulation" in answer.text and "Best option on any GPU" in answer.text
    batches = [a.get("batch") for a in _calls(answer, "plan_gpu_deployment")]
    assert 1 in batches and any("gpu" not in a for a in _calls(answer, "plan_gpu_deployment"))
    assert ungrounded(answer, question) == []


def test_a_misremembered_model_is_corrected_and_the_real_one_planned() -> None:
    question = "Qwen-70B INT4 用 L20 48G 1~2 卡 vLLM 能到 QPS 100 吗"
    answer = shared_engine().answer(question)
    assert answer.kind == "recommendation"
    assert "**没有 Qwen-70B 这个模型**" in answer.text
    args = _calls(answer, "plan_gpu_deployment")[-1]
    assert args["model"] == "Qwen2.5-72B-Instruct" and args["gpu"] == "L20" and args["precision"] == "int4"
    assert any(c.doc == "original-article-corrections" for c in answer.citations)
    assert "QPS 100 取决于每个请求的输入和输出长度" in answer.text
    assert ungrounded(answer, question) == []


@pytest.mark.parametrize(("question", "lang"), [("你好", "zh"), ("hello!", "en")])
def test_a_greeting_gets_an_introduction(question: str, lang: str) -> None:
    answer = shared_engine().answer(question)
    assert answer.kind == "guidance" and answer.language == lang and "gpu-advisor" in answer.text
    assert ungrounded(answer, question) == []


def test_help_me_pick_asks_one_question() -> None:
    answer = shared_engine().answer("help me pick a GPU")
    assert answer.kind == "clarification" and not answer.tool_calls
    assert answer.text.count("?") == 1


def test_chinese_prices_translate_the_fixed_phrases() -> None:
    answer = shared_engine().answer("Qwen2.5-7B-Instruct 推理部署，8 并发")
    assert "包月价" in answer.text and "截至 2024-12-30" in answer.text
    assert "monthly subscription" not in answer.text and "list price" not in answer.text


def test_price_per_million_tokens_question_is_answered_not_read_as_training_tokens() -> None:
    question = "Qwen2.5-7B-Instruct 推理部署，8 并发，每百万 tokens 多少钱"
    answer = shared_engine().answer(question)
    assert "train_tokens" not in call_args(answer, "plan_gpu_deployment")
    assert "训练 tokens" not in answer.text and "**每百万 tokens 成本：**" in answer.text
    assert ungrounded(answer, question) == []


def test_unknown_cost_per_million_tokens_is_said_when_asked() -> None:
    answer = shared_engine().answer("Serve Qwen2.5-72B AWQ on L20, what is the price per million tokens?")
    assert "cost per million tokens is unknown" in answer.text


def test_a_context_within_rope_scaling_reach_is_planned_with_the_limit_warned() -> None:
    # Qwen2.5's config says 32k; YaRN (factor 4) takes it to 128k, which users do deploy.
    answer = shared_engine().answer("Qwen2.5-72B-Instruct 推理, AWQ, 128k 上下文, 2 并发")
    assert answer.kind == "recommendation"
    plan = next(c.result for c in answer.tool_calls if c.name == "plan_gpu_deployment")
    assert any("max_context" in w["text"] for w in plan["warnings"])
