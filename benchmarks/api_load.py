"""Web server start-up and API load, on loopback only, bounded in count and time.

1. Time to a usable page: starts ``gpu-advisor ui`` on a fresh data directory (so the knowledge index
   is built, with the default offline embedder) and measures until ``GET /`` returns 200.
2. Load: against that same server, ``--clients`` concurrent clients send ``--requests`` ``POST /v1/ask``
   in total (the example questions, round robin) and the answers per second and latency percentiles are
   printed. The rate limit is switched off for the run (GPU_ADVISOR_RATE_LIMIT_PER_MIN=0): one loopback
   client IP would otherwise be limited.

Usage: .venv/bin/python benchmarks/api_load.py [--requests 320] [--clients 16] [--timeout 120]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = (
    "Qwen2.5-72B 推理, INT4, 32k 上下文, 20 并发, 选什么实例?",
    "How much GPU memory to LoRA fine-tune Llama-3.1-8B?",
    "gn7i 是什么 GPU?",
    "H800 vs A100 for training?",
    "Serve Qwen2.5-7B-Instruct in bf16 for 50 concurrent users: which instance and what does it cost?",
    "Llama-3.1-70B 全参数微调需要多少张 A100?",
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_ui(data_dir: Path, port: int, startup_timeout_s: float) -> tuple[subprocess.Popen[bytes], float]:
    """Start ``gpu-advisor ui`` and return the process and the seconds until ``/`` answered 200."""
    env = {
        **os.environ,
        "GPU_ADVISOR_DATA_DIR": str(data_dir),
        "GPU_ADVISOR_ENGINE": "offline",
        "GPU_ADVISOR_RATE_LIMIT_PER_MIN": "0",
    }
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ui", "ui", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    while time.perf_counter() - started < startup_timeout_s:
        if proc.poll() is not None:
            raise RuntimeError(f"gpu-advisor ui exited with status {proc.returncode}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return proc, time.perf_counter() - started
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    proc.terminate()
    raise RuntimeError(f"no page after {startup_timeout_s:.0f} s")


def load(base_url: str, requests: int, clients: int, timeout_s: float) -> tuple[list[float], int, float]:
    """Send ``requests`` asks from ``clients`` threads; return latencies (s), failures and wall time (s)."""
    deadline = time.perf_counter() + timeout_s
    per_client = [list(range(i, requests, clients)) for i in range(clients)]

    def client(indices: list[int]) -> tuple[list[float], int]:
        latencies, failures = [], 0
        with httpx.Client(base_url=base_url, timeout=60) as http:
            for i in indices:
                if time.perf_counter() > deadline:
                    failures += 1
                    continue
                t0 = time.perf_counter()
                response = http.post("/v1/ask", json={"question": QUESTIONS[i % len(QUESTIONS)]})
                if response.status_code == 200 and response.json().get("text"):
                    latencies.append(time.perf_counter() - t0)
                else:
                    failures += 1
        return latencies, failures

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        results = list(pool.map(client, per_client))
    wall = time.perf_counter() - started
    return [x for lat, _ in results for x in lat], sum(f for _, f in results), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=320)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds for the load phase")
    parser.add_argument("--startup-timeout", type=float, default=900.0, help="seconds allowed for start-up")
    args = parser.parse_args()

    data_dir = Path(tempfile.mkdtemp(prefix="gpu-advisor-bench-"))
    port = _free_port()
    proc = None
    try:
        proc, ready_s = start_ui(data_dir, port, args.startup_timeout)
        print(f"time to usable page (gpu-advisor ui, fresh data dir, index build included): {ready_s:.1f} s")
        latencies, failures, wall = load(f"http://127.0.0.1:{port}", args.requests, args.clients, args.timeout)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
        shutil.rmtree(data_dir, ignore_errors=True)

    done = len(latencies)
    print(f"POST /v1/ask, offline engine, {args.clients} concurrent clients, {args.requests} requests:")
    print(f"  answered {done}, failed or not sent {failures}, wall {wall:.1f} s")
    if done:
        ordered = sorted(latencies)
        p95 = ordered[max(0, round(0.95 * done) - 1)]
        print(f"  answers/s {done / wall:.1f}")
        print(
            f"  latency p50 {statistics.median(ordered) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
            f"max {ordered[-1] * 1000:.0f} ms"
        )


if __name__ == "__main__":
    main()
