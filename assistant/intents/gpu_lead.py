"""The first line of a GPU spec answer: the figure the user asked for, before the spec table.

"A10 显存多大？", "H800 memory bandwidth?", "L20 算力多少": the answer's first line states that figure (memory,
bandwidth, dense compute, NVLink), or a one-line summary when no single figure is asked for. A pure function of
the question and the typed ``GPU`` row; the text lives in the message catalogue (``spec.*`` codes).
"""

from __future__ import annotations

import re

from assistant import render
from assistant.answer import Language
from assistant.messages import say
from tools.catalog import GPU

# Order matters: "memory bandwidth" asks for the bandwidth, not the memory size.
_ASKED: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("bandwidth", re.compile(r"带宽|bandwidth|\bgb/s\b|\btb/s\b", re.IGNORECASE)),
    ("nvlink", re.compile(r"nvlink|互联|interconnect", re.IGNORECASE)),
    ("compute", re.compile(r"算力|tflops|flops|compute|性能|performance|fp8|bf16|fp16|fp32|int8", re.IGNORECASE)),
    ("memory", re.compile(r"显存|内存|vram|memory|\bram\b|多少\s*g\b|几\s*g\b|how\s+many\s+gb", re.IGNORECASE)),
)


# "Is FP8 supported on the L20?", "L20 支持 FP8 吗": the card's support of a precision (not "支持多少并发")
SUPPORT_ASK = (
    r"(?:支持|support\w*)\s*(?:原生\s*)?(?:fp8|bf16)|(?:fp8|bf16)[^，,。?？]{0,16}?(?:support\w*|支持)(?!\s*(?:多少|几))"
)


def asked_figure(question: str) -> str | None:
    """Which spec figure the question asks for (None: the GPU as a whole)."""
    return next((name for name, pattern in _ASKED if pattern.search(question)), None)


def spec_lead(question: str, gpu: GPU, lang: Language) -> str:
    """Return the answer's first line: the asked figure of ``gpu`` in bold, or its headline figures."""
    figure = asked_figure(question)
    usable = gpu.usable_memory_gib
    if figure == "memory":
        code = "spec.memory_usable" if usable else "spec.memory"
        return say(code, lang, gpu=gpu.name, memory=render.fig(gpu.memory_gib), kind=gpu.memory_type or "",
                   usable=render.fig(usable))  # fmt: skip
    if figure == "bandwidth" and gpu.memory_bandwidth_gb_s:
        return say("spec.bandwidth", lang, gpu=gpu.name, value=render.fig(gpu.memory_bandwidth_gb_s))
    if figure == "nvlink":
        if gpu.nvlink_gb_s:
            return say("spec.nvlink", lang, gpu=gpu.name, value=render.fig(gpu.nvlink_gb_s))
        return say("spec.no_nvlink", lang, gpu=gpu.name)
    if figure == "compute" and gpu.bf16_dense_tflops:
        return say("spec.compute", lang, gpu=gpu.name, value=render.fig(gpu.bf16_dense_tflops))
    return _summary(gpu, lang)


def _summary(gpu: GPU, lang: Language) -> str:
    parts = [say("spec.part_memory", lang, memory=render.fig(gpu.memory_gib), kind=gpu.memory_type or "")]
    if gpu.memory_bandwidth_gb_s:
        parts.append(say("spec.part_bandwidth", lang, value=render.fig(gpu.memory_bandwidth_gb_s)))
    if gpu.bf16_dense_tflops:
        parts.append(say("spec.part_compute", lang, value=render.fig(gpu.bf16_dense_tflops)))
    return say("spec.summary", lang, gpu=gpu.name, parts=("，" if lang == "zh" else ", ").join(parts))
