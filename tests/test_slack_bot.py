"""The Slack bot end to end, offline: signed Events API requests -> Bolt -> real assistant -> fake Web API."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.fake_slack import (
    BOT_ID,
    BOT_USER_ID,
    SIGNING_SECRET,
    FakeSlack,
    direct_message,
    event_callback,
    fake_slack,
    mention,
    signed_headers,
)
from llm_helpers import hashing_kb
from slack_bolt import App, BoltResponse
from slack_bolt.request import BoltRequest
from slack_sdk import WebClient

from assistant.answer import Answer, Message
from assistant.assistant import Assistant, build_assistant
from assistant.settings import Settings
from ui.slack_bot import (
    APOLOGY,
    HISTORY_LIMIT,
    THINKING,
    SeenEvents,
    SlackConfigError,
    build_slack_app,
    build_socket_mode_handler,
    mount_slack_http,
    plain_text,
    thread_history,
)

QUESTION_EN = "Qwen2.5-7B inference, which instance?"
QUESTION_ZH = "Qwen2.5-7B 推理用什么实例？"


def slack_settings(data_dir: Path, **extra: Any) -> Settings:
    values = {"GPU_ADVISOR_ENGINE": "offline", "GPU_ADVISOR_DATA_DIR": data_dir, "SLACK_SIGNING_SECRET": SIGNING_SECRET}
    return Settings(_env_file=None, **(values | extra))  # type: ignore[call-arg]


@pytest.fixture(scope="module")
def assistant(tmp_path_factory: pytest.TempPathFactory) -> Assistant:
    data_dir = tmp_path_factory.mktemp("kb")
    built = build_assistant(slack_settings(data_dir), knowledge_base=hashing_kb(data_dir))
    built.answer(QUESTION_EN)  # build the index once, outside the timed tests
    return built


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with fake_slack() as fake:
        yield fake


def web_client(slack: FakeSlack) -> WebClient:
    return WebClient(token="xoxb-test", base_url=slack.api_url)


@pytest.fixture
def app(slack: FakeSlack, assistant: Assistant, tmp_path: Path) -> App:
    return build_slack_app(slack_settings(tmp_path), assistant, client=web_client(slack))


def dispatch(app: App, body: dict[str, Any], **header_args: Any) -> BoltResponse:
    raw = json.dumps(body)
    return app.dispatch(BoltRequest(body=raw, headers=signed_headers(raw, **header_args)))


def texts(blocks: list[dict[str, Any]]) -> str:
    """All text in the blocks, fields and context elements included."""
    parts = []
    for block in blocks:
        parts.append(block.get("text", {}).get("text", ""))
        parts += [f["text"] for f in block.get("fields", [])]
        parts += [e.get("text", "") for e in block.get("elements", [])]
    return "\n".join(parts)


def test_mention_is_answered_in_its_thread_with_options_and_citations(app: App, slack: FakeSlack) -> None:
    event = mention(QUESTION_EN, ts="1700000001.000100")
    started = time.perf_counter()
    response = dispatch(app, event_callback(event))
    acked_s = time.perf_counter() - started
    assert response.status == 200
    assert acked_s < 1.0  # Bolt acks before the answer is computed (Slack allows 3 s)

    [update] = slack.wait_for("chat.update")
    [placeholder] = slack.calls_to("chat.postMessage")
    assert placeholder.params["channel"] == "C0000001"
    assert placeholder.params["thread_ts"] == "1700000001.000100"
    assert placeholder.params["text"] == THINKING["en"]
    assert placeholder.token == "xoxb-test"

    assert update.params["channel"] == "C0000001"
    assert update.params["ts"].startswith("18")  # the placeholder's ts, as the fake issued it
    blocks = update.params["blocks"]
    option_sections = [b for b in blocks if b.get("fields")]
    assert option_sections, "the plan's options are shown as fields"
    assert "`ecs.gn" in option_sections[0]["text"]["text"]
    assert any("*GPU*" in f["text"] for f in option_sections[0]["fields"])
    context = [b for b in blocks if b["type"] == "context"]
    assert any("[1] <https://" in e["text"] for b in context for e in b["elements"])
    assert "Qwen2.5-7B" in update.params["text"]  # the plain fallback carries the answer too
    assert not slack.calls_to("conversations.replies")  # a new thread has no history to read


def test_chinese_question_gets_chinese_placeholder_and_labels(app: App, slack: FakeSlack) -> None:
    dispatch(app, event_callback(mention(QUESTION_ZH)))
    [update] = slack.wait_for("chat.update")
    assert slack.calls_to("chat.postMessage")[0].params["text"] == THINKING["zh"]
    assert "每卡需要 / 可用" in texts(update.params["blocks"])


def test_direct_message_is_answered_in_its_thread(app: App, slack: FakeSlack) -> None:
    dispatch(app, event_callback(direct_message(QUESTION_EN, ts="1700000002.000200"), event_id="EvDM"))
    [update] = slack.wait_for("chat.update")
    [placeholder] = slack.calls_to("chat.postMessage")
    assert placeholder.params["channel"] == "D0000001"
    assert placeholder.params["thread_ts"] == "1700000002.000200"
    assert update.params["channel"] == "D0000001"
    assert "`ecs.gn" in texts(update.params["blocks"])


@pytest.mark.parametrize(
    "extra",
    [
        {"subtype": "message_changed"},
        {"bot_id": "BOTHER01"},
        {"channel_type": "channel"},
        {"edited": {"user": "U0000USER", "ts": "1700000000.000300"}},
    ],
    ids=["subtype", "other-bot", "channel-message", "edited"],
)
def test_messages_that_are_not_new_human_dms_are_ignored(app: App, slack: FakeSlack, extra: dict[str, Any]) -> None:
    assert dispatch(app, event_callback(direct_message("hello", **extra), event_id="EvIgnored")).status == 200
    dispatch(app, event_callback(direct_message(QUESTION_EN), event_id="EvReal"))
    slack.wait_for("chat.update")
    assert [c.params["text"] for c in slack.calls_to("chat.postMessage")] == [THINKING["en"]]


def test_follow_up_in_a_thread_reads_the_thread_as_history(app: App, slack: FakeSlack, assistant: Assistant) -> None:
    channel, parent = "C0000001", "1700000010.000100"
    first = assistant.answer("Qwen2.5-72B inference, which instance?")
    slack.threads[(channel, parent)] = [
        {
            "type": "message",
            "user": "U0000USER",
            "text": f"<@{BOT_USER_ID}> Qwen2.5-72B inference, which instance?",
            "ts": parent,
            "thread_ts": parent,
        },
        {
            "type": "message",
            "user": BOT_USER_ID,
            "bot_id": BOT_ID,
            "text": first.text[:2000],
            "ts": "1700000011.000100",
            "thread_ts": parent,
        },
        {
            "type": "message",
            "bot_id": "BOTHER01",
            "subtype": "bot_message",
            "text": "unrelated bot",
            "ts": "1700000012.000100",
            "thread_ts": parent,
        },
        {
            "type": "message",
            "user": "U0000USER",
            "text": f"<@{BOT_USER_ID}> what about INT4?",
            "ts": "1700000013.000100",
            "thread_ts": parent,
        },
    ]
    follow_up = mention("what about INT4?", ts="1700000013.000100", thread_ts=parent)
    dispatch(app, event_callback(follow_up, event_id="EvFollow"))

    [update] = slack.wait_for("chat.update")
    [replies] = slack.calls_to("conversations.replies")
    assert (replies.params["channel"], replies.params["ts"]) == (channel, parent)
    assert slack.calls_to("chat.postMessage")[0].params["thread_ts"] == parent
    # Without the thread, "what about INT4?" names no model; with it, the 72B plan is redone in INT4.
    assert "Qwen2.5-72B" in update.params["text"]
    assert "int4" in update.params["text"].lower()


def test_thread_history_roles_and_filters() -> None:
    messages = [
        {"user": "U1", "text": f"<@{BOT_USER_ID}> Qwen2.5-72B &amp; 32 users?", "ts": "1.0"},
        {"user": BOT_USER_ID, "bot_id": BOT_ID, "text": "Use *gn7e* &lt;4 GPUs&gt;", "ts": "2.0"},
        {"user": BOT_USER_ID, "bot_id": BOT_ID, "text": THINKING["en"], "ts": "3.0"},
        {"bot_id": "BOTHER01", "subtype": "bot_message", "text": "deploy bot says hi", "ts": "4.0"},
        {"user": "U2", "subtype": "channel_join", "text": "<@U2> has joined", "ts": "5.0"},
        {"user": "U1", "text": "<@UBOT0001> what about INT8?", "ts": "6.0"},
        {"user": "U1", "text": "later message", "ts": "7.0"},
    ]
    history = thread_history(messages, "6.0", bot_user_id=BOT_USER_ID, bot_id=BOT_ID)
    assert history == [
        Message(role="user", content="Qwen2.5-72B & 32 users?"),
        Message(role="assistant", content="Use *gn7e* <4 GPUs>"),
    ]
    many = [{"user": "U1", "text": f"q{i}", "ts": f"{i}.0"} for i in range(1, 40)]
    kept = thread_history(many, "100.0", bot_user_id=BOT_USER_ID, bot_id=BOT_ID)
    assert len(kept) == HISTORY_LIMIT
    assert kept[-1].content == "q39"


def test_plain_text_removes_our_mention_and_unwraps_slack_markup() -> None:
    text = f"<@{BOT_USER_ID}> compare <https://x.test/a?b=1|this page> &amp; <https://y.test> for <@U999>"
    assert plain_text(text, BOT_USER_ID) == "compare this page & https://y.test for @U999"


def test_duplicate_event_and_slack_retries_get_one_answer(app: App, slack: FakeSlack) -> None:
    body = event_callback(mention(QUESTION_EN), event_id="EvDup")
    assert dispatch(app, body).status == 200
    assert dispatch(app, body, retry_num=1).status == 200  # Slack's retry after a slow ack
    assert dispatch(app, body).status == 200  # a replayed delivery
    slack.wait_for("chat.update")
    dispatch(app, event_callback(mention(QUESTION_ZH), event_id="EvOther"))
    slack.wait_for("chat.update", count=2)
    time.sleep(0.2)  # a duplicate answer, if any, would have started by now
    assert len(slack.calls_to("chat.postMessage")) == 2


def test_retry_of_an_event_never_seen_is_answered(app: App, slack: FakeSlack) -> None:
    # The first delivery never reached this process (e.g. it was restarting): the retry is the event.
    assert dispatch(app, event_callback(mention(QUESTION_EN), event_id="EvLost"), retry_num=1).status == 200
    slack.wait_for("chat.update")


def test_wrong_signature_and_old_timestamp_are_rejected(app: App, slack: FakeSlack) -> None:
    body = event_callback(mention(QUESTION_EN), event_id="EvForged")
    assert dispatch(app, body, secret="not-the-secret").status == 401
    assert dispatch(app, body, timestamp=int(time.time()) - 600).status == 401
    # A rejected request must not mark its event id as seen: the genuine one is still answered.
    assert dispatch(app, body).status == 200
    slack.wait_for("chat.update")
    assert len(slack.calls_to("chat.postMessage")) == 1


def test_fastapi_route_verifies_signatures_and_answers(slack: FakeSlack, assistant: Assistant, tmp_path: Path) -> None:
    from fastapi import FastAPI
    from starlette.testclient import TestClient

    api = FastAPI()
    mount_slack_http(api, slack_settings(tmp_path), assistant, client=web_client(slack))
    with TestClient(api) as http:
        raw = json.dumps(event_callback(mention(QUESTION_EN, ts="1700000020.000100"), event_id="EvHttp"))
        assert http.post("/slack/events", content=raw, headers=signed_headers(raw, secret="wrong")).status_code == 401
        stale = signed_headers(raw, timestamp=int(time.time()) - 600)
        assert http.post("/slack/events", content=raw, headers=stale).status_code == 401
        assert http.post("/slack/events", content=raw, headers=signed_headers(raw)).status_code == 200
        again = http.post("/slack/events", content=raw, headers=signed_headers(raw, retry_num=2))
        assert again.status_code == 200

        challenge = json.dumps({"token": "t", "challenge": "abc123", "type": "url_verification"})
        verified = http.post("/slack/events", content=challenge, headers=signed_headers(challenge))
        assert verified.status_code == 200
        assert "abc123" in verified.text

    [update] = slack.wait_for("chat.update")
    assert slack.calls_to("chat.postMessage")[0].params["thread_ts"] == "1700000020.000100"
    assert any(b.get("fields") for b in update.params["blocks"])
    time.sleep(0.2)
    assert len(slack.calls_to("chat.postMessage")) == 1


def test_mount_needs_the_signing_secret(assistant: Assistant, tmp_path: Path) -> None:
    from fastapi import FastAPI

    settings = Settings(_env_file=None, SLACK_BOT_TOKEN="xoxb-test")  # type: ignore[call-arg]
    with pytest.raises(SlackConfigError, match="SLACK_SIGNING_SECRET"):
        mount_slack_http(FastAPI(), settings, assistant)


def test_missing_tokens_are_configuration_errors(assistant: Assistant, tmp_path: Path) -> None:
    with pytest.raises(SlackConfigError, match="SLACK_BOT_TOKEN"):
        build_slack_app(slack_settings(tmp_path), assistant)
    with pytest.raises(SlackConfigError, match="SLACK_APP_TOKEN"):
        build_socket_mode_handler(slack_settings(tmp_path), assistant)


class _FailingAssistant:
    """Stands in for an assistant with a bug: the bot must apologise, never show the traceback."""

    def answer(self, question: str, history: list[Message]) -> Answer:
        raise RuntimeError("secret internal detail")


def test_assistant_failure_becomes_an_apology_in_the_users_language(
    slack: FakeSlack, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = build_slack_app(slack_settings(tmp_path), _FailingAssistant(), client=web_client(slack))  # type: ignore[arg-type]
    with caplog.at_level(logging.ERROR, logger="ui.slack_bot"):
        dispatch(app, event_callback(mention(QUESTION_ZH), event_id="EvBroken"))
        [update] = slack.wait_for("chat.update")
    assert update.params["text"] == APOLOGY["zh"]
    assert "blocks" not in update.params
    assert "secret internal detail" not in json.dumps([c.params for c in slack.calls], ensure_ascii=False)
    assert any(r.exc_info and "secret internal detail" in str(r.exc_info[1]) for r in caplog.records)


def test_refused_blocks_fall_back_to_text_and_errors_are_logged(
    app: App, slack: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    slack.rejects_blocks = True
    with caplog.at_level(logging.ERROR, logger="ui.slack_bot"):
        dispatch(app, event_callback(mention(QUESTION_EN), event_id="EvRefused"))
        first, second = slack.wait_for("chat.update", count=2)
    assert first.params["blocks"]
    assert second.params["blocks"] == [] and "Qwen2.5-7B" in second.params["text"]
    assert any("invalid_blocks" in r.getMessage() for r in caplog.records)


def test_failed_placeholder_is_logged_and_the_answer_still_posted(
    app: App, slack: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    slack.errors["chat.postMessage"] = "not_in_channel"
    with caplog.at_level(logging.ERROR, logger="ui.slack_bot"):
        dispatch(app, event_callback(mention(QUESTION_EN), event_id="EvNoPlaceholder"))
        calls = slack.wait_for("chat.postMessage", count=3)  # placeholder, answer with blocks, plain text
    assert calls[1].params["blocks"] and calls[1].params["thread_ts"] == "1700000000.000100"
    assert not slack.calls_to("chat.update")
    assert any("not_in_channel" in r.getMessage() for r in caplog.records)


def test_seen_events_expire_and_stay_bounded() -> None:
    now = [0.0]
    seen = SeenEvents(ttl_s=60, max_size=3, clock=lambda: now[0])
    assert seen.first_time("a") and not seen.first_time("a")
    now[0] = 61.0
    assert seen.first_time("a")  # forgotten after the TTL
    for name in "bcde":
        assert seen.first_time(name)
    assert len(seen) == 3
    assert seen.first_time("a")  # evicted as the oldest


def test_other_bots_mentioning_us_are_not_answered(app: App, slack: FakeSlack) -> None:
    bot_mention = mention(QUESTION_EN, bot_id="B0OTHER", ts="1700000030.000100")
    assert dispatch(app, event_callback(bot_mention, event_id="EvBot")).status == 200
    assert dispatch(app, event_callback(mention(QUESTION_ZH), event_id="EvHuman")).status == 200
    slack.wait_for("chat.update")
    time.sleep(0.2)
    assert len(slack.calls_to("chat.postMessage")) == 1  # the human's only


def test_event_ids_in_the_database_survive_a_restart(slack: FakeSlack, assistant: Assistant, tmp_path: Path) -> None:
    from ui.slack_bot import SharedSeenEvents
    from ui.store import Database

    def process() -> App:
        seen = SharedSeenEvents(Database.for_data_dir(tmp_path))
        return build_slack_app(slack_settings(tmp_path), assistant, client=web_client(slack), seen=seen)

    body = event_callback(mention(QUESTION_EN), event_id="EvRestart")
    before = process()
    assert dispatch(before, body).status == 200
    slack.wait_for("chat.update")
    after = process()  # a new process on the same database: Slack's retry arrives there
    assert dispatch(after, body, retry_num=1).status == 200
    time.sleep(0.3)
    assert len(slack.calls_to("chat.postMessage")) == 1


def test_a_non_integer_timestamp_is_a_400_not_a_500(slack: FakeSlack, assistant: Assistant, tmp_path: Path) -> None:
    from fastapi import FastAPI
    from starlette.testclient import TestClient

    api = FastAPI()
    mount_slack_http(api, slack_settings(tmp_path), assistant, client=web_client(slack))
    raw = json.dumps(event_callback(mention(QUESTION_EN), event_id="EvStamp"))
    with TestClient(api, raise_server_exceptions=False) as http:
        for stamp in ("1.5e9", "soon", "0x65", "-1", "9" * 40):
            headers = signed_headers(raw) | {"X-Slack-Request-Timestamp": stamp}
            assert http.post("/slack/events", content=raw, headers=headers).status_code == 400
