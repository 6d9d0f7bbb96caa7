"""Speed of the computing core against the issue's targets.

Run: ``.venv/bin/python benchmarks/cli_speed.py``. Prints each figure, its target and the ratio
(figure / target; below 1.0 meets the target).

* ``plan`` warm p50 (in-process, the reference question, 50 runs)   target <= 20 ms
* ``estimate --from`` with 1,000 requests (a real subprocess)        target <= 2 s
* ``gpu-advisor --help`` cold (a real subprocess, median of 5)      target <= 1 s
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tools.plan import plan_deployment
from tools.workload import Workload

CLI = [sys.executable, "-m", "ui"]


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


def estimate_batch_s(requests: int = 1000) -> float:
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
    out = subprocess.run([*CLI, "estimate", "--from", handle.name], capture_output=True, text=True, check=True)
    elapsed = time.perf_counter() - start
    Path(handle.name).unlink()
    results = out.stdout.splitlines()
    assert len(results) == requests, f"expected {requests} results, got {len(results)}"
    errors = sum('"error"' in line for line in results)
    assert errors == 0, f"{errors} requests failed"
    return elapsed


def help_cold_s(runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([*CLI, "--help"], capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    rows = [
        ("plan warm p50", plan_warm_p50_ms(), 20.0, "ms"),
        ("estimate --from 1,000 requests", estimate_batch_s(), 2.0, "s"),
        ("gpu-advisor --help cold", help_cold_s(), 1.0, "s"),
    ]
    print(f"{'measure':34} {'value':>10} {'target':>10} {'ratio':>7}")
    for name, value, target, unit in rows:
        print(f"{name:34} {value:>8.3f}{unit:>2} {target:>8.3f}{unit:>2} {value / target:>7.2f}")


if __name__ == "__main__":
    main()
