"""Image/video, vision-language, speech and embedding questions through the offline engine (zh and en).

Expectations come from the domain: SDXL in fp16 fits one 24 GB A10, FLUX.1 [dev] in bf16 does not
(~35 GiB), an A10 makes a few hundred SDXL images an hour, the user's load reaches the media planner.
"""

from __future__ import annotations

import os
from pathlib import Path

from engine_helpers import ask, ask_cli, call_args, full_text, ungrounded


def test_a_load_reaches_the_media_planner_and_the_first_line_names_the_instance() -> None:
    question = "SDXL 文生图，1024x1024，每小时 3000 张，用什么实例？"
    answer = ask(question)
    args = call_args(answer, "plan_media_deployment")
    assert args["images_per_hour"] == 3000 and args["width"] == 1024
    assert answer.kind == "recommendation" and answer.language == "zh"
    assert answer.text.startswith("**推荐：**") and "`ecs." in answer.text.splitlines()[0]
    assert not any(c.name in ("plan_gpu_deployment", "estimate_gpu_memory") for c in answer.tool_calls)
    assert ungrounded(answer, question) == []


def test_a_named_gpu_gets_a_verdict_with_the_settings_that_would_fit() -> None:
    answer = ask("Will FLUX.1 dev in bf16 fit on one A10?")
    first = answer.text.splitlines()[0]
    assert first.startswith("**No") and "A10" in first
    assert "--offload model" in answer.text and "--dtype nf4" in answer.text
    fits = ask("FLUX.1 dev with nf4 weights and CPU offload on a single A10: will it fit?")
    assert fits.text.startswith("**Yes")
    assert call_args(fits, "evaluate_media_fit")["offload"] == "model"


def test_memory_fits_but_the_load_needs_more_gpus() -> None:
    answer = ask("一张 A10 跑 SDXL 每小时 1000 张够吗？")
    assert answer.text.startswith("**显存够，但算力不够")
    assert call_args(answer, "plan_media_deployment")["gpu"] == "A10"


def test_speech_embedding_and_memory_questions() -> None:
    whisper = ask("How much GPU memory does Whisper large-v3 need?")
    assert whisper.kind == "estimate" and "GiB" in whisper.text.splitlines()[0]
    bge = ask("bge-m3 给 500 万篇文档做向量，每篇 300 tokens，12 小时内完成，要几张卡？")
    args = call_args(bge, "plan_media_deployment")
    assert args["docs"] == 5_000_000 and args["doc_tokens"] == 300 and args["within_hours"] == 12


def test_a_follow_up_changes_the_load_and_keeps_the_model() -> None:
    answer = ask("那每小时 6000 张呢？", "SDXL 文生图，1024x1024，每小时 3000 张，用什么实例？")
    args = call_args(answer, "plan_media_deployment")
    assert args["images_per_hour"] == 6000 and args["model"] == "stable-diffusion-xl-base-1.0"


def test_vision_language_images_become_prompt_tokens() -> None:
    answer = ask("Qwen2.5-VL-7B with 4 images per request at 1920x1080, 8 concurrent users: which instance?")
    args = call_args(answer, "plan_vlm_deployment")
    assert args["images_per_request"] == 4 and args["width"] == 1920 and args["concurrency"] == 8
    assert "image tokens" in full_text(answer)


def test_training_these_models_stays_out_of_reach() -> None:
    answer = ask("我们还要微调 bge-m3 做检索向量模型，要多大显存？")
    assert answer.kind == "out_of_scope"


def test_cli_ask_json_answers_a_media_question(tmp_path: Path) -> None:
    env = {**os.environ, "GPU_ADVISOR_DATA_DIR": str(tmp_path / "data")}
    body = ask_cli(env, "Which instance for FLUX.1 schnell at 500 images per hour?")
    assert body["kind"] == "recommendation" and body["text"].startswith("**Recommended:**")
    assert any(c["name"] == "plan_media_deployment" for c in body["tool_calls"])


def test_a_budget_no_listed_price_meets_is_said_first_and_a_deadline_reaches_the_tool() -> None:
    budget = ask("flux schnell 出图，一小时 300 张，预算每月 5000 元以内，行吗？")
    assert budget.text.startswith("**在每月 ¥5000 的预算内，没有有公开价格的方案。**")
    index = ask("Our team wants to index about 800k PDF pages with bge m3 overnight (8 hours). What should we rent?")
    args = call_args(index, "plan_media_deployment")
    assert args["docs"] == 800_000 and args["within_hours"] == 8
