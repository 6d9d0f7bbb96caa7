"""How a comparison's sides are read: settings beside each model, and a follow-up that adds a side."""

from __future__ import annotations

from assistant.intents.compare_followup import sides_added
from assistant.intents.compare_sides import model_settings
from assistant.understanding import understand


def test_each_model_keeps_the_precision_written_beside_it() -> None:
    models = ["Qwen2.5-32B-Instruct", "Qwen2.5-14B-Instruct"]
    got = model_settings("一张 L20 上，Qwen2.5-32B AWQ 和 Qwen2.5-14B BF16 哪个能扛更多并发？", models)
    assert got == {
        "Qwen2.5-32B-Instruct": {"precision": "int4", "quant": "awq-int4"},
        "Qwen2.5-14B-Instruct": {"precision": "bf16", "quant": "none"},
    }


def test_a_setting_on_one_side_only_stays_the_questions() -> None:
    # "int4" at the end may mean both models: nothing is split per side
    models = ["Qwen2.5-14B-Instruct", "Llama-3.1-8B-Instruct"]
    assert model_settings("Qwen2.5-14B or Llama-3.1-8B on one A10 int4", models) == {}


def test_a_follow_up_adds_a_gpu_to_the_earlier_pair() -> None:
    question = "what about L20 as a third option?"
    added = sides_added(question, "Compare H20 and A100 80GB for Llama-3.1-70B AWQ.", understand(question))
    assert added == {"gpu_mentions": ["H20", "A100-80GB", "L20"]}


def test_a_follow_up_adds_a_family_in_chinese() -> None:
    added = sides_added(
        "再加一个 gn6i 呢？", "Qwen2.5-7B 推理 20 并发，gn7i 和 gn8is 比一下", understand("再加一个 gn6i 呢？")
    )
    assert added == {"families": ["gn7i", "gn8is", "gn6i"]}


def test_a_follow_up_without_an_adding_word_replaces_the_side() -> None:
    question = "what about on L20?"
    assert sides_added(question, "Qwen2.5-14B, A10 or H20?", understand(question)) is None


def test_a_side_already_compared_is_not_added_twice() -> None:
    question = "add the A100-80GB too"
    added = sides_added(question, "A10 vs A100 for Qwen2.5-14B", understand(question))
    assert added == {"gpu_mentions": ["A10", "A100"]}  # "A100" already stands for the A100-80GB


def test_one_user_said_without_a_number() -> None:
    assert understand("gn6i vs gn7i for qwen2.5 3b, just me using it").concurrency == 1
    assert understand("就我一个人用，Qwen2.5-7B 用什么卡").concurrency == 1
    assert understand("Qwen2.5-7B, 5 users, not just me").concurrency == 5  # a number stated wins


def test_throw_it_in_too_adds_a_side() -> None:
    question = "can you throw H20 in there too?"
    added = sides_added(question, "A10 vs L20 for Qwen2.5-7B, 12 users, 8k context", understand(question))
    assert added == {"gpu_mentions": ["A10", "L20", "H20"]}


def test_tokens_each_is_a_length_per_request_not_a_training_volume() -> None:
    chat = understand("Llama-3.1-8B-Instruct chatbot, 25 people chatting at once, 4k tokens each")
    assert (chat.context, chat.train_tokens) == (4096, None)
    assert understand("Qwen2.5-7B full fine-tune on 500M tokens each epoch").train_tokens == 500_000_000
