"""An LLM and a media model on one GPU: the card must hold both peaks, and vLLM's share must leave room.

Found asking as a new user: "I want to run SDXL and Qwen2.5-7B on the same A10, does that fit?" answered "Yes, it
fits" from SDXL alone. Domain: two processes each hold their own memory; vLLM pre-allocates
gpu_memory_utilization (0.9 by default) of the card, so sharing needs a lower value.
"""

from __future__ import annotations

import httpx
import pytest
from engine_helpers import ask_api, ask_cli, first_line

from tools.colocation import evaluate_colocation, evaluate_models_on_one_gpu
from tools.errors import ToolInputError
from tools.hardware_fit import memory_request
from tools.media_memory import estimate_media_memory
from tools.memory import estimate_memory


def test_the_card_holds_the_sum_of_both_estimates() -> None:
    both = evaluate_colocation("Qwen2.5-7B-Instruct", "SDXL", "A10")
    llm = estimate_memory({"model": "Qwen2.5-7B-Instruct", "framework": "vllm", "prompt_tokens": 3584,
                           "gen_tokens": 512})  # fmt: skip
    media = estimate_media_memory({"model": "SDXL"})
    assert both.llm_gib == round(llm.per_gpu_total_gib, 2) and both.media_gib == round(media.total_gib, 2)
    assert both.needed_gib == pytest.approx(both.llm_gib + both.media_gib, abs=0.02)
    assert both.fits is (both.needed_gib <= both.usable_gib) and both.vllm_gpu_memory_utilization is None


def test_a_fit_leaves_the_media_model_its_room_under_vllms_share() -> None:
    both = evaluate_colocation("Qwen2.5-14B-Instruct", "whisper-large-v3", "L20")
    assert both.fits and both.vllm_gpu_memory_utilization is not None
    nominal_gib = 48
    assert both.vllm_gpu_memory_utilization * nominal_gib + both.media_gib <= both.usable_gib
    assert both.vllm_gpu_memory_utilization * nominal_gib >= both.llm_gib  # vLLM still gets what it needs


def test_bad_load_is_refused() -> None:
    with pytest.raises(ToolInputError):
        evaluate_colocation("Qwen2.5-7B-Instruct", "SDXL", "A10", concurrency=0)


def test_api_same_a10_is_no_with_both_figures(client: httpx.Client) -> None:
    body = ask_api(client, "I want to run SDXL and Qwen2.5-7B on the same A10, does that fit?")
    [call] = [c for c in body["tool_calls"] if c["name"] == "evaluate_colocation"]
    assert call["args"]["gpu"] == "A10" and call["result"]["fits"] is False
    line = first_line(body["text"])
    assert line.startswith("**No.**") and str(call["result"]["needed_gib"]) in line


def test_cli_same_l20_is_yes_with_the_vllm_share(cli_env: dict[str, str]) -> None:
    body = ask_cli(cli_env, "同一张 L20 上同时跑 whisper-large-v3 和 Qwen2.5-14B，显存够吗")
    [call] = [c for c in body["tool_calls"] if c["name"] == "evaluate_colocation"]
    assert call["result"]["fits"] is True and first_line(body["text"]).startswith("**能放下")
    assert "--gpu-memory-utilization" in body["text"]


def test_two_llms_on_one_gpu_need_the_sum_of_their_estimates() -> None:
    shared = evaluate_models_on_one_gpu(["Qwen2.5-7B-Instruct", "Qwen2.5-14B-Instruct"], "A100-80GB")
    # each alone, as estimate_gpu_memory serves it (vLLM, 4,096 tokens, one sequence)
    requests = [memory_request(m, "inference", 1, "bf16", "none", 4096, concurrency=1) for m in shared.models]
    alone = [estimate_memory(r).per_gpu_total_gib for r in requests]
    assert shared.needed_gib == pytest.approx(sum(alone), abs=0.02)
    assert shared.fits and shared.vllm_gpu_memory_utilizations is not None
    # each process's share holds its own need, and the shares together fit the card
    nominal = 80
    assert all(u * nominal >= n for u, n in zip(shared.vllm_gpu_memory_utilizations, shared.needs_gib, strict=True))
    too_big = evaluate_models_on_one_gpu(["Qwen2.5-7B-Instruct", "Qwen2.5-14B-Instruct"], "A10")
    assert not too_big.fits and too_big.headroom_gib < 0 and too_big.vllm_gpu_memory_utilizations is None


def test_one_model_is_no_colocation() -> None:
    with pytest.raises(ToolInputError):
        evaluate_models_on_one_gpu(["Qwen2.5-7B-Instruct"], "A10")
