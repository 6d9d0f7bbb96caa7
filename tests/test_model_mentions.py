"""Model names read from a question: a distilled model is never read as the model it was distilled from."""

from __future__ import annotations

import pytest

from assistant.model_mentions import find_model
from assistant.reading import Scan


@pytest.mark.parametrize(
    ("question", "model"),
    [
        ("what's the cheapest way to run deepseek-r1 distill 32b for 5 users", "DeepSeek-R1-Distill-Qwen-32B"),
        ("r1-distill 70b on H20?", "DeepSeek-R1-Distill-Llama-70B"),
        ("DeepSeek R1 蒸馏版 32B 要几张卡", "DeepSeek-R1-Distill-Qwen-32B"),
        ("deepseek-r1蒸馏14b 能跑在 A10 上吗", "DeepSeek-R1-Distill-Qwen-14B"),
        ("deepseek r1 671b 满血版", "DeepSeek-R1"),
    ],
)
def test_distilled_models_resolve_by_size(question: str, model: str) -> None:
    assert find_model(Scan(question)).name == model


@pytest.mark.parametrize("question", ["部署 deepseek-r1 蒸馏模型要什么卡", "serve the deepseek-r1-distill on A10"])
def test_distill_without_size_is_not_read_as_r1(question: str) -> None:
    # Six distilled sizes exist (1.5B to 70B): the answer must ask, not size the 671B R1.
    found = find_model(Scan(question))
    assert found.name is None and found.error and "DeepSeek-R1-Distill" in found.error
