"""English as people type it (issue 8, area i8cmp4): abbreviations and colloquial words read into the same slots.

Each case states the figure the user meant (a dozen folks are 12 users; "1k in / 256 out" is a 1,000-token
prompt and a 256-token answer; a speed target is no context length; "q4" is 4-bit, "in Q4" a quarter; a
"4090-class" card is a class, not the one GPU to plan on), read through the real understanding.
"""

from __future__ import annotations

from typing import Any

import pytest

from assistant.understanding import understand

CASES: list[tuple[str, dict[str, Any]]] = [
    ("qwen2.5-7b for a dozen folks", {"concurrency": 12}),
    ("a single L20 for Qwen2.5-32B for a handful of users - am I right?", {"concurrency": 5, "gpus": 1}),
    ("Qwen2.5-7B chatbot, a few dozen users, ~8k CNY/month", {"concurrency": 36, "budget_cny_month": 8000.0}),
    ("qwen2.5-7b for a couple dozen people", {"concurrency": 24}),
    ("Half a dozen folks want to poke at Qwen2.5-72B int4", {"concurrency": 6}),  # not "half" + a dozen (12)
    ("host qwen2.5 7b for maybe two dozen users at a time", {"concurrency": 24}),
    ("Qwen2.5-14B for three dozen people", {"concurrency": 36}),
    ("T4 or A10 for qwen2.5-1.5b serving me and 2 friends?", {"concurrency": 3}),  # the asker counts too
    ("qwen2.5-7b just for me and three colleagues", {"concurrency": 4}),
    ("我和另外两个同学用 Qwen2.5-7B", {"concurrency": 3}),
    ("Qwen2.5-32B AWQ 给 50 人用，一年要多少钱？", {"concurrency": 50}),  # no measure word before 人
    ("供三十人使用的 Qwen2.5-7B", {"concurrency": 30}),
    ("实验室预算每月两万，想给 40 个学生提供 Qwen2.5-14B，够吗？", {"concurrency": 40, "task": "inference"}),
    ("and if we bought a subscription instead, what's the monthly?", {"asks_cost": True, "billing": "subscription"}),
    ("for a 20 user RAG chatbot on qwen2.5-14b awq, A10 or T4?", {"concurrency": 20}),
    ("train a two-tower model on 1B user events a day", {"concurrency": None}),  # a data volume, not users
    ("qwen2.5-7b, prompts ~1k tokens, answers ~300. cheapest instance?", {"prompt_tokens": 1000, "gen_tokens": 300}),
    ("Qwen2.5-7B，平均每次输入 500 token 输出 200，选什么机器", {"prompt_tokens": 500, "gen_tokens": 200}),
    ("how many people can chat at once with Qwen2.5-14B on a pair of A10s?", {"gpus": 2, "gpu": "A10"}),
    ("if I rent 2 gn7i-2x.8xlarge boxes for qwen2.5-14b, how many 8k sessions total?", {"asks_capacity": True}),
    ("Qwen2.5-14B: what does one million tokens cost on an A10?", {"asks_token_cost": True}),
    ("Qwen2.5-14B 在 A10 上，一百万 token 要多少钱？", {"asks_token_cost": True}),
    ("which GPU gives the most tokens per second per yuan for qwen2.5-7b at 32 users?", {"asks_token_cost": True}),
    ("How much VRAM headroom for Qwen2.5-7B on an L20 vs an A10 with 16 users?", {"intent": "plan"}),  # compared
    ("qwen2.5-7b, 1k in / 256 out, 8 users", {"prompt_tokens": 1000, "gen_tokens": 256, "context": 1256}),
    ("qwen2.5-7b, 3k prompt + 500 completion", {"prompt_tokens": 3000, "gen_tokens": 500, "context": 3500}),
    ("qwen2.5-7b, 2k input, 512 output tokens", {"prompt_tokens": 2000, "gen_tokens": 512}),
    ("qwen2.5-7b, fifteen hundred users a day", {"concurrency": 150}),  # daily users at the stated 10% peak
    ("need ~50 tok/s per user for llama 3.1 8b, a dozen users", {"context": None, "concurrency": 12}),
    ("qwen2.5-7b, 20 users, at least 20 tokens per second per user", {"context": None, "concurrency": 20}),
    ("and if we go q4 instead?", {"precision": "int4"}),
    ("llama-3.1-8b Q4_K_M on one card", {"precision": "int4"}),
    ("qwen2.5-7b q8", {"precision": "int8"}),
    ("we launch in Q4, qwen2.5-7b for 8 users", {"precision": None}),
    ("something 4090-class for qwen2.5-7b, a couple of users", {"gpu": None, "gpu_mentions": [], "concurrency": 2}),
    ("a 4090 for qwen2.5-7b", {"gpu": "RTX-4090"}),
]


@pytest.mark.parametrize(("question", "expected"), CASES, ids=[c[0] for c in CASES])
def test_english_wording_reads_the_meant_figure(question: str, expected: dict[str, Any]) -> None:
    slots = understand(question)
    assert {k: getattr(slots, k) for k in expected} == expected
