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
from assistant.question_form import deadline_hours
from assistant.reach_reading import out_of_reach
from assistant.render import fig
from assistant.understanding import understand


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


def test_a_count_of_examples_is_no_sequence_length() -> None:
    slots = understand("full SFT on llama 3.1 8b, 200k examples x 1k tok, 2 epochs")
    assert slots.context is None  # "200k examples" is the data set's size
    assert slots.train_tokens == pytest.approx(4e8) and slots.task == "full"  # "full SFT" names the method
    assert understand("qwen 7b with 32k, 20 users").context == 32768


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("need it done in ~half a day", 12.0),
        ("半天之内训完", 12.0),
        ("in about 3 days", 72.0),
        ("within a week", 168.0),
    ],
)
def test_deadlines_in_loose_words(text: str, hours: float) -> None:
    assert deadline_hours(text) == hours


def test_how_many_gpus_to_finish_within_a_deadline_leads_with_the_count() -> None:
    answer = ask("how many A100s would I need to pretrain a 7B model on 1T tokens within 30 days?")
    line = first_line(answer.text)
    assert line.startswith("**To finish within 30 days:**")
    runs = [c for c in answer.tool_calls if c.name == "training_run"]
    fast = max(runs, key=lambda c: c.args["gpus"])
    assert fast.result["hours"] <= 30 * 24  # the count said meets the deadline, by the tool's own figure
    assert f"{fast.args['gpus']} x A100" in line


def test_a_training_cost_on_a_gpu_without_a_list_price_says_so_and_costs_the_nearest_priced_set() -> None:
    answer = ask("30 万条数据，每条 1200 token，LoRA 训 2 轮，Qwen2.5-32B，4 卡 H20 要训多久，按量多少钱？")
    assert "没有目录价" in first_line(answer.text)
    near = call_args(answer, "nearest_known_price")
    assert near["instance_type"].startswith("ecs.gn8v")
    costed = [c for c in answer.tool_calls if c.name == "training_run" and c.result.get("cost_cny")]
    assert costed and costed[0].args["gpus"] == 4
    assert "¥" in answer.text


def test_another_clouds_monthly_cost_says_first_that_it_is_unknown() -> None:
    answer = ask("用 Azure 的 NC A100 v4 跑 Qwen2.5-72B 推理一个月多少钱？")
    assert "无法" in first_line(answer.text)
    assert call_args(answer, "plan_gpu_deployment")["model"] == "Qwen2.5-72B-Instruct"


def test_how_many_of_a_gpu_no_type_carries_says_that_count_then_the_offered_gpus() -> None:
    answer = ask("gonna do full SFT on llama 3.1 8b, 200k examples x 1k tok, 2 epochs, need it done in ~half a day. "
                 "how many H800s?")  # fmt: skip
    line = first_line(answer.text)
    h800 = [c for c in answer.tool_calls if c.name == "training_run" and c.args["gpu"] == "H800"]
    assert h800 and h800[-1].result["hours"] <= 12
    assert f"{h800[-1].args['gpus']} x H800" in line and "no Alibaba Cloud instance type" in line
    assert "A100" in answer.text  # the GPUs that are rented follow, with a count that meets the deadline too
