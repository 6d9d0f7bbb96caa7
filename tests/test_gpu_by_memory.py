"""A GPU named only by its memory is the hardware: "显存 24G 能不能微调", "I have a 24GB card".

Found asking as a new user: "显存 24G 能不能微调 Qwen2.5-7B？全参的" answered "yes, on 2 x A100-80GB": the stated
memory was dropped. Domain: ECS 24 GB cards are the A10 (gn7i) and A30; 16 GB the T4/V100-16GB; 48 GB the L20.
"""

from __future__ import annotations

import httpx
import pytest
from engine_helpers import ask_api, ask_cli, first_line

from assistant.intents.verdict_words import memory_claim
from assistant.memory_words import card_size, gpu_with_memory
from assistant.understanding import understand
from tools import catalog


@pytest.mark.parametrize(
    ("question", "size"),
    [
        ("显存 24G 能不能微调 Qwen2.5-7B？全参的", 24),
        ("学生党，只有 24G 显存的卡，想跑 14B，阿里云上最便宜租哪个？", 24),
        ("I only have a 24GB card, which instance is cheapest to fine-tune llama 3.1 8b with LoRA?", 24),
        ("plan Qwen2.5-32B on 48G cards for 20 users", 48),
    ],
)
def test_the_memory_of_the_users_card(question: str, size: int) -> None:
    assert card_size(question) == size
    s = understand(question)
    assert s.gpu_memory_gb == size and s.gpus == 1
    assert s.gpu is not None and catalog.get_gpu(s.gpu).memory_gib == size


@pytest.mark.parametrize(
    ("question", "size"),
    [
        ("24G显存能跑 14B 吗", 24),  # no space between the size and the word
        ("显存24G够不够微调 7B", 24),
        ("Is 16GB enough for Qwen2.5-7B?", 16),
        ("will Qwen2.5-7B fit in a 16GB GPU?", 16),
        ("7B 模型要 14G 显存，那 16G 的卡就够了吧？", 16),  # the need is the answer's, the card is the 16G one
        ("Qwen2.5-7B 需要 28G 显存吗", None),
        ("needs 40GB of VRAM, right?", None),
        ("1.5G card", None),
    ],
)
def test_one_reader_for_a_card_named_by_its_memory(question: str, size: int | None) -> None:
    # the understanding and the card verdict read the same size from the same words
    assert card_size(question) == size


@pytest.mark.parametrize(
    "question", ["Qwen2.5-7B 需要 28G 显存吗", "A100 80G 跑 72B", "how much VRAM does Qwen2.5-7B need?"]
)
def test_a_need_or_a_named_gpu_is_not_a_card_by_memory(question: str) -> None:
    assert understand(question).gpu_memory_gb is None


@pytest.mark.parametrize(
    "question", ["I have a 24GB card, can I run qwen2.5-14b?", "7B 模型要 14G 显存，那 16G 的卡就够了吧？"]
)
def test_a_yes_no_on_serving_keeps_the_card_verdict_from_the_estimate(question: str) -> None:
    # the card verdict of intents.verdicts answers these against any card of that size, with the breakdown
    s = understand(question)
    assert s.gpu_memory_gb is None and not s.gpu_mentions


def test_the_card_of_a_size_is_an_ecs_gpu_of_exactly_that_size() -> None:
    for size in (16, 24, 48, 80, 96):
        name = gpu_with_memory(size)
        assert name is not None and catalog.get_gpu(name).memory_gib == size
        assert catalog.list_instances(gpu=name)  # rentable on ECS
    assert gpu_with_memory(13) is None


def test_cli_full_fine_tuning_on_a_24g_card_is_no(cli_env: dict[str, str]) -> None:
    body = ask_cli(cli_env, "显存 24G 能不能微调 Qwen2.5-7B？全参的")
    [fit] = [c for c in body["tool_calls"] if c["name"] == "evaluate_hardware_fit"]
    assert fit["args"]["gpus"] == 1 and fit["args"]["task"] == "full" and fit["result"]["fits"] is False
    assert first_line(body["text"]).startswith("**放不下")
    assert any("24 GB" in w and fit["args"]["gpu"] in w for w in body["warnings"])  # says which card it took


def test_api_english_card_by_memory(client: httpx.Client) -> None:
    body = ask_api(client, "Can I do full fine-tuning of Llama-3.1-8B on my 24GB card?")
    [fit] = [c for c in body["tool_calls"] if c["name"] == "evaluate_hardware_fit"]
    assert catalog.get_gpu(fit["args"]["gpu"]).memory_gib == 24 and fit["args"]["gpus"] == 1
    assert fit["args"]["task"] == "full" and first_line(body["text"]).startswith("**No")


@pytest.mark.parametrize(
    ("question", "claim"), [("Qwen2.5-7B 需要 28G 显存吗", 28.0), ("跑 14B 要 40G 显存吗？", 40.0)]
)
def test_a_need_asked_about_is_a_claim_to_check_not_a_card(question: str, claim: float) -> None:
    # "does 7B need 28G?" is checked against the estimate (as "does 7B need 16GB?" is), not read as a 28G card
    assert card_size(question) is None and memory_claim(question) == claim
