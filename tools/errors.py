"""Errors a user (or the LLM) can fix by changing the input.

They carry a short, actionable message that lists valid values, and, where the problem is one the
tools know by name (an unknown name with suggestions, a value out of range, an unknown region), the
same statement as typed notes (:mod:`tools.notes`), so an answer in Chinese renders it from its code
instead of re-reading the English. Anything else is a bug and goes to the log, never to the chat.
"""

from __future__ import annotations

import re

from pydantic import ValidationError

from tools.notes import Note, NoteValue, note

# pydantic's range checks, by error type: the bound's name in the error's context and the note's code.
_BOUNDS = {
    "less_than_equal": ("le", "error.field.le"),
    "less_than": ("lt", "error.field.lt"),
    "greater_than_equal": ("ge", "error.field.ge"),
    "greater_than": ("gt", "error.field.gt"),
}
# pydantic's other common complaints, by error type: the note that states them without pydantic's English.
_KINDS = {
    "int_parsing": "error.field.whole",
    "int_from_float": "error.field.whole",
    "int_type": "error.field.whole",
    "float_parsing": "error.field.number",
    "float_type": "error.field.number",
    "missing": "error.field.missing",
    "extra_forbidden": "error.field.extra",
}


class ToolInputError(ValueError):
    """Bad input to a tool: unknown name, impossible size, contradictory options.

    ``notes`` states the problem as typed notes when every part of it is one the tools name; else it is
    empty and the message is the only statement.
    """

    def __init__(self, message: str, notes: list[Note] | None = None) -> None:
        super().__init__(message)
        self.notes = notes or []


class UnknownNameError(ToolInputError):
    """A model, GPU or instance name that is not in the registry."""

    def __init__(self, kind: str, name: str, suggestions: list[str]) -> None:
        self.kind = kind
        self.name = name
        self.suggestions = suggestions
        hint = f" Did you mean {', '.join(suggestions)}?" if suggestions else ""
        slug = kind.lower().replace(" ", "_")
        typed = (
            note(f"error.unknown_suggest.{slug}", name=name, suggestions=list(suggestions))
            if suggestions
            else note(f"error.unknown.{slug}", name=name)
        )
        super().__init__(f"Unknown {kind} '{name}'.{hint}", [typed])


def input_problem(code: str, **values: NoteValue) -> ToolInputError:
    """Return the input error the note ``code`` states; its English text is the message."""
    said = note(code, **values)
    return ToolInputError(said.text, [said])


def validation_message(exc: ValidationError) -> str:
    """One short clause per problem: ``field: what is wrong`` (pydantic lists the valid literals)."""
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {msg}" if where else msg)
    return "; ".join(parts)


def input_error(exc: ValidationError) -> ToolInputError:
    """Turn pydantic's report into a :class:`ToolInputError`: one line, typed where every problem is known."""
    notes = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"])
        ctx = err.get("ctx") or {}
        if err["type"] in _BOUNDS and where:
            key, code = _BOUNDS[err["type"]]
            notes.append(note(code, field=where, bound=str(ctx.get(key))))
        elif err["type"] == "unknown_region":
            notes.append(note("error.unknown_region", region=str(ctx["region"]), known=list(ctx["ids"])))
        elif err["type"] == "literal_error" and where:
            allowed = re.findall(r"'([^']*)'", str(ctx.get("expected")))  # "'bf16', 'fp16' or 'fp8'"
            notes.append(note("error.field.literal", field=where, expected=allowed))
        elif err["type"] in _KINDS and where:
            notes.append(note(_KINDS[err["type"]], field=where))
        else:
            return ToolInputError(validation_message(exc))
    return ToolInputError(validation_message(exc), notes)
