"""A speed question answered first: "what's the throughput of X on one A10?", "每秒能出多少 token?".

When the question asks how fast (throughput, tokens per second, 吞吐, 速度) and a plan was made, the plan's top
option's decode speed (tool figures) leads the answer, before the fit verdict and the table. A pure function of
the question and the recorded tool calls; the text lives in the message catalogue (``speed.*``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assistant import render
from assistant.answer import Language, ToolCall
from assistant.messages import say
from assistant.workload_numbers import token_cost_asked

_ASKS_SPEED = re.compile(
    r"throughput|tokens?\s*(?:per\s+sec(?:ond)?|/\s*s)\b|tok/s|how\s+fast|\bspeed\b|decode\s+rate|"
    r"吞吐|速度|每秒(?:能)?(?:出|生成|输出)?(?:多少|几)\s*(?:个)?\s*(?:token|字)|多快",
    re.IGNORECASE,
)


def asks_speed(question: str) -> bool:
    """Tell whether the question asks how fast a deployment generates (not tokens for the money: a cost)."""
    return bool(_ASKS_SPEED.search(question)) and not token_cost_asked(question)


def speed_line(question: str, calls: Sequence[ToolCall], lang: Language) -> str | None:
    """Return the top planned option's decode speed as a first line, or None (not asked, or no plan figure)."""
    if not asks_speed(question):
        return None
    for call in calls:
        if call.name != "plan_gpu_deployment" or not isinstance(call.result, dict):
            continue
        options = call.result.get("options") or []
        top = options[0] if options else None
        if top and top.get("decode_tokens_per_s") and top.get("decode_tokens_per_s_per_stream"):
            return say(
                "speed.lead",
                lang,
                instance=top["instance_type"],
                total=render.fig(top["decode_tokens_per_s"]),
                stream=render.fig(top["decode_tokens_per_s_per_stream"]),
            )
    return None
