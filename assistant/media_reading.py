"""Reading questions about image/video, vision-language, speech and embedding models (zh and en).

The model names come from ``tools/data/media_models.yaml`` (one vocabulary with the tools); the figures
each kind needs are read with bounded patterns, one pass each, so a long question stays linear:
resolution ("1024x1024", "1024²"), images per hour or day, audio hours and the deadline, documents,
tokens per document, rerank candidates, images per request, live streams, weights dtype and CPU offload.
"""

from __future__ import annotations

import re
from functools import cache

from pydantic import BaseModel, ConfigDict, Field

from assistant.reading import compiled
from tools.media_models import MediaModel, load_media_models
from tools.models import normalize_name

_NUM = r"(\d{1,3}(?:,\d{3})+|\d{1,12}(?:\.\d{1,3})?)\s*(万|千|k|K|million|百万|m\b|M\b)?"
_SCALE = {"万": 1e4, "千": 1e3, "k": 1e3, "K": 1e3, "million": 1e6, "百万": 1e6, "m": 1e6, "M": 1e6}


_IMAGE = r"(?:张|幅|images?|pictures?|(?:个|条|段)?\s*视频|videos?|clips?)"
_PER_HOUR_FIRST = rf"(?:每小时|每个小时|一小时|per\s+hour|an\s+hour|/\s*h)\D{{0,12}}?{_NUM}\s*{_IMAGE}"
# "2,000 SDXL images an hour": up to two words (the model, "product") between the number and the images.
_HOURLY = r"(?:每小时|/\s*h\b|/\s*hr|per\s+hour|an\s+hour|a\s+hour|hourly)"
_PER_HOUR_AFTER = rf"{_NUM}\s*(?:[\w.\-]+\s+){{0,2}}?{_IMAGE}(?:\s*图)?\s*{_HOURLY}"
_AUDIO_HOURS = (
    rf"{_NUM}\s*(?:个)?\s*(?:小时|hours?)\s*(?:的)?\s*(?:会议|通话|客服)?\s*"
    r"(?:录音|音频|语音|音视频|播客|课程|视频|of\s+(?:\w+\s+){0,2}?(?:audio|speech|recordings?|calls?|podcasts?|meetings?|"
    r"interviews?|lectures?|videos?|voice\s*mails?))"
)
_AUDIO_HOURS_NAMED = rf"{_NUM}\s*(?:audio|speech|recording|call|音频|录音)\s*(?:hours?|小时)"  # "500 audio hours"
_DOCS = (
    rf"{_NUM}\s*(?:篇|条|份|个)?\s*(?:(?!tokens?\b)[A-Za-z]{{2,5}}\s+)?"
    r"(?:documents?|docs?|passages?|pages?|文档|段落|页|chunks?|文本块|切片|片段|文本|句子|记录|records?|texts?)"
)
# "passages ~512 tokens", "each query around 64 tokens", "每块大约 512 tokens": the length of one input.
_DOC_TOKENS_NAMED = (
    rf"(?:passages?|documents?|docs?|chunks?|quer(?:y|ies)|文本块|切片|段落|每块|每段|每条|每篇|每个块)\s*"
    rf"(?:of|are|is|each|average|averaging|长度)?\s*(?:about|around|roughly|approximately|~|约|大约|平均|都是)?\s*{_NUM}\s*tokens?"
)
_PER_DAY_AFTER = rf"{_NUM}\s*(?:[\w.\-]+\s+){{0,2}}?{_IMAGE}\s*(?:per\s+day|a\s+day|/\s*day|daily|每天|每日)"
_WITHIN_DAY = (
    r"(?:一天|一日|当天|24\s*小时)\s*(?:内|之内|以内)|(?:within|in|per|a)\s+(?:a\s+|one\s+)?day\b|by\s+tomorrow|每天|每日|"
    r"明天(?:之前|以前|前)"
)
_PER_MONTH = r"\b(?:per|a|an|each|every)\s+month\b|/\s*month\b|\bmonthly\b|每月|每个月|一个月(?!内)"
_PER_WEEK = r"\b(?:per|a|each|every)\s+week\b|/\s*week\b|\bweekly\b|每周|每个?星期|一周(?!内)"
_STREAMS = (
    rf"{_NUM}\s*(?:路|live\s+streams?|streams?|channels?|(?:个)?(?:通话|电话)同时|(?:simultaneous|concurrent|parallel|live)\s+"
    r"(?:phone\s+|audio\s+|voice\s+)?(?:calls?|streams?|conversations?|meetings?))"
)
_QPS = rf"{_NUM}\s*(?:qps|rps|queries\s+(?:per\s+second|a\s+second|/\s*s)|requests?\s+per\s+second|次/秒)"
_PER_MINUTE = rf"{_NUM}\s*{_IMAGE}\s*(?:/\s*min\w*|per\s+minute|a\s+minute|每分钟)|每分钟\D{{0,12}}?{_NUM}\s*{_IMAGE}"
_TOKENS_PER_DAY = (
    rf"{_NUM}\s*tokens?\s*(?:per\s+day|a\s+day|/\s*day|daily|每天|一天)|(?:每天|一天)\D{{0,8}}?{_NUM}\s*tokens?"
)
_WITHIN = rf"(?:within|in|overnight\s*\(?)\s*{_NUM}\s*(?:hours?|h\b)|{_NUM}\s*(?:个)?\s*小时\s*(?:内|之内|以内)"
# "by tomorrow morning (12 hours)", "in the next 8 hours", "6 hours from now", "10 小时后要": a deadline in hours
# said another way; it beats a vaguer "by tomorrow" in the same sentence.
_WITHIN_SAID_OTHERWISE = (
    rf"\(\s*(?:about|~|约)?\s*{_NUM}\s*(?:hours?|hrs?|h|个?小时)\s*\)",
    rf"\bnext\s+{_NUM}\s*(?:hours?|hrs?|h)\b",
    rf"{_NUM}\s*(?:hours?|hrs?)\s+from\s+now",
    rf"{_NUM}\s*(?:个)?\s*小时\s*(?:后|之后|以后|里)",
)
_DOC_TOKENS_AFTER = rf"(?:about|~|约|每篇|每条|each|平均)?\s*{_NUM}\s*tokens?\s*(?:each|per\s+doc\w*|一篇|每篇)"
_IMAGES_PER_REQUEST = (
    rf"(?:每次|每个)?(?:请求)?(?:带|含|with)?\s*{_NUM}\s*{_IMAGE}\s*(?:的图)?\s*"
    r"(?:per\s+request|每次|a\s+request|each\s+request)?"
)


class MediaAsk(BaseModel):
    """What a question says about a non-LLM workload; ``None`` means "not said"."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(default=None, description="registry name from tools/data/media_models.yaml")
    kind: str | None = None
    width: int | None = None
    height: int | None = None
    images_per_hour: float | None = None
    audio_hours: float | None = None
    within_hours: float | None = None
    streams: int | None = None
    docs: int | None = None
    doc_tokens: int | None = None
    candidates: int | None = None
    qps: float | None = Field(default=None, description="queries per second, read with the number first")
    images_per_request: int | None = None
    frames: int | None = None
    dtype: str | None = None
    offload: str | None = None

    def merged(self, newer: MediaAsk) -> MediaAsk:
        """Return this ask with every figure the newer turn states replacing the old one."""
        return self.model_copy(update={k: v for k, v in newer.model_dump().items() if v is not None})

    def said_anything(self) -> bool:
        """Tell whether any figure (besides the model) was read."""
        return any(v is not None for k, v in self.model_dump().items() if k not in ("model", "kind"))


@cache
def _name_pattern() -> tuple[re.Pattern[str], dict[str, MediaModel]]:
    """One alternation of every name and alias, longest first (so "flux dev" beats "flux")."""
    index: dict[str, MediaModel] = {}
    spellings: list[str] = []
    for model in load_media_models():
        for spelling in (model.name, *model.aliases):
            index[normalize_name(spelling)] = model
            spellings.append(spelling)
    parts = sorted({re.escape(s).replace(r"\ ", r"[\s\-_]*") for s in spellings}, key=len, reverse=True)
    pattern = re.compile(r"(?<![A-Za-z0-9])(?:" + "|".join(parts) + r")(?![A-Za-z0-9])", re.IGNORECASE)
    return pattern, index


def media_model(text: str) -> MediaModel | None:
    """Return the non-LLM model the text names first, if any."""
    pattern, index = _name_pattern()
    for m in pattern.finditer(text):
        found = index.get(normalize_name(m.group(0)))
        if found is not None:
            # "Whisper tiny", "SDXL Turbo", "FLUX.1 pro": another variant than any this model is known by.
            return None if _another_variant(found, text[m.end() : m.end() + 24]) else found
    return None


# Training a media model, in the words right around its name ("fine-tune Whisper", "微调 whisper", "SDXL LoRA"):
# a training word elsewhere in the question ("LoRA fine-tune Qwen2.5-7B, then serve Whisper") is another model's.
_TRAINED_BEFORE = re.compile(
    r"(?:fine[\s\-]*tun\w*|finetun\w*|\btrain\w*|微调|训练|精调|预训练)[^,，。.;；!?！？]{0,12}$", re.IGNORECASE
)
_TRAINED_AFTER = re.compile(r"[\s\-_]*(?:lora|dreambooth|fine[\s\-]*tun\w*|微调|训练|精调)", re.IGNORECASE)


def media_trained(text: str) -> bool:
    """Tell whether the text trains the media model it names first, by the words next to that name."""
    pattern, index = _name_pattern()
    for m in pattern.finditer(text):
        if index.get(normalize_name(m.group(0))) is not None:
            before = text[max(0, m.start() - 24) : m.start()]
            return bool(_TRAINED_BEFORE.search(before) or _TRAINED_AFTER.match(text[m.end() :]))
    return False


_VARIANT = re.compile(
    r"[\s\-_.]*(?:\d+(?:\.\d+)?[\s\-_]*)?(tiny|base|small|medium|large|turbo|mini|nano|lite|pro|max|ultra|xl|xxl|"
    r"v\d+(?:\.\d+)?|\d+(?:\.\d+)?\s*[bm])(?![a-z0-9])",
    re.IGNORECASE,
)


def _another_variant(model: MediaModel, after: str) -> bool:
    """Tell whether the words right after a model's name name a size or variant that model is not."""
    if not (m := _VARIANT.match(after)):
        return False
    known = normalize_name(" ".join([model.name, model.display_name, *model.aliases]))
    return normalize_name(m.group(1)) not in known


def _number(m: re.Match[str], group: int = 1) -> float:
    value = float(m.group(group).replace(",", ""))
    return value * _SCALE.get(m.group(group + 1) or "", 1.0)


def _first(pattern: str, text: str) -> re.Match[str] | None:
    return compiled(pattern).search(text)


def read_media(text: str) -> MediaAsk | None:
    """Read a non-LLM workload from one question: the model and the figures of its kind, or None."""
    model = media_model(text)
    ask = MediaAsk(model=model.name if model else None, kind=model.kind if model else None)
    if m := _first(r"(\d{3,4})\s*[x×*✕]\s*(\d{3,4})", text):
        ask.width, ask.height = int(m.group(1)), int(m.group(2))
    elif m := _first(r"(\d{3,4})\s*(?:²|\^2|px\s*square)", text):
        ask.width = ask.height = int(m.group(1))
    elif m := _first(r"(720|1080)\s*[pP]", text):
        ask.height = int(m.group(1))
        ask.width = {720: 1280, 1080: 1920}[ask.height]
    if m := _first(_PER_HOUR_FIRST, text):
        ask.images_per_hour = _number(m)
    elif m := _first(_PER_HOUR_AFTER, text):
        ask.images_per_hour = _number(m)
    elif m := _first(rf"(?:每天|每日|一天|日均|per\s+day|a\s+day)\D{{0,12}}?{_NUM}\s*{_IMAGE}", text):
        ask.images_per_hour = _number(m) / 24
    elif m := _first(_PER_DAY_AFTER, text):
        ask.images_per_hour = _number(m) / 24
    elif m := _first(_PER_MINUTE, text):
        ask.images_per_hour = _number(m) * 60
    if m := _first(_AUDIO_HOURS, text) or _first(_AUDIO_HOURS_NAMED, text):
        ask.audio_hours = _number(m)
    said_otherwise = next((m for p in _WITHIN_SAID_OTHERWISE if (m := _first(p, text))), None)
    if m := _first(_WITHIN, text):
        ask.within_hours = _number(m) if m.group(1) else _number(m, 3)
    elif said_otherwise is not None:
        ask.within_hours = _number(said_otherwise)
    elif _first(_PER_MONTH, text):  # "1000 hours of audio a month": a month's batch, spread over 30 days
        ask.within_hours = 720.0
    elif _first(_PER_WEEK, text):
        ask.within_hours = 168.0
    elif _first(_WITHIN_DAY, text):
        ask.within_hours = 24.0
    if m := _first(_STREAMS, text):
        ask.streams = int(_number(m))
    if m := _first(_DOCS, text):
        ask.docs = int(_number(m))
    if m := _first(_DOC_TOKENS_AFTER, text):
        ask.doc_tokens = int(_number(m))
    elif m := _first(rf"(?:每篇|每条|each\s+of|documents?\s+of)\s*(?:about|约|~)?\s*{_NUM}\s*tokens?", text):
        ask.doc_tokens = int(_number(m))
    elif m := _first(_DOC_TOKENS_NAMED, text):
        ask.doc_tokens = int(_number(m))
    # "1,000 QPS of 128-token queries": the number before the unit is the rate, the one after is a length.
    if m := _first(_QPS, text):
        ask.qps = _number(m)
    if m := _first(rf"{_NUM}[\s\-]*tokens?\s+(?:quer(?:y|ies)|passages?|documents?|docs?|chunks?|inputs?)", text):
        ask.doc_tokens = ask.doc_tokens or int(_number(m))
    if ask.docs is None and (m := _first(_TOKENS_PER_DAY, text)):
        # "50M tokens a day": a day's documents of the stated (else 512-token) length, due within the day.
        total = _number(m) if m.group(1) else _number(m, 3)
        ask.doc_tokens = ask.doc_tokens or 512
        ask.docs, ask.within_hours = max(1, round(total / ask.doc_tokens)), ask.within_hours or 24.0
    if m := _first(rf"{_NUM}\s*(?:个)?\s*(?:candidates?|候选)", text):
        ask.candidates = int(_number(m))
    if m := _first(_IMAGES_PER_REQUEST, text):
        if model is not None and model.kind == "vlm":
            ask.images_per_request = int(_number(m))
    if m := _first(rf"{_NUM}\s*(?:帧|frames?)", text):
        ask.frames = int(_number(m))
    ask.dtype = _dtype(text)
    if _first(r"cpu\s*offload|offload|卸载到\s*cpu|显存卸载", text):
        ask.offload = "sequential" if _first(r"sequential|逐层", text) else "model"
    return ask if (model is not None or ask.said_anything()) else None


def _dtype(text: str) -> str | None:
    for dtype, pattern in (
        ("nf4", r"nf4|4[\s-]*bit|4\s*位|int4"),
        ("int8", r"int8|8[\s-]*bit|8\s*位"),
        ("fp8", r"fp8"),
        ("bf16", r"bf16|bfloat16"),
        ("fp16", r"fp16|float16|半精度"),
        ("fp32", r"fp32|float32|全精度"),
    ):
        if _first(pattern, text):
            return dtype
    return None
