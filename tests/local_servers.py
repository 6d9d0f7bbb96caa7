"""Real PostgreSQL and Redis servers for tests and benchmarks: Debian's binaries, temp dirs, loopback ports.

``.ci/run`` (through ``./dev test``) installs the Debian packages ``postgresql`` and ``redis-server`` when
they are missing. PostgreSQL refuses to run as root, so as root the cluster belongs to ``nobody`` (its
directory is created for that user). Redis keeps nothing on disk. Both stop when the context exits.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_PG_USER = "nobody"


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL server's bin directory, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    return Path(found[-1]).parent if found else None


def redis_bin() -> str | None:
    """Path of ``redis-server``, or None."""
    return shutil.which("redis-server") or (
        "/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None
    )


def _as_server_user(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", _PG_USER, "--", *cmd] if os.geteuid() == 0 else cmd


@contextmanager
def postgres_server(timeout_s: float = 60.0) -> Iterator[str]:
    """Run a throwaway PostgreSQL cluster; yield its URL (``postgresql://postgres@127.0.0.1:PORT/postgres``)."""
    bindir = postgres_bin()
    if bindir is None:
        raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
    root = Path(tempfile.mkdtemp(prefix="gpu-advisor-pg-"))
    data = root / "data"
    if os.geteuid() == 0:
        shutil.chown(root, _PG_USER)
    port = free_port()
    env = {**os.environ, "LC_ALL": "C"}
    try:
        subprocess.run(
            _as_server_user([str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"]),
            check=True, capture_output=True, env=env, timeout=timeout_s,
        )
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        subprocess.run(
            _as_server_user([str(bindir / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-o", options,
                             "-w", "-t", str(int(timeout_s)), "start"]),
            check=True, capture_output=True, env=env, timeout=timeout_s + 10,
        )
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            _as_server_user([str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]),
            capture_output=True, env=env, timeout=60,
        )
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def redis_server(timeout_s: float = 20.0) -> Iterator[str]:
    """Run a throwaway Redis on loopback without persistence; yield its URL (``redis://127.0.0.1:PORT/0``)."""
    binary = redis_bin()
    if binary is None:
        raise RuntimeError("Redis is not installed (apt-get install redis-server)")
    root = Path(tempfile.mkdtemp(prefix="gpu-advisor-redis-"))
    port = free_port()
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(root), "--protected-mode", "yes"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(root, ignore_errors=True)
