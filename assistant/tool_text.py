"""The one tool message still read as text: an unknown model name that reached the engine as a string.

Tools state their results and input errors as typed notes (:mod:`tools.notes`), rendered in the answer's
language from their codes; :meth:`assistant.run.Run.in_language` renders a failed tool call that way. The
understanding, though, records a model name it could not resolve as the error's message
(``Slots.model_error``, kept across turns), not as the exception, so an answer about that name gets only
the English text. This renders that one message, ``Unknown model 'X'. Did you mean A, B?``, in Chinese
until the understanding keeps the typed error.
"""

from __future__ import annotations

import re

_UNKNOWN = re.compile(r"Unknown model '(.+)'\.(?: Did you mean (.+)\?)?")


def error_zh(message: str) -> str | None:
    """Return an unknown-model message in Chinese, from the same catalogue as the typed notes; else None."""
    if m := _UNKNOWN.fullmatch(message.strip()):
        from tools.notes import render_code

        name, suggestions = m.groups()
        if suggestions:
            listed = suggestions.split(", ")
            return render_code("error.unknown_suggest.model", "zh", {"name": name, "suggestions": listed})
        return render_code("error.unknown.model", "zh", {"name": name})
    return None
