"""``gpu-advisor mcp``: the toolbox as a Model Context Protocol server on stdin/stdout.

An MCP client starts this command and talks JSON-RPC over its pipes; nothing but protocol messages may
go to stdout, so logs go to stderr. The web server also serves the same tools at ``/mcp``.
"""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``mcp`` subcommand."""
    p = subparsers.add_parser(
        "mcp",
        help="serve the tools to MCP clients (Claude Desktop, Cursor, Qwen-Agent, ...) over stdio",
        description="Serve plan, estimate, instances, GPU specs, prices, model cards and cited guidance search "
        "over the Model Context Protocol on stdin/stdout (for streamable HTTP, `gpu-advisor serve` has /mcp).",
    )
    p.set_defaults(handler=run_mcp)


def run_mcp(args: argparse.Namespace) -> int:
    """Run ``gpu-advisor mcp`` until the client closes stdin."""
    from ui.mcp_server import run_stdio  # without the SDK, the message names the 'mcp' extra

    run_stdio()
    return 0
