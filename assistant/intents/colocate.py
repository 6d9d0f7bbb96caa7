"""An LLM and a media model on one GPU together: "SDXL and Qwen2.5-7B on the same A10, does that fit?".

Answered with the sum both need against the card, then the vLLM share that leaves the other model room;
before, only the media model was judged and the answer was a "yes" for half the question.
"""

from __future__ import annotations

import re

from assistant import render
from assistant.messages import say
from assistant.run import Events, Reply, Run
from assistant.toolbox import evaluate_colocation
from assistant.understanding import Slots
from tools.colocation import Colocation

_SAME_GPU_RE = (
    r"\bsame\s+(?:gpu|card|box|instance|machine|node|[ahlt]\d{1,3})\b|\btogether\b|\balongside\b|\bco-?locat\w*|"
    r"\bshare\s+(?:a|one|the)\s+(?:gpu|card)\b|\bboth\s+on\s+(?:a|one|the\s+same)\b|\bon\s+one\s+(?:gpu|card)\b|"
    r"同一张|同一块|同一台|同一个\s*gpu|一起跑|同时跑|同时部署|共用|共享一张|放在一张|塞进一张|一张卡上同时"
)


def colocated(question: str, s: Slots) -> bool:
    """Whether the turn asks to run its LLM and its media model on one GPU together."""
    return bool(s.model and s.media and s.gpu and (s.gpus or 1) == 1 and re.search(_SAME_GPU_RE, question, re.I))


class ColocateIntent(Run):
    """Judges an LLM and a media model sharing one GPU."""

    def colocation(self, s: Slots) -> Events:
        assert s.media is not None and s.media.model is not None and s.model and s.gpu
        args = {"llm": s.model, "media_model": s.media.model, "gpu": s.gpu, "precision": s.precision,
                "quant": s.quant, "context": s.context, "concurrency": s.concurrency}  # fmt: skip
        both, err = yield from self.call("evaluate_colocation", evaluate_colocation, **args)
        if err or not isinstance(both, Colocation):
            return self.error(err or "")
        figures = {"gpu": both.gpu, "llm": both.llm, "media": both.media_model, "llm_gib": render.fig(both.llm_gib),
                   "media_gib": render.fig(both.media_gib), "need": render.fig(both.needed_gib),
                   "usable": render.fig(both.usable_gib), "short": render.fig(-both.headroom_gib),
                   "util": render.fig(both.vllm_gpu_memory_utilization)}  # fmt: skip
        lines = [say("colocate.yes" if both.fits else "colocate.no", self.lang, **figures)]
        lines.append(say("colocate.util" if both.fits else "colocate.fix", self.lang, **figures))
        return Reply(text="\n\n".join(lines), kind="estimate")
