"""The model a serving request stands for when it names a use or a model family but no model.

"We want to self-host an LLM for our 200 employees", "need something for a RAG demo next week" and "我想部署个
deepseek 给公司用" ask what to rent for a purpose; the user has no model in mind yet (or only its brand). Asking
"which model?" answers nothing, so the plan is sized for a stated default and the answer says it assumed one.
A bare request with no use ("部署一个大模型要几张卡？20 并发", "help me pick a GPU") still asks which model: the
user has one in mind and the count depends on it entirely.
"""

from __future__ import annotations

from assistant.intent_rules import asks_sizing, open_use
from assistant.slots import Slots
from tools import vocabulary
from tools.errors import UnknownNameError
from tools.models import resolve_model

# A general chat model that fits one 24 GB card in BF16: the cheapest sensible start, which the answer names
# as an assumption so that the user can correct it.
DEFAULT_SERVING_MODEL = "Qwen2.5-7B-Instruct"


def unnamed_model(slots: Slots, text: str) -> str | None:
    """Return the model a serving request with a use (or a model family) but no model stands for, or None.

    Args:
        slots: The turn as read so far (intent set).
        text: The turn's normalised text.
    """
    if slots.intent != "plan" or slots.model or slots.model_error or slots.size_b or slots.architecture:
        return None
    if slots.task not in (None, "inference") or slots.task_hint:
        return None
    if not (slots.serving or slots.task or asks_sizing(text)):  # "搭个助手给全公司用，租啥": hardware asked for a use
        return None
    if brand := _family_representative(text):
        return brand  # "部署个 deepseek": that family's model, named as assumed
    return DEFAULT_SERVING_MODEL if open_use(text) else None


def _family_representative(text: str) -> str | None:
    """Return the registry's first suggestion for a model family named without a size ("deepseek")."""
    for m in vocabulary.model_family_pattern().finditer(text):
        try:
            return resolve_model(m.group(1)).name
        except UnknownNameError as exc:
            if exc.suggestions:
                return exc.suggestions[0]
    return None
