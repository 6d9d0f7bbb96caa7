"""Conversation state re-derived from the history on every call: follow-ups change only what they name.

The engines keep no memory between requests. Each call reads the user turns of ``history`` plus the new
question, in order, and folds them into one :class:`Conversation`:

* A follow-up ("那如果用 INT8 呢?", "what about 4 GPUs?", "换成 L20") changes the slots it names and keeps
  the rest of the workload under discussion.
* A new model in a full question starts a new topic; only the region and budget carry over. A new model
  in a short follow-up ("那 Llama-3.1-8B 呢?") swaps the model and keeps the workload.
* A question about something else ("gn7i 是什么?") is answered on its own and leaves the workload as it
  was, so a later "what about INT8?" still refers to it.
* The engine asks one clarifying question when the model or the task is missing; it never asks the same
  question twice: if the previous turn was already that question, the stated defaults are used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assistant.answer import Message
from assistant.billing_words import follow_up_period
from assistant.follow_up_words import bare_count
from assistant.understanding import Slots, understand
from tools.models import list_models, parse_size_b

Missing = Literal["model", "task", "method"]
"""What a plan or memory question lacks: the model, inference vs training, or the fine-tuning method."""

WORKLOAD_FIELDS = (
    "task",
    "precision",
    "quant",
    "context",
    "concurrency",
    "qps",
    "batch",
    "train_tokens",
    "budget_cny_month",
    "job_budget_cny",
    "region",
    "gpu",
    "gpus",
    "prompt_tokens",
    "gen_tokens",
    "max_instances",
    "max_gpus",
    "instances",
    "architecture",
    "billing",
    "usage_hours",
    "speed",
    "rental_hours",
    "users",
)
_KEPT_ACROSS_TOPICS = ("budget_cny_month", "region")
_RATES = {"qps": "concurrency", "concurrency": "qps"}
_WORKLOAD_INTENTS = ("plan", "memory")
_PRETRAINING_TOKENS = 1e9
# When a bare size names no model, these families stand for it, most common first.
_SIZE_PREFERENCE = ("Qwen2.5", "Qwen3", "Llama 3.1", "Llama 3.3", "Llama 3", "Mixtral", "Yi-1.5")


class Conversation(BaseModel):
    """What the engine answers now, with what it may assume."""

    model_config = ConfigDict(extra="forbid")

    slots: Slots = Field(description="the question to answer, follow-ups folded in")
    turn: Slots = Field(description="the newest user turn alone")
    missing: list[Missing] = Field(default_factory=list, description="still unknown; ask unless defaulted")
    defaulted: dict[str, str] = Field(
        default_factory=dict, description="slots filled with defaults because the user was already asked"
    )
    turns: int = Field(description="user turns read, the new question included")


def read_conversation(question: str, history: Sequence[Message] = ()) -> Conversation:
    """Fold the user turns of ``history`` and ``question`` into the state to answer now.

    Args:
        question: The new user turn.
        history: Earlier turns, oldest first; only user turns carry slots.
    """
    workload: Slots | None = None
    asked: list[Missing] = []
    current = understand(question)
    previous_missing: list[Missing] = []
    user_turns = [m.content for m in history if m.role == "user"]
    for text in user_turns:
        turn = _with_bare_count(workload, understand(text), text)
        merged = merge(workload, turn, answering=bool(asked))
        if merged.intent in _WORKLOAD_INTENTS:
            state, _ = _fill_defaults(merged, previous_missing)
            workload = state
            previous_missing = missing_slots(state)
        else:
            workload = merged if merged.intent == "media" else workload
            previous_missing = []
        asked = previous_missing
    # "what about per day?" after "what does it cost a month?": the same workload, the cost in another period;
    # "how much per month now?" after changes to a workload: its cost, with nothing named of its own
    # "Qwen2.5-7B for 20 users" then "what about per year?" / "那一个周末呢": a period alone after a serving plan
    # asks that plan's cost in it, as after a cost question
    priced = bool(workload and (workload.asks_cost or (workload.model and not _is_training(workload.task))))
    period = priced and current.follow_up and bool(follow_up_period(question) or current.rental_hours)
    asks_cost = current.asks_cost or current.asks_token_cost  # "what would that be per million tokens?"
    costed = bool(workload and workload.model and asks_cost and _no_subject(current) and not current.gpu)
    current = _with_bare_count(workload, current, question)
    merged = merge(workload, current, answering=bool(asked) or period or costed)
    filled, defaulted = _fill_defaults(merged, asked) if merged.intent in _WORKLOAD_INTENTS else (merged, {})
    return Conversation(
        slots=filled,
        turn=current,
        missing=missing_slots(filled) if filled.intent in _WORKLOAD_INTENTS else [],
        defaulted=defaulted,
        turns=len(user_turns) + 1,
    )


def _with_bare_count(workload: Slots | None, turn: Slots, question: str) -> Slots:
    """Read "100 人呢？" / "what about 100?" after a serving workload as a new figure of the rate it states.

    A bare number is only read where the workload states exactly the rate it can change; "人"/"users" makes it
    the concurrency. Anything else stays unread rather than guessed.
    """
    if workload is None or workload.intent not in _WORKLOAD_INTENTS:
        return turn
    if turn.intent != "out_of_scope" or turn.off_topic or turn.injection or turn.stated():
        return turn
    count = bare_count(question)
    if count is None:
        return turn
    value, people = count
    if _is_training(workload.task):  # "how long on 2 A100s?" then "and with 4?": the GPU count it states
        return turn.model_copy(update={"gpus": value, "follow_up": True}) if workload.gpus and not people else turn
    if people or (workload.concurrency is not None and workload.qps is None):
        return turn.model_copy(update={"concurrency": value, "follow_up": True})
    if workload.qps is not None and workload.concurrency is None:
        return turn.model_copy(update={"qps": float(value), "follow_up": True})
    return turn


def merge(workload: Slots | None, turn: Slots, *, answering: bool = False) -> Slots:
    """Combine the workload under discussion with a new turn (see the module docstring for the rules).

    Args:
        workload: The plan or memory question of earlier turns, or None.
        turn: The new turn, understood on its own.
        answering: The previous answer was a clarifying question, so a reply without a subject of its
            own ("嗯，要几张卡") continues the workload.
    """
    if workload is not None and workload.intent == "media" and turn.media and turn.media.model is None:
        # "那每小时 5000 张呢": the image/speech/embedding workload under discussion, one figure changed.
        kept = {f: getattr(turn, f) or getattr(workload, f) for f in ("gpu", "gpus", "region", "concurrency", "qps")}
        return workload.model_copy(update={"media": workload.media.merged(turn.media) if workload.media else None,
                                           "asks_verdict": turn.asks_verdict, "follow_up": True, **kept})
    if workload is None or not (_continues(workload, turn) or (answering and _no_subject(turn))):
        return turn
    # "我们现在有 4 张 L20" then "跑 72B 够吗": hardware stated before any model is the model's hardware (i8form).
    if turn.model and turn.model != workload.model and not turn.follow_up and not _hardware_only(workload):
        kept = {f: getattr(workload, f) for f in _KEPT_ACROSS_TOPICS if getattr(turn, f) is None}
        return turn.model_copy(update=kept)
    update: dict[str, object] = {f: getattr(turn, f) for f in WORKLOAD_FIELDS if getattr(turn, f) is not None}
    if turn.model or turn.model_error:
        update |= {"model": turn.model, "model_mention": turn.model_mention, "model_error": turn.model_error}
        update |= {"size_b": None}
        if not _hardware_only(workload):  # "我们有 4 张 L20" then a model: the count stays with the GPU it counts
            update.setdefault("gpus", None)
    elif turn.size_b:
        update |= {"size_b": turn.size_b, "model": None, "model_mention": None, "model_error": None}
    if turn.task_hint and turn.task is None and not _is_training(workload.task):
        # "训练 1 亿 tokens 要多久" after a LoRA question keeps LoRA; after a serving question it asks how.
        update |= {"task_hint": turn.task_hint, "task": None}
    if turn.precision and not turn.quant:
        update["quant"] = None  # "那用 INT8 呢" after AWQ: the new precision replaces the old format
    update["quant_guessed"] = turn.quant_guessed if turn.precision else workload.quant_guessed
    if _compares_gpus_for_workload(workload, turn):
        update |= {"gpu": None, "gpus": None, "gpu_mentions": turn.gpu_mentions}
    if turn.instance_types or turn.families:
        # Hardware named anew replaces the hardware before it ("换成 ecs.gn8is.4xlarge").
        update |= {"instance_types": turn.instance_types, "families": turn.families}
        update.setdefault("gpu", None)
        update.setdefault("gpus", None)
    if "gpu" in update and "gpus" not in update and not workload.gpu:
        # A count without a GPU ("4 GPUs") was a layout question; a named set ("4 张 L20") is the user's
        # hardware, so "what about on A100?" keeps the count and changes the card.
        update["gpus"] = None
    new_task = update.get("task")
    if new_task is not None and _is_training(new_task) != _is_training(workload.task):
        # Serving numbers mean nothing for a training run and the other way round.
        for field in ("precision", "quant", "context", "concurrency", "qps", "batch", "train_tokens", "gen_tokens",
                      "rental_hours"):
            update.setdefault(field, None)
    for field, factor in (turn.scale or {}).items():  # "what if we double the users?"
        if field in _RATES and getattr(workload, field) is None:
            field = _RATES[field]  # "traffic doubles" on a workload stated in users, and the other way round
        if field not in update and isinstance(value := getattr(workload, field), int | float):
            update[field] = type(value)(round(value * factor)) if isinstance(value, int) else value * factor
    if turn.epochs and workload.train_tokens and "train_tokens" not in update:  # "and 3 epochs?"
        update |= {"train_tokens": workload.train_tokens / (workload.epochs or 1) * turn.epochs, "epochs": turn.epochs}
    # "and with 8k prompts instead?" after "how many 32k users does it hold?" still asks how many; a stated
    # concurrency ("那 20 并发呢") asks whether that many fit instead.
    update["asks_capacity"] = turn.asks_capacity or (workload.asks_capacity and turn.concurrency is None)
    # "what about with 32 users?" after "how long can each context be?" still asks how long
    update["asks_longest_context"] = turn.asks_longest_context or (workload.asks_longest_context and not turn.context)
    update["asks_cost"] = turn.asks_cost or workload.asks_cost  # "那 L20 呢" after "一个月多少钱" still asks it
    update["asks_user_cost"] = turn.asks_user_cost or workload.asks_user_cost
    update["intent"] = "plan" if _compares_gpus_for_workload(workload, turn) else _merged_intent(workload, turn)
    update |= {"injection": turn.injection, "follow_up": turn.follow_up, "accept_defaults": turn.accept_defaults}
    update["unnamed_model"] = turn.unnamed_model  # the default stood for no model; a size or name now replaces it
    # GPUs ruled out stay ruled out ("not on A10s"), unless a later turn names one of them to use.
    gpu = update.get("gpu", workload.gpu)
    update["exclude_gpus"] = [g for g in turn.exclude_gpus or workload.exclude_gpus if g != gpu]
    return workload.model_copy(update=update)


def _merged_intent(workload: Slots, turn: Slots) -> str:
    # "推理" answering "inference or training?" keeps a memory question a memory question.
    if turn.intent == "memory" or turn.model:
        return turn.intent if turn.intent in _WORKLOAD_INTENTS else workload.intent
    if turn.gpu and turn.intent == "plan":
        return "plan"
    return workload.intent


def missing_slots(slots: Slots) -> list[Missing]:
    """List what a plan or memory question still lacks before the tools can run."""
    if slots.intent not in _WORKLOAD_INTENTS or slots.model_error:
        return []
    out: list[Missing] = []
    if slots.model is None:
        out.append("model")
    if slots.task is None:
        # "微调"/"train on my data" is training without a method; otherwise serving vs training is open.
        out.append("method" if slots.task_hint else "task")
    return out


def default_for(missing: Missing, slots: Slots) -> str | None:
    """Return the value assumed for a missing slot when the user does not say (None: no default)."""
    if missing == "model":
        return representative_model(slots.size_b) if slots.size_b else None
    if missing == "method":
        # Billions of tokens are a (continued) pretraining corpus, which trains every weight; a fine-tuning set
        # is millions. So "train a 7B model on 50B tokens" is offered full training, not LoRA, as the default.
        return "full" if (slots.train_tokens or 0) >= _PRETRAINING_TOKENS else "lora"
    return "inference"


def representative_model(size_b: float) -> str | None:
    """Pick a registry model of about ``size_b`` billion parameters to stand for "a 70B model".

    Prefers an exact nominal size ("70B" in the name), then the nearest within 15%, and among equals the
    most common families first.
    """
    best: tuple[float, int, int, str] | None = None
    for index, model in enumerate(list_models()):
        # A name without a size ("Kimi-K2-Instruct") stands for its published total ("a 1T model")
        nominal = parse_size_b(model.name) or model.official_params_b
        if not nominal or "distill" in model.name.lower():
            continue
        distance = abs(math.log(nominal / size_b))
        if distance > math.log(1.15):
            continue
        family_rank = _SIZE_PREFERENCE.index(model.family) if model.family in _SIZE_PREFERENCE else 99
        key = (round(distance, 3), family_rank, index, model.name)
        if best is None or key < best:
            best = key
    return best[3] if best else None


def _fill_defaults(slots: Slots, asked: Sequence[Missing]) -> tuple[Slots, dict[str, str]]:
    """Fill what is missing with defaults when the user was already asked, accepted, or named a GPU."""
    missing = missing_slots(slots)
    if not missing:
        return slots, {}
    # "A10 能跑 70B 吗", "7B 需要 14GB 显存吗": any model of that size answers a question about a size,
    # so a representative one is used (and said) instead of asking which.
    feasibility = bool(
        slots.size_b and (slots.gpu or slots.gpus or slots.intent == "memory") and slots.task_hint is None
    )
    # "72B 用 L20 还是 H20", "gn7i-c8g1.2xlarge 和 gn7i-c16g1.4xlarge 跑 7B": hardware compared for a size.
    feasibility = feasibility or bool(
        slots.size_b and (len(slots.gpu_mentions) >= 2 or slots.instance_types or len(slots.families) >= 2)
    )
    # "72b awq, 32k ctx, 20 conc — box?": a size with the workload's own figures is a sizing question; the
    # family hardly moves the memory at one size, so a representative model is used (and said), not asked.
    feasibility = feasibility or bool(
        slots.size_b
        and slots.task_hint is None
        and (slots.quant or slots.precision or slots.context or slots.concurrency or slots.qps or slots.train_tokens)
    )
    # "跑一个 14B 的模型一个月要多少钱": the cost of a size is a sizing question too (i8cost2)
    feasibility = feasibility or bool(slots.size_b and slots.task_hint is None and slots.asks_cost)
    # "DeepSeek-V3 FP8 on H20, how many instances?": a named model with a precision, a GPU or an instance
    # type and no training words is a deployment question; inference is assumed (and said), not asked.
    deployment = bool(
        slots.model
        and slots.task_hint is None
        and (
            slots.precision
            or slots.gpu
            or slots.gpus
            or slots.instance_types
            or slots.families
            or len(slots.gpu_mentions) >= 2  # "用 L20 还是 A10 划算"
            or len(slots.models) >= 2  # "A vs B, which is cheaper"
            # "Qwen2.5-7B with a 32k context, how much VRAM?", "which gpu for gemma 3 27b with 16k context": with no
            # training word, a context window is a serving figure
            or slots.context
            or slots.concurrency
            or slots.qps
            or slots.daily_users
            or slots.prompt_tokens  # "~400 tokens in, 10 out": a request's lengths are serving figures
            or slots.gen_tokens
            or slots.job_requests
            or (slots.budget_cny_month and slots.asks_verdict)  # "is ¥8000 a month enough for 14B?": to run it
            or slots.usage_hours is not None  # "we only need it 4 hours a day": a service that runs part-time
        )
    )
    # "cheapest way to fine-tune Mistral-7B on 50k chats": the least cost is asked, so the cheap method (LoRA) is
    # the answer's assumption, said, rather than a question back.
    frugal = slots.task_hint == "finetune" and slots.asks_cheapest
    defaulted: dict[str, str] = {}
    update: dict[str, object] = {}
    if "model" in missing and slots.unnamed_model:  # a use but no model: sized for a default, said as assumed
        defaulted["model_unnamed"] = slots.unnamed_model
        update |= {"model": slots.unnamed_model, "models": [slots.unnamed_model]}
        missing = [m for m in missing if m != "model"]
    for item in missing:
        if not (slots.accept_defaults or item in asked or feasibility or (deployment and item == "task")
                or (frugal and item == "method")):
            continue
        value = default_for(item, slots)
        if value is None:
            continue
        defaulted[item] = value
        update["model" if item == "model" else "task"] = value
    return slots.model_copy(update=update), defaulted


def _hardware_only(workload: Slots) -> bool:
    """Whether the workload so far is only hardware the user has ("we have 4 L20s"), with no model or size."""
    named = workload.model or workload.model_error or workload.size_b
    return not named and bool((workload.gpu and workload.gpus) or workload.instance_types)


def _continues(workload: Slots, turn: Slots) -> bool:
    """Whether ``turn`` changes the workload under discussion rather than asking something else."""
    if turn.accept_defaults:
        return True
    if turn.follow_up and (turn.instance_types or turn.families) and turn.intent in ("instances", "guidance"):
        return True  # "what about on ecs.gn8is.4xlarge?": the same workload on other named hardware
    if turn.intent == "out_of_scope" and not (turn.off_topic or turn.injection) and turn.stated():
        return True  # "how much would that be in Shenzhen?": no domain word, but a figure of the workload
    quiet = turn.intent == "out_of_scope" and not (turn.off_topic or turn.injection)
    if quiet and turn.follow_up and turn.asks_verdict:
        return True  # "is that overkill?", "那是不是大材小用": a verdict on the workload just answered
    if _compares_gpus_for_workload(workload, turn):
        return True
    named = turn.gpu_mentions or turn.families or turn.instance_types
    if turn.intent == "guidance" and turn.asks_verdict and named and workload.model and not turn.size_b:
        return True  # "is it worth it on gn7e?", "用 A100 划算吗" after a workload: that workload on that hardware
    if turn.intent in ("compare", "verify", "instances", "gpu_specs", "out_of_reach", "out_of_scope"):
        return False
    if turn.intent in _WORKLOAD_INTENTS and (turn.model or turn.model_error or turn.size_b):
        return True
    changes = any(getattr(turn, f) is not None for f in WORKLOAD_FIELDS) or turn.task_hint is not None
    changes = changes or bool(turn.scale or turn.epochs)
    if not changes:
        return False
    # "why won't a single A10 do?": a why about a counted set of GPUs asks about the workload under discussion
    return turn.follow_up or not turn.asks_explanation or bool(turn.gpu and turn.gpus)


def _compares_gpus_for_workload(workload: Slots, turn: Slots) -> bool:
    """Whether ``turn`` compares GPUs for the workload under discussion ("换成 L20 和 A10 比一下呢")."""
    named_own = turn.model or turn.model_error or turn.size_b or turn.instance_types or turn.families
    return (
        turn.follow_up and turn.intent == "compare" and len(turn.gpu_mentions) >= 2 and not named_own
        and workload.intent in _WORKLOAD_INTENTS and bool(workload.model)
    )


def _no_subject(turn: Slots) -> bool:
    """Whether a turn names nothing of its own to answer about (no model, family, GPUs to compare)."""
    quiet = turn.intent == "out_of_scope" and not (turn.off_topic or turn.injection)
    return (
        (turn.intent in ("guidance", "plan", "memory") or quiet)
        and not (turn.model or turn.model_error or turn.size_b or turn.families or turn.instance_types)
        and len(turn.gpu_mentions) < 2
        and not turn.asks_explanation
    )


def _is_training(task: str | None) -> bool:
    return task in ("full", "lora", "qlora")
