"""Fresh wording read into slots: lengths are not rates, big clusters are counted, billing and sequence words."""

from __future__ import annotations

import pytest

from assistant.understanding import understand


@pytest.mark.parametrize(
    ("question", "qps"),
    [
        ("we need 20 QPS of 128-token queries against Qwen2.5-7B", 20),
        ("QPS of 30 with 2k-token prompts for Qwen2.5-7B", 30),
        ("QPS 大概 10，Qwen2.5-7B", 10),
        ("Qwen2.5-7B, 12 queries per second", 12),
    ],
)
def test_a_number_before_token_is_a_length_not_a_rate(question: str, qps: float) -> None:
    assert understand(question).qps == qps


def test_qps_of_a_token_length_alone_is_no_rate() -> None:
    assert understand("QPS of 128-token queries on Qwen2.5-7B").qps is None


@pytest.mark.parametrize(
    ("question", "gpus"),
    [
        ("我们有 1024 张 H800，预训练 Llama-3.1-70B", 1024),
        ("2048 H800 GPUs to pretrain Llama-3.1-70B", 2048),
        ("we have 16 A100 cards, Qwen2.5-72B full fine-tune", 16),
    ],
)
def test_gpu_counts_above_512_are_read(question: str, gpus: int) -> None:
    assert understand(question).gpus == gpus


@pytest.mark.parametrize(
    ("question", "billing"),
    [
        ("Qwen2.5-14B 按包月算一个月大概多少钱？10 路并发", "subscription"),
        ("LoRA fine-tune Qwen2.5-7B on spot instances", "spot"),
        ("Qwen2.5-14B 10 并发", None),
    ],
)
def test_the_billing_mode_named_is_read(question: str, billing: str | None) -> None:
    assert understand(question).billing == billing


@pytest.mark.parametrize(
    "question",
    [
        "memory need of Qwen2.5-7B for a LoRA fine-tune, seq length 4096, batch 4?",
        "what's the VRAM requirement for Qwen2.5-14B inference",
        "Qwen2.5-7B 推理需要多大显存",
    ],
)
def test_memory_wording_is_a_memory_question(question: str) -> None:
    assert understand(question).intent == "memory"


def test_a_sentence_ending_dot_is_not_part_of_the_model_name() -> None:
    slots = understand("We need to serve Llama-3.1-8B.")
    assert (slots.model, slots.model_error) == ("Llama-3.1-8B-Instruct", None)


def test_xulie_alone_is_a_sequence_length() -> None:
    assert understand("手上 4 张 L20，全参微调 Qwen2.5-7B 够不够？序列 4096").context == 4096


@pytest.mark.parametrize(
    ("question", "users"),
    [
        ("Is an A100 40GB overkill for serving Qwen2.5-7B to maybe 5 internal users?", 5),
        ("can we host Qwen2.5-32B for a small team of 10?", 10),
        ("a 12-person team using Qwen2.5-7B", 12),
    ],
)
def test_people_served_are_the_concurrency(question: str, users: int) -> None:
    assert understand(question).concurrency == users


def test_a_team_of_gpus_is_no_concurrency() -> None:
    assert understand("Qwen2.5-72B on a team of 4 GPUs").concurrency is None


def test_overkill_and_can_we_host_ask_for_a_verdict() -> None:
    assert understand("Is an A100 40GB overkill for Qwen2.5-7B?").asks_verdict
    assert understand("can we host Qwen2.5-32B on one L20?").asks_verdict


def test_sessions_counted_on_named_hardware_ask_for_capacity() -> None:
    slots = understand("8 x H20: how many 64k-context sessions of DeepSeek-R1-Distill-Llama-70B can it hold?")
    assert slots.asks_capacity and slots.context == 65536


@pytest.mark.parametrize(
    "question",
    [
        "一台 ecs.gn7i-c32g1.32xlarge 能同时服务多少个 8k 的会话？模型 Qwen2.5-14B",
        "4 张 L20 部署 Qwen2.5-32B，最多能容纳多少个 16k 的用户？",
    ],
)
def test_chinese_serving_counts_ask_for_capacity(question: str) -> None:
    assert understand(question).asks_capacity


def test_cost_per_million_output_tokens_is_a_token_cost() -> None:
    assert understand("what does it cost per 1M output tokens to self-host Qwen2.5-72B AWQ?").asks_token_cost
