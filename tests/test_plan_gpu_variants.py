"""A GPU named by its family ("A100") covers every variant the catalog has when nothing fits.

Found asking as a new user: "How many A100s to fine-tune DeepSeek-V3 with LoRA?" answered "No available instance
type in the catalog has the A100", while gn7e/gn7 A100 types exist and were rejected for memory.
"""

from __future__ import annotations

import httpx
from engine_helpers import ask_api, first_line


def test_a_family_name_with_no_fit_says_none_fits_not_none_exists(client: httpx.Client) -> None:
    body = ask_api(client, "How many A100s to fine-tune DeepSeek-V3 with LoRA?")
    plan = next(c for c in body["tool_calls"] if c["name"] == "plan_gpu_deployment")
    rejected = {r["gpu_model"] for r in plan["result"]["rejected"]}
    assert rejected & {"A100-80GB", "A100-40GB"}  # the catalog has A100 types; memory turned them away
    assert "has the A100" not in body["text"] and "A100" in first_line(body["text"])
    assert "¥n/a" not in body["text"]  # an unpriced alternative says so in words
