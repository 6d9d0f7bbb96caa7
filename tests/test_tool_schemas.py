"""Snapshot of the tool schemas the LLM sees, so a changed docstring or parameter is a reviewed diff.

The schemas are generated from the toolbox signatures and Google-style docstrings (never written by
hand). After an intended change, regenerate the snapshot and review the diff:

    UPDATE_TOOL_SCHEMAS=1 .venv/bin/python -m pytest tests/test_tool_schemas.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from langchain_core.utils.function_calling import convert_to_openai_tool
from llm_helpers import hashing_kb

from assistant.agent import build_tools

SNAPSHOT = Path(__file__).parent / "snapshots" / "tool_schemas.json"


def _schemas(tmp_path: Path) -> list[dict[str, object]]:
    # The knowledge base is only bound, never searched: building tools touches no index.
    return [convert_to_openai_tool(tool) for tool in build_tools(hashing_kb(tmp_path))]


def test_tool_schemas_match_the_snapshot(tmp_path: Path) -> None:
    current = json.dumps(_schemas(tmp_path), ensure_ascii=False, indent=2) + "\n"
    if os.environ.get("UPDATE_TOOL_SCHEMAS") == "1":
        SNAPSHOT.write_text(current, encoding="utf-8")
        pytest.skip("snapshot regenerated; review the diff")
    assert current == SNAPSHOT.read_text(encoding="utf-8"), (
        "tool schemas changed; if intended, run UPDATE_TOOL_SCHEMAS=1 pytest tests/test_tool_schemas.py"
    )


def test_every_parameter_is_described(tmp_path: Path) -> None:
    for schema in _schemas(tmp_path):
        function = schema["function"]
        assert isinstance(function, dict) and function["description"]
        for name, prop in function["parameters"]["properties"].items():
            assert prop.get("description"), f"{function['name']}.{name} has no description"
