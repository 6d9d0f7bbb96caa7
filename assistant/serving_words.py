"""Serving limits asked in words: the longest context each user gets, the requests per second an instance serves.

"how long can each context be?", "每人最长能到多少上下文?" (asked only where no context length is stated: a
stated "32k context" is a workload, not this question; the user count comes from the concurrency readers);
"how many requests per second can gn7e serve?", "最大 QPS 大概多少", "一秒能扛多少个请求".
"""

from __future__ import annotations

import re

from assistant.phrases import NUMBER, number_value
from assistant.reading import compiled

_CONTEXT = r"(?:context|prompt|conversation|chat\s+history|history|input|prompt\s*\+\s*answer|session)s?"
_ASKS = (
    # "how long can each context be?", "the longest prompt+answer each of them can have", "max context per session"
    rf"(?:how\s+long|longest|max(?:imum)?|how\s+much|how\s+big|largest|biggest)\b[^.?!\n]{{0,40}}?\b{_CONTEXT}",
    rf"\b{_CONTEXT}(?:\s+(?:length|window|size))?[^.?!\n]{{0,30}}\b(?:can|could|may)\b[^.?!\n]{{0,24}}\b(?:be|get|have|use|hold)",
    rf"\b{_CONTEXT}(?:\s+(?:length|window|size))?\s+(?:per|for\s+each|for\s+every)\s+(?:user|session|request|person|chat)",
    # "每人最长能到多少上下文", "上下文最多能开到多长", "单人上下文上限是多少"
    r"上下文[^，。？?\n]{0,10}(?:最长|最多|上限|最大|多长|多大|多少)",
    r"(?:最长|最多|最大|上限)[^，。？?\n]{0,10}上下文",
    r"(?:分到|分得|给到|能有|能用|摊到)\s*(?:多少|多长|多大)(?:的)?\s*上下文",  # "每个用户能分到多少上下文"
    r"(?:输入|提示词|对话)[^，。？?\n]{0,6}(?:最长|最多)\s*(?:能|可以)?\s*(?:到|开到|有)?\s*多(?:长|少)",
    # vLLM's max_model_len is that length: "max_model_len 设多少合适", "what max-model-len should I set"
    r"max[\s_\-]*model[\s_\-]*len\w*[^，。？?\n]{0,12}(?:多少|多大|多长|合适|怎么设|\bshould\b|\bset\b|\bvalue\b)",
    r"(?:what|which|how\s+(?:big|high|large|long))\b[^.?!\n]{0,20}max[\s_\-]*model[\s_\-]*len",
)


def asks_longest_context(text: str) -> bool:
    """Whether the question asks how long each sequence may be on the hardware (with no length stated)."""
    return any(compiled(p).search(text) for p in _ASKS)


_RATE_ASKS = (
    # "how many requests per second can it serve", "what throughput in requests/sec", "max QPS", "RPS?"
    r"(?:how\s+many|max(?:imum)?|what|peak)\b[^.?!\n]{0,30}\b(?:requests?|queries|reqs?|calls?)\s*"
    r"(?:per\s+sec(?:ond)?|/\s*s(?:ec)?\b|a\s+second|each\s+second)",
    r"(?:max(?:imum)?|peak|how\s+much|what(?:'s|\s+is)?(?:\s+the)?)\s+(?:qps|rps)\b",
    r"\b(?:qps|rps)\b\s*(?:can|could|will|would|does|do)\b",
    # "throughput in req/s", "capacity in requests per second"
    r"(?:throughput|rate|capacity)[^.?!\n]{0,20}\b(?:req(?:uest)?s?|queries)\s*(?:/|per)\s*s(?:ec(?:ond)?)?\b",
    # "每秒能扛多少个请求", "一秒能处理多少请求", "最大 QPS 大概多少", "QPS 能到多少"
    r"(?:每秒|一秒)(?:钟)?\s*(?:能|可以)?\s*(?:扛|处理|服务|支撑|接|跑|响应|完成)(?:得了|住)?\s*(?:多少|几)\s*(?:个)?\s*(?:请求|次|条|query)",
    r"(?:最大|最高|峰值)?\s*(?:qps|rps)\s*(?:大概|大约|能到|能达到|有|是)?\s*(?:多少|几)",
)


_DURATION = r"多久|多长时间|几个?小时|多少(?:个)?小时|几天|how\s+long|how\s+many\s+hours|how\s+much\s+time|\beta\b"
_FULL_LOAD = (
    r"满载|打满|跑满|full[-\s]load|fully\s+loaded|saturat\w*|flat[-\s]out|max(?:imum)?\s+(?:total\s+)?throughput|"
    r"最大吞吐|吞吐(?:的)?上限|峰值吞吐|peak\s+throughput"
)


# Items a batch job generates for: "250k tweets", "3 万篇文章", "1M product descriptions", "5000 个问题"
_ITEMS = (
    # plural nouns only: "a 1k prompt" is a length, "1k prompts" a job; "2k-token prompts" a length too
    rf"{NUMBER}\s*(?:(?:(?![\w\-]*(?:token|word|char))[A-Za-z][\w\-]{{0,15}}\s+){{0,2}}(?:tweets|reviews|prompts|requests|"
    r"queries|questions|items|products|descriptions|files|pages|records|documents|docs|articles|emails|tickets|"
    r"samples|rows|texts|messages|comments|posts|calls|summaries|translations)(?![a-z])|"
    r"(?:条|篇|份|封|段|个\s*(?:请求|问题|样本|文档|文件|任务|商品)))"
)


def job_items(text: str) -> float | None:
    """Return how many items a batch job covers ("250k tweets", "3 万篇文章"), or None."""
    text = re.sub(r"(?<![\w.])(\d+(?:\.\d+)?)\s*M\b(?=\s+[A-Za-z])", r"\1 million", text)  # "1.2M product descriptions"
    m = compiled(_ITEMS).search(text)
    return number_value(m) if m else None


def asks_duration(text: str) -> bool:
    """Whether the question asks how long something takes ("要多久跑完", "how many hours")."""
    return bool(compiled(_DURATION).search(text))


def asks_full_load(text: str) -> bool:
    """Whether the question asks the hardware's throughput at full load ("满载总吞吐", "max throughput")."""
    return bool(compiled(_FULL_LOAD).search(text))


def asks_request_rate(text: str) -> bool:
    """Whether the question asks how many requests per second (an hour, a day) the hardware serves."""
    return any(compiled(p).search(text) for p in _RATE_ASKS) or rate_period(text) is not None


# "requests per hour on 2 x L20", "一天最多能处理多少请求": the rate asked over a longer period than a second
_RATE_PERIODS = (
    ("hour", r"\b(?:requests?|queries|reqs?|calls?)\s*(?:per|an|/|each|every)\s*(?:hour|hr|h)\b|"
     r"(?:每小时|一小时|一个小时)\s*(?:最多)?\s*(?:能|可以)?\s*(?:处理|服务|扛|跑|接|响应|完成)(?:得了)?\s*(?:多少|几)\s*(?:个|次|条)?\s*(?:请求|调用)?"),
    ("day", r"\b(?:requests?|queries|reqs?|calls?)\s*(?:per|a|/|each|every)\s*day\b|"
     r"(?:每天|一天|每日)\s*(?:最多)?\s*(?:能|可以)?\s*(?:处理|服务|扛|跑|接|响应|完成)(?:得了)?\s*(?:多少|几)\s*(?:个|次|条)?\s*(?:请求|调用)?"),
)


def rate_period(text: str) -> str | None:
    """Return "hour" or "day" when the question asks the request rate over that period, else None."""
    asks = re.search(r"how\s+many|what|多少|几|throughput|capacity|max", text, re.IGNORECASE)
    return next((p for p, pattern in _RATE_PERIODS if asks and compiled(pattern).search(text)), None)
