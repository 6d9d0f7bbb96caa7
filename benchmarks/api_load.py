"""Web server start-up and API load, on loopback only, bounded in time: zero 5xx is the target.

1. Time to a usable page: starts ``gpu-advisor ui`` on a fresh data directory (so the knowledge index
   is built, with the default offline embedder) and measures until ``GET /`` returns 200.
2. Load: ``--clients`` concurrent clients (each its own keep-alive connection) send ``POST /v1/ask`` in a
   closed loop for ``--duration`` seconds (the example questions, round robin, half of them continuing
   a session so session reads and writes are exercised). Printed: answers per second, p50/p95/max
   latency, and every status other than 200 by code, transport errors (reset connections) apart.
   The rate limit is switched off for the run (GPU_ADVISOR_RATE_LIMIT_PER_MIN=0): one loopback client
   IP would otherwise be limited.

``--store sqlite`` uses the default SQLite file; ``--store postgresql`` starts a throwaway PostgreSQL
(Debian's ``postgresql`` package, see tests/local_servers.py) and points GPU_ADVISOR_DATABASE_URL at it;
``--store both`` runs one after the other.

Usage: .venv/bin/python benchmarks/api_load.py [--clients 32] [--duration 60] [--store both]
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
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the throwaway PostgreSQL the tests use

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


@contextmanager
def running_ui(env_extra: dict[str, str], startup_timeout_s: float) -> Iterator[tuple[str, float]]:
    """Start ``gpu-advisor ui`` on a fresh data dir; yield its URL and the seconds until ``/`` answered 200."""
    data_dir = Path(tempfile.mkdtemp(prefix="gpu-advisor-bench-"))
    port = _free_port()
    env = {
        **os.environ,
        "GPU_ADVISOR_DATA_DIR": str(data_dir),
        "GPU_ADVISOR_ENGINE": "offline",
        "GPU_ADVISOR_RATE_LIMIT_PER_MIN": "0",
        **env_extra,
    }
    started = time.perf_counter()
    log = open(data_dir.parent / f"{data_dir.name}.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, "-m", "ui", "ui", "--host", "127.0.0.1", "--port", str(port)],
        env=env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"gpu-advisor ui exited with status {proc.returncode}; see {log.name}")
            if time.perf_counter() - started > startup_timeout_s:
                raise RuntimeError(f"no page after {startup_timeout_s:.0f} s")
            try:
                if httpx.get(url + "/", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        yield url, time.perf_counter() - started
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        server_errors = Path(log.name).read_text(errors="replace").count("Traceback")
        print(f"  server log: {server_errors} tracebacks ({log.name})")
        shutil.rmtree(data_dir, ignore_errors=True)


def load(base_url: str, clients: int, duration_s: float) -> tuple[list[float], Counter[str], float]:
    """Closed-loop load for ``duration_s``; return latencies of 200s, a count of every other outcome, wall time."""
    stop_at = time.perf_counter() + duration_s
    latencies: list[float] = []
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()

    def client(number: int) -> None:
        session_id = None
        n = number
        with httpx.Client(base_url=base_url, timeout=120) as http:
            while time.perf_counter() < stop_at:
                body: dict[str, str] = {"question": QUESTIONS[n % len(QUESTIONS)]}
                if session_id and n % 2:
                    body["session_id"] = session_id
                n += 1
                t0 = time.perf_counter()
                try:
                    response = http.post("/v1/ask", json=body)
                except httpx.TransportError as exc:
                    with lock:
                        outcomes[f"transport error ({type(exc).__name__})"] += 1
                    continue
                elapsed = time.perf_counter() - t0
                with lock:
                    if response.status_code == 200:
                        latencies.append(elapsed)
                        session_id = response.json().get("session_id")
                    else:
                        outcomes[f"HTTP {response.status_code}"] += 1

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, outcomes, time.perf_counter() - started


def report(store: str, clients: int, latencies: list[float], outcomes: Counter[str], wall: float) -> int:
    """Print the figures; return the number of 5xx answers and transport errors."""
    done = len(latencies)
    fives = sum(c for k, c in outcomes.items() if k.startswith("HTTP 5") or k.startswith("transport"))
    print(f"POST /v1/ask, offline engine, store {store}, {clients} concurrent clients, {wall:.0f} s:")
    print(f"  answered {done} (200), other outcomes: {dict(outcomes) or 'none'}; 5xx + resets: {fives}")
    if done:
        ordered = sorted(latencies)
        p95 = ordered[max(0, round(0.95 * done) - 1)]
        print(f"  answers/s {done / wall:.1f}")
        print(
            f"  latency p50 {statistics.median(ordered) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
            f"max {ordered[-1] * 1000:.0f} ms"
        )
    return fives


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load per store (max 300)")
    parser.add_argument("--store", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--startup-timeout", type=float, default=900.0, help="seconds allowed for start-up")
    args = parser.parse_args()
    duration = min(args.duration, 300.0)
    stores = ("sqlite", "postgresql") if args.store == "both" else (args.store,)
    failures = 0
    for store in stores:
        with ExitStack() as stack:
            env: dict[str, str] = {}
            if store == "postgresql":
                from local_servers import postgres_server

                env["GPU_ADVISOR_DATABASE_URL"] = stack.enter_context(postgres_server())
            url, ready_s = stack.enter_context(running_ui(env, args.startup_timeout))
            print(f"[{store}] time to usable page (gpu-advisor ui, fresh data dir, index included): {ready_s:.1f} s")
            latencies, outcomes, wall = load(url, args.clients, duration)
            failures += report(store, args.clients, latencies, outcomes, wall)
    print(f"target: zero 5xx and resets over every run: {'met' if failures == 0 else f'NOT met ({failures})'}")


if __name__ == "__main__":
    main()
