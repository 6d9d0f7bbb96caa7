"""The model a serving request stands for when it names a use or a model family but no model.

"We want to self-host an LLM for our 200 employees", "need something for a RAG demo next week" and "我想部署个
deepseek 给公司用" ask what to rent for a purpose; the user has no model in mind yet (or only its brand). Asking
"which model?" answers nothing, so the plan is sized for a stated default and the answer says it assumed one.
A bare request with no use ("部署一个大模型要几张卡？20 并发", "help me pick a GPU") still asks which model: the
user has one in mind and the count depends on it entirely.
"""

from __future__ import annotations

import re

from assistant.slots import Slots
from tools import vocabulary
from tools.errors import UnknownNameError
from tools.models import resolve_model

# A general chat model that fits one 24 GB card in BF16: the cheapest sensible start, which the answer names
# as an assumption so that the user can correct it.
DEFAULT_SERVING_MODEL = "Qwen2.5-7B-Instruct"

# What the deployment is for: who uses it or what it does. Head-counts and rates are read elsewhere.
_USE_RE = (
    r"\b(?:employees?|staff|colleagues|co-?workers|team(?:mates)?|company|companies|org(?:ani[sz]ation)?|"
    r"internal(?:ly)?|in-house|customers?|clients?|students|agents|users|chat\s?bot|assistant|copilot|rag|"
    r"knowledge\s+base|q&a|helpdesk|help\s+desk|support\s+(?:bot|team|desk)|demo|poc|proof\s+of\s+concept|"
    r"prototype|self[\s\-]?host(?:ed|ing)?|on[\s\-]?prem\w*|hackathon|workshop|course|class|side[\s\-]project|"
    r"hobby|personal|playground)\b|"
    r"员工|同事|团队|公司|企业|单位|内部|部门|用户|客户|客服|知识库|问答|助手|演示|原型|私有化|自建|本地部署|给.{0,8}用|"
    r"黑客松|比赛|课程|自用|个人|律所|医院|学校|实验室"
)


def unnamed_model(slots: Slots, text: str) -> str | None:
    """Return the model a serving request with a use (or a model family) but no model stands for, or None.

    Args:
        slots: The turn as read so far (intent set).
        text: The turn's normalised text.
    """
    if slots.intent != "plan" or slots.model or slots.model_error or slots.size_b or slots.architecture:
        return None
    if slots.task not in (None, "inference") or slots.task_hint or not (slots.serving or slots.task):
        return None
    if brand := _family_representative(text):
        return brand  # "部署个 deepseek": that family's model, named as assumed
    return DEFAULT_SERVING_MODEL if re.search(_USE_RE, text, re.IGNORECASE) else None


def _family_representative(text: str) -> str | None:
    """Return the registry's first suggestion for a model family named without a size ("deepseek")."""
    for m in vocabulary.model_family_pattern().finditer(text):
        try:
            return resolve_model(m.group(1)).name
        except UnknownNameError as exc:
            if exc.suggestions:
                return exc.suggestions[0]
    return None
