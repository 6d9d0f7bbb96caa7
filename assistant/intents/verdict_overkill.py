"""Inverted verdicts: "is an A100 overkill for a 7B?", "有必要上 A100 吗", "大材小用吗", "do we really need 8 GPUs?".

These ask whether the named hardware is MORE than the workload needs, so "yes, it fits" answers another
question. The first line says whether it is more than needed (or, for a necessity question, whether it is
needed), with the per-GPU figures that decide it and the cheaper option that also runs the workload.
Polarity: "overkill?" is answered yes when a cheaper option fits; "do we need it?" is answered no.
"""

from __future__ import annotations

import re
from typing import Literal

from assistant import render
from assistant.answer import Language
from assistant.messages import say
from tools.plan import DeploymentOption
from tools.vocabulary import model_family_words

Inverted = Literal["overkill", "necessity", "too_big"]

_OVERKILL_RE = (
    r"\boverkill\b|\bover[\s\-]?(?:sized|provisioned|spec(?:ced|'d)?|powered|engineer\w*)\b|\boverdo\w*|"
    r"\boverboard\b|\bwast(?:e|eful|ing)\b|\btoo\s+(?:big|powerful|much|many|beefy|large)\b|more\s+than\s+(?:we|i|it|you)\s+needs?\b|"
    r"大材小用|杀鸡(?:焉)?用牛刀|(?:太|有点|是不是)?浪费|过剩|太奢侈|用不着|过度(?:配置)?|配置(?:过|太)高|太高配|"
    # "会不会太夸张", "有点过头", "高射炮打蚊子", "is that excessive?"
    r"太夸张|有点夸张|过头|(?:高射炮|大炮)打蚊子|太豪华|\bexcessive\b|\boverpowered\b"
)
_NECESSITY_RE = (
    r"\bdo\s+(?:i|we|you)\s+(?:really\s+|actually\s+)?need\b|\bis\s+(?:it|that|this)\s+(?:really\s+)?necessary\b|"
    r"\bmust\s+(?:we|i)\b|\bhave\s+to\s+(?:use|go|get|rent)\b|有必要|没必要|需不需要|是否需要|真的需要|非得|非要|"
    r"一定要|必须(?:要|上|用)"
)

# "Is one A100 enough or do we need two?", "一张够吗，还是要两张": enough asked of the named one, before the need.
_ENOUGH_FIRST_RE = r"\b(?:enough|sufficient)\b.{0,90}?\bor\b|够(?:吗|不够|用吗)?.{0,12}(?:还是|或者)"
# "How many A10s do I need?", "需要几张卡": a count asked, not whether the named hardware is needed.
_COUNT_ASKED_RE = r"\bhow\s+many\b|\bwhat\s+(?:size|count)\b|几张|几台|几块|多少张|多少台|多少块"


# "Is Qwen2.5-72B too big for 4 A10s?", "is 8k context too much for ...": the workload, not the hardware, is "too
# big", so yes means it does not fit. Said of the workload when a model, a length or a head-count comes before.
_TOO_BIG_RE = r"\btoo\s+(?:big|large|much|many|heavy|long)\b"
_WORKLOAD_WORD = r"\d+(?:\.\d+)?\s*b\b|\bcontext\b|\bctx\b|\d+\s*k\b|\btokens?\b|\bmodels?\b|\busers\b|\bpeople\b"


def inverted_kind(question: str) -> Inverted | None:
    """Whether the question asks if the named hardware is more than needed, and in which polarity."""
    if (big := re.search(_TOO_BIG_RE, question, re.IGNORECASE)) and re.search(
        rf"{_WORKLOAD_WORD}|{'|'.join(model_family_words())}", question[: big.start()], re.IGNORECASE
    ):
        return "too_big"
    if re.search(_OVERKILL_RE, question, re.IGNORECASE):
        return "overkill"
    need = re.search(_NECESSITY_RE, question, re.IGNORECASE)
    if need and not re.search(_COUNT_ASKED_RE, question, re.IGNORECASE):
        # "Is one A100 enough, or do we need two?", "Can I run it on one A10 or do I need something bigger?":
        # whether the named one does is asked first, the need only as the other answer
        first = re.search(_ENOUGH_FIRST_RE, question, re.IGNORECASE) or re.search(
            r"(?:\bor|还是|或者)\s*$", question[: need.start()], re.IGNORECASE
        )
        return None if first else "necessity"
    return None


def smaller_option(
    alternative: DeploymentOption | None,
    own_hourly: float | None,
    own_gpu: str | None,
    own_gpus: int,
    own_gib: float | None = None,
) -> DeploymentOption | None:
    """Return the planner's best option when it is a cheaper (or, unpriced, a smaller) way to run the same load.

    With no price for the named hardware, "smaller" is less usable memory in all (``own_gib`` per GPU): four
    A100s are no smaller than two H20s, whatever their count or name.
    """
    if alternative is None or alternative.price_cny_per_hour is None:
        return None
    same = (alternative.gpu_model or alternative.gpu_model_likely) == own_gpu and alternative.total_gpus == own_gpus
    if same:
        return None
    if own_hourly is not None:
        return alternative if alternative.price_cny_per_hour < own_hourly else None
    if own_gib is not None:
        smaller = alternative.total_gpus * alternative.per_gpu_capacity_gib < own_gpus * own_gib
        return alternative if smaller else None
    return alternative if alternative.total_gpus <= own_gpus or alternative.gpu_model != own_gpu else None


def inverted_line(
    kind: Inverted,
    lang: Language,
    *,
    hardware: str,
    model: str,
    need: float,
    usable: float,
    pct: float | None,
    fits: bool,
    own_hourly: float | None,
    alternative: DeploymentOption | None,
) -> str:
    """Write the first line of an inverted verdict from the fit figures and the cheaper option (None: none)."""
    figures = {"hardware": hardware, "model": model, "need": render.fig(need), "usable": render.fig(usable),
               "pct": render.fig(pct)}  # fmt: skip
    sep = "" if lang == "zh" else " "
    if not fits:
        line = say(f"overkill.{kind}.short", lang, **figures)
        if alternative is None or alternative.price_cny_per_hour is None:
            return line
        return line + sep + say("overkill.short_instead", lang, other=alternative.instance_type,
                                other_gpu=render.gpu_label(alternative, lang), n=alternative.instances,
                                other_price=render.fig(alternative.price_cny_per_hour))  # fmt: skip
    if kind == "too_big":
        return say("overkill.too_big.fits", lang, **figures)
    if alternative is None:  # unpriced hardware is not "the cheapest": only nothing smaller runs it
        return say(f"overkill.{kind}.{'cheapest' if own_hourly is not None else 'snug'}", lang, **figures)
    line = say(f"overkill.{kind}.yes", lang, **figures)
    alt = {"other": alternative.instance_type, "other_gpu": render.gpu_label(alternative, lang),
           "n": alternative.instances, "other_price": render.fig(alternative.price_cny_per_hour)}  # fmt: skip
    if own_hourly is not None:
        return line + sep + say("overkill.cheaper", lang, **alt, price=render.fig(own_hourly))
    return line + sep + say("overkill.cheaper_unpriced", lang, **alt)


def fewer_cards_line(own: DeploymentOption, best: DeploymentOption | None, gpu: str, lang: Language) -> str | None:
    """'A10 是好选择吗' when it takes four of them: the option on fewer GPUs that costs no more per hour (None: none).

    Not "much cheaper" (that line is said elsewhere), but one GPU instead of four for the same money or less is
    the better choice the verdict should name.
    """
    if best is None or best.total_gpus >= own.total_gpus or (best.gpu_model or best.gpu_model_likely) == gpu:
        return None
    if best.price_cny_per_hour is None or own.price_cny_per_hour is None:
        return None
    if best.price_cny_per_hour > own.price_cny_per_hour:
        return None
    return say("gpu.fewer_cards", lang, other=best.instance_type, other_gpu=render.gpu_label(best, lang),
               n=best.total_gpus, other_price=render.fig(best.price_cny_per_hour), total=own.total_gpus, gpu=gpu,
               price=render.fig(own.price_cny_per_hour))  # fmt: skip
