"""Ordinary questions that only look like instructions are not treated as injection.

Users describe their own systems ("our RAG assistant: ...", "system: 8 x A10"), ask to cut costs ("can we
halve the cost with spot?"), or quote settings; flagging them drops their words and answers with a refusal.
"""

from __future__ import annotations

import pytest

from assistant.injection import more_instructions, split_planted

BENIGN = [
    "We're building an internal RAG assistant: bge-m3 embeddings, Qwen2.5-32B answers, 50 users. What instances?",
    "Our current system: 4 x A10 running Qwen2.5-14B. Can it take 30 concurrent users?",
    "我们的客服助手：Qwen2.5-7B，20 并发，8k 上下文，用什么卡？",
    "现有系统：2 台 gn7i，想加到 64 并发，还够吗？",
    "Can we halve the cost with spot instances for batch inference of Qwen2.5-72B?",
    "If we double the users to 200, how many more GPUs do we need?",
    "Please don't include the A100 options, we only want L20 or H20.",
    "价格能打几折？包年比按量便宜多少？",
    "用抢占式实例，价格能减半吗？Qwen2.5-7B 批量推理",
    "AI assistant for lawyers: Llama-3.1-70B, 16k context, 10 users. Which instance?",
]


@pytest.mark.parametrize("question", BENIGN)
def test_benign_questions_are_not_injection(question: str) -> None:
    kept, dropped = split_planted(question)
    assert not dropped and kept == question
    assert not more_instructions(question)
