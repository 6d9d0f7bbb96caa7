"""Speed of the command line against the issues' targets.

Run: ``.venv/bin/python benchmarks/cli_speed.py [--runs N]``; ``--instructions`` counts instructions instead
(valgrind), the steady figure on a shared machine. Prints each figure, its target and the
ratio (figure / target; at most 1.0 meets the target), with the machine's load average before and after
(on a shared machine, take figures when the load is low).

``--python PATH`` times the cold ``plan`` of another installation (e.g. a venv with the wheel installed:
its ``gpu-advisor`` script, else ``PATH -m ui``) against that interpreter's own ``python -c pass`` and
floor; ``--wheel`` builds the wheel (``python -m build --wheel``), installs it with its core dependencies in a
temporary venv (pip with ``constraints.txt``; ``--find-links DIR`` installs from downloaded wheels only) and
times that. Both measure only the cold ``plan`` and its floor, and combine with ``--instructions``.

* ``plan`` warm p50 (in-process, the reference question, 50 runs)       target <= 20 ms
* ``estimate --from`` with 1,000 requests (a real subprocess)            target <= 2 s
* ``gpu-advisor --help`` cold                                            target <= 1 s
* ``gpu-advisor plan`` cold                                              target <= 10x ``python -c pass``
* ``gpu-advisor ask`` cold, English and Chinese (offline engine)         target <= 2 s
* the cold ``ask`` answer equals the answer of a warm process that searched the Chroma store

The floor under ``plan``: two scripts that do only what every ``plan`` must, as ratios to ``python -c pass``:
import pydantic and validate one model (its import plus building the first schema), and that plus
importing the rich table (human output). Whatever ``plan`` costs above the second is ours to cut.

"Cold" is a new process each time, with Python's bytecode caches written (a prime run first, as after
any install), and the knowledge index already built in a temporary data directory. ``pass``, the floor
and ``plan`` run interleaved (round r starts at the r-th command), so a change of machine load during the
run affects each of them alike; each figure is the median of its rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from tools.plan import plan_deployment
from tools.workload import Workload

ROOT = Path(__file__).resolve().parents[1]


def cli_for(python: str) -> list[str]:
    """The command that runs ``gpu-advisor`` in the installation of ``python``: its script if any."""
    script = Path(python).with_name("gpu-advisor")
    return [str(script)] if script.is_file() else [python, "-m", "ui"]


_SCRIPT = Path(sys.executable).with_name("gpu-advisor")
CLI = cli_for(sys.executable)
PLAN_ARGS = ["plan", "--model", "qwen2.5-72b", "--quant", "awq-int4", "--context", "32768", "--concurrency", "20"]
ASK_EN = "Qwen2.5-7B-Instruct inference with 8 concurrent users: which instance?"
ASK_ZH = "Qwen2.5-72B 推理, INT4, 32k 上下文, 20 并发, 选什么实例?"
FLOOR_PYDANTIC = "from pydantic import BaseModel\nclass One(BaseModel):\n    a: int\nOne(a=1)\n"
FLOOR_RICH = FLOOR_PYDANTIC + "import rich.console, rich.table\n"


def plan_warm_p50_ms(runs: int = 50) -> float:
    # Warm = catalogs, registry and imports loaded. Each run asks a different concurrency so the
    # planner's per-layout memo cannot simply replay the previous answer.
    plan_deployment(Workload(model="qwen2.5-72b", quant="awq-int4", context=32768, concurrency=1))
    times = []
    for i in range(runs):
        workload = Workload(model="qwen2.5-72b", quant="awq-int4", context=32768, concurrency=20 + i)
        start = time.perf_counter()
        plan_deployment(workload)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def estimate_batch_s(env: dict[str, str], requests: int = 1000) -> float:
    models = ["qwen2.5-7b", "qwen2.5-72b", "llama3.1-8b", "qwen3-30b-a3b", "deepseek-v3"]
    lines = []
    for i in range(requests):
        if i % 2:
            prompt = 512 * (1 + i % 16)
            lines.append({"model": models[i % 5], "prompt_tokens": prompt, "gen_tokens": 256, "batch": 1 + i % 8})
        else:
            lines.append({"model": models[i % 5], "task": "lora", "seq_len": 2048, "gpus": 1 + i % 4})
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as handle:
        handle.write("\n".join(json.dumps(line) for line in lines) + "\n")
    start = time.perf_counter()
    out = subprocess.run([*CLI, "estimate", "--from", handle.name], capture_output=True, text=True, env=env, check=True)
    elapsed = time.perf_counter() - start
    Path(handle.name).unlink()
    results = out.stdout.splitlines()
    assert len(results) == requests, f"expected {requests} results, got {len(results)}"
    errors = sum('"error"' in line for line in results)
    assert errors == 0, f"{errors} requests failed"
    return elapsed


CPU_MEDIANS: dict[str, float] = {}
"""Median CPU time (user + system) of each cold command: on a busy shared machine wall time mostly
measures the queue for a core, CPU time what the command itself costs."""


def _timed(cmd: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one run of ``cmd`` in a new process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, capture_output=True, env=env, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def cold_s(cmd: Sequence[str], env: dict[str, str], runs: int) -> float:
    """Median wall time of ``cmd`` in a new process, after one untimed prime run (CPU median kept too)."""
    subprocess.run(cmd, capture_output=True, env=env, check=True)
    times, cpu = zip(*(_timed(cmd, env) for _ in range(runs)), strict=True)
    CPU_MEDIANS[" ".join(cmd)] = statistics.median(cpu)
    return statistics.median(times)


def interleaved(cmds: dict[str, list[str]], env: dict[str, str], runs: int) -> dict[str, tuple[float, float]]:
    """Median wall and CPU seconds of each command over ``runs`` rounds that run every command once.

    Round r starts at the r-th command, so no command always follows the same one; one untimed prime run
    of each first (bytecode and catalog caches written, as after any install and first start).
    """
    for cmd in cmds.values():
        subprocess.run(cmd, capture_output=True, env=env, check=True)
    names = list(cmds)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    for round_ in range(runs):
        for i in range(len(names)):
            name = names[(round_ + i) % len(names)]
            samples[name].append(_timed(cmds[name], env))
    return {
        name: (statistics.median(w for w, _ in runs_), statistics.median(c for _, c in runs_))
        for name, runs_ in samples.items()
    }


def cold_plan_commands(python: str) -> dict[str, list[str]]:
    """``python -c pass``, the two floors and the cold ``plan`` (text and JSON) of the installation of ``python``."""
    cli = cli_for(python)
    return {
        "python -c pass": [python, "-c", "pass"],
        "floor: pydantic + one model": [python, "-c", FLOOR_PYDANTIC],
        "floor: + rich table": [python, "-c", FLOOR_RICH],
        "gpu-advisor plan": [*cli, *PLAN_ARGS],
        "gpu-advisor plan --json": [*cli, *PLAN_ARGS, "--json"],
    }


def print_cold_plan(python: str, env: dict[str, str], runs: int) -> dict[str, tuple[float, float]]:
    """Time the cold ``plan`` against ``python -c pass`` and the floor, interleaved; print and return the medians."""
    load_before = os.getloadavg()
    medians = interleaved(cold_plan_commands(python), env, runs)
    load_after = os.getloadavg()
    pass_wall, pass_cpu = medians["python -c pass"]
    print(f"cold plan of {cli_for(python)[0]}: median of {runs} interleaved rounds")
    print(f"  {'command':30} {'wall':>8} {'x pass':>7} {'CPU':>8} {'x pass':>7}")
    for name, (wall, cpu) in medians.items():
        print(f"  {name:30} {wall:7.3f}s {wall / pass_wall:6.1f}x {cpu:7.3f}s {cpu / pass_cpu:6.1f}x")
    plan_wall, plan_cpu = medians["gpu-advisor plan"]
    print(f"  plan cold / python -c pass: {plan_wall / pass_wall:.1f}x wall, {plan_cpu / pass_cpu:.1f}x CPU "
          f"(target <= 10x); load average before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    return medians


def instructions(cmd: Sequence[str], env: dict[str, str]) -> int:
    """Instructions ``cmd`` executes (valgrind's cachegrind): unlike time, the same on a busy machine."""
    subprocess.run(cmd, capture_output=True, env=env, check=True)  # prime: bytecode caches, catalog cache
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "cachegrind.out"
        subprocess.run(
            ["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}", *cmd],
            capture_output=True, env=env, check=True,
        )
        summary = next(line for line in out.read_text().splitlines() if line.startswith("summary:"))
    return int(summary.split()[1])


def print_instructions(python: str, env: dict[str, str]) -> None:
    """The cold commands and the floor in instructions, as ratios to ``python -c pass``."""
    if shutil.which("valgrind") is None:
        print("--instructions: valgrind is not installed")
        return
    commands = cold_plan_commands(python)
    pass_ir = instructions(commands.pop("python -c pass"), env)
    print(f"instructions (valgrind) of {cli_for(python)[0]}, x python -c pass ({pass_ir / 1e6:,.0f} M):")
    for name, cmd in commands.items():
        count = instructions(cmd, env)
        print(f"  {name:34} {count / 1e6:8,.0f} M {count / pass_ir:5.1f}x")


def wheel_python(workdir: Path, find_links: str | None) -> str:
    """Build the wheel, install it (core dependencies only) in a new venv under ``workdir``; its interpreter."""
    dist, venv = workdir / "dist", workdir / "venv"
    build = [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(ROOT)]
    subprocess.run(build, capture_output=True, check=True)
    (wheel,) = dist.glob("gpu_advisor-*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, check=True)
    python = str(venv / "bin" / "python")
    source = ["--no-index", "--find-links", find_links] if find_links else []
    pip_env = {**os.environ, "PIP_CONSTRAINT": str(ROOT / "constraints.txt"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    install = [python, "-m", "pip", "install", "-q", *source, str(wheel)]
    subprocess.run(install, env=pip_env, capture_output=True, check=True)
    return python


def answer_json(question: str, env: dict[str, str]) -> dict[str, object]:
    out = subprocess.run([*CLI, "ask", "--json", question], capture_output=True, text=True, env=env, check=True)
    return _comparable(json.loads(out.stdout))


def warm_store_answer(question: str, data_dir: Path) -> dict[str, object]:
    """The answer of this (warm) process with the index read from Chroma, not from the snapshot."""
    from assistant.assistant import build_assistant
    from assistant.settings import Settings, knowledge_config_from_settings
    from knowledge.base import KnowledgeBase

    settings = Settings(GPU_ADVISOR_DATA_DIR=str(data_dir), GPU_ADVISOR_ENGINE="offline")
    kb = KnowledgeBase(knowledge_config_from_settings(settings))
    kb.build_index()  # the store path: opens Chroma, checks every section, searches the store
    build_assistant(settings, knowledge_base=kb).answer(question)  # warm-up: models and caches loaded
    return _comparable(build_assistant(settings, knowledge_base=kb).answer(question).model_dump(mode="json"))


_SHOWN = ("text", "details", "citations", "tool_calls", "warnings", "engine", "kind")


def _comparable(answer: dict[str, object]) -> dict[str, object]:
    # Everything the user or a client sees must be the same.
    return {key: answer[key] for key in _SHOWN if key in answer}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="cold runs per command (median reported)")
    parser.add_argument(
        "--instructions", action="store_true",
        help="only count the instructions of the cold plan and its floor (valgrind; steady on a busy machine)",
    )
    parser.add_argument(
        "--python", help="time only the cold plan of the installation of this interpreter (may be this one)"
    )
    parser.add_argument("--wheel", action="store_true", help="time only the cold plan of the wheel, in a new venv")
    parser.add_argument("--find-links", help="with --wheel: install from the wheels in this folder, not PyPI")
    args = parser.parse_args()

    data_dir = Path(tempfile.mkdtemp(prefix="gpu-advisor-bench-"))
    env = {key: value for key, value in os.environ.items() if not key.startswith(("GPU_ADVISOR_", "DASHSCOPE_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # cold means a new process, not a fresh install
    env.pop("OPENAI_BASE_URL", None)
    env.update(GPU_ADVISOR_DATA_DIR=str(data_dir), GPU_ADVISOR_ENGINE="offline")
    try:
        python = wheel_python(data_dir, args.find_links) if args.wheel else args.python or sys.executable
        if args.instructions:
            print_instructions(python, env)
        elif args.python or args.wheel:
            print_cold_plan(python, env, args.runs)
        else:
            print_all(env, args.runs, data_dir)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def print_all(env: dict[str, str], runs: int, data_dir: Path) -> None:
    """Every figure of this installation against its target."""
    load_before = os.getloadavg()
    subprocess.run([*CLI, "index"], capture_output=True, env=env, check=True)  # the first start's build
    cold_plan = print_cold_plan(sys.executable, env, runs)
    baseline, plan_cold = cold_plan["python -c pass"][0], cold_plan["gpu-advisor plan"][0]
    ask_en = cold_s([*CLI, "ask", ASK_EN], env, runs)
    ask_zh = cold_s([*CLI, "ask", ASK_ZH], env, runs)
    same = all(answer_json(q, env) == warm_store_answer(q, data_dir) for q in (ASK_EN, ASK_ZH))
    rows = [
        ("plan warm p50", plan_warm_p50_ms(), 20.0, "ms"),
        ("estimate --from 1,000 requests", estimate_batch_s(env), 2.0, "s"),
        ("gpu-advisor --help cold", cold_s([*CLI, "--help"], env, runs), 1.0, "s"),
        ("python -c pass cold (baseline)", baseline, float("nan"), "s"),
        ("gpu-advisor plan cold", plan_cold, 10 * baseline, "s"),
        ("gpu-advisor ask cold (en)", ask_en, 2.0, "s"),
        ("gpu-advisor ask cold (zh)", ask_zh, 2.0, "s"),
    ]
    load_after = os.getloadavg()

    print(f"{'measure':34} {'value':>10} {'target':>10} {'ratio':>7}")
    for name, value, target, unit in rows:
        ratio = f"{value / target:>7.2f}" if target == target else f"{'':>7}"
        shown = f"{target:>8.3f}{unit:>2}" if target == target else f"{'-':>10}"
        print(f"{name:34} {value:>8.3f}{unit:>2} {shown} {ratio}")
    print("CPU time (user + system) of the other cold commands, median:")
    for cmd, cpu in CPU_MEDIANS.items():
        shown = cmd.replace(str(_SCRIPT), "gpu-advisor").replace(sys.executable, "python").replace("\n", "; ")
        print(f"  {cpu:6.3f} s  {shown}")
    print(f"cold ask answer == warm answer from the Chroma store: {'yes' if same else 'NO'}")
    print(f"median of {runs} cold runs each; load average before {load_before[0]:.2f}, after {load_after[0]:.2f}")


if __name__ == "__main__":
    main()
