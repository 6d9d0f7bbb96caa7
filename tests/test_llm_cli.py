"""``gpu-advisor ask``: the JSON shape, the human rendering, and the engine flag."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import pytest
from fakes.fake_openai import fake_openai, last_tool_result, text, tool_call

from assistant.answer import Answer
from knowledge.models import Citation
from ui.cli import CommandError
from ui.commands import ask


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="gpu-advisor")
    ask.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.handler(args)


@pytest.fixture
def llm_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GPU_ADVISOR_LLM_MODEL", "openai:fake-model")
    monkeypatch.setenv("GPU_ADVISOR_LLM_MAX_RETRIES", "0")


def _recommend(body: dict[str, Any]) -> dict[str, Any]:
    option = last_tool_result(body)["options"][0]
    return text(f"Use **{option['instance_type']}** at ¥{option['price_cny_per_month']:,.0f} per month.")


SCRIPT = (tool_call("plan_gpu_deployment", {"model": "Qwen2.5-7B-Instruct", "concurrency": 8}), _recommend)


def test_ask_json_prints_the_answer(
    llm_env: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with fake_openai(*SCRIPT) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        assert _run(["ask", "Qwen2.5-7B-Instruct for 8 users: which instance?", "--json"]) == 0

    data = json.loads(capsys.readouterr().out)
    assert {"text", "language", "engine", "citations", "tool_calls", "warnings"} <= data.keys()
    assert data["engine"] == "llm" and data["language"] == "en"
    [call] = data["tool_calls"]
    assert call["name"] == "plan_gpu_deployment" and call["args"]["concurrency"] == 8
    assert call["result"]["options"][0]["instance_type"] in data["text"]


def test_ask_human_prints_markdown_and_engine(
    llm_env: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with fake_openai(*SCRIPT) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        assert _run(["ask", "Qwen2.5-7B-Instruct for 8 users: which instance?"]) == 0

    out = capsys.readouterr()
    assert "Use " in out.out and "per month" in out.out and "**" not in out.out  # rendered, not raw
    assert "engine: llm" in out.err


def test_engine_flag_overrides_the_environment(
    llm_env: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with fake_openai() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        assert _run(["ask", " ", "--json", "--engine", "offline"]) == 0
    assert json.loads(capsys.readouterr().out)["engine"] == "offline"
    assert server.chat_requests == []


def test_llm_engine_without_provider_is_one_clear_error(llm_env: None) -> None:
    with pytest.raises(CommandError, match="set OPENAI_BASE_URL"):
        _run(["ask", "hi", "--engine", "llm"])


def test_bad_history_file_is_one_clear_error(llm_env: None, tmp_path: Path) -> None:
    bad = tmp_path / "history.json"
    bad.write_text('[{"role": "system", "content": "x"}]', encoding="utf-8")
    with pytest.raises(CommandError, match="--history"):
        _run(["ask", "hi", "--history", str(bad)])


def test_sources_lines_list_each_citation_with_its_urls() -> None:
    cite = Citation(
        doc="gpu-families", doc_title="GPU families", section="gn7i", anchor="gn7i", lang="en",
        sources=["https://example.com/a", "https://example.com/b"], snippet="gn7i carries A10 GPUs.",
    )
    answer = Answer(text="gn7i has A10 GPUs [1].", language="en", engine="offline", citations=[cite])
    assert ask.sources_lines(answer) == [
        "[1] GPU families > gn7i (en/gpu-families.md#gn7i)",
        "    https://example.com/a",
        "    https://example.com/b",
    ]


def test_env_example_lists_every_setting() -> None:
    from assistant.settings import Settings

    example = (Path(__file__).parents[1] / ".env.example").read_text(encoding="utf-8")
    listed = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", example, flags=re.MULTILINE))
    names = {str(field.validation_alias) for field in Settings.model_fields.values()}
    assert names == listed
