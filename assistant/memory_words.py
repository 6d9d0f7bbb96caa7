"""A GPU named only by its memory: "显存 24G 能不能微调", "只有 24G 显存的卡", "on a 24GB card".

The user fixes the hardware by its memory, not its name, so the engine evaluates a GPU of that memory
instead of planning on any GPU (which answered "yes, on 2 x A100-80GB" to "显存 24G 能不能微调 7B 全参").
Several ECS GPUs share a size (A10 and A30 are both 24 GB): the one whose cheapest instance costs least
per hour is taken, since that is the card such a user would rent, and the answer says which it took.
A yes/no on serving a named model ("16G 的卡够吗") keeps the card verdict of :mod:`assistant.intents.verdicts`,
which answers from the estimate with its breakdown (weights, KV cache, overhead) against any card of that size.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

from tools import catalog, price_quotes

if TYPE_CHECKING:
    from assistant.understanding import Slots

# "24G 显存", "24G显存的卡", "显存 24G", "24GB VRAM", "a 24 GB card", "24 gigs of vram", "只有 16G 的卡",
# "16GB of memory", "is 24GB enough", "fits in a 16GB": a card the user names by its memory alone.
_SIZE = r"(?<![\d.])(\d{1,3})\s*(?:gigs?|gib|gb|g\s*b|g)"
_CARD = (
    r"(?:显存|vram|video\s+memory|gpu\s+memory|(?:的)?(?:显卡|卡|gpu)|cards?|gpus?|graphics\s+cards?|"
    r"of\s+(?:gpu\s+)?(?:vram|memory))"
)
_MEMORY_RE = re.compile(
    rf"{_SIZE}\s*(?:of\s+)?(?:的\s*)?(?:显存的?\s*)?{_CARD}"
    rf"|(?:显存|vram)\s*(?:只有|才|是|为|:|：|=|of|is)?\s*{_SIZE}(?![a-z0-9])"
    rf"|(?<![\d.])(\d{{1,3}})\s*gi?b\b(?=.{{0,24}}(?:\benough\b|\bsuffic|够|足够))"
    rf"|(?:fits?|run|load|serve)\s+(?:in|into|on|within)\s+(?:a\s+|one\s+)?(\d{{1,3}})\s*gi?b\b",
    re.I,
)
# "需要 28G 显存", "needs 40GB of VRAM": a need the answer computes, not the hardware the user has
_MIN_TENSOR_TFLOPS = 30  # FP16 Tensor Core TFLOPS: the T4 (65) counts, the A16 and P100 do not
_NEED_BEFORE = re.compile(
    r"(?:需要|要|占用?|用了|吃|needs?|requires?|takes?|uses?|using)\s*(?:about|约|大约|~)?\s*$", re.I
)


def card_size(text: str) -> int | None:
    """Return the memory of a card the user names by its size only ("a 16 GB card", "24G 显存"), in GB.

    A size the sentence says is needed ("需要 28G 显存", "needs 40GB of VRAM") is the answer's, not the
    card's; of the others the last counts: "7B 要 14G，16G 的卡够吗" asks about the 16G card.
    """
    sizes = [
        int(next(g for g in m.groups() if g))
        for m in _MEMORY_RE.finditer(text)
        if not _NEED_BEFORE.search(text[max(0, m.start() - 12) : m.start()])
    ]
    held = [size for size in sizes if 4 <= size <= 256]
    return held[-1] if held else None


@cache
def gpu_with_memory(size_gb: int) -> str | None:
    """Return the ECS GPU of exactly this memory whose cheapest instance costs least per hour, if any."""
    candidates: dict[str, float] = {}
    for inst in catalog.list_instances():
        gpu = catalog.gpu_for_instance(inst)
        if gpu is None or gpu.memory_gib != size_gb or gpu.likely_same_as:
            continue
        if (gpu.fp16_dense_tflops or 0) < _MIN_TENSOR_TFLOPS:
            continue  # a video/VDI card (A16, P100) is not what someone sizing a model means by "a 16G card"
        quote = price_quotes.quote(inst.instance_type)
        hourly = quote.hourly if quote and quote.hourly is not None else float("inf")
        candidates[gpu.name] = min(candidates.get(gpu.name, float("inf")), hourly)
    return min(candidates, key=lambda name: candidates[name]) if candidates else None


def card_by_memory(slots: Slots, text: str) -> None:
    """Make a card named by its memory the hardware of ``slots`` (in place): one GPU of that size."""
    if slots.gpu_mentions or slots.instance_types or slots.families:
        return
    size = card_size(text)
    named = slots.model or slots.size_b
    serving_verdict = slots.asks_verdict and named and slots.task in (None, "inference") and not slots.task_hint
    if size is None or serving_verdict or (gpu := gpu_with_memory(size)) is None:
        return
    slots.gpu_mentions, slots.gpu, slots.gpus, slots.gpu_memory_gb = [gpu], gpu, slots.gpus or 1, size
