"""The Slack face of the assistant: answers @mentions and direct messages in their thread.

One Bolt ``App`` serves both transports: Socket Mode (``build_socket_mode_handler``; an outbound
websocket, no public URL, used by ``gpu-advisor slack``) and the HTTP Events API (``mount_slack_http``
adds ``POST /slack/events`` to the web server; Bolt checks the request signature). Bolt acknowledges an
event at once and runs the listener in a worker thread, so Slack's 3-second deadline holds however long
the answer takes. Each reply starts as a "working on it" message in the thread that is then updated
with the answer as Block Kit (``ui.render_slack``). Slack re-sends events it thinks were missed; the
bot records each ``event_id`` once (in the shared database when the web server runs it, so a retry that
reaches another replica, or arrives after a restart, is not answered again) and answers it only then.
Messages from bots, other bots' mentions of ours included, are never answered: two bots would loop.
"""

from __future__ import annotations

import html
import logging
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from slack_bolt import App, BoltContext, BoltResponse
from slack_bolt.request import BoltRequest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from sqlalchemy import delete, insert
from sqlalchemy.exc import IntegrityError

from assistant.answer import Language, Message
from assistant.assistant import MAX_QUESTION_CHARS
from assistant.engine import answer_language
from ui.input_caps import clean_text
from ui.render_slack import Block, to_slack_blocks, to_slack_text
from ui.store import Database
from ui.store.schema import slack_events

if TYPE_CHECKING:
    from fastapi import FastAPI
    from slack_bolt.adapter.socket_mode import SocketModeHandler
    from starlette.requests import Request
    from starlette.responses import Response

    from assistant.assistant import Assistant
    from assistant.settings import Settings

log = logging.getLogger(__name__)

SLACK_EVENTS_PATH = "/slack/events"
HISTORY_LIMIT = 20
"""Earlier thread messages passed to the assistant as history, newest kept."""
_REPLIES_PAGE = 200

THINKING: dict[Language, str] = {
    "en": ":hourglass_flowing_sand: Working on it…",
    "zh": ":hourglass_flowing_sand: 正在计算…",
}
APOLOGY: dict[Language, str] = {
    "en": "Sorry, something went wrong while answering; the error was logged. Please try again in a moment.",
    "zh": "抱歉，回答时出错了，错误已记录。请稍后再试。",
}
_SLACK_LINK = re.compile(r"<([^<>|]+)\|([^<>]+)>|<([^<>]+)>")


class SlackConfigError(Exception):
    """The Slack bot cannot start with these settings; the message names the variable to set."""


class SeenEvents:
    """Event ids seen recently: bounded in size and age, safe across listener threads."""

    def __init__(self, ttl_s: float = 600.0, max_size: int = 2048, clock: Callable[[], float] = time.monotonic) -> None:
        """Remember up to ``max_size`` ids for ``ttl_s`` seconds each.

        Args:
            ttl_s: How long an id is remembered, seconds. Slack retries within about 5 minutes.
            max_size: Most ids kept; the oldest are forgotten first.
            clock: Monotonic time source in seconds (tests pass a fake one).
        """
        self._ttl_s = ttl_s
        self._max_size = max_size
        self._clock = clock
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def first_time(self, event_id: str) -> bool:
        """Record ``event_id``; True when it was not seen within the TTL."""
        now = self._clock()
        with self._lock:
            while self._seen and next(iter(self._seen.values())) <= now - self._ttl_s:
                self._seen.popitem(last=False)
            if event_id in self._seen:
                return False
            while len(self._seen) >= self._max_size:
                self._seen.popitem(last=False)
            self._seen[event_id] = now
            return True

    def __len__(self) -> int:
        """Count the ids remembered now."""
        return len(self._seen)


class SharedSeenEvents:
    """Event ids recorded in the shared database: the first replica to insert an id answers it.

    The table's primary key makes the insert-once atomic on every database; ids older than ``ttl_s``
    are pruned now and then.
    """

    def __init__(self, db: Database, *, ttl_s: float = 24 * 3600.0, prune_every: int = 200) -> None:
        """Record ids in ``db``; prune ids older than ``ttl_s`` seconds every ``prune_every`` inserts."""
        self._db = db
        self._ttl_s = ttl_s
        self._prune_every = prune_every
        self._inserts = 0

    def first_time(self, event_id: str) -> bool:
        """Record ``event_id``; True only for the one call, on any replica, that inserted it."""
        now = time.time()
        try:
            self._db.write(lambda conn: conn.execute(insert(slack_events).values(event_id=event_id[:128], seen_at=now)))
        except IntegrityError:
            return False
        self._inserts += 1
        if self._inserts % self._prune_every == 0:
            old = delete(slack_events).where(slack_events.c.seen_at < now - self._ttl_s)
            self._db.write(lambda conn: conn.execute(old))
        return True


class SlackBot:
    """Turns Slack events into questions for the assistant and posts its answers in the thread."""

    def __init__(self, assistant: Assistant, *, seen: SeenEvents | SharedSeenEvents | None = None) -> None:
        """Wrap an assistant.

        Args:
            assistant: Anything with ``answer(question, history) -> Answer``.
            seen: The duplicate filter; a fresh one by default.
        """
        self._assistant = assistant
        self.seen = seen or SeenEvents()

    def register(self, app: App) -> None:
        """Add the duplicate filter and the ``app_mention`` and ``message`` listeners to ``app``."""
        app.middleware(self._skip_duplicates)
        app.event("app_mention")(self._on_mention)
        app.event("message")(self._on_message)

    def _skip_duplicates(
        self, body: dict[str, Any], request: BoltRequest, next_: Callable[[], None]
    ) -> BoltResponse | None:
        # Runs after Bolt's signature check, so forged requests never mark an id as seen.
        event_id = body.get("event_id")
        if isinstance(event_id, str) and not self.seen.first_time(event_id):
            retry = request.headers.get("x-slack-retry-num", ["-"])[0]
            log.info("skipping duplicate Slack event %s (retry %s)", event_id, retry)
            return BoltResponse(status=200, body="")
        next_()
        return None

    def _on_mention(self, event: dict[str, Any], client: WebClient, context: BoltContext) -> None:
        if event.get("bot_id") or event.get("subtype") == "bot_message":  # another bot mentioning us
            return
        self.reply(event, client, context)

    def _on_message(self, event: dict[str, Any], client: WebClient, context: BoltContext) -> None:
        # Channel messages arrive as app_mention; here only plain, new, human DMs are answered.
        if event.get("channel_type") != "im" or event.get("subtype") or event.get("bot_id"):
            return
        if "edited" in event:
            return
        self.reply(event, client, context)

    def reply(self, event: Mapping[str, Any], client: WebClient, context: BoltContext) -> None:
        """Answer one mention or DM in its thread; failures become a short apology, never a traceback."""
        channel, ts = event["channel"], event["ts"]
        thread_ts = event.get("thread_ts") or ts
        question = clean_text(plain_text(event.get("text", ""), context.bot_user_id))[:MAX_QUESTION_CHARS + 1]
        history: list[Message] = []
        if thread_ts != ts:
            history = self._history(client, channel, thread_ts, ts, context)
        lang = answer_language(question, history)
        placeholder = self._post(client, channel, thread_ts, THINKING[lang])
        try:
            answer = self._assistant.answer(question, history)
            text, blocks = to_slack_text(answer), to_slack_blocks(answer)
        except Exception:  # noqa: BLE001 - the user gets an apology; the traceback goes to the log
            log.exception("the assistant failed on a Slack question")
            text, blocks = APOLOGY[lang], None
        self._deliver(client, channel, thread_ts, placeholder, text, blocks)

    def _history(
        self, client: WebClient, channel: str, thread_ts: str, before_ts: str, context: BoltContext
    ) -> list[Message]:
        try:
            response = client.conversations_replies(channel=channel, ts=thread_ts, limit=_REPLIES_PAGE)
        except SlackApiError as exc:
            log.warning("conversations.replies failed (%s); answering without the thread", _error(exc))
            return []
        messages = response.get("messages") or []
        return thread_history(messages, before_ts, bot_user_id=context.bot_user_id, bot_id=context.bot_id)

    def _post(self, client: WebClient, channel: str, thread_ts: str, text: str) -> str | None:
        try:
            return client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=text).get("ts")
        except SlackApiError as exc:
            log.error("chat.postMessage failed in %s: %s", channel, _error(exc))
            return None

    def _deliver(
        self,
        client: WebClient,
        channel: str,
        thread_ts: str,
        placeholder: str | None,
        text: str,
        blocks: list[Block] | None,
    ) -> None:
        extra: dict[str, Any] = {"blocks": blocks} if blocks else {}
        try:
            if placeholder is None:
                client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=text, **extra)
            else:
                client.chat_update(channel=channel, ts=placeholder, text=text, **extra)
            return
        except SlackApiError as exc:
            log.error("posting the answer in %s failed: %s", channel, _error(exc))
            if not blocks:
                return
        # Slack refused the blocks (invalid_blocks, msg_too_long ...): the text alone still answers.
        try:
            if placeholder is None:
                client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=text)
            else:
                client.chat_update(channel=channel, ts=placeholder, text=text, blocks=[])
        except SlackApiError as exc:
            log.error("posting the plain answer in %s failed: %s", channel, _error(exc))


def plain_text(text: str, bot_user_id: str | None) -> str:
    """Return the user's words from Slack mrkdwn: our mention removed, links and entities unwrapped.

    Args:
        text: The ``text`` of a Slack message.
        bot_user_id: Our bot's user id (``U…``); its ``<@U…>`` mentions are removed.
    """
    if bot_user_id:
        text = re.sub(rf"<@{re.escape(bot_user_id)}(?:\|[^>]*)?>", " ", text)
    text = _SLACK_LINK.sub(lambda m: m.group(2) or m.group(3) or "", text)
    return " ".join(html.unescape(text).split())


def thread_history(
    messages: list[Mapping[str, Any]], before_ts: str, *, bot_user_id: str | None, bot_id: str | None
) -> list[Message]:
    """Convert a thread (``conversations.replies`` messages, oldest first) into the assistant's history.

    Our bot's replies become assistant turns; people's messages become user turns. Messages at or after
    ``before_ts`` (the question itself), other bots, system messages and our unfinished "working on it"
    placeholders are left out. Only the last ``HISTORY_LIMIT`` turns are kept.
    """
    turns: list[Message] = []
    for msg in messages:
        if float(msg.get("ts", "0")) >= float(before_ts):
            continue
        ours = bool(bot_user_id and msg.get("user") == bot_user_id) or bool(bot_id and msg.get("bot_id") == bot_id)
        if ours:
            text = html.unescape(msg.get("text", "")).strip()
            if text and text not in THINKING.values():
                turns.append(Message(role="assistant", content=text))
        elif not msg.get("subtype") and not msg.get("bot_id"):
            text = plain_text(msg.get("text", ""), bot_user_id)
            if text:
                turns.append(Message(role="user", content=text))
    return turns[-HISTORY_LIMIT:]


def _error(exc: SlackApiError) -> str:
    try:
        return str(exc.response["error"])
    except (KeyError, TypeError):
        return str(exc)


# ------------------------------------------------------------------------------------------ wiring


def build_slack_app(
    settings: Settings,
    assistant: Assistant,
    *,
    client: WebClient | None = None,
    seen: SeenEvents | SharedSeenEvents | None = None,
) -> App:
    """Build the Bolt app that answers mentions and DMs with ``assistant``.

    Bolt calls ``auth.test`` once here, so a bad token fails at start-up, not on the first question.

    Args:
        settings: Application settings (``SLACK_BOT_TOKEN``; ``SLACK_SIGNING_SECRET`` for HTTP).
        assistant: The assistant that answers.
        client: Web API client to use instead of one built from ``SLACK_BOT_TOKEN`` (tests point it at a
            local fake).
        seen: Where answered event ids are recorded; in this process's memory by default.

    Raises:
        SlackConfigError: Neither ``client`` nor ``SLACK_BOT_TOKEN`` is given.
        slack_bolt.error.BoltError: Slack rejected the token.
    """
    if client is None:
        if settings.slack_bot_token is None:
            raise SlackConfigError("set SLACK_BOT_TOKEN (the bot token, xoxb-…) to run the Slack bot")
        client = WebClient(token=settings.slack_bot_token.get_secret_value())
    # Without a signing secret (Socket Mode needs none) a random one makes every HTTP request fail the
    # check; an empty secret would let anyone sign requests.
    secret = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else ""
    app = App(client=client, signing_secret=secret or secrets.token_hex(32), name="gpu-advisor")
    SlackBot(assistant, seen=seen).register(app)
    return app


def mount_slack_http(
    app: FastAPI,
    settings: Settings,
    assistant: Assistant,
    *,
    client: WebClient | None = None,
    seen: SeenEvents | SharedSeenEvents | None = None,
) -> None:
    """Serve the Slack Events API at ``POST /slack/events`` on ``app``.

    Args:
        app: The FastAPI application of the web server.
        settings: Application settings; needs ``SLACK_BOT_TOKEN`` and ``SLACK_SIGNING_SECRET``.
        assistant: The assistant that answers.
        client: Web API client to use instead of one built from the token (tests).
        seen: Where answered event ids are recorded (:class:`SharedSeenEvents` for replicas).

    Raises:
        SlackConfigError: ``SLACK_SIGNING_SECRET`` (or the token) is missing.
    """
    from slack_bolt.adapter.fastapi import SlackRequestHandler
    from starlette.responses import JSONResponse

    if settings.slack_signing_secret is None:
        raise SlackConfigError("set SLACK_SIGNING_SECRET (Basic Information page of the Slack app) for HTTP events")
    handler = SlackRequestHandler(build_slack_app(settings, assistant, client=client, seen=seen))

    async def slack_events(request: Request) -> Response:
        # Bolt turns a malformed timestamp into a 500; it is the client's error.
        stamp = request.headers.get("x-slack-request-timestamp", "")
        if stamp and not (stamp.isascii() and stamp.isdigit() and len(stamp) <= 12):
            body = {"error": {"type": "invalid_request", "message": "bad X-Slack-Request-Timestamp", "code": 400}}
            return JSONResponse(body, status_code=400)
        return await handler.handle(request)

    # A plain Starlette route: the handler takes the raw request (the signature covers the exact bytes).
    app.add_route(SLACK_EVENTS_PATH, slack_events, methods=["POST"], include_in_schema=False)


def build_socket_mode_handler(
    settings: Settings,
    assistant: Assistant,
    *,
    client: WebClient | None = None,
    seen: SeenEvents | SharedSeenEvents | None = None,
) -> SocketModeHandler:
    """Build the Socket Mode connection for the bot; call ``connect()`` (or ``start()``) to go online.

    Args:
        settings: Application settings; needs ``SLACK_BOT_TOKEN`` and ``SLACK_APP_TOKEN`` (xapp-…).
        assistant: The assistant that answers.
        client: Web API client to use instead of one built from the token (tests).
        seen: Where answered event ids are recorded; in this process's memory by default.

    Raises:
        SlackConfigError: ``SLACK_APP_TOKEN`` (or the bot token) is missing.
    """
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    if settings.slack_app_token is None:
        raise SlackConfigError(
            "set SLACK_APP_TOKEN (an app-level token, xapp-…, with the connections:write scope) for Socket Mode"
        )
    app = build_slack_app(settings, assistant, client=client, seen=seen)
    return SocketModeHandler(app, app_token=settings.slack_app_token.get_secret_value())
