"""The ``--engine`` override shared by every command that answers questions (ask, ui, serve, slack)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assistant.settings import Settings


def add_engine_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--engine auto|llm|offline``."""
    parser.add_argument(
        "--engine",
        choices=("auto", "llm", "offline"),
        help="override GPU_ADVISOR_ENGINE (auto: the LLM when DASHSCOPE_API_KEY or OPENAI_BASE_URL is set)",
    )


def settings_from_args(args: argparse.Namespace) -> Settings:
    """Build Settings from the environment, letting the command line's ``--engine`` take precedence."""
    from assistant.settings import Settings

    settings = Settings()
    if getattr(args, "engine", None):
        settings = settings.model_copy(update={"engine": args.engine})
    return settings
