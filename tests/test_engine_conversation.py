"""Follow-ups and clarifications: state re-derived from the history on every call."""

from __future__ import annotations

from engine_helpers import call_args, conversation, shared_engine, ungrounded

from assistant.conversation import merge, read_conversation, representative_model
from assistant.understanding import understand

BASE = "Qwen2.5-72B-Instruct AWQ 部署，32k 上下文，20 并发"


def test_int8_follow_up_changes_only_the_precision_and_drops_the_old_format() -> None:
    history = conversation(BASE)
    answer = shared_engine().answer("那如果用 INT8 呢?", history)

    args = call_args(answer, "plan_gpu_deployment")
    assert args == {
        "model": "Qwen2.5-72B-Instruct",
        "task": "inference",
        "precision": "int8",
        "context": 32768,
        "concurrency": 20,
    }
    assert answer.language == "zh" and ungrounded(answer, "那如果用 INT8 呢?", history) == []


def test_gpu_count_follow_up_in_english() -> None:
    history = conversation("Serve Llama-3.1-70B with 16k context for 10 concurrent users")
    answer = shared_engine().answer("what about 4 GPUs?", history)

    assert call_args(answer, "plan_gpu_deployment")["context"] == 16384
    assert call_args(answer, "estimate_gpu_memory")["gpus"] == 4
    assert answer.language == "en" and "**On 4 GPUs:**" in answer.text


def test_switching_gpu_sets_the_preference_and_keeps_the_workload() -> None:
    answer = shared_engine().answer("换成 L20", conversation(BASE))
    args = call_args(answer, "plan_gpu_deployment")
    assert args["gpu"] == "L20" and args["quant"] == "awq-int4" and args["concurrency"] == 20


def test_a_new_full_question_starts_a_new_topic_but_keeps_region_and_budget() -> None:
    history = conversation("Qwen2.5-72B AWQ 部署 20 并发 上海 预算每月 20 万")
    answer = shared_engine().answer("Llama-3.1-8B LoRA 微调需要什么实例", history)
    args = call_args(answer, "plan_gpu_deployment")
    assert args["model"] == "Llama-3.1-8B-Instruct" and args["task"] == "lora"
    assert args["region"] == "cn-shanghai" and args["budget_cny_month"] == 200000
    assert "concurrency" not in args and "quant" not in args


def test_a_short_follow_up_with_a_new_model_keeps_the_workload() -> None:
    answer = shared_engine().answer("那 Qwen2.5-32B 呢?", conversation(BASE))
    args = call_args(answer, "plan_gpu_deployment")
    assert args["model"] == "Qwen2.5-32B-Instruct" and args["concurrency"] == 20 and args["context"] == 32768


def test_an_unrelated_question_in_between_does_not_lose_the_workload() -> None:
    history = conversation(BASE, "gn7i 是什么")
    answer = shared_engine().answer("what about INT8?", history)
    assert call_args(answer, "plan_gpu_deployment")["model"] == "Qwen2.5-72B-Instruct"


def test_switching_from_serving_to_training_drops_serving_numbers() -> None:
    answer = shared_engine().answer("那全参微调呢?", conversation(BASE))
    args = call_args(answer, "plan_gpu_deployment")
    assert args["task"] == "full"
    assert not {"concurrency", "context", "quant", "precision"} & set(args)


def test_missing_task_asks_one_question_with_the_default() -> None:
    answer = shared_engine().answer("Qwen2.5-7B 需要多少显存")
    assert answer.kind == "clarification" and answer.tool_calls == []
    assert answer.text.count("？") == 1 and "推理部署" in answer.text and "如果不说明" in answer.text


def test_missing_method_asks_which_fine_tuning_method() -> None:
    answer = shared_engine().answer("Fine-tune Qwen3-32B on Alibaba Cloud")
    assert answer.kind == "clarification" and answer.language == "en"
    assert "full fine-tuning, LoRA or QLoRA" in answer.text and "I'll assume LoRA" in answer.text


def test_missing_model_asks_which_model() -> None:
    answer = shared_engine().answer("部署一个大模型要几张卡？20 并发")
    assert answer.kind == "clarification" and "哪个模型" in answer.text


def test_answering_the_clarification_continues_the_question() -> None:
    answer = shared_engine().answer("推理", conversation("Qwen2.5-7B 需要多少显存"))
    assert answer.kind == "estimate"
    assert call_args(answer, "estimate_gpu_memory")["model"] == "Qwen2.5-7B-Instruct"


def test_accepting_defaults_uses_them_and_says_so() -> None:
    answer = shared_engine().answer("随便", conversation("Qwen3-32B 微调需要什么配置"))
    assert call_args(answer, "plan_gpu_deployment")["task"] == "lora"
    assert "微调方式按 LoRA 计算" in answer.text


def test_the_same_question_is_never_asked_twice() -> None:
    history = conversation("72B 模型部署要几张卡")
    first = shared_engine().answer("72B 模型部署要几张卡")
    second = shared_engine().answer("嗯，要几张卡", history)
    assert first.kind == "clarification" and "Qwen2.5-72B-Instruct" in first.text
    assert second.kind == "recommendation"
    assert call_args(second, "plan_gpu_deployment")["model"] == "Qwen2.5-72B-Instruct"


def test_state_is_derived_from_history_only() -> None:
    history = conversation(BASE)
    first = read_conversation("那如果用 INT8 呢?", history)
    again = read_conversation("那如果用 INT8 呢?", history)
    alone = read_conversation("那如果用 INT8 呢?")
    assert first == again
    assert first.slots.model == "Qwen2.5-72B-Instruct" and alone.slots.model is None


def test_merge_keeps_earlier_values_the_turn_does_not_change() -> None:
    merged = merge(understand("Qwen2.5-7B 部署 上海 预算每月 1 万 20 并发"), understand("那 40 并发呢"))
    assert (merged.concurrency, merged.region, merged.budget_cny_month) == (40, "cn-shanghai", 10000)


def test_representative_model_prefers_exact_common_sizes() -> None:
    assert representative_model(72) == "Qwen2.5-72B-Instruct"
    assert representative_model(70) == "Llama-3.1-70B-Instruct"
    assert representative_model(7) == "Qwen2.5-7B-Instruct"
    assert representative_model(1000) == "Kimi-K2-Instruct"  # named without a size: its published total
    assert representative_model(5000) is None


def test_gpu_count_follow_up_leads_with_the_answer_for_that_count() -> None:
    history = conversation("Serve Llama-3.1-70B with 16k context for 10 concurrent users")
    answer = shared_engine().answer("what about 4 GPUs?", history)
    # The follow-up's answer comes right after the "Understood" line, before the recommendation.
    assert answer.text.index("**On 4 GPUs:**") < answer.text.index("**Recommended:**")
    assert ungrounded(answer, "what about 4 GPUs?", history) == []


def test_a_gpu_count_in_a_full_question_folds_after_the_plan() -> None:
    answer = shared_engine().answer("Serve Llama-3.1-70B with 16k context for 10 users on 4 GPUs")
    assert answer.text.startswith("**Recommended:**")
    assert any("**On 4 GPUs:**" in d.markdown for d in answer.details)


def test_training_follow_up_keeps_the_fine_tuning_method_and_adds_tokens() -> None:
    history = conversation("Qwen2.5-7B LoRA 微调, batch 4")
    answer = shared_engine().answer("训练 1 亿 tokens 要多久, 多少钱", history)

    args = call_args(answer, "plan_gpu_deployment")
    assert args["task"] == "lora" and args["train_tokens"] == 1e8 and args["batch"] == 4
    assert answer.kind == "recommendation" and "预计训练" in answer.text
    assert ungrounded(answer, "训练 1 亿 tokens 要多久, 多少钱", history) == []


def test_training_words_after_a_serving_question_still_ask_the_method() -> None:
    conv = read_conversation("那微调呢", conversation("Qwen2.5-7B 推理部署"))
    assert conv.slots.task is None and conv.missing == ["method"]
