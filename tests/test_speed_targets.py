"""Speed targets, longest context per user and requests per second: the tools and the wording that reaches them.

Each check states the domain's requirement (a target is a constraint honoured or refused with its figure;
memory shared by more users leaves each a shorter context; a request costs its prefill and its decode),
read from the typed results, never from a fixed answer text.
"""

from __future__ import annotations

import pytest
from engine_helpers import ask, first_line

from assistant.render import fig
from assistant.speed_words import read_speed_targets
from assistant.understanding import understand
from tools.capacity import concurrent_sequences, longest_context
from tools.errors import ToolInputError
from tools.plan import plan_deployment
from tools.serving_rate import max_request_rate
from tools.workload import Workload, parse_workload


def test_a_per_user_speed_target_turns_away_every_option_below_it() -> None:
    free = plan_deployment(Workload(model="Qwen2.5-14B-Instruct", concurrency=16))
    held = plan_deployment(Workload(model="Qwen2.5-14B-Instruct", concurrency=16, min_tokens_per_s_per_stream=28))
    assert any((o.decode_tokens_per_s_per_stream or 0) < 28 for o in free.options)
    assert held.options and all((o.decode_tokens_per_s_per_stream or 0) >= 28 for o in held.options)
    slow = [r.reason for r in held.rejected if r.reason.code == "reject.speed_per_stream"]
    assert slow and all(0 < note.values["reached"] < 28 for note in slow)


def test_a_speed_target_spreads_users_over_more_replicas_rather_than_refusing() -> None:
    # Llama-3.1-8B on one L20 is fast enough for a few users but not for 60 at once: two boxes are.
    held = plan_deployment(
        Workload(model="Llama-3.1-8B-Instruct", concurrency=60, gpu="L20", min_tokens_per_s_per_stream=24)
    )
    single = [o for o in held.options if o.gpu_count == 1]
    assert single and single[0].instances >= 2 and single[0].decode_tokens_per_s_per_stream >= 24


def test_time_to_first_token_target_rejects_slow_prefill_with_its_figure() -> None:
    held = plan_deployment(Workload(model="Qwen2.5-32B-Instruct", context=6000, gen_tokens=500, max_ttft_s=1.5))
    assert held.options and all((o.time_to_first_token_s or 99) <= 1.5 for o in held.options)
    late = [r.reason.values["reached"] for r in held.rejected if r.reason.code == "reject.ttft"]
    assert late and min(late) > 1.5


def test_a_total_throughput_target_is_met_by_the_options() -> None:
    held = plan_deployment(Workload(model="Qwen2.5-7B-Instruct", min_tokens_per_s_total=700))
    assert held.options and all((o.decode_tokens_per_s or 0) >= 700 for o in held.options)
    assert any(n.code == "plan.target_total" for n in held.assumptions)


def test_speed_targets_are_for_inference() -> None:
    with pytest.raises(ToolInputError):
        parse_workload({"model": "Qwen2.5-7B-Instruct", "task": "lora", "max_ttft_s": 1})


def test_more_users_leave_each_a_shorter_context_within_the_kv_budget() -> None:
    few = longest_context("Qwen2.5-14B-Instruct", 6, gpu="L20", gpus=2)
    many = longest_context("Qwen2.5-14B-Instruct", 24, gpu="L20", gpus=2)
    assert 0 < many.context < few.context <= few.model_max_context
    # The figure is the ceiling: that many users fit at it, and not at a length much longer.
    assert concurrent_sequences("Qwen2.5-14B-Instruct", many.context, gpu="L20", gpus=2).sequences >= 24
    assert concurrent_sequences("Qwen2.5-14B-Instruct", int(many.context * 1.1), gpu="L20", gpus=2).sequences < 24


def test_the_model_window_caps_the_context_when_memory_would_allow_more() -> None:
    roomy = longest_context("Qwen2.5-7B-Instruct", 1, gpu="H20", gpus=1)
    assert roomy.limited_by == "model" and roomy.context == roomy.model_max_context


def test_a_model_that_leaves_no_kv_room_gets_no_context() -> None:
    assert longest_context("Qwen2.5-32B-Instruct", 64, gpu="A10", gpus=2).context == 0


def test_requests_per_second_balance_prefill_and_decode() -> None:
    short = max_request_rate(
        Workload(model="Qwen2.5-7B-Instruct", instance_type="ecs.gn8is.2xlarge", context=600, gen_tokens=100)
    )
    long = max_request_rate(
        Workload(model="Qwen2.5-7B-Instruct", instance_type="ecs.gn8is.2xlarge", context=6000, gen_tokens=1000)
    )
    assert long.requests_per_s < short.requests_per_s
    per_request_s = short.output_tokens / short.decode_tokens_per_s + short.prompt_tokens / short.prefill_tokens_per_s
    assert short.requests_per_s == pytest.approx(1 / per_request_s, rel=0.01)


@pytest.mark.parametrize(
    ("text", "per_stream", "ttft", "total"),
    [
        ("every visitor should get 35 tok/s or more", 35, None, None),
        ("每个会话不低于 18 tokens/s", 18, None, None),
        ("time per output token must stay below 50 ms", 20, None, None),
        ("首包延迟 800ms 以内", None, 0.8, None),
        ("首响应 < 300ms", None, 0.3, None),
        ("output speed should be no less than 15 tokens per second", 15, None, None),
        ("TTFT no worse than 2 seconds", None, 2, None),
        ("overall 3k tokens/s for the nightly batch", None, None, 3000),
        ("整体吞吐每秒 800 个 token", None, None, 800),
    ],
)
def test_speed_words(text: str, per_stream: float | None, ttft: float | None, total: float | None) -> None:
    found = read_speed_targets(text)
    assert found is not None
    assert (found.per_stream, found.ttft_s, found.total) == (per_stream, ttft, total)


def test_a_speed_is_not_read_as_a_length_or_a_user_count() -> None:
    s = understand("Qwen2.5-7B, 12 users, each at least 45 tokens/s, which instance")
    assert s.concurrency == 12 and s.speed is not None and s.speed.per_stream == 45 and s.context is None


def test_a_target_nothing_reaches_is_said_as_speed_not_memory() -> None:
    plan = plan_deployment(Workload(model="Qwen2.5-72B-Instruct", concurrency=4, min_tokens_per_s_per_stream=500))
    assert not plan.options and [w.code for w in plan.warnings if "nothing" in w.code] == ["plan.nothing_fast_enough"]


def test_a_first_token_time_alone_makes_it_a_serving_question() -> None:
    s = understand("Qwen2.5-7B 首字要在 300 毫秒内出来")
    assert s.task == "inference" and s.speed is not None and s.speed.ttft_s == 0.3


def test_a_first_token_question_on_named_hardware_is_answered_with_the_prefill_time() -> None:
    answer = ask("两张 L20 跑 Qwen2.5-14B，每次输入 5000 token，第一个字多久能出来？")
    plan = next(c.result for c in answer.tool_calls if c.name == "plan_gpu_deployment")
    two = next(o for o in plan["options"] if o["total_gpus"] == 2)
    assert fig(two["time_to_first_token_s"]) in first_line(answer.text) and "秒" in first_line(answer.text)


def test_a_batch_job_takes_its_requests_over_the_full_load_rate() -> None:
    base = Workload(model="Qwen2.5-7B-Instruct", instance_type="ecs.gn8is.2xlarge", context=900, gen_tokens=150)
    rate = max_request_rate(base, requests=50_000)
    assert rate.job_hours == pytest.approx(50_000 / rate.requests_per_s / 3600, rel=0.01)


def test_a_whole_request_takes_its_first_token_then_its_output_at_the_stream_speed() -> None:
    plan = plan_deployment(Workload(model="Qwen2.5-14B-Instruct", gpu="L20", context=1800, gen_tokens=800))
    top = plan.options[0]
    expected = top.time_to_first_token_s + 799 / top.decode_tokens_per_s_per_stream
    assert top.request_latency_s == pytest.approx(expected, abs=0.2)


@pytest.mark.parametrize(
    ("question", "job", "full"),
    [
        ("翻译 3 万篇文章，每篇输入 800 token 输出 900 token，两张 A10 跑 Qwen2.5-7B 要多长时间？", 30_000, False),
        ("labeling 250k tweets, 120 tokens in and 20 out each, Qwen2.5-7B on one L20: how long?", 250_000, False),
        ("ecs.gn8is.2xlarge 跑 Qwen2.5-7B 打满的吞吐是多少？", None, True),
        ("what's the peak throughput of one A10 running Llama-3.1-8B?", None, True),
    ],
)
def test_batch_jobs_and_full_load_are_read(question: str, job: float | None, full: bool) -> None:
    s = understand(question)
    assert (s.job_requests, s.asks_full_load) == (job, full) and s.task == "inference"


@pytest.mark.parametrize(
    ("question", "target"),
    [("一张 L20 跑 Qwen2.5-14B，输入 3000 token，首 token 能在 1 秒内吗？", 1.0),
     ("Can one A10 answer Qwen2.5-7B prompts of 1,500 tokens with the first token inside 2 s?", 2.0)],
)  # fmt: skip
def test_a_first_token_yes_no_on_named_hardware_compares_its_time(question: str, target: float) -> None:
    answer = ask(question)
    plan = next(c.result for c in answer.tool_calls if c.name == "plan_gpu_deployment")
    one = [o["time_to_first_token_s"] for o in plan["options"] if o["total_gpus"] == 1]
    late = [r["reason"]["values"]["reached"] for r in plan["rejected"] if r["reason"]["code"] == "reject.ttft"]
    ttft = one[0] if one else min(late)
    said = "yes" if ttft <= target else "no"
    head = first_line(answer.text).lower()
    assert fig(ttft) in head and head.startswith(("**yes", "**能") if said == "yes" else ("**no", "**不能"))


@pytest.mark.parametrize(
    "question",
    [
        "what context window can I afford per user with 24 users on ecs.gn8is-4x.16xlarge running Qwen2.5-32B?",
        "每个用户能分到多少上下文？两张 L20，Qwen2.5-14B，30 个人同时用",
        "max tokens per conversation for 16 concurrent chats on 2 x L20 with Qwen2.5-14B?",
    ],
)
def test_longest_context_wording(question: str) -> None:
    assert understand(question).asks_longest_context


@pytest.mark.parametrize(
    "question",
    ["how many QPS does one L20 handle for Qwen2.5-7B?", "这台 gn7e 一秒钟能处理多少次调用？Qwen2.5-14B",
     "throughput in req/s for Qwen2.5-7B on 2 A10s?"],
)  # fmt: skip
def test_request_rate_wording(question: str) -> None:
    assert understand(question).asks_request_rate
