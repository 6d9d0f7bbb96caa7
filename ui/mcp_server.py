"""The toolbox over the Model Context Protocol: ``gpu-advisor mcp`` (stdio) and ``/mcp`` on the web server.

Any MCP client (Claude Desktop, Cursor, Qwen-Agent, ...) gets the same typed tools the LLM engine
calls (``assistant/toolbox.py``), so its own agent states gpu-advisor's computed, cited numbers. The
SDK's ``MCPServer`` builds each input schema from the function's signature; the Google-style docstring
adds the tool and argument descriptions (never a hand-written schema). A bad input (an unknown model, a
negative size) comes back as an error result holding our one-line message, never a traceback.
"""

from __future__ import annotations

import functools
import inspect
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from docstring_parser import DocstringStyle
from docstring_parser import parse as parse_docstring
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from assistant import toolbox
from tools.errors import ToolInputError
from ui.extras import as_missing_extra

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from fastapi import FastAPI

    from assistant.settings import Settings
    from knowledge.base import KnowledgeBase

log = logging.getLogger(__name__)

MCP_PATH = "/mcp"

# The LLM engine's domain tools, in the order clients list them; guidance search is added last.
DOMAIN_TOOLS = toolbox.DOMAIN_TOOLS

_INSTRUCTIONS = (
    "gpu-advisor sizes GPU deployments on Alibaba Cloud. Every number comes from these deterministic tools: "
    "plan_gpu_deployment ranks instance options for a workload (layout, memory headroom, tokens/s, price); "
    "estimate_gpu_memory breaks GPU memory down term by term; find_instance_types, gpu_specs, price_of_instance, "
    "compare_region_prices, cheapest_region_for_gpu and model_card look up the catalogs and prices; "
    "search_guidance returns cited passages of the guidance. Quote numbers from the tool results and cite "
    "passages by their sources."
)
_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def build_mcp_server(knowledge_base: Callable[[], KnowledgeBase]) -> MCPServer:
    """Build the MCP server with every toolbox function as a tool.

    Args:
        knowledge_base: Returns the knowledge base for ``search_guidance``; called on the first search
            only, so listing tools or planning never loads the index or the embedding model.
    """
    # At WARNING, not the SDK's INFO: it would log every rejected call, and stderr is a stdio client's log.
    # (The SDK only configures logging when nothing has; the CLI always has by then.)
    server: MCPServer = MCPServer(
        name="gpu-advisor", instructions=_INSTRUCTIONS, version=_version(), log_level="WARNING"
    )
    for fn in DOMAIN_TOOLS:
        _add(server, fn, fn)
    search = _search_runner(knowledge_base)
    _add(server, toolbox.GuidanceSearch.search_guidance, search, skip_first=True)
    return server


def lazy_knowledge_base(settings: Settings) -> Callable[[], KnowledgeBase]:
    """Build the knowledge base the settings describe, once, on first call (thread-safe)."""
    lock = threading.Lock()
    built: list[KnowledgeBase] = []

    def get() -> KnowledgeBase:
        with lock:
            if not built:
                from assistant.settings import knowledge_config_from_settings
                from knowledge.base import KnowledgeBase

                built.append(KnowledgeBase(knowledge_config_from_settings(settings)))
            return built[0]

    return get


def mount_mcp(app: FastAPI, settings: Settings, knowledge_base: Callable[[], KnowledgeBase] | None = None) -> None:
    """Serve the MCP tools at ``/mcp`` (streamable HTTP) on the web server.

    Stateless: each request stands alone, so replicas behind a load balancer need no shared session
    state. The route goes first so the chat page mounted at ``/`` cannot shadow it, and the SDK's
    session manager runs inside the app's lifespan. The SDK's Host-header check stays off (the server
    is reached under any host name behind a proxy): the tools only read public catalogs and guidance,
    and a browser on another origin cannot POST JSON here past the app's CORS policy.

    Args:
        app: The web server's app.
        settings: Application settings; the knowledge base is built from them on the first search.
        knowledge_base: Use this knowledge base factory instead (tests).
    """
    from contextlib import asynccontextmanager

    server = build_mcp_server(knowledge_base or lazy_knowledge_base(settings))
    sub_app = server.streamable_http_app(streamable_http_path=MCP_PATH, stateless_http=True, json_response=True)
    app.router.routes[0:0] = sub_app.routes
    previous = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(scope_app: Any) -> AsyncIterator[Any]:
        async with server.session_manager.run(), previous(scope_app) as state:
            yield state

    app.router.lifespan_context = lifespan


def run_stdio(settings: Settings | None = None) -> None:
    """Serve the tools over stdin/stdout until the client closes the connection.

    Args:
        settings: Application settings; read from the environment when None.
    """
    if settings is None:
        from assistant.settings import Settings

        settings = Settings()
    build_mcp_server(lazy_knowledge_base(settings)).run("stdio")


def _add(server: MCPServer, spec: Callable[..., Any], run: Callable[..., Any], *, skip_first: bool = False) -> None:
    """Register ``run`` as a tool named and described after ``spec`` (a toolbox function)."""
    doc = parse_docstring(spec.__doc__ or "", style=DocstringStyle.GOOGLE)
    described = {p.arg_name: " ".join((p.description or "").split()) for p in doc.params}
    signature = inspect.signature(spec, eval_str=True)
    params = list(signature.parameters.values())[1 if skip_first else 0 :]
    params = [
        p.replace(annotation=Annotated[p.annotation, Field(description=described[p.name])])
        if described.get(p.name)
        else p
        for p in params
    ]

    @functools.wraps(spec)
    def call(**kwargs: Any) -> Any:
        try:
            return run(**kwargs)
        except ToolInputError as exc:  # the caller's input: the one-line message says what to change
            raise ToolError(str(exc)) from None

    call.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    description = "\n\n".join(part for part in (doc.short_description, doc.long_description) if part)
    if doc.returns and doc.returns.description:
        description += "\n\nReturns: " + " ".join(doc.returns.description.split())
    server.add_tool(call, name=spec.__name__, description=description, annotations=_READ_ONLY)


def _search_runner(knowledge_base: Callable[[], KnowledgeBase]) -> Callable[..., Any]:
    def search(**kwargs: Any) -> Any:
        try:
            kb = knowledge_base()
            return toolbox.GuidanceSearch(kb).search_guidance(**kwargs)
        except ModuleNotFoundError as exc:
            missing = as_missing_extra(exc, "search_guidance")
            if missing is None:
                raise
            raise ToolError(str(missing)) from None
        except _knowledge_errors() as exc:  # configuration or store trouble, said in one line
            raise ToolError(str(exc)) from None

    return search


def _knowledge_errors() -> tuple[type[Exception], ...]:
    from knowledge.config import KnowledgeConfigError
    from knowledge.documents import DocumentError
    from knowledge.embeddings import EmbeddingError
    from knowledge.store import StoreError

    return (KnowledgeConfigError, DocumentError, EmbeddingError, StoreError)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gpu-advisor")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0"
