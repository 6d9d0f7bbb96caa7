"""Rule-based understanding of one user turn, Chinese or English, into typed slots.

The deterministic engine has no language model, so it reads a question with patterns: the model (resolved
through :func:`tools.models.resolve_model`), the task, precision or quantisation, context length,
concurrency, QPS, batch, training tokens, budget, region, GPU preference and GPU count, plus what the user
wants (a plan, a memory estimate, instance lists, GPU specs, a comparison, general guidance). Numbers may be
written "32k", "5 万", "两张", "1B", "10亿". Each extractor claims the text it used, so "50k" in a budget is
not read again as a context length.
"""

from __future__ import annotations

import re

from assistant import rate_words as rates
from assistant.architecture_words import architecture_dims, complete_architecture
from assistant.bad_names import endless_numbers, find_branded_gpu, impossible_hardware_counts, respell_families
from assistant.bare_lengths import bare_lengths
from assistant.billing_words import asks_price, asks_region, cost_period
from assistant.concepts import asks_concept
from assistant.follow_up_words import accepts_defaults, is_follow_up
from assistant.gpu_variants import with_memory_variants, with_stated_memory
from assistant.hardware_words import (
    find_catalog_names,
    find_excluded_gpus,
    find_gpu_count,
    find_gpu_to_beat,
    find_gpus,
    find_region,
    find_replaced_gpus,
    find_unknown_gpu,
)
from assistant.injection import more_instructions, split_planted
from assistant.intent_fallback import settle
from assistant.intent_rules import (
    CAPACITY_RE,
    EXPLAIN_RE,
    GREETING_RE,
    INJECTION_RE,
    OUT_OF_SCOPE_RE,
    TOPICS,
    VERDICT_RE,
    asks_engine_choice,
    asks_sizing,
    intent,
    open_use,
)
from assistant.length_words import more_lengths
from assistant.limit_words import instance_count, max_gpus, max_instances
from assistant.media_reading import read_media
from assistant.memory_words import card_by_memory
from assistant.model_mentions import find_model, find_size
from assistant.money_words import find_budget, find_foreign_money, is_monthly_budget
from assistant.per_user_rate import asks_user_cost, find_per_user_daily, per_user_rate, population
from assistant.phrases import (
    StatedLength,
    daily_users,
    invalid_numbers,
    spell_numbers,
    stated_lengths,
    training_volume,
)
from assistant.question_form import read_form
from assistant.reach_reading import out_of_reach, without_other_cloud_types
from assistant.reading import Scan, as_int, chinese_int, compiled, normalise, parse_number
from assistant.rental_words import find_rental_hours
from assistant.serving_words import asks_duration, asks_full_load, asks_longest_context, asks_request_rate, job_items
from assistant.slots import Intent, Slots
from assistant.speed_words import read_speed_targets
from assistant.task_words import asks_cheapest, find_precision, find_task
from assistant.token_volume import find_token_volume, token_rate
from assistant.unnamed_model import unnamed_model
from assistant.usage_words import find_billing, find_usage_hours
from assistant.workload_names import rag_pipeline, settle_reach, unsizable
from assistant.workload_numbers import (
    find_batch,
    find_concurrency,
    find_context,
    find_invalid,
    find_qps,
    find_token_cost,
    find_train_tokens,
    spoken_chinese_amounts,
)
from tools import catalog
from tools.errors import UnknownNameError
from tools.workload import DEFAULT_CONTEXT_TOKENS

# chinese_int and parse_number are re-exported: tests and callers read numbers through this module.
__all__ = ["Intent", "Slots", "chinese_int", "parse_number", "understand"]

_SAMPLE_TOKENS_MAX = 131_072  # a token count this small next to a sample count is each sample's length
DEFAULT_GEN_TOKENS = 512  # output tokens when only the prompt length is given (the planner's own cap)


_QPS_RATES = ("daily_requests", "job_deadline", "token_volume")  # rates that derive requests/s, not users at once

# ------------------------------------------------------------------------------------------ public


def understand(question: str) -> Slots:
    """Read one user turn into :class:`Slots` (no conversation context; see ``conversation``).

    Args:
        question: The user's words, Chinese or English.
    """
    legit, planted = split_planted(without_other_cloud_types(question))  # planted text, "p4d" (AWS) are no workload
    text = respell_families(spoken_chinese_amounts(spell_numbers(normalise(legit))))  # "qwne2.5" is Qwen2.5
    scan = Scan(text)
    model = find_model(scan)
    models = [model.name] if model.name else []
    while models and len(models) < 3 and (other := find_model(scan)).name:
        models.append(other.name)  # "Qwen3-30B-A3B vs Qwen2.5-32B": both are planned and compared
    names = find_catalog_names(scan)
    invalid = find_invalid(scan)
    for written, span in invalid_numbers(text):
        if not scan.is_used(*span):
            scan.claim(span)
            invalid.append(written)
    invalid += [w for w in impossible_hardware_counts(text) if not any(w in v or v in w for v in invalid)]
    invalid += [w for w in endless_numbers(text) if not any(w in v or v in w for v in invalid)]
    speed = read_speed_targets(text)  # "30 tokens/s each", "TTFT < 1s": rates and times, never lengths or counts
    for span in speed.spans if speed else []:
        scan.claim(span)
    lengths = more_lengths(text, stated_lengths(text))  # "5 chunks of 512 tokens", "输出 1k", "summarise to 200 words"
    lengths += bare_lengths(text, lengths)  # "2k prompts", "input 2k output 500": tokens without the word
    if speed:  # "20 字每秒" is a speed, not a length
        lengths = [n for n in lengths if not any(a < n.span[1] and n.span[0] < b for a, b in speed.spans)]
    for length in lengths:
        scan.claim(length.span)
    dims = architecture_dims(text)
    for span in dims[1] if dims else []:
        scan.claim(span)
    dau = daily_users(text)
    for span in dau.spans if dau else []:
        scan.claim(span)
    volume = training_volume(text)
    if volume.samples and volume.tokens_per_sample:
        for span in volume.spans:
            scan.claim(span)
    token_cost = find_token_cost(scan)
    explicit_context = find_context(scan, explicit=True)
    excluded_gpus = find_excluded_gpus(scan)  # "not on A10s": claimed, so never the GPU planned on
    # "swap the L20s for A10s" after a question on L20s: the L20s are not this turn's hardware. With a model
    # of its own ("值得把 T4 换成 A10 吗？跑 Qwen2.5-7B") the turn weighs both GPUs, so both stay.
    replaced = [] if model.name or model.error else find_replaced_gpus(scan)
    # Reads, does not claim: "4 张 L20" is a count too. A branded name the catalog lacks stays as written.
    gpu_mentions = find_gpus(scan) or find_unknown_gpu(scan) or find_branded_gpu(text)
    gpu_mentions = [g for g in gpu_mentions if g not in excluded_gpus and g not in replaced]
    gpu_mentions = with_memory_variants(text, gpu_mentions)  # "A100 40GB or 80GB": both variants are sides
    gpu_mentions = with_stated_memory(text, gpu_mentions)  # "V100 那个 16G 的": that variant
    budget = find_budget(scan)
    volume_served = find_token_volume(scan)  # "每天 5000 万 token 的调用量": a load, never a training set
    train_tokens = find_train_tokens(scan)
    each = find_per_user_daily(scan)  # "each user sends ~20 messages a day": one user's, not the service's
    rate = rates.find_daily_requests(scan) or rates.find_group_concurrency(scan) or rates.find_user_share(scan)
    people = None if rate else rates.find_org_size(scan)  # "全公司 3000 人": a population, not 3,000 at once
    if each and rate is None and (users := dau.users if dau else _head_count(scan, people)):
        rate, people, dau = per_user_rate(scan, users, each), None, None  # users x asks a day: the QPS
    rate = rate or rates.find_job_deadline(scan, job_items(text))
    qps = rate.result if rate and rate.kind in _QPS_RATES else find_qps(scan)
    usage_hours = find_usage_hours(scan)
    concurrency = as_int(rate.result) if rate and rate.kind not in _QPS_RATES else find_concurrency(scan)
    if concurrency is None and qps is None and (people := people or rates.find_head_count(scan)):
        rate, concurrency = people, as_int(people.result)
    batch = find_batch(scan)
    gpus = find_gpu_count(scan)
    # "cheapest region to serve X?" names none: each option is priced in its cheapest region ("any")
    region = find_region(scan) or ("any" if asks_region(text) and re.search(r"cheap|便宜|省钱", text, re.I) else None)
    precision, quant, guessed = find_precision(scan)
    context = explicit_context or find_context(scan)
    size = None if model.name or model.error else find_size(scan)
    task, hint, serving = find_task(scan)
    slots = Slots(
        model=model.name,
        model_mention=model.mention,
        models=list(dict.fromkeys(models)),
        model_error=model.error,
        size_b=size,
        task=task,
        task_hint=hint,
        precision=precision,
        quant=quant,
        quant_guessed=guessed,
        context=context,
        concurrency=concurrency,
        qps=qps,
        batch=batch,
        train_tokens=train_tokens,
        budget_cny_month=budget,
        region=region,
        gpu=_preferred_gpu(gpu_mentions),
        gpus=gpus,
        gpu_mentions=gpu_mentions,
        exclude_gpus=excluded_gpus,
        cheaper_than=find_gpu_to_beat(text) if excluded_gpus else None,
        instance_types=names[0],
        families=names[1],
        serving=serving or bool(concurrency or qps) or bool(re.search(CAPACITY_RE, text, re.IGNORECASE))
        or rates.asks_capacity(text),
        follow_up=is_follow_up(text),
        accept_defaults=accepts_defaults(text),
        asks_explanation=bool(re.search(EXPLAIN_RE, text, re.IGNORECASE)),
        injection=planted or bool(re.search(INJECTION_RE, text, re.IGNORECASE)) or more_instructions(text),
        off_topic=bool(re.search(OUT_OF_SCOPE_RE, text, re.IGNORECASE)),
        topics=[t for t, pattern in TOPICS.items() if compiled(pattern).search(text)],
        invalid=invalid,
        asks_capacity=bool(re.search(CAPACITY_RE, text, re.IGNORECASE)) or rates.asks_capacity(text),
        asks_token_cost=token_cost,
        greeting=bool(re.fullmatch(GREETING_RE, text, re.IGNORECASE)),
    )
    # GPTQ/AWQ checkpoints are serving formats: "in 4-bit AWQ" implies inference.
    if slots.quant in ("awq-int4", "gptq-int4", "gptq-int8") and slots.task_hint is None:
        slots.serving = True
    per_request = cost_period(text) == "requests"  # "how much would 1 million requests cost": a serving price
    if (speed or token_cost or per_request) and slots.task_hint is None:  # tokens/s, first token, ¥ per token
        slots.serving = True
    if slots.task is None and slots.serving and slots.task_hint is None:
        slots.task = "inference"
    if dims and slots.model is None and slots.model_error is None:
        slots.architecture, slots.architecture_assumed = complete_architecture(dims[0])
        d = dims[0]
        slots.model = f"custom-{d['num_hidden_layers']}L-{d['hidden_size']}h"  # a label; the dimensions are the model
        slots.model_mention, slots.models = slots.model, [slots.model]
    _apply_lengths(slots, lengths)
    if volume_served and not (slots.qps or slots.concurrency or _trains(slots)):
        whole = slots.context or DEFAULT_CONTEXT_TOKENS  # "3M output tokens a day": each request's output share
        per_request = (slots.gen_tokens or DEFAULT_GEN_TOKENS) if volume_served.output_only else whole
        rate = slots.rate = token_rate(scan, volume_served, per_request)
        slots.qps, slots.serving, slots.task = rate.result, True, "inference"
    if volume.samples and not volume.tokens_per_sample and (slots.train_tokens or 0) <= _SAMPLE_TOKENS_MAX:
        volume.tokens_per_sample = slots.train_tokens  # "50k examples, 1.2k tokens": a sample's length, not all
    if volume.samples and not volume.tokens_per_sample and slots.lengths and _trains(slots):
        volume.tokens_per_sample = slots.lengths[0].tokens  # "2 万条，每条 800 字": a sample's length in characters
    if volume.samples and volume.tokens_per_sample:
        slots.train_tokens = volume.samples * volume.tokens_per_sample * (volume.epochs or 1)
    elif slots.train_tokens and volume.epochs:
        slots.train_tokens *= volume.epochs
    slots.samples, slots.tokens_per_sample, slots.epochs = volume.samples, volume.tokens_per_sample, volume.epochs
    if dau and slots.concurrency is None:
        slots.daily_users, slots.concurrency, slots.serving = dau, dau.peak_concurrency, True
        if slots.task is None and slots.task_hint is None:
            slots.task = "inference"
    slots.billing, slots.usage_hours, slots.rate = find_billing(text), usage_hours, rate
    if rate and rate.kind == "job_deadline" and slots.task in (None, "inference") and not slots.task_hint:
        _as_batch_job(slots, rate.amount)
    elif rate and rate.kind == "job_deadline":  # "5 万条数据 3 天内跑完 LoRA": a training set's deadline, no QPS
        slots.rate = slots.qps = None
    slots.rental_hours = None if slots.task in ("full", "lora", "qlora") else find_rental_hours(text)
    slots.foreign_money = None if slots.budget_cny_month else find_foreign_money(text)
    if slots.budget_cny_month and slots.train_tokens and not is_monthly_budget(text):
        slots.job_budget_cny, slots.budget_cny_month = slots.budget_cny_month, None  # a run costs once
    slots.asks_cost = asks_price(text)
    slots.asks_cheapest = asks_cheapest(text)
    slots.asks_user_cost = asks_user_cost(text)  # "cost per user": the people a workload is for, read with it
    slots.users = population(text) if slots.asks_user_cost or slots.model or slots.concurrency else None
    slots.speed = speed
    slots.asks_longest_context = slots.context is None and asks_longest_context(text)
    slots.asks_request_rate = asks_request_rate(text)
    slots.asks_full_load = asks_full_load(text)
    items = volume.samples or job_items(text)
    if items and slots.gen_tokens and slots.task in (None, "inference") and asks_duration(text):
        # "10 万条数据，每条输出 200 token，要多久": items to generate for, not a training set
        slots.job_requests, slots.task, slots.serving, slots.train_tokens = items, "inference", True, None
    slots.scale = rates.relative_change(text)
    slots.max_instances = max_instances(text)
    if (cap := max_gpus(text)) is not None:  # "at most 16 GPUs" caps the plan; it fixes no hardware
        slots.max_gpus, slots.gpus = cap, None if slots.gpus == cap else slots.gpus
    slots.instances = instance_count(text)
    # A yes/no question by its form ("靠谱不", "any chance ...", "viable?") is a verdict whatever its words (i8form).
    slots.asks_verdict = _verdict_words(text) or read_form(text).form == "yes_no"
    card_by_memory(slots, text)  # "显存 24G 能不能微调": a card of that size is the hardware
    # Read before numbers are spelled out too: "two-tower" is a recommender, not "2-tower".
    raw = normalise(legit)
    slots.reach = out_of_reach(text) or (out_of_reach(raw) if raw != text else None) or unsizable(slots, text)
    laptop = re.search(r"macbook|\bmac\b|laptop|笔记本|\bcpus?\b|my\s+(?:pc|computer)|本地电脑", text, re.I)
    if slots.reach and slots.reach.topic == "local" and asks_engine_choice(text) and not laptop:
        slots.reach = None  # "vLLM or llama.cpp?", "is llama.cpp ok for our team?": which engine, not a laptop run
    # "AWS p4d vs Alibaba's gn7e on price": the other cloud is said to be unknown (with_other_cloud), and the
    # Alibaba hardware named beside it is answered, not dropped with it.
    theirs = slots.reach is not None and slots.reach.topic == "other_cloud"
    ours = theirs and bool(slots.families or slots.instance_types)
    slots.intent = "out_of_reach" if slots.reach and not slots.model and not ours else intent(scan, slots, text)
    if asks_concept(text, slots):
        slots.intent = "guidance"  # a conceptual question: answered from the guidance, no model asked for
    if _asks_length_only(slots, text):
        slots.intent = "lengths"
    slots.media = read_media(text)
    slots.unnamed_model = unnamed_model(slots, text)  # "self-host an LLM for our staff": a default, said as such
    # Hardware asked for a use ("a setup for a customer support bot on Qwen2.5-14B"): serving it, not training
    if slots.task is None and not slots.task_hint and (slots.unnamed_model or (open_use(text) and asks_sizing(text))):
        slots.task, slots.serving = "inference", True
    if not rag_pipeline(slots):  # an LLM answering over an embedder's retrieval keeps the LLM's question
        settle_reach(slots, text, trains=_trains(slots))  # media models, CPU-only runs, parts beside the model
    return settle(slots, legit)  # where the rules are unsure, the bundled embedder may decide the intent


# "how many tokens is ...", "...是多少 token", "convert 300 words to tokens": a conversion, not a workload.
_ASKS_TOKENS_RE = (
    r"how\s+many\s+tokens|(?:in|into|to)\s+tokens\b|token\s+count|多少\s*(?:个)?\s*tokens?|几个\s*tokens?|"
    r"换算成?\s*tokens?|折合\s*(?:多少)?\s*tokens?|相当于\s*(?:多少)?\s*tokens?"
)


def _head_count(scan: Scan, people: rates.RateBasis | None) -> float | None:
    """Return how many people a service is for ("200 employees", "全公司 500 人"): each one sends its asks."""
    people = people or rates.find_head_count(scan) or rates.find_user_share(scan)
    return people.amount if people else None


def _asks_length_only(slots: Slots, text: str) -> bool:
    workload = slots.model or slots.size_b or slots.gpu_mentions or slots.concurrency or slots.qps or slots.media
    return bool(slots.lengths and not workload and re.search(_ASKS_TOKENS_RE, text, re.IGNORECASE))


def _as_batch_job(slots: Slots, items: float) -> None:
    """'Summarize 1M documents of 3k tokens within 48 h': each item is a request of its own length, not training."""
    slots.task, slots.serving, slots.job_requests, slots.train_tokens = "inference", True, items, None
    if slots.tokens_per_sample and not slots.prompt_tokens:
        slots.prompt_tokens = int(slots.tokens_per_sample)
        slots.gen_tokens = slots.gen_tokens or DEFAULT_GEN_TOKENS
        slots.context = slots.prompt_tokens + slots.gen_tokens


def _trains(slots: Slots) -> bool:
    return slots.task in ("full", "lora", "qlora") or slots.task_hint is not None


def _apply_lengths(slots: Slots, lengths: list[StatedLength]) -> None:
    """Per-request lengths in the user's units become prompt/output tokens and the context they add up to."""
    for length in lengths:
        if length.role == "prompt":
            slots.prompt_tokens = (slots.prompt_tokens or 0) + length.count.tokens
        else:
            slots.gen_tokens = (slots.gen_tokens or 0) + length.count.tokens
        if length.count.unit != "tokens":
            slots.lengths.append(length.count)
    if slots.prompt_tokens and slots.task in (None, "inference"):
        slots.context = slots.prompt_tokens + (slots.gen_tokens or DEFAULT_GEN_TOKENS)
        slots.gen_tokens = slots.gen_tokens or DEFAULT_GEN_TOKENS
        slots.serving = True


def _preferred_gpu(mentions: list[str]) -> str | None:
    """Return the GPU to restrict a plan to: only when exactly one is named."""
    if len(mentions) != 1:
        return None
    try:
        return catalog.get_gpu(mentions[0]).name
    except UnknownNameError:
        return mentions[0]  # an ambiguous "A100" stays as written; the tools answer with its variants


# "What can I run Qwen2.5-7B on?", "Which GPU would be good enough for 14B?": verdict words inside a clause that
# opens with what/which ask which, not whether.
_WH_CLAUSE = re.compile(r"\s*(?:what|which|where)\b[^,.;:!?，。；：！？]*", re.IGNORECASE)


def _verdict_words(text: str) -> bool:
    """Whether the question has verdict words ("enough", "can I run ...") outside an opening which-clause."""
    wh = _WH_CLAUSE.match(text)
    return any(not (wh and m.end() <= wh.end()) for m in re.finditer(VERDICT_RE, text, re.IGNORECASE))

