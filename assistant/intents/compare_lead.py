"""The first line of a comparison: the winner for what the user asked, decided from each side's typed outcome.

Both comparison paths (plans per GPU, family or model in :mod:`assistant.intents.workload`, and named hardware
in :mod:`assistant.intents.compare_hardware`) reduce each side to a :class:`SideOutcome` (fits, GPUs, ¥/h,
¥/M tokens, tokens/s, training hours, headroom, users). :func:`lead_line` then names the winner of the
criterion the question asks about (cheaper / faster / more users / more room), or, when nothing is asked,
the side that wins on cost and speed, or "X for cost, Y for speed" when they differ (issue 8: "the first
line states the overall winner ... never only a neutral fact such as 'Fewest GPUs: ...'").
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from assistant import render
from assistant.billing_words import billing_basis
from assistant.intents.compare_yes_no import enough_on_one, enough_subject, yes_no_lead
from assistant.messages import say
from assistant.phrases import spell_numbers
from assistant.price_phrases import basis_label
from assistant.run import Language
from assistant.workload_numbers import token_cost_asked
from tools.plan import DeploymentOption

Criterion = Literal["cost", "speed", "users", "room", "gpus"]
# What "cheaper" is measured by: the hourly price, the cost per token, the monthly subscription the user pays, or
# the month as the plan prices it ("the monthly cost": the subscription where listed, else 730 h of the hour).
CostBasis = Literal["hour", "token", "subscription", "month"]

# What the question weighs the sides by, in the order a criterion is written; none: the overall winner.
_CRITERIA: dict[Criterion, str] = {
    "cost": r"cheap|cost|price|pric(?:ey|ier)|\bdeal\b|value|budget|afford|yuan|rmb|¥|per\s+(?:m|million)\b|"
    r"bang\s+for|econom|"
    r"便宜|划算|成本|价格|费用|多少钱|性价比|省钱|预算|花费|每月|包月|贵|更值(?!得)",
    "speed": r"fast|quick|speed|throughput|tokens?/s|tok/s|latency|finish(?:es)?\s+first|sooner|slow|"
    r"快|速度|吞吐|延迟|用时|多久|几天|多少天|耗时|慢",
    "users": r"(?:more|most)\s+(?:users|concurren\w*|sequences|requests|people|chats|sessions|conversations|streams)|"
    r"how\s+many\s+(?:users|concurrent|conversations|chats|sessions)|"
    r"(?:更多|最多).{0,4}(?:并发|用户|人|会话|对话)|并发.{0,4}(?:更多|最多|更高)|(?:撑|扛|支持|接待)(?:得|的)?(?:住)?更多|"
    r"多少\s*(?:路|个)?\s*(?:并发|用户|会话|对话)|多少人(?!民)|"  # "分别能撑多少并发": the count each holds
    r"多(?:撑|扛|带)|(?:撑|扛|带|支持|服务)(?:得了|得住)?几\s*(?:个|路)?\s*(?:人|用户|并发)|"  # "能多撑几个人"
    r"how\s+many\s+more\s+(?:users|people|chats|sessions|conversations|requests)",
    "room": r"headroom|(?:more|most)\s+(?:memory\s+)?room|余量|富余|宽裕|"
    # "哪个更省显存", "which uses less VRAM": the memory each needs
    r"省显存|显存(?:占用)?(?:更)?(?:少|小|低)|less\s+(?:vram|gpu\s+memory|memory)|memory[\s\-]efficient|"
    # "how much VRAM does each take", "显存各占多少": the memory each side needs, against what it has
    r"how\s+much\s+(?:vram|memory|gpu\s+memory)|(?:vram|memory)\s+(?:each|usage|use|footprint)|"
    r"显存.{0,4}(?:各|分别)?\s*(?:占|要|需要|用|占用)(?:了)?多少",
    # "各需要几张 A100", "how many A100s": the card count, whatever card is named
    "gpus": r"how\s+many\s+(?:gpus|cards|[a-z]\d{2,3}\w*)|fewe(?:r|st)\s+(?:gpus|cards)|几张|几块|多少张|多少块|"
    r"各(?:需要|要)几",
}


# Punctuation joining two figures or two criteria in a lead (the words themselves are in the catalogue).
_SEP = {"zh": "；", "en": "; "}
_AND = {"zh": "和", "en": " and "}


class SideOutcome(BaseModel):
    """One side of a comparison, as its tool calls came out (None: the tools gave no figure)."""

    model_config = ConfigDict(extra="forbid")

    label: str
    fits: bool = True
    gpus: int | None = None
    hourly: float | None = None
    hourly_shown: str | None = None  # as the answer shows it: "¥9.53" or "2 × ¥26.62"
    per_million: float | None = None
    subscription_month: float | None = None  # the fleet's monthly subscription price, where one is known
    monthly: float | None = None  # the plan's month: the subscription where listed, else 730 h of the hour
    month_basis: str | None = None  # which of the two ``monthly`` is ("monthly subscription", "pay-as-you-go x 730 h")
    tokens_per_s: float | None = None
    training_hours: float | None = None
    training_cost: float | None = None  # the whole run at pay-as-you-go, where the token count is known
    headroom_pct: float | None = None
    need_gib: float | None = None  # per GPU: what the workload needs and what the GPU has for it
    usable_gib: float | None = None
    users: int | None = None
    train_tflops: float | None = None  # dense BF16 TFLOPS of the side's GPUs together: training speed
    per: int = 1  # users and speed are ranked per this many GPUs ("per card": the side's GPU count)


def option_outcome(label: str, o: DeploymentOption) -> SideOutcome:
    """One side from the plan option standing for it (its cheapest that fits)."""
    return SideOutcome(label=label, gpus=o.total_gpus, hourly=o.price_cny_per_hour,
                       per_million=o.cost_cny_per_million_tokens, subscription_month=o.subscription_cny_per_month,
                       monthly=o.price_cny_per_month, month_basis=o.price_month_basis,
                       tokens_per_s=o.decode_tokens_per_s,
                       training_hours=o.training_hours, training_cost=o.training_cost_cny, headroom_pct=o.headroom_pct,
                       need_gib=o.per_gpu_gib_needed, usable_gib=o.per_gpu_capacity_gib,
                       users=o.max_concurrent_sequences)  # fmt: skip


# "per card", "每张卡": figures of fleets of different sizes are compared per GPU.
_PER_GPU_RE = r"per\s+(?:card|gpu)|each\s+(?:card|gpu)|每(?:张|块)?(?:卡|显卡|gpu)"


def per_gpu(sides: list[SideOutcome], question: str) -> list[SideOutcome]:
    """Return the sides with users and speed per GPU when the question asks "per card" (else unchanged)."""
    if not re.search(_PER_GPU_RE, question, re.IGNORECASE):
        return sides
    return [side.model_copy(update={"per": side.gpus or 1}) for side in sides]


def asked_criteria(question: str) -> list[Criterion]:
    """Return the criteria the question weighs the sides by, in the order it writes them."""
    found = []
    for name, pattern in _CRITERIA.items():
        if m := re.search(pattern, question, re.IGNORECASE):
            found.append((m.start(), name))
    return [name for _, name in sorted(found)]


def _best(sides: list[SideOutcome], key: str, low: bool) -> tuple[SideOutcome, SideOutcome] | None:
    """Return (winner, loser) on one figure when at least two sides have it and they differ, else None."""

    def value(side: SideOutcome) -> float:
        scale = side.per if key in ("users", "tokens_per_s") else 1
        return float(getattr(side, key)) / scale

    valued = [s for s in sides if getattr(s, key) is not None]
    if len(valued) < 2:
        return None
    ranked = sorted(valued, key=value, reverse=not low)
    if value(ranked[0]) == value(ranked[1]):
        return None
    return ranked[0], ranked[1]  # the winner and the runner-up: the margin that decides it


# Cost per token asked ("cheaper per 1M tokens", "bang for buck", "性价比"): the per-million figure decides
# before the hourly price (a dearer card that decodes faster can cost less per token).
_PER_TOKEN_RE = (
    r"per\s+(?:1\s*)?(?:m|million|mtok)\b|per[\s\-]+(?:output\s+)?tokens?\b|/\s*(?:1\s*)?m\s*tok|"
    r"bang\s+for|value\s+for\s+(?:the\s+)?money|cost[\s\-]effective|每\s*(?:百万|一百万|1\s*m)|百万\s*tokens?|"
    # what the money buys: "more for my money", "price-performance", "better value", "tokens per yuan"
    r"for\s+(?:my|our|your|the)\s+money|price[\s\-/]*perf\w*|\b(?:better|best|more)\s+value\b|更值(?!得)|"
    r"tokens?\s+per\s+(?:yuan|rmb|dollar|¥)|"
    r"每\s*(?:个\s*)?token|性价比"
)

_PER_HOUR_RE = r"per\s+hour|hourly|/\s*h(?:ou)?r?\b|an\s+hour|每小时|一小时|小时多少"
_PER_MONTH_RE = r"\bmonthly\b|per\s+month|a\s+month|/\s*mo(?:nth)?\b|每月|每个月|一个月|月费|月成本"
# A month that belongs to a budget ("¥10,000/month cap", "每月预算 2 万") bounds the sides; it is not the basis asked.
_BUDGET_MONTH_RE = (
    r"[¥$]?\s*(?<![A-Za-z0-9.\-])\d[\d,.]*\s*(?:k|w|万|千)?\s*(?:元|块|rmb|yuan|cny)?\s*(?:/|per|a|每)\s*(?:month|mo\b|月)|"
    r"(?:monthly|每月|每个月)\s*(?:budget|cap|预算|上限)|(?:budget|预算|上限)\s*(?:每月|每个月)"
)


def cost_basis(question: str) -> CostBasis:
    """Return what "cheaper" is measured by in ``question``.

    Per token when asked instead of per hour ("每小时多少钱、每百万 tokens 多少钱": the hour first, as written),
    the monthly subscription when that is how the user pays ("包月", "I'd pay monthly": a type's subscription
    discount differs from its hourly rank), else the hourly price.
    """
    per_token = re.search(_PER_TOKEN_RE, question, re.I) or token_cost_asked(spell_numbers(question))
    if per_token and not re.search(_PER_HOUR_RE, question, re.I):
        return "token"
    if billing_basis(question) == "subscription":
        return "subscription"
    unbounded = re.sub(_BUDGET_MONTH_RE, " ", question, flags=re.I)
    monthly = re.search(_PER_MONTH_RE, unbounded, re.I) and not re.search(_PER_HOUR_RE, question, re.I)
    return "month" if monthly else "hour"


def _cost(sides: list[SideOutcome], basis: CostBasis = "hour") -> tuple[SideOutcome, SideOutcome] | None:
    if all(s.training_cost is not None for s in sides) and (run := _best(sides, "training_cost", low=True)):
        return run  # a training run with its token count: what the whole run costs decides, not its hour
    if basis == "token" and (cheapest := _best(sides, "per_million", low=True)):
        return cheapest
    if basis == "subscription" and (cheapest := _best(sides, "subscription_month", low=True)):
        return cheapest
    if basis == "month" and (cheapest := _best(sides, "monthly", low=True)):
        return cheapest
    hourly = _best(sides, "hourly", low=True)
    if hourly is None:
        return _best(sides, "per_million", low=True)  # the same hourly price: per token decides
    return hourly


def _speed(sides: list[SideOutcome]) -> tuple[SideOutcome, SideOutcome] | None:
    return (
        _best(sides, "training_hours", low=True)
        or _best(sides, "train_tflops", low=False)
        or _best(sides, "tokens_per_s", low=False)
    )


# Decode and training speeds are estimates: sides within this share of each other are about as fast.
_SPEED_TIE = 0.05


def _clear_speed_win(sides: list[SideOutcome]) -> bool:
    """Whether the fastest side beats the runner-up by more than the estimates' noise (see ``_SPEED_TIE``)."""
    win = _speed(sides)
    if win is None:
        return False
    a, b = win
    for key, low in (("training_hours", True), ("train_tflops", False), ("tokens_per_s", False)):
        va, vb = getattr(a, key), getattr(b, key)
        if va is not None and vb is not None:
            va, vb = (va / a.per, vb / b.per) if key == "tokens_per_s" else (va, vb)
            fast, slow = (vb, va) if low else (va, vb)
            return bool(slow) and fast / slow > 1 + _SPEED_TIE
    return True


def _token_tie(sides: list[SideOutcome], lang: Language) -> str | None:
    """Say two sides cost about the same per token when their estimates are within the noise, then the hour.

    The cost per million tokens is the hourly price over an estimated decode speed, so it carries the speed
    estimate's noise (``_SPEED_TIE``): a few percent apart is no winner ("¥10.02 vs ¥10.31" is a tie).
    """
    win = _best(sides, "per_million", low=True)
    if win is None or win[0].per_million is None or win[1].per_million is None:
        return None
    a, b = win
    if b.per_million > a.per_million * (1 + _SPEED_TIE):
        return None
    line = say("lead.token_tie", lang, a=a.label, b=b.label, fa=render.fig(a.per_million),
               fb=render.fig(b.per_million))  # fmt: skip
    if (hourly := _best([a, b], "hourly", low=True)) is not None:
        line += ("" if lang == "zh" else " ") + say("lead.tie_hourly", lang, label=hourly[0].label,
                                                    figures=_figures(hourly, "cost", lang))
    return line


def _figures(
    win: tuple[SideOutcome, SideOutcome], criterion: Criterion, lang: Language, basis: CostBasis = "hour"
) -> str:
    """Return the figures behind one criterion's winner: "¥9.53/h vs ¥11.63/h", "579 vs 201 tokens/s"."""
    a, b = win
    if criterion == "cost":
        if a.training_cost is not None and b.training_cost is not None and a.training_cost != b.training_cost:
            return say("lead.fig_run_cost", lang, a=render.fig(a.training_cost), b=render.fig(b.training_cost))
        if basis == "subscription" and a.subscription_month is not None and b.subscription_month is not None:
            return say("lead.fig_subscription", lang, a=render.fig(a.subscription_month),
                       b=render.fig(b.subscription_month))  # fmt: skip
        by_token = basis == "token" and a.per_million is not None and b.per_million is not None
        if basis == "month" and a.monthly is not None and b.monthly is not None:
            if a.month_basis == b.month_basis:
                return say("lead.fig_month", lang, a=render.fig(a.monthly, lang), b=render.fig(b.monthly, lang),
                           basis=basis_label(a.month_basis, lang))  # fmt: skip
            return say("lead.fig_months", lang, a=render.fig(a.monthly, lang), b=render.fig(b.monthly, lang),
                       ba=basis_label(a.month_basis, lang), bb=basis_label(b.month_basis, lang))  # fmt: skip
        if not by_token and a.hourly is not None and b.hourly is not None and a.hourly != b.hourly:
            return say("lead.fig_hourly", lang, a=a.hourly_shown or f"¥{render.fig(a.hourly)}",
                       b=b.hourly_shown or f"¥{render.fig(b.hourly)}")  # fmt: skip
        return say("lead.fig_per_million", lang, a=render.fig(a.per_million), b=render.fig(b.per_million))
    if criterion == "speed":
        if a.training_hours is not None and b.training_hours is not None:
            return say("lead.fig_hours", lang, a=render.fig(a.training_hours), b=render.fig(b.training_hours))
        if a.train_tflops is not None and b.train_tflops is not None:  # shown as the spec sheets give them
            na, nb = a.gpus or 1, b.gpus or 1
            return say("lead.fig_tflops", lang, na=na, a=render.fig(a.train_tflops / na), nb=nb,
                       b=render.fig(b.train_tflops / nb))  # fmt: skip
        if a.per != 1 or b.per != 1:  # per card: the totals with their GPU counts (the figures the tools gave)
            return say("lead.fig_tps_on", lang, a=render.fig(a.tokens_per_s), ga=a.per,
                       b=render.fig(b.tokens_per_s), gb=b.per)  # fmt: skip
        return say("lead.fig_tps", lang, a=render.fig(a.tokens_per_s), b=render.fig(b.tokens_per_s))
    if criterion == "users":
        if a.per != 1 or b.per != 1:
            return say("lead.fig_users_on", lang, a=a.users, ga=a.per, b=b.users, gb=b.per)
        return say("lead.fig_users", lang, a=a.users, b=b.users)
    if criterion == "gpus":
        return say("lead.fig_gpu_count", lang, a=a.gpus, b=b.gpus)
    if None not in (a.need_gib, a.usable_gib, b.need_gib, b.usable_gib, a.headroom_pct, b.headroom_pct):
        # the memory asked, as the plans give it: need of usable per GPU, and the headroom that leaves
        return say("lead.fig_memory", lang, an=render.fig(a.need_gib), au=render.fig(a.usable_gib),
                   bn=render.fig(b.need_gib), bu=render.fig(b.usable_gib), a=render.fig(a.headroom_pct),
                   b=render.fig(b.headroom_pct))  # fmt: skip
    if a.gpus is not None and b.gpus is not None and a.gpus != b.gpus:
        return say("lead.fig_gpus", lang, a=a.gpus, b=b.gpus)
    return say("lead.fig_room", lang, a=render.fig(a.headroom_pct), b=render.fig(b.headroom_pct))


def _winner(
    sides: list[SideOutcome], criterion: Criterion, basis: CostBasis = "hour"
) -> tuple[SideOutcome, SideOutcome] | None:
    if criterion == "cost":
        return _cost(sides, basis)
    if criterion == "speed":
        return _speed(sides)
    if criterion == "users":
        return _best(sides, "users", low=False)
    if criterion == "gpus":
        return _best(sides, "gpus", low=True)
    # Headroom of fleets of different sizes compares 4 cards with 8: the side holding it on fewer GPUs has the
    # roomier cards.
    return _best(sides, "gpus", low=True) or _best(sides, "headroom_pct", low=False)


def enough_line(side: SideOutcome, lang: Language) -> str:
    """Return the yes line for the side offered as enough, with its GPUs, memory and price where known."""
    price = say("lead.enough_price", lang, hourly=side.hourly_shown or f"¥{render.fig(side.hourly)}") \
        if side.hourly is not None else ""  # fmt: skip
    return say("lead.enough_yes", lang, label=side.label, gpus=side.gpus, need=render.fig(side.need_gib),
               usable=render.fig(side.usable_gib), price=price)  # fmt: skip


def _not_on_one_line(side: SideOutcome, fitting: list[SideOutcome], lang: Language) -> str:
    """Return the no line for a side offered as one card that needs several, with the side that needs fewest."""
    line = say("lead.enough_not_one", lang, label=side.label, gpus=side.gpus, need=render.fig(side.need_gib),
               usable=render.fig(side.usable_gib))  # fmt: skip
    others = sorted((s for s in fitting if s is not side and s.gpus), key=lambda s: s.gpus or 0)
    if others and (others[0].gpus or 0) < (side.gpus or 0):
        line += say("lead.enough_other", lang, label=others[0].label, gpus=others[0].gpus)
    return line


def lead_line(sides: list[SideOutcome], question: str, lang: Language) -> str | None:
    """Return the winner-first line for these sides and this question, or None (nothing decides it).

    A side that does not fit never wins; when only one fits, it is the answer. Otherwise the criteria the
    question asks for decide; with none asked, cost and speed together ("X for cost, Y for speed").
    """
    fitting = [s for s in sides if s.fits]
    if len(fitting) == 1 and len(sides) >= 2:
        return None  # "only X fits" is said by the caller with its memory figures
    if len(fitting) < 2:
        return None
    fitting = per_gpu(fitting, question)
    enough = enough_subject([side.label for side in sides], question)  # "... or will an L20 do?": yes, it does
    if (side := next((s for s in fitting if s.label == enough), None)) is not None:
        if enough_on_one(question) and (side.gpus or 1) > 1:  # "or will an L20 do?" when it takes two: no
            return _not_on_one_line(side, fitting, lang)
        cheaper = [s for s in fitting if s.hourly is not None and side.hourly is not None and s.hourly < side.hourly]
        if cheaper:  # "is a T4 good enough, or should we get an A10?" when the A10 costs less: yes, but
            best = min(cheaper, key=lambda s: s.hourly or 0)
            return enough_line(side, lang) + say("lead.enough_but_cheaper", lang, label=best.label,
                                                 hourly=best.hourly_shown or f"¥{render.fig(best.hourly)}")  # fmt: skip
        return enough_line(side, lang)
    asked = asked_criteria(question)
    if "gpus" in asked and all(side.gpus for side in fitting):  # "各需要几张卡": the counts, fewest first
        ranked = sorted(fitting, key=lambda side: side.gpus or 0)
        items = _SEP[lang].join(say("lead.count_item", lang, label=s.label, n=s.gpus) for s in ranked)
        counts = say("lead.counts", lang, items=items)
        # "how many cards each, and which is cheaper?": the winner of the rest of what is asked joins the counts
        rest = [c for c in asked if c != "gpus" and _winner(fitting, c, cost_basis(question))]
        more = _winners_line(sides, fitting, rest, question, lang) if rest else None
        return f"{counts} {more}" if more else counts
    # Without two prices, the GPU count stands in for cost: fewer cards of the same workload cost less to run.
    basis = cost_basis(question)
    if basis == "token" and asked[:1] in ([], ["cost"]) and (tie := _token_tie(fitting, lang)):
        return tie
    overall: list[Criterion] = ["cost" if _cost(fitting, basis) else "gpus"]
    if _clear_speed_win(fitting):  # a few percent of estimated decode speed is no win worth a split verdict
        overall.append("speed")
    wanted: list[Criterion] = [c for c in asked if _winner(fitting, c, basis)] or overall
    return _winners_line(sides, fitting, wanted, question, lang)


def _winners_line(
    sides: list[SideOutcome], fitting: list[SideOutcome], wanted: list[Criterion], question: str, lang: Language
) -> str | None:
    """Return the line naming the winner of the first one or two ``wanted`` criteria, with their figures."""
    basis = cost_basis(question)
    wins = [(c, w) for c in wanted[:2] if (w := _winner(fitting, c, basis)) is not None]
    if not wins:
        wins = [(c, w) for c in ("speed", "users", "room") if (w := _winner(fitting, c)) is not None][:1]
    if not wins:
        return None
    names = {c: say(f"lead.crit_{c}", lang) for c in ("cost", "speed", "users", "room", "gpus")}
    winners = [(names[c], w[0].label) for c, w in wins]  # "is X faster than Y?": yes or no goes first
    labels = [side.label for side in sides]
    def figs(w: tuple[SideOutcome, SideOutcome], c: Criterion) -> str:
        # three or more sides: "vs" names which one the runner-up is ("¥9.53/h vs ¥11.63/h (A10 vs T4)")
        pair = say("lead.pair", lang, a=w[0].label, b=w[1].label) if len(sides) > 2 else ""
        return _figures(w, c, lang, basis) + pair

    if len(wins) == 1 or wins[0][1][0].label == wins[1][1][0].label:
        label = wins[0][1][0].label
        which = _AND[lang].join(names[c] for c, _ in wins)
        figures = _SEP[lang].join(figs(w, c) for c, w in wins)
        code = "lead.one" if len(wins) == 1 else "lead.both"
        return yes_no_lead(say(code, lang, label=label, which=which, figures=figures), winners, labels, question, lang)
    (c1, w1), (c2, w2) = wins
    line = say("lead.split", lang, a=w1[0].label, ca=names[c1], b=w2[0].label, cb=names[c2],
               fa=figs(w1, c1), fb=figs(w2, c2))  # fmt: skip
    return yes_no_lead(line, winners, labels, question, lang)
