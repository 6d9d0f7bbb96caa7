"""A speed question answered first: "what's the throughput of X on one A10?", "每秒能出多少 token?", "首 token 多久?".

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


# "what's the time to first token", "首 token 延迟多少", "how long until the first token": the prefill's answer
_ASKS_TTFT = re.compile(
    r"ttft|time\s+to\s+(?:the\s+)?first\s+token|first[-\s](?:(?:response|output)\s+)?token|"
    r"首\s*(?:个)?\s*(?:token|字|包)|第一个\s*(?:token|字)",
    re.IGNORECASE,
)


# "how long until a 500-token answer is done", "end-to-end latency", "一个回答生成完要多久": the whole request
_ASKS_LATENCY = re.compile(
    r"how\s+long\s+(?:until|till|does|will|would|to|for)\b[^?!\n]{0,60}\b(?:answer|response|reply|request|"
    r"generat|complet|finish|done)|end[-\s]to[-\s]end\s+latency|(?:total|full)\s+(?:response|request)\s+time|"
    r"(?:回答|回复|请求|答案|生成)[^，。？?\n]{0,12}(?:多久|多长时间|几秒)|(?:多久|多长时间)[^，。？?\n]{0,6}(?:生成完|回答完|答完|出完)",
    re.IGNORECASE,
)


def asks_speed(question: str) -> bool:
    """Tell whether the question asks how fast a deployment generates (not tokens for the money: a cost)."""
    return bool(_ASKS_SPEED.search(question)) and not token_cost_asked(question)


def speed_line(
    question: str, calls: Sequence[ToolCall], lang: Language, named: tuple[int | None, Sequence[str]] = (None, ())
) -> str | None:
    """Return the top planned option's decode speed as a first line, or None (not asked, or no plan figure).

    ``named``: the GPU count and instance types the user named; an option of exactly that hardware leads.
    """
    ttft, whole = bool(_ASKS_TTFT.search(question)), bool(_ASKS_LATENCY.search(question))
    if not (asks_speed(question) or ttft or whole):
        return None
    gpus, types = named
    for call in calls:
        if call.name != "plan_gpu_deployment" or not isinstance(call.result, dict):
            continue
        options = call.result.get("options") or []
        same = [o for o in options if o["instance_type"] in types or (gpus and o["total_gpus"] == gpus)]
        top = (same or options or [None])[0]
        if top and whole and top.get("request_latency_s") is not None:
            return say("speed.latency", lang, instance=top["instance_type"],
                       seconds=render.fig(top["request_latency_s"]), ttft=render.fig(top["time_to_first_token_s"]),
                       stream=render.fig(top.get("decode_tokens_per_s_per_stream")))  # fmt: skip
        if top and ttft and top.get("time_to_first_token_s") is not None:
            return say("speed.ttft", lang, instance=top["instance_type"], ttft=render.fig(top["time_to_first_token_s"]),
                       stream=render.fig(top.get("decode_tokens_per_s_per_stream")))  # fmt: skip
        if top and top.get("decode_tokens_per_s") and top.get("decode_tokens_per_s_per_stream"):
            return say(
                "speed.lead",
                lang,
                instance=top["instance_type"],
                total=render.fig(top["decode_tokens_per_s"]),
                stream=render.fig(top["decode_tokens_per_s_per_stream"]),
            )
    return None
