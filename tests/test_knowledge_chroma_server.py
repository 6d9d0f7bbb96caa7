from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from knowledge_helpers import FIXTURE_DOCS

from knowledge.base import KnowledgeBase
from knowledge.config import KnowledgeConfig
from knowledge.embeddings import HashingEmbedder

CHROMA = Path(sys.executable).parent / "chroma"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def chroma_server(tmp_path: Path) -> Iterator[int]:
    port = _free_port()
    log = (tmp_path / "chroma.log").open("w")
    proc = subprocess.Popen(
        [
            str(CHROMA),
            "run",
            "--path",
            str(tmp_path / "server-db"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((tmp_path / "chroma.log").read_text()) from None
                time.sleep(0.2)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.mark.slow
def test_index_and_search_through_a_chroma_server(tmp_path: Path, chroma_server: int) -> None:
    config = KnowledgeConfig(
        data_dir=tmp_path / "unused",
        docs_dir=FIXTURE_DOCS,
        chroma_host="127.0.0.1",
        chroma_port=chroma_server,
    )
    kb = KnowledgeBase(config, embedder=HashingEmbedder())
    report = kb.build_index()
    assert report.added == report.chunks > 0
    assert not (tmp_path / "unused").exists()  # nothing written locally: the server holds the index

    top = kb.search("ecs.gn8is-2x.8xlarge L20", k=2)
    assert {p.doc for p in top} == {"gpu-families"}
    assert all("gn8is" in p.section for p in top)

    again = KnowledgeBase(config, embedder=HashingEmbedder()).build_index()
    assert (again.added, again.updated, again.removed, again.unchanged) == (0, 0, 0, report.chunks)
