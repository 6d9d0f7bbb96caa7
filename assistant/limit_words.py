"""Caps the user puts on the hardware: at most N machines ("最多用两台", "a single machine only") or N GPUs.

A cap is a limit for the planner, not hardware to evaluate: "at most 16 GPUs" never fixes a 16-GPU set.
The count of instances the user has ("2 台 ecs.gn7i-…", "a single gn8v instance") is read here too: it is the
hardware, evaluated as named.
"""

from __future__ import annotations

import re

from assistant.phrases import CN_SMALL, NUMBER, number_value

_MACHINES = r"(?:instances?|machines?|servers?|nodes?|box(?:es)?\b)"
_MAX_INSTANCES_RE = (
    rf"(?:最多|至多|不超过|不能超过|不多于|顶多|只能|只有|上限)\s*(?:用|开|买|租|是|为)?\s*{NUMBER}\s*台|"
    rf"(?:at\s+most|max(?:imum)?(?:\s+of)?|no\s+more\s+than|up\s+to|only|limit(?:ed)?\s+to|cap(?:ped)?\s+at)\s+{NUMBER}\s*"
    rf"{_MACHINES}|"
    rf"(?:only\s+)?(?:afford|have\s+budget\s+for|have\s+room\s+for|get)\s+{NUMBER}\s*{_MACHINES}|"
    rf"(?:机器|实例|服务器|节点)(?:数|台数)?\s*(?:最多|不能超过|不超过|上限)\s*(?:是|为)?\s*{NUMBER}\s*台?|"
    # "hard limit of 2 machines", "a cap of 3 nodes", "budget for two boxes max"
    rf"(?:limit|cap|ceiling)\s+(?:of|is|at)\s+{NUMBER}\s*{_MACHINES}|"
    # "a single machine only", "only one box", "on one node" (spelled numbers arrive here as digits)
    rf"(?:a\s+single|only\s+(?:a\s+single|one|1)|just\s+(?:one|1|a\s+single))\s+{_MACHINES}()|"
    rf"(?:single|one|1)\s+{_MACHINES}\s+only()|(?:单机|单台|只用一台|只有一台)()"
)


def max_instances(text: str) -> int | None:
    """Return a cap on instances ("最多用两台", "at most 2 instances"), or None."""
    text = re.sub(
        r"(?<=[用开买租多过是为限])\s*([一二两三四五六七八九十])(?=\s*台)", lambda m: str(CN_SMALL[m.group(1)]), text
    )
    m = re.search(_MAX_INSTANCES_RE, text, re.IGNORECASE)
    if not m:
        return None
    group = next((g for g in (1, 3, 5, 7, 9) if m.group(g)), None)
    if group is None:
        return 1  # "a single machine only", "单机": one instance
    value = number_value(m, group)
    return int(value) if value >= 1 else None


_GPU_CAP = r"(?:最多|至多|不超过|不能超过|不多于|顶多|上限)"
_MAX_GPUS_RE = (
    rf"{_GPU_CAP}\s*(?:用|开|买|租|是|为)?\s*{NUMBER}\s*(?:张|块)\s*(?:卡|显卡|gpu|GPU)?|"
    rf"(?:gpu|显卡|卡)\s*(?:数|数量|总数)?\s*{_GPU_CAP}\s*(?:是|为|用)?\s*{NUMBER}\s*(?:张|块)?|"
    rf"(?:at\s+most|max(?:imum)?(?:\s+of)?|no\s+more\s+than|not\s+more\s+than|up\s+to|limit(?:ed)?\s+to|"
    rf"cap(?:ped)?\s+at|(?:limit|cap|ceiling|budget)\s+(?:of|is|at))\s+{NUMBER}\s*(?:gpus?|cards?)\b|"
    rf"{NUMBER}\s*(?:gpus?|cards?)\s+(?:max(?:imum)?|at\s+most|tops)\b"
)


def max_gpus(text: str) -> int | None:
    """Return a cap on GPUs in all ("at most 16 GPUs", "GPU 不超过 8 张", "最多两张卡"), or None."""
    small = r"(?<=[用开买租多过是为限])\s*([一二两三四五六七八九十])(?=\s*[张块])"
    text = re.sub(small, lambda m: str(CN_SMALL[m.group(1)]), text)
    m = re.search(_MAX_GPUS_RE, text, re.IGNORECASE)
    if not m:
        return None
    value = number_value(m, next(g for g in range(1, (m.re.groups or 0) + 1, 2) if m.group(g)))
    return int(value) if value >= 1 else None


# ------------------------------------------------------------------------------------------ daily users


_INSTANCE_COUNT_RE = (
    rf"{NUMBER}\s*(?:台|x|×|\*)\s*`?(?:ecs\.)?(?:ebm|scc|s|v)?gn\d"
    rf"|{NUMBER}\s+`?(?:ecs\.)?(?:ebm|scc|s|v)?gn\d[\w\-]*\.\d*x?large"  # "on 2 gn8is.2xlarge"
    rf"|{NUMBER}\s*(?:instances?|machines?|servers?|nodes?|boxes)\s+(?:of\s+)?`?(?:ecs\.)?(?:ebm|scc|s|v)?gn\d"
)


# "a single gn8v instance", "one gn8v box" (numbers are spelled as digits by then): one instance of a family
_ONE_INSTANCE_RE = (
    r"(?:\ba\s+single|\bsingle|\bone|(?<![\d.])1)\s+`?(?:ecs\.)?(?:ebm|scc|s|v)?gn\d[\w\-]*\s+"
    r"(?:instances?|machines?|servers?|nodes?|box(?:es)?)\b"
)


def instance_count(text: str) -> int | None:
    """How many instances of a named type the user has ("2 台 ecs.gn7i-...", "two gn8is boxes"), or None."""
    if re.search(_ONE_INSTANCE_RE, text, re.IGNORECASE):
        return 1
    text = re.sub(r"([一二两三四五六七八九十])(?=\s*台)", lambda m: str(CN_SMALL[m.group(1)]), text)
    m = re.search(_INSTANCE_COUNT_RE, text, re.IGNORECASE)
    if not m:
        return None
    value = number_value(m, next(g for g in (1, 3, 5) if m.group(g)))
    return int(value) if value >= 1 else None
