"""Two app replicas on one real PostgreSQL and one real Redis (started by the fixtures from Debian's binaries).

What a load balancer in front of several replicas needs: a Slack retry delivered to the other replica is
answered once, a session continues on the other replica, a rate limit counts across replicas; and the
store itself holds up on PostgreSQL (migrations by several replicas at once, concurrent writers,
insert-once event ids).
"""

from __future__ import annotations

import functools
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from local_servers import postgres_bin, postgres_server, redis_bin, redis_server
from web_helpers import running, web_app

from ui.feedback import FeedbackStore
from ui.sessions import SessionStore
from ui.slack_bot import SharedSeenEvents
from ui.store import Database

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(postgres_bin() is None or redis_bin() is None, reason="needs postgresql and redis-server"),
]


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    with postgres_server() as url:
        yield url


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with redis_server() as url:
        yield url


@pytest.fixture
def fresh_db(pg_url: str) -> Iterator[str]:
    """A database of its own for one test (created in the shared cluster)."""
    name = f"t{time.time_ns()}"
    admin = Database(pg_url)
    with admin.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {name}")
    admin.dispose()
    yield pg_url.rsplit("/", 1)[0] + f"/{name}"


def test_replicas_migrate_together_once(fresh_db: str) -> None:
    dbs = [Database(fresh_db) for _ in range(4)]
    threads = [threading.Thread(target=db.migrate) for db in dbs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    versions = dbs[0].read(lambda conn: conn.exec_driver_sql("SELECT version FROM schema_version").scalars().all())
    assert versions == [1]
    assert all(db.check() is None for db in dbs)


def test_slack_event_ids_are_inserted_once_across_replicas(fresh_db: str) -> None:
    replicas = [SharedSeenEvents(Database(fresh_db)) for _ in range(3)]
    results: list[bool] = []
    lock = threading.Lock()

    def deliver(seen: SharedSeenEvents) -> None:
        first = seen.first_time("Ev-retry")
        with lock:
            results.append(first)

    threads = [threading.Thread(target=deliver, args=(replicas[n % 3],)) for n in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False] * 11 + [True]


def test_sessions_and_feedback_on_postgres(fresh_db: str) -> None:
    db_a, db_b = Database(fresh_db), Database(fresh_db)
    SessionStore(db_a).append("s1", "q", "a")
    assert [m.content for m in SessionStore(db_b).history("s1")] == ["q", "a"]
    answer_id = FeedbackStore(db_a).record_answer(face="api", session="s1", question="q", answer="a", engine="offline")
    FeedbackStore(db_b).add(answer_id, "up", "ok", face="api", session="s1")
    [record] = FeedbackStore(db_a).list()
    assert (record.question, record.answer, record.rating) == ("q", "a", "up")


def test_concurrent_session_writes_lose_nothing(fresh_db: str) -> None:
    store = SessionStore(Database(fresh_db), max_messages=200)
    threads = [threading.Thread(target=store.append, args=("busy", f"q{n}", f"a{n}")) for n in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store.history("busy")) == 48


@pytest.fixture
def two_replicas(tmp_path: Path, fresh_db: str, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple]:
    from fakes.fake_slack import SIGNING_SECRET, fake_slack
    from slack_sdk import WebClient

    env = {
        "GPU_ADVISOR_DATABASE_URL": fresh_db,
        "GPU_ADVISOR_REDIS_URL": redis_url,
        "GPU_ADVISOR_RATE_LIMIT_PER_MIN": 3,
        "GPU_ADVISOR_API_KEYS": "sk-ops",
        "SLACK_BOT_TOKEN": "xoxb-test",
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
    }
    with fake_slack() as slack:
        monkeypatch.setattr("ui.slack_bot.WebClient", functools.partial(WebClient, base_url=slack.api_url))
        a, b = web_app(tmp_path / "a", **env), web_app(tmp_path / "b", **env)
        with running(a) as url_a, running(b) as url_b:
            yield url_a, url_b, slack


def test_two_replicas_share_slack_ids_sessions_and_limits(two_replicas: tuple) -> None:
    from fakes.fake_slack import event_callback, mention, signed_headers

    url_a, url_b, slack = two_replicas
    # Slack retries an event at the other replica: it is answered once.
    body = json.dumps(event_callback(mention("gn7i 是什么 GPU?"), event_id="EvReplica1"))
    first = httpx.post(f"{url_a}/slack/events", content=body, headers=signed_headers(body))
    retry = httpx.post(f"{url_b}/slack/events", content=body, headers=signed_headers(body, retry_num=1))
    assert first.status_code == 200 and retry.status_code == 200
    slack.wait_for("chat.update")
    time.sleep(1.0)  # a second answer would have been posted by now
    assert len(slack.calls_to("chat.postMessage")) == 1

    # A session started on one replica continues on the other (budget: 3 asks per client per minute).
    question = {"question": "How much GPU memory to LoRA fine-tune Llama-3.1-8B?"}
    started = httpx.post(f"{url_a}/v1/ask", json=question, timeout=60).json()
    follow = httpx.post(
        f"{url_b}/v1/ask", json={"question": "what about QLoRA?", "session_id": started["session_id"]}, timeout=60
    ).json()
    estimate = next(c for c in follow["tool_calls"] if c["name"] == "estimate_gpu_memory")
    assert estimate["args"]["model"] == "Llama-3.1-8B-Instruct" and estimate["args"]["task"] == "qlora"

    # The third ask of this client is on replica A again, the fourth anywhere is refused: one shared count.
    third = httpx.post(f"{url_a}/v1/ask", json={"question": "gn7i 是什么 GPU?"}, timeout=60)
    fourth = httpx.post(f"{url_b}/v1/ask", json={"question": "gn7i 是什么 GPU?"}, timeout=60)
    assert third.status_code == 200
    assert fourth.status_code == 429 and int(fourth.headers["retry-after"]) >= 1

    # Feedback given on one replica for an answer from the other is accepted (a configured key has its
    # own budget, so the spent IP budget does not apply); health is ok on both.
    rated = httpx.post(
        f"{url_b}/v1/feedback",
        json={"answer_id": started["answer_id"], "rating": "up"},
        headers={"X-API-Key": "sk-ops"},
    )
    assert rated.status_code == 201
    assert httpx.get(f"{url_a}/healthz").json()["status"] == "ok"
