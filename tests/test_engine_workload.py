"""Issue-8 workload area through the offline engine: rates, capacity, cost, training volume, custom models.

Each case states what the domain requires (the user's figures reach the tool call, the hardware named is
what was evaluated, an unknown price is said once with the nearest known one), never the engine's text.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from engine_helpers import ask, call_args, conversation, first_line, shared_engine, ungrounded

from assistant.answer import Answer


def _first_line(answer: Answer) -> str:
    return first_line(answer.text)


def _teams(answer: Answer) -> None:
    plan = call_args(answer, "plan_gpu_deployment")
    assert (plan["concurrency"], plan["gpu"], plan["context"]) == (12 * 5, "L20", 8192)


def _hedged_qps(answer: Answer) -> None:
    assert call_args(answer, "plan_gpu_deployment")["qps"] == 10


def _online_peak(answer: Answer) -> None:
    plan = call_args(answer, "plan_gpu_deployment")
    assert (plan["concurrency"], plan["region"]) == (300, "cn-beijing")


def _two_instances(answer: Answer) -> None:
    cap = call_args(answer, "concurrent_users")
    assert (cap["instance_type"], cap["instances"], cap["context"]) == ("ecs.gn8is.2xlarge", 2, 32768)
    [result] = [c.result for c in answer.tool_calls if c.name == "concurrent_users"]
    assert result is not None and str(result["sequences"]) in _first_line(answer)


def _one_gpu(answer: Answer) -> None:
    fit = call_args(answer, "evaluate_hardware_fit")
    assert (fit["gpu"], fit["gpus"], fit["task"]) == ("A10", 1, "full")
    assert "LoRA" in answer.text


def _unknown_price(answer: Answer) -> None:
    near = [c for c in answer.tool_calls if c.name == "nearest_known_price"]
    assert near and near[0].result is not None
    quote = near[0].result["quote"]
    assert quote["as_of"] in answer.text and quote["region"] in answer.text
    assert answer.text.count("has no") == 1  # said once


def _samples_each(answer: Answer) -> None:
    run = call_args(answer, "training_run")
    assert (run["tokens"], run["gpus"], run["task"]) == (100_000 * 1_500 * 3, 8, "full")
    assert "hour" in _first_line(answer)


def _custom_defaults(answer: Answer) -> None:
    arch = call_args(answer, "plan_gpu_deployment")["architecture"]
    assert isinstance(arch, dict) and arch["num_attention_heads"] == 6144 // 128
    assert "attention heads 48" in answer.text  # the default is stated


def _custom_moe_top_k(answer: Answer) -> None:
    arch = call_args(answer, "plan_gpu_deployment")["architecture"]
    assert isinstance(arch, dict) and (arch["num_local_experts"], arch["num_experts_per_tok"]) == (128, 8)


def _part_time(answer: Answer) -> None:
    plan = call_args(answer, "plan_gpu_deployment")
    assert plan["billing"] == "pay-as-you-go" and 210 <= float(plan["hours_per_month"]) <= 225  # type: ignore[arg-type]
    assert "h/month" in _first_line(answer)


def _max_instances(answer: Answer) -> None:
    [plan] = [c.result for c in answer.tool_calls if c.name == "plan_gpu_deployment"]
    assert plan is not None and plan["options"]
    assert all(o["instances"] <= 3 for o in plan["options"])


def _daily_requests(answer: Answer) -> None:
    qps = call_args(answer, "plan_gpu_deployment")["qps"]
    assert qps == round(2_000_000 / 86_400 * 3, 1)  # the assumed peak factor is said in words
    assert "three times the daily average" in answer.text


def _user_share(answer: Answer) -> None:
    assert call_args(answer, "plan_gpu_deployment")["concurrency"] == 50


def _chinese_numeral_length(answer: Answer) -> None:
    plan = call_args(answer, "plan_gpu_deployment")
    assert plan["gen_tokens"] == 600 and plan["context"] == 1200 + 600  # 一千字 x 0.6, 2000 汉字 x 0.6


def _pretraining_scaled_out(answer: Answer) -> None:
    runs = [c.result for c in answer.tool_calls if c.name == "training_run" and c.result]
    assert len(runs) == 2 and runs[0]["days"] > 30 >= runs[1]["days"]  # the plan's GPUs, then enough for a month
    assert runs[1]["gpus"] > runs[0]["gpus"] and "Training time" in _first_line(answer)


def _how_many_of_a_type(answer: Answer) -> None:
    plan = call_args(answer, "plan_gpu_deployment")
    assert plan["instance_type"] == "ecs.gn8is-4x.16xlarge"
    [result] = [c.result for c in answer.tool_calls if c.name == "plan_gpu_deployment"]
    assert result is not None and {o["instance_type"] for o in result["options"]} == {"ecs.gn8is-4x.16xlarge"}
    assert f"{result['options'][0]['instances']} × `ecs.gn8is-4x.16xlarge`" in _first_line(answer)


def _subscription(answer: Answer) -> None:
    assert call_args(answer, "plan_gpu_deployment")["billing"] == "subscription"


CASES: list[tuple[str, str, Callable[[Answer], None]]] = [
    ("teams", "Twelve teams of 5 people use our Qwen2.5-14B assistant at the same time, 8k context, on L20", _teams),
    ("hedged-qps", "Qwen2.5-7B 客服机器人，峰值 QPS 大概 10，只能用 L20，怎么配？", _hedged_qps),
    ("online-peak", "注册用户1.5万，同时在线峰值约三百人，Qwen3-8B 推理，北京，选什么实例", _online_peak),
    (
        "two-instances",
        "How many concurrent 32k-token users can Qwen2.5-14B serve on two gn8is.2xlarge?",
        _two_instances,
    ),
    ("one-gpu", "I have one A10. Can I full fine-tune Qwen2.5-7B on it with 4k sequences?", _one_gpu),
    ("unknown-price", "How much does ecs.gn8is.4xlarge cost per month in Beijing?", _unknown_price),
    (
        "samples-each",
        "Full fine-tune Qwen2.5-7B on 100k samples of about 1,500 tokens each for 3 epochs. How long on 8 A100 80GB?",
        _samples_each,
    ),
    (
        "custom-defaults",
        "Our model has 48 layers and hidden size 6144. What GPUs to serve it to 8 users?",
        _custom_defaults,
    ),
    (
        "custom-moe",
        "我们的 MoE：48 层，隐藏维度 2048，32 个头，4 个 KV 头，128 个专家，"
        "每个 token 激活 8 个，专家中间层 768，8 并发",
        _custom_moe_top_k,
    ),
    (
        "part-time",
        "Qwen2.5-7B for 30 users, only 10 hours a day on weekdays, pay as you go: cost per month?",
        _part_time,
    ),
    ("max-instances", "Qwen2.5-14B，200 并发，8k 上下文，只能用 A10，最多3台机器，怎么配？", _max_instances),
    ("subscription", "Qwen2.5-14B，10 并发，包年包月的话一个月多少钱", _subscription),
    (
        "how-many-of-a-type",
        "how many ecs.gn8is-4x.16xlarge do I need for Qwen2.5-72B AWQ at 100 concurrent 8k requests?",
        _how_many_of_a_type,
    ),
    (
        "pretraining-scaled",
        "Pretrain Qwen2.5-7B from scratch on 2T tokens, which instances and how long?",
        _pretraining_scaled_out,
    ),
    (
        "daily-requests",
        "We get about 2 million requests a day to our Qwen2.5-7B endpoint, what instance?",
        _daily_requests,
    ),
    ("user-share", "500 employees use Qwen2.5-14B, about 10% active at any moment", _user_share),
    ("zh-numeral-length", "Qwen2.5-7B，提示词约 2000 个汉字，回答大约一千字，并发 10", _chinese_numeral_length),
]


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_workload_question(case: str, question: str, check: Callable[[Answer], None]) -> None:
    answer = shared_engine().answer(question)
    check(answer)
    assert ungrounded(answer, question) == []


FOLLOW_UPS: list[tuple[str, list[str], str, str, dict[str, object]]] = [
    # A capacity question stays one when the follow-up changes the length.
    ("capacity-length", ["How many 32k users can Qwen2.5-14B hold on 4 x A10?"], "and with 8k prompts instead?",
     "concurrent_users", {"gpu": "A10", "gpus": 4, "context": 8192}),
    # A billing mode alone after a plan re-prices the same workload.
    ("billing", ["Qwen2.5-14B，10 并发，8k 上下文，包月多少钱？"], "那按量呢",
     "plan_gpu_deployment", {"billing": "pay-as-you-go", "concurrency": 10, "context": 8192}),
    # A region without any domain word still changes the workload under discussion.
    ("region", ["Qwen2.5-7B for 10 users, which instance?"], "how much would that be in Shenzhen?",
     "plan_gpu_deployment", {"region": "cn-shenzhen", "concurrency": 10}),
    ("instances", ["Will Qwen2.5-14B fit on two gn8is.2xlarge with 8k context for 16 users?"], "and 64 users?",
     "evaluate_hardware_fit", {"instance_type": "ecs.gn8is.2xlarge", "instances": 2, "concurrency": 64}),
    # Relative changes scale the figure under discussion.
    ("double", ["Serve Qwen2.5-14B to 20 users with 8k context"], "what if we double the users?",
     "plan_gpu_deployment", {"concurrency": 40, "context": 8192}),
    ("halve", ["Qwen2.5-14B 20 并发 8k 上下文"], "上下文减半呢",
     "plan_gpu_deployment", {"context": 4096, "concurrency": 20}),
    ("epochs", ["LoRA Qwen2.5-7B on 100M tokens with 4 A100 80GB"], "and 3 epochs?",
     "plan_gpu_deployment", {"train_tokens": 300_000_000.0, "task": "lora"}),
]  # fmt: skip


@pytest.mark.parametrize(("case", "history", "question", "tool", "want"), FOLLOW_UPS, ids=[f[0] for f in FOLLOW_UPS])
def test_follow_up_changes_one_thing(
    case: str, history: list[str], question: str, tool: str, want: dict[str, object]
) -> None:
    turns = conversation(*history)
    answer = shared_engine().answer(question, turns)
    args = call_args(answer, tool)
    assert {k: args.get(k) for k in want} == want
    assert ungrounded(answer, question, turns) == []


def test_how_long_on_named_hardware_that_cannot_hold_the_run_answers_no_first() -> None:
    # "行不行，要多久": two L20s cannot hold full fine-tuning of a 7B, so "no" leads and the time follows it.
    answer = ask("手上有 2 张 L20，想全参微调 Qwen2.5-7B，数据 5 万条、每条 1k token、跑 2 轮，行不行，要多久？")
    fit = call_args(answer, "evaluate_hardware_fit")
    assert (fit["gpu"], fit["gpus"]) == ("L20", 2)
    assert first_line(answer.text).startswith("**放不下")
    assert answer.text.index("放不下") < answer.text.index("训练时间")
