"""The MCP face driven by the SDK's own client: in process, over stdio (a real ``gpu-advisor mcp``) and over
streamable HTTP (uvicorn on loopback).

Each tool's result is compared with a direct call of the same toolbox function, so the protocol adds
nothing and loses nothing. The tool list is snapshotted: after an intended change run
``UPDATE_TOOL_SCHEMAS=1 .venv/bin/python -m pytest tests/test_mcp_server.py`` and review the diff.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from engine_helpers import shared_kb
from fastapi import FastAPI
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from web_helpers import running, web_app, web_settings

from assistant import toolbox
from ui.mcp_server import build_mcp_server, mount_mcp

SNAPSHOT = Path(__file__).parent / "snapshots" / "mcp_tools.json"
T = TypeVar("T")

# One valid call per tool, with the toolbox function it must agree with.
CALLS: dict[str, dict[str, Any]] = {
    "plan_gpu_deployment": {"model": "qwen2.5-7b", "concurrency": 4, "context": 8192},
    "estimate_gpu_memory": {"model": "Qwen2.5-7B-Instruct", "prompt_tokens": 2048, "gen_tokens": 256},
    "evaluate_hardware_fit": {"model": "Qwen2.5-7B-Instruct", "gpu": "L20", "gpus": 1, "concurrency": 8},
    "largest_models_that_fit": {"gpu": "L20", "gpus": 2, "family": "Qwen3"},
    "largest_models_within_budget": {"budget_cny_month": 20000, "concurrency": 8},
    "evaluate_colocation": {"llm": "Qwen2.5-7B-Instruct", "media_model": "bge-m3", "gpu": "A10"},
    "evaluate_models_on_one_gpu": {"models": ["Qwen2.5-7B-Instruct", "Llama-3.1-8B-Instruct"], "gpu": "L20"},
    "concurrent_users": {"model": "Qwen2.5-7B-Instruct", "context": 8192, "gpu": "A10", "gpus": 1},
    "longest_context_per_user": {"model": "Qwen2.5-14B-Instruct", "users": 20, "gpu": "A10", "gpus": 4},
    "requests_per_second": {"model": "Qwen2.5-7B", "instance_type": "ecs.gn7i-c8g1.2xlarge", "gen_tokens": 200},
    "text_length_tokens": {"amount": 800, "unit": "zh_characters"},
    "training_run": {"model": "Qwen2.5-7B-Instruct", "gpu": "A100-80GB", "gpus": 8, "tokens": 1e9},
    "find_instance_types": {"gpu": "L20"},
    "gpu_lineup": {},
    "gpu_specs": {"name": "H800"},
    "price_of_instance": {"instance_type": "ecs.gn7i-c8g1.2xlarge"},
    "nearest_known_price": {"instance_type": "ecs.gn8is.4xlarge", "region": "cn-beijing"},
    "compare_region_prices": {"instance_type": "ecs.gn7i-c8g1.2xlarge"},
    "compare_instance_prices": {"instance_types": ["ecs.gn7i-c16g1.4xlarge", "ecs.gn7i-c8g1.2xlarge"]},
    "cheapest_region_for_gpu": {"gpu": "A10"},
    "model_card": {"model": "llama3.1-8b"},
    "plan_media_deployment": {"model": "SDXL", "images_per_hour": 500},
    "estimate_media_gpu_memory": {"model": "whisper-large-v3", "beams": 5},
    "evaluate_media_fit": {"model": "FLUX.1-dev", "gpu": "A10"},
    "plan_vlm_deployment": {"model": "Qwen2.5-VL-7B", "images_per_request": 2, "concurrency": 4},
}
SEARCH = {"query": "gn7i 是什么 GPU", "k": 3}


def _run(make: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(asyncio.wait_for(make(), timeout=120))


def _expected(name: str) -> Any:
    value = getattr(toolbox, name)(**CALLS[name])
    return json.loads(value.model_dump_json()) if value is not None else None


def _structured(result: Any) -> Any:
    content = result.structured_content
    # Non-object results (a list, an optional model) arrive wrapped as {"result": ...}.
    return content["result"] if set(content) == {"result"} else content


async def _exercise(client: Client) -> dict[str, Any]:
    """List the tools, call each once, and make two calls that must fail cleanly."""
    listed = await client.list_tools()
    results = {name: await client.call_tool(name, args) for name, args in CALLS.items()}
    results["search_guidance"] = await client.call_tool("search_guidance", SEARCH)
    unknown = await client.call_tool("model_card", {"model": "Qwen2.5-70B"})
    negative = await client.call_tool("plan_gpu_deployment", {"model": "qwen2.5-7b", "concurrency": -3})
    return {"tools": listed.tools, "results": results, "unknown": unknown, "negative": negative}


def _check(seen: dict[str, Any]) -> None:
    assert [t.name for t in seen["tools"]] == [*CALLS, "search_guidance"]
    for name in CALLS:
        result = seen["results"][name]
        assert not result.is_error, result.content
        assert _structured(result) == _expected(name), name
    search = seen["results"]["search_guidance"]
    assert not search.is_error, search.content
    passages = _structured(search)
    assert 1 <= len(passages) <= SEARCH["k"]
    assert all(p["sources"] and p["doc_title"] and p["section"] for p in passages), "every passage is citable"
    assert any("gn7i" in p["text"].lower() for p in passages)
    unknown = seen["unknown"]
    assert unknown.is_error
    assert "Unknown model 'Qwen2.5-70B'" in unknown.content[0].text and "Did you mean" in unknown.content[0].text
    assert "Traceback" not in unknown.content[0].text
    negative = seen["negative"]
    assert negative.is_error and "concurrency" in negative.content[0].text


def _tool_list(tools: list[Any]) -> str:
    rows = [
        {
            "name": t.name,
            "description": t.description,
            "inputSchema": t.input_schema,
            "annotations": t.annotations.model_dump(mode="json", by_alias=True, exclude_none=True),
        }
        for t in tools
    ]
    return json.dumps(rows, ensure_ascii=False, indent=2) + "\n"


def test_in_process_client_lists_calls_and_gets_clear_errors() -> None:
    server = build_mcp_server(shared_kb)
    _check(_run(lambda: _with_client(Client(server))))


def test_tool_list_matches_the_snapshot() -> None:
    async def listed() -> list[Any]:
        async with Client(build_mcp_server(shared_kb)) as client:
            return (await client.list_tools()).tools

    tools = _run(listed)
    current = _tool_list(tools)
    if os.environ.get("UPDATE_TOOL_SCHEMAS") == "1":
        SNAPSHOT.write_text(current, encoding="utf-8")
        pytest.skip("snapshot regenerated; review the diff")
    assert current == SNAPSHOT.read_text(encoding="utf-8"), (
        "MCP tool schemas changed; if intended, run UPDATE_TOOL_SCHEMAS=1 pytest tests/test_mcp_server.py"
    )
    for tool in tools:
        assert tool.description and tool.output_schema, tool.name
        for name, prop in tool.input_schema["properties"].items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"


def test_stdio_server_started_as_the_cli_command(tmp_path: Path) -> None:
    """A real ``gpu-advisor mcp`` process: every domain tool and the error path over its pipes."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ui", "mcp"], env={"GPU_ADVISOR_DATA_DIR": str(tmp_path)}
    )

    async def exercise() -> dict[str, Any]:
        async with Client(params) as client:
            listed = await client.list_tools()
            results = {name: await client.call_tool(name, args) for name, args in CALLS.items()}
            unknown = await client.call_tool("model_card", {"model": "Qwen2.5-70B"})
            return {"tools": listed.tools, "results": results, "unknown": unknown}

    seen = _run(exercise)
    assert [t.name for t in seen["tools"]] == [*CALLS, "search_guidance"]
    for name in CALLS:
        assert _structured(seen["results"][name]) == _expected(name), name
    assert seen["unknown"].is_error and "Did you mean" in seen["unknown"].content[0].text


def test_streamable_http_at_mcp_on_a_web_app(tmp_path: Path) -> None:
    app = FastAPI()
    mount_mcp(app, web_settings(tmp_path), knowledge_base=shared_kb)
    with running(app) as url:
        _check(_run(lambda: _with_client(Client(f"{url}/mcp"))))


@pytest.mark.slow
def test_the_full_web_server_serves_mcp_beside_the_chat_page(tmp_path: Path) -> None:
    import httpx

    with running(web_app(tmp_path)) as url:

        async def listed() -> list[str]:
            async with Client(f"{url}/mcp") as client:
                return [t.name for t in (await client.list_tools()).tools]

        assert _run(listed) == [*CALLS, "search_guidance"]
        assert httpx.get(f"{url}/healthz").json()["status"] == "ok"
        assert "gradio" in httpx.get(f"{url}/").text.lower()


@pytest.mark.slow
def test_stdio_search_with_the_default_embedded_index(tmp_path: Path) -> None:
    """The bundled embedder and embedded Chroma, built on the first search, as a real MCP client sees it."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "ui", "mcp"], env={"GPU_ADVISOR_DATA_DIR": str(tmp_path)}
    )

    async def search() -> Any:
        async with Client(params) as client:
            return await client.call_tool("search_guidance", SEARCH)

    result = _run(search)
    assert not result.is_error, result.content
    passages = _structured(result)
    assert passages and all(p["sources"] for p in passages)


async def _with_client(client: Client) -> dict[str, Any]:
    async with client:
        return await _exercise(client)
