"""Model sizes weighed against each other: "7B 和 14B 在一张 A10 上哪个快", "Qwen2.5-7B vs 14B for 8 users".

A bare size stands for a model of that size (the representative the rest of the engine uses for "a 70B model");
next to a named model it keeps that model's family ("Qwen2.5-7B vs 14B" is Qwen2.5-14B). Each size becomes a
side of the comparison, so both are evaluated with the same workload instead of the second being dropped.
"""

from __future__ import annotations

import re

from assistant.conversation import representative_model
from tools.errors import UnknownNameError
from tools.models import resolve_model

_SIZE = r"(\d+(?:\.\d+)?)\s*b\b(?!\s*(?:tokens?|training|params?\s+tokens?))"
# two sizes joined by the words that separate sides: "7B 和 14B", "7B or 14B", "Qwen2.5-7B vs 14B"
_PAIR_RE = re.compile(
    rf"(?<![\w.]){_SIZE}\s*(?:和|与|跟|还是|或者|或|对比|比|\bvs\.?|\bversus|\bor|\band)\s*(?:the\s+|a\s+)?{_SIZE}",
    re.IGNORECASE,
)


def sized_sides(question: str, models: list[str]) -> list[str]:
    """Return the models two sizes in ``question`` stand for, in order ([] when no two sizes are weighed)."""
    m = _PAIR_RE.search(question)
    if m is None or len(models) >= 2 or m.group(1) == m.group(2):
        return []
    family = _family(models[0]) if models else None
    sides = [_model_of(float(size), family) for size in (m.group(1), m.group(2))]
    return [s for s in sides if s] if all(sides) and sides[0] != sides[1] else []


def _family(model: str) -> str | None:
    try:
        return resolve_model(model).family
    except UnknownNameError:
        return None


def _model_of(size: float, family: str | None) -> str | None:
    """Return the family's model of that size when it has one, else the representative model of the size."""
    if family:
        try:
            return resolve_model(f"{family} {size:g}b").name
        except UnknownNameError:
            pass
    return representative_model(size)
