"""An LLM and a media model on one GPU together: "SDXL and Qwen2.5-7B on the same A10, does that fit?".

Answered with the sum both need against the card, then the vLLM share that leaves the other model room;
before, only the media model was judged and the answer was a "yes" for half the question.
"""

from __future__ import annotations

import re

from assistant import render
from assistant.messages import say
from assistant.run import Events, Reply, Run
from assistant.toolbox import evaluate_colocation, evaluate_models_on_one_gpu
from assistant.understanding import Slots
from tools.colocation import Colocation, SharedGpu

_SAME_GPU_RE = (
    r"\bsame\s+(?:gpu|card|box|instance|machine|node|[ahlt]\d{1,3})\b|\btogether\b|\balongside\b|\bco-?locat\w*|"
    r"\bshare\s+(?:a|one|the)\s+(?:gpu|card)\b|\bboth\s+on\s+(?:a|one|the\s+same)\b|\bon\s+one\s+(?:gpu|card)\b|"
    r"同一张|同一块|同一台|同一个\s*gpu|一起跑|同时跑|同时部署|共用|共享一张|放在一张|塞进一张|一张卡上同时"
)


# Words that weigh models against each other, not run them together (shared with the fleet's reading)
VERSUS_RE = r"\bvs\.?\b|versus|\bor\b|which|better|faster|cheaper|compare|还是|哪个|对比|比较|区别|更快|更便宜|划算"
# "side by side on a single L20", "一张 A100 上同时跑 7B 和 14B", "together on one A100": several models at once on
# the one GPU named; "7B or 14B on one A10, which is faster?" weighs them instead (a comparison)
_TOGETHER_RE = (
    r"\bsame\s+(?:gpu|card|box|instance|machine|node|[ahlt]\d{1,3}\w*)\b|\btogether\b|\bside\s+by\s+side\b|"
    r"\balongside\b|\bco-?locat\w*|\bat\s+the\s+same\s+time\b|\bboth\s+on\b|"
    r"\bshare\s+(?:a|one|the)\s+(?:gpu|card)\b|同一张|同一块|同时|一起|共用|共享一张"
)


def on_one_gpu(question: str, s: Slots) -> bool:
    """Whether the turn asks to run two or more models (LLMs, or an LLM and a media model) on one named GPU."""
    named = len(s.models) + (1 if s.media and s.media.model else 0)
    together = re.search(_TOGETHER_RE, question, re.I) and not re.search(VERSUS_RE, question, re.I)
    return bool(named >= 2 and s.gpu and (s.gpus or 1) == 1 and together)


def colocated(question: str, s: Slots) -> bool:
    """Whether the turn asks to run its LLM and its media model on one GPU together."""
    return bool(s.model and s.media and s.gpu and (s.gpus or 1) == 1 and re.search(_SAME_GPU_RE, question, re.I))


class ColocateIntent(Run):
    """Judges an LLM and a media model, or several LLMs, sharing one GPU."""

    def shared_gpu(self, s: Slots) -> Events:
        """Several models on the one GPU named: the sum of their needs against it, and each vLLM share."""
        if s.media and s.media.model and len(s.models) == 1:
            return (yield from self.colocation(s))  # an LLM and an embedding/speech/image model
        args = {"models": s.models[:4], "gpu": s.gpu, "precision": s.precision, "quant": s.quant,
                "context": s.context, "concurrency": s.concurrency}  # fmt: skip
        shared, err = yield from self.call("evaluate_models_on_one_gpu", evaluate_models_on_one_gpu, **args)
        if err or not isinstance(shared, SharedGpu):
            return self.error(err or "")
        sep = say("catalog.list_sep", self.lang)
        needs = sep.join(say("colocate.model_need", self.lang, model=m, gib=render.fig(g))
                         for m, g in zip(shared.models, shared.needs_gib, strict=True))  # fmt: skip
        figures = {"gpu": shared.gpu, "needs": needs, "need": render.fig(shared.needed_gib),
                   "usable": render.fig(shared.usable_gib), "short": render.fig(-shared.headroom_gib)}  # fmt: skip
        lines = [say("colocate.models_yes" if shared.fits else "colocate.models_no", self.lang, **figures)]
        if shared.vllm_gpu_memory_utilizations:
            shares = sep.join(f"{m} {render.fig(u)}" for m, u in
                              zip(shared.models, shared.vllm_gpu_memory_utilizations, strict=True))  # fmt: skip
            lines.append(say("colocate.models_util", self.lang, shares=shares))
        else:
            lines.append(say("colocate.models_fix", self.lang))
        return Reply(text="\n\n".join(lines), kind="estimate")

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
