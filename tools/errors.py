"""Errors a user (or the LLM) can fix by changing the input.

They carry a short, actionable message that lists valid values. Anything else is a bug and goes to the
log, never to the chat.
"""

from __future__ import annotations

from pydantic import ValidationError


class ToolInputError(ValueError):
    """Bad input to a tool: unknown name, impossible size, contradictory options."""


class UnknownNameError(ToolInputError):
    """A model, GPU or instance name that is not in the registry."""

    def __init__(self, kind: str, name: str, suggestions: list[str]) -> None:
        self.kind = kind
        self.name = name
        self.suggestions = suggestions
        hint = f" Did you mean {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(f"Unknown {kind} '{name}'.{hint}")


def validation_message(exc: ValidationError) -> str:
    """One short clause per problem: ``field: what is wrong`` (pydantic lists the valid literals)."""
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {msg}" if where else msg)
    return "; ".join(parts)
