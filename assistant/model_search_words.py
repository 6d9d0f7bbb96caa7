"""Questions that ask which model fits the hardware, not which hardware fits a model.

"一张 L20 最大能跑多大的模型？", "With 8 H20s, what's the biggest Qwen I can serve?", "which Llama fits on one
A10?": the hardware is given and the model is the unknown. The family or brand, when one is named, comes
from the model registry's vocabulary.
"""

from __future__ import annotations

import re
from functools import cache

from tools.vocabulary import model_family_pattern, model_family_words


@cache
def _asks_re() -> re.Pattern[str]:
    brands = "|".join(model_family_words())  # the registry's brands: "qwen", "llama", "deepseek" ...
    brand = rf"(?:model|llm|(?:{brands})[\w.\-]*)s?"
    return re.compile(
        # en: "the largest/biggest model", "the biggest Qwen", "how big a model", "what models can I run"
        rf"\b(?:largest|biggest|max(?:imum)?|strongest|most\s+capable)\s+(?:\w+[\s\-])?{brand}\b"
        r"|\bhow\s+(?:big|large)\s+(?:a|of\s+a)\s+(?:model|llm)\b|\bhow\s+many\s+(?:params|parameters)\b"
        rf"|\b(?:what|which)\s+(?:(?:size|kind|sort)\s+(?:of\s+)?)?{brand}\s+(?:\w+\s+){{0,2}}?"
        r"(?:can|could|will|would|fits?|runs?|do(?:es)?)\b"
        # zh: "最大能跑多大的模型", "能跑什么模型", "跑得动哪些模型", "能跑的最大的 Qwen3", "最大能部署多少 B"
        r"|最大(?:能|可以)?(?:跑|部署|用|装|放|支持)(?:多大|什么|哪个|哪些|几|多少)"
        rf"|(?:能|可以)(?:跑|部署|装|放下|支持)(?:多大|什么样?的?|哪些|哪个|几)(?:的)?(?:模型|大模型|参数|b\b|{brands})"
        r"|跑得动(?:多大|什么|哪些|哪个)|能跑的最大|最大的?(?:模型|" + brands + r")|多大的模型"
        # "¥2000 a month: can I host anything useful?", "能跑点什么": any model at all is the unknown
        r"|\b(?:can|could)\s+(?:i|we)\s+(?:host|run|serve|deploy|get)\s+anything\b|能(?:跑|部署)(?:点|些)(?:什么|啥)"
        # "What can I run on a single A10?": the hardware is given, anything that fits is the answer
        r"|\bwhat\s+(?:else\s+)?(?:can|could)\s+(?:i|we|you)\s+(?:realistically\s+)?(?:run|serve|host|fit|deploy)\s+"
        r"(?:on|with|in)\b",
        re.I,
    )


def asks_model_search(text: str) -> bool:
    """Return whether the question asks which (or how large a) model fits, rather than naming one."""
    return bool(_asks_re().search(text))


def family_named(text: str) -> str | None:
    """Return the model family or brand the search is limited to ("Qwen3", "Llama"), if any."""
    m = model_family_pattern().search(text)
    return m.group(1) if m else None
