from __future__ import annotations

import json
from pathlib import Path

import pytest
from knowledge_helpers import fake_embedding_server

from assistant.settings import Settings, knowledge_config_from_settings
from ui.cli import build_parser, main


def _run(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    return int(exit_info.value.code or 0)


def test_commands_are_registered() -> None:
    parser = build_parser()
    args = parser.parse_args(["search", "A10 显存", "-k", "3", "--lang", "zh", "--mode", "keyword", "--json"])
    assert (args.query, args.k, args.lang, args.mode, args.json) == ("A10 显存", 3, "zh", "keyword", True)
    assert parser.parse_args(["index"]).handler.__name__ == "run_index"


def test_config_from_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DASHSCOPE_REGION", "intl")
    monkeypatch.setenv("DASHSCOPE_API_KEY", "sk-x")
    monkeypatch.setenv("GPU_ADVISOR_EMBEDDING", "dashscope")
    monkeypatch.setenv("CHROMA_HOST", "chroma.internal")
    config = knowledge_config_from_settings(Settings())
    assert config.data_dir == tmp_path
    assert config.embedding == "dashscope"
    assert config.dashscope_base_url == "https://dashscope-intl.aliyuncs.com/compatible-mode/v1"
    assert config.dashscope_api_key is not None and config.dashscope_api_key.get_secret_value() == "sk-x"
    assert (config.chroma_host, config.chroma_port) == ("chroma.internal", 8000)
    monkeypatch.setenv("DASHSCOPE_BASE_URL", "https://ws1.cn-beijing.maas.aliyuncs.com/compatible-mode/v1")
    assert knowledge_config_from_settings(Settings()).dashscope_base_url.startswith("https://ws1.")


def test_index_then_search_json_over_the_shipped_docs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with fake_embedding_server() as server:
        monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path))
        monkeypatch.setenv("GPU_ADVISOR_EMBEDDING", "openai")
        monkeypatch.setenv("GPU_ADVISOR_EMBEDDING_MODEL", "fake-embed")
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-local")

        assert _run(["index"]) == 0
        out = capsys.readouterr().out
        assert "guides__openai-fake-embed-default" in out and "added" in out

        assert _run(["index", "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["added"] == 0 and report["unchanged"] == report["chunks"] > 0

        assert _run(["search", "gn7i A10", "-k", "3", "--json"]) == 0
        rows = json.loads(capsys.readouterr().out)

        assert _run(["search", "gn7i A10", "-k", "2"]) == 0
        text = capsys.readouterr().out

    assert len(rows) == 3
    for row in rows:
        assert {"text", "doc", "section", "lang", "sources", "score", "anchor", "chunk_id"} <= row.keys()
        assert row["sources"] and all(s.startswith("http") for s in row["sources"])
    assert any("gn7i" in row["text"].lower() for row in rows)
    assert text.startswith("1. ") and "sources: http" in text


def test_missing_key_is_one_line_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("GPU_ADVISOR_EMBEDDING", "dashscope")
    assert _run(["search", "A10"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gpu-advisor: error:") and "DASHSCOPE_API_KEY" in err
    assert "Traceback" not in err
