"""Snapshot of every toolbox tool's schema (incl. those the LLM engine does not list yet).

Generated from signatures and Google-style docstrings, never by hand. After an intended change:

    UPDATE_TOOL_SCHEMAS=1 .venv/bin/python -m pytest tests/test_toolbox_schemas.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from assistant.toolbox import DOMAIN_TOOLS

SNAPSHOT = Path(__file__).parent / "snapshots" / "toolbox_schemas.json"


def _schemas() -> list[dict[str, object]]:
    return [convert_to_openai_tool(StructuredTool.from_function(fn, parse_docstring=True)) for fn in DOMAIN_TOOLS]


def test_toolbox_schemas_match_the_snapshot() -> None:
    current = json.dumps(_schemas(), ensure_ascii=False, indent=2) + "\n"
    if os.environ.get("UPDATE_TOOL_SCHEMAS") == "1":
        SNAPSHOT.write_text(current, encoding="utf-8")
        pytest.skip("snapshot regenerated; review the diff")
    assert current == SNAPSHOT.read_text(encoding="utf-8")


def test_every_new_tool_parameter_is_described() -> None:
    for schema in _schemas():
        params = schema["function"]["parameters"]["properties"]  # type: ignore[index]
        assert all(p.get("description") for p in params.values()), schema["function"]["name"]  # type: ignore[index]
