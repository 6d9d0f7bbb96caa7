"""``gpu-advisor slack``: run the Slack bot over Socket Mode (an outbound websocket; no public URL).

For the HTTP Events API instead, set ``SLACK_SIGNING_SECRET`` and run ``gpu-advisor web``: it serves
``POST /slack/events``. Heavy imports (Bolt, LangChain, Chroma) happen inside the handler.
"""

from __future__ import annotations

import argparse
import sys
import threading

from ui.commands.engine_option import add_engine_option, settings_from_args


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``slack`` subcommand."""
    p = subparsers.add_parser(
        "slack",
        help="run the Slack bot (Socket Mode; needs SLACK_BOT_TOKEN and SLACK_APP_TOKEN)",
        description="Answer @mentions and direct messages in Slack threads. Connects out over Socket Mode, "
        "so no public URL is needed. See docs/slack.md for the Slack app set-up.",
    )
    add_engine_option(p)
    p.set_defaults(handler=run_slack)


def run_slack(args: argparse.Namespace) -> int:
    """Run ``gpu-advisor slack`` until interrupted."""
    from slack_bolt.error import BoltError
    from slack_sdk.errors import SlackApiError, SlackClientError

    from assistant.assistant import build_assistant
    from assistant.providers import ConfigurationError
    from ui.cli import CommandError
    from ui.slack_bot import SharedSeenEvents, SlackConfigError, build_socket_mode_handler
    from ui.store import Database, StoreError

    settings = settings_from_args(args)
    if settings.slack_bot_token is None or settings.slack_app_token is None:
        missing = [
            n
            for n, v in (("SLACK_BOT_TOKEN", settings.slack_bot_token), ("SLACK_APP_TOKEN", settings.slack_app_token))
            if v is None
        ]
        raise CommandError(f"set {' and '.join(missing)} to run the Slack bot (see docs/slack.md)")
    url = settings.database_url.get_secret_value() if settings.database_url else None
    db = Database.for_data_dir(settings.data_dir, url)
    try:
        db.migrate()
        handler = build_socket_mode_handler(settings, build_assistant(settings), seen=SharedSeenEvents(db))
    except (ConfigurationError, SlackConfigError, StoreError) as exc:
        raise CommandError(str(exc)) from None
    except BoltError as exc:  # auth.test refused the bot token
        raise CommandError(f"Slack rejected SLACK_BOT_TOKEN: {exc}") from None
    except (OSError, SlackClientError) as exc:  # no network, DNS, TLS: Slack cannot be reached
        raise CommandError(f"cannot reach Slack ({type(exc).__name__}: {exc}); check the network") from None
    try:
        try:
            handler.connect()
        except SlackApiError as exc:  # apps.connections.open refused the app-level token
            raise CommandError(f"Slack refused SLACK_APP_TOKEN: {exc.response.get('error')}") from None
        print("gpu-advisor Slack bot connected (Socket Mode); Ctrl+C to stop", file=sys.stderr)
        threading.Event().wait()
    finally:
        handler.close()
    return 0
