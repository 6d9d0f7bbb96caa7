"""Each side's own settings in a model comparison: "Qwen2.5-32B AWQ 和 Qwen2.5-14B BF16 哪个能扛更多并发？".

A precision or quantisation written next to one model belongs to that model, not to the whole question:
the question is split at the words that separate the sides ("和", "还是", "vs", "or", commas) and each part
is read on its own. Only when two or more sides carry different settings are they applied per side (a
third side without one is taken at the default, BF16); otherwise the question's setting holds for all.
"""

from __future__ import annotations

import re
from typing import Any

from assistant.understanding import understand

_SPLIT_RE = re.compile(
    r"\s*(?:和|与|跟|还是|或者|或是|对比|比较|,|，|、|;|；|\bvs\.?|\bversus\b|\bor\b|\band\b|\bcompared\s+(?:to|with)\b)\s*",
    re.IGNORECASE,
)


def model_settings(question: str, models: list[str]) -> dict[str, dict[str, Any]]:
    """Return, per compared model, the precision and quantisation written beside it (empty: none differ)."""
    stated: dict[str, dict[str, Any]] = {}
    for part in _SPLIT_RE.split(question):
        if not part:
            continue
        read = understand(part)
        if read.model in models and read.model not in stated and (read.precision or read.quant):
            stated[read.model] = {"precision": read.precision or "bf16", "quant": read.quant or "none"}
    if len(stated) < 2 or len({tuple(v.items()) for v in stated.values()}) == 1:
        # one side only ("... on one A10 int4" may mean both) or the same everywhere: the question's setting holds
        return {}
    return {m: stated.get(m, {"precision": "bf16", "quant": "none"}) for m in models}
