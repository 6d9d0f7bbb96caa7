"""Each side's own settings in a model comparison: "Qwen2.5-32B AWQ 和 Qwen2.5-14B BF16 哪个能扛更多并发？".

A precision or quantisation written next to one model belongs to that model, not to the whole question:
the question is split at the words that separate the sides ("和", "还是", "vs", "or", commas) and each part
is read on its own. Only when two or more sides carry different settings are they applied per side (a
third side without one is taken at the default, BF16); otherwise the question's setting holds for all.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from assistant import render
from assistant.conversation import representative_model
from assistant.hardware_words import find_gpus
from assistant.reading import Scan
from assistant.task_words import find_precision, find_task
from assistant.understanding import understand
from tools import catalog
from tools.errors import UnknownNameError

_SPLIT_RE = re.compile(
    r"\s*(?:和|与|跟|还是|或者|或是|对比|比较|,|，|、|;|；|\bvs\.?|\bversus\b|\bor\b|\band\b|\bthan\b|"
    r"\bcompared\s+(?:to|with)\b)\s*",
    re.IGNORECASE,
)

# Sentence ends separate sides too: "Option A: 72B AWQ on 2x A100. Option B: FP8 on one H20."
_SENTENCE_RE = re.compile(r"(?<=[a-z0-9\)])\.\s+|。", re.IGNORECASE)


def settings_as_written(question: str, models: list[str]) -> dict[str, dict[str, Any]]:
    """Return the precision and quantisation written beside each model that has one ("72B-AWQ, 7B": 72B only)."""
    stated: dict[str, dict[str, Any]] = {}
    # "Option 1: 7B in bf16 on one A10. Option 2: 14B AWQ on one A10.": sentences separate the sides too
    for part in (p for sentence in _SENTENCE_RE.split(question) for p in _SPLIT_RE.split(sentence)):
        if not part:
            continue
        read = understand(part)
        if read.model in models and read.model not in stated and (read.precision or read.quant):
            stated[read.model] = {"precision": read.precision or "bf16", "quant": read.quant or "none"}
    return stated


def model_settings(question: str, models: list[str]) -> dict[str, dict[str, Any]]:
    """Return, per compared model, the precision and quantisation written beside it (empty: none differ)."""
    stated = settings_as_written(question, models)
    if len(stated) < 2 or len({tuple(v.items()) for v in stated.values()}) == 1:
        # one side only ("... on one A10 int4" may mean both) or the same everywhere: the question's setting holds
        return {}
    return {m: stated.get(m, {"precision": "bf16", "quant": "none"}) for m in models}


_GROUPS: dict[str, tuple[str, ...]] = {
    "model": ("model",),
    "quant": ("precision", "quant"),
    "context": ("context",),
    "concurrency": ("concurrency",),
    "gpus": ("gpus",),
}


def _gpu_key(name: str) -> str:
    try:
        return catalog.choose_gpu(name).gpu.name
    except UnknownNameError:
        return name


def gpu_settings(question: str, gpus: list[str]) -> dict[str, dict[str, Any]]:
    """Return, per compared GPU, the settings written beside it that differ by side (see :func:`_gpu_settings`)."""
    return {g: dict(v) for g, v in _gpu_settings(question, tuple(gpus)).items()}


@functools.lru_cache(maxsize=256)  # one answer asks several times; each part is read with the full rules
def _gpu_settings(question: str, gpus: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """Return, per compared GPU (as named in ``gpus``), the settings written beside it that differ by side.

    "A10 上跑 int4，或者 L20 上跑 bf16", "one A10 with 4 users or one L20 with 16 users", "A10 上开 4k，L20 上开
    32k": a part of the question that names exactly one side carries that side's settings. A setting is per side
    only when two or more sides state it (a count of GPUs: every side states one); else the question's holds.
    """
    keys = {_gpu_key(g): g for g in gpus}
    stated: dict[str, dict[str, Any]] = {}
    for sentence in _SENTENCE_RE.split(question):
        for part in _SPLIT_RE.split(sentence):
            # Only a part naming a GPU can carry a side's settings; the rest is not read twice.
            read = understand(part) if part and part.strip() and find_gpus(Scan(part)) else None
            found = dict.fromkeys(_gpu_key(g) for g in read.gpu_mentions) if read else {}
            named = [keys[k] for k in found if k in keys]
            if read is None or len(named) != 1 or named[0] in stated:
                continue
            # "4-bit 72B on 2 L20 vs BF16 32B on one A100": a model (or a bare size) beside the GPU is that side's
            model = read.model or (representative_model(read.size_b) if read.size_b else None)
            values = {"precision": read.precision, "quant": read.quant, "context": read.context,
                      "concurrency": read.concurrency, "gpus": read.gpus, "model": model}  # fmt: skip
            stated[named[0]] = {k: v for k, v in values.items() if v is not None}
    out: dict[str, dict[str, Any]] = {g: {} for g in gpus}
    for group, fields in _GROUPS.items():
        sides = [g for g in gpus if any(f in stated.get(g, {}) for f in fields)]
        seen = {tuple(stated[g].get(f) for f in fields) for g in sides}
        if len(sides) < 2 or (len(seen) == 1 and group != "gpus"):
            continue
        if group == "gpus" and len(sides) < len(gpus):
            continue
        for g in sides:
            out[g] |= {f: stated[g][f] for f in fields if f in stated[g]}
            if group == "quant":  # "L20 上跑 bf16": a precision without a method is not quantised
                out[g].setdefault("quant", "none")
                out[g].setdefault("precision", "int4" if "int4" in out[g]["quant"] else "bf16")
    return out if any(out.values()) else {}


def setting_label(change: dict[str, Any], lang: str) -> str:
    """Return a side's own settings for its label: " (AWQ, 32,768 tokens, 16 users)", or "" when none."""
    parts = [str(change["model"])] if change.get("model") else []
    if change.get("quant") not in (None, "none"):
        parts.append(str(change["quant"]).split("-")[0].upper())
    elif change.get("precision"):
        parts.append(str(change["precision"]).upper())
    if change.get("context"):
        parts.append(f"{render.fig(change['context'])} tokens")
    if change.get("concurrency"):
        parts.append(f"{change['concurrency']} " + ("并发" if lang == "zh" else "users"))
    return f" ({', '.join(parts)})" if parts else ""


def methods_named(question: str) -> list[str]:
    """Return the training methods a question weighs against each other ("full fine-tuning vs LoRA"), in order.

    Each part of the question between the words that separate sides is read for its method; two or more
    different methods make a method comparison (one method, or none, returns []).
    """
    found: list[str] = []
    for sentence in _SENTENCE_RE.split(question):
        for part in _SPLIT_RE.split(sentence):
            task = find_task(Scan(part))[0] if part and part.strip() else None
            if task in ("full", "lora", "qlora") and task not in found:
                found.append(task)
    return found if len(found) >= 2 else []


def precisions_named(question: str) -> list[dict[str, Any]]:
    """Return the precisions a question weighs against each other ("int8 还是 int4", "bf16 or AWQ"), in order.

    Like :func:`methods_named`: each part between the words that separate sides is read for its precision or
    format; two or more different ones make a precision comparison (one, or none, returns []).
    """
    found: list[dict[str, Any]] = []
    for sentence in _SENTENCE_RE.split(question):
        for part in _SPLIT_RE.split(sentence):
            precision, quant, guessed = find_precision(Scan(part)) if part and part.strip() else (None, None, True)
            setting = {"precision": precision, "quant": quant or "none"}
            if precision and not guessed and setting not in found:
                found.append(setting)
    return found if len(found) >= 2 else []
