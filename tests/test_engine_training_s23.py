"""Training questions in the users' words, and what is out of reach beside them (issue 8, round i8train7).

Expectations come from the domain: the cheapest way to fine-tune a 7B model is LoRA on one 24 GB-class card, so a
question asking for the cheapest way is answered with that method (said as an assumption), not asked which method;
a question that only says "fine-tune" still asks once. Full fine-tuning holds ~16 bytes a parameter (weights,
fp32 grads, master weights and two Adam moments), LoRA only the frozen bf16 weights and the adapters, so "full vs
LoRA: how much memory each?" gets both totals, full far above LoRA. The prices are CNY list prices and no exchange
rate is shipped, so a figure asked in USD says the amounts stay in CNY. Another cloud's prices are unknown, but
the Alibaba instances named beside them are priced. Setting up Kubernetes (ACK) or RDMA is operations work.
"""

from __future__ import annotations

import re

import pytest
from engine_helpers import ask, call_args, first_line

from assistant.ops_words import ops_subject
from assistant.reach_reading import out_of_reach
from assistant.render import fig


@pytest.mark.parametrize(
    ("question", "tokens"),
    [
        ("What's the cheapest way to fine-tune mistral 7b on ~50k short chats (say 500 tokens each)?", 25e6),
        ("我们有 2000 万 token 的客服语料，想微调一个 Qwen2.5-7B，最便宜怎么弄？", 20e6),
    ],
)
def test_the_cheapest_way_to_fine_tune_assumes_lora_and_says_so(question: str, tokens: float) -> None:
    answer = ask(question)
    assert answer.kind != "clarification"
    run = call_args(answer, "training_run")
    assert run["task"] == "lora" and run["tokens"] == pytest.approx(tokens)
    assert re.search(r"LoRA", answer.text)
    assert re.search(r"taken as LoRA|按 LoRA 计算", answer.text)  # the assumption is said, not hidden
    assert "¥" in first_line(answer.text)


def test_fine_tuning_without_a_method_or_a_cost_question_still_asks_the_method_once() -> None:
    answer = ask("How long to fine-tune Qwen2.5-7B on 20M tokens with one A100?")
    assert answer.kind == "clarification"
    assert "LoRA" in answer.text


@pytest.mark.parametrize(
    ("question", "methods"),
    [
        ("full fine tune vs lora for a 7b model - how much gpu memory does each need?", ("full", "lora")),
        ("Qwen2.5-14B 全参微调和 QLoRA 分别要多少显存？", ("full", "qlora")),
    ],
)
def test_memory_of_each_training_method_named(question: str, methods: tuple[str, str]) -> None:
    answer = ask(question)
    estimates = [c for c in answer.tool_calls if c.name == "estimate_gpu_memory"]
    assert [c.args["task"] for c in estimates] == list(methods)
    full, adapter = (c.result["per_gpu_total_gib"] for c in estimates)
    assert full > 4 * adapter  # 16 B/param against ~2 (LoRA) or ~0.6 (QLoRA)
    line = first_line(answer.text)
    assert fig(full) in line and fig(adapter) in line  # each method's total answers on the first line


def test_a_cost_asked_in_usd_says_the_amounts_stay_in_cny() -> None:
    answer = ask("rough budget in USD to LoRA tune llama 3 70b on 200M tokens?")
    assert call_args(answer, "training_run")["task"] == "lora"
    assert "¥" in answer.text and "USD" in answer.text
    assert not re.search(r"\$\s*\d", answer.text)  # never converted with a made-up rate


def test_a_budget_in_dollars_is_still_asked_in_cny() -> None:
    answer = ask("We have $2000/month, which instance for Qwen2.5-14B serving 20 users?")
    assert answer.kind == "clarification" and "CNY" in answer.text


def test_another_clouds_box_beside_an_alibaba_family_prices_the_alibaba_side() -> None:
    answer = ask("for training, how does an AWS p4d compare on price with alibaba's 8x A100 gn7e box?")
    assert re.search(r"can't|cannot", first_line(answer.text), re.IGNORECASE)
    assert "gn7e" in answer.text and "¥" in answer.text
    assert any(c.name == "price_of_instance" for c in answer.tool_calls)


def test_another_cloud_alone_is_still_out_of_reach() -> None:
    answer = ask("Is an AWS p4d cheaper than RunPod for training?")
    assert answer.kind == "out_of_scope"
    assert not any(c.name.startswith("price") for c in answer.tool_calls)


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("在 ACK 上用 Volcano 调度多机分布式训练，节点池和 RDMA 网络怎么配？", "kubernetes"),
        ("k8s 集群里的 GPU 节点要怎么配置？", "kubernetes"),
        ("多机训练的 RDMA 网络怎么配？", "rdma_setup"),
    ],
)
def test_cluster_and_network_setup_in_chinese_is_operations_work(question: str, subject: str) -> None:
    assert ops_subject(question) == subject
    found = out_of_reach(question)
    assert found is not None and found.subject == subject
    answer = ask(question)
    assert re.search("无法|不在", first_line(answer.text))
