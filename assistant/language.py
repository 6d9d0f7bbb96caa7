"""Which language to answer in: Chinese or English, decided from the user's own words."""

from __future__ import annotations

import re
from typing import Literal

_CJK_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# Latin words without digits: "qwen2.5", "72b" and "L20" are names, not evidence of English.
_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-_]*")


def detect_language(text: str) -> Literal["zh", "en"]:
    """Return "zh" when the text is mainly Chinese, else "en".

    A Chinese character carries about as much as two-thirds of an English word, so a question such as
    "Qwen2.5-72B 用 L20 部署" is Chinese while "How do I serve 千问72B?" is English. Names with digits
    (model sizes, GPU names) do not count as English words.

    Args:
        text: The user's question.
    """
    cjk = len(_CJK_RE.findall(text))
    if cjk == 0:
        return "en"
    words = [w for w in _WORD_RE.findall(text) if not any(ch.isdigit() for ch in w) and len(w) > 1]
    # Upper-case acronyms (GPU, LLM, QPS, INT) appear in Chinese questions as often as in English ones.
    english = [w for w in words if not w.isupper()]
    return "zh" if cjk / 1.5 >= len(english) * 0.5 else "en"
