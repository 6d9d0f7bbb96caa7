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
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assistant.hardware_words import (
    GPU_NAME,
    find_catalog_names,
    find_gpu_count,
    find_gpus,
    find_region,
    find_unknown_gpu,
)
from assistant.phrases import (
    PRETRAIN_RE,
    DailyUsers,
    ReachTopic,
    StatedLength,
    architecture_dims,
    daily_users,
    instance_count,
    invalid_numbers,
    max_instances,
    out_of_reach,
    spell_numbers,
    stated_lengths,
    training_volume,
)
from assistant.reading import NUM, OF, SUFFIX, Scan, as_int, chinese_int, normalise, parse_number
from tools import catalog, vocabulary
from tools.errors import UnknownNameError
from tools.lengths import TokenCount
from tools.models import resolve_model
from tools.workload import Precision, Quant, Task

# chinese_int and parse_number are re-exported: tests and callers read numbers through this module.
__all__ = ["Intent", "Slots", "chinese_int", "parse_number", "understand"]

Intent = Literal[
    "plan", "memory", "instances", "gpu_specs", "compare", "verify", "guidance", "out_of_reach", "out_of_scope"
]
"""What the user asks for.

plan: which instances, how many, what it costs. memory: only how much GPU memory. instances: list or
check instance types. gpu_specs: one GPU's figures. compare: two GPUs side by side. verify: a claim that a
family has some GPU ("gn7i 是 A100 吗"). guidance: a question the guidance documents answer. out_of_reach:
a workload the tools cannot size (image generation, speech, embeddings). out_of_scope:
nothing about GPUs, models or Alibaba Cloud.
"""

TaskHint = Literal["finetune", "train"]
DEFAULT_GEN_TOKENS = 512  # output tokens when only the prompt length is given (the planner's own cap)


class Slots(BaseModel):
    """What one user turn (or a whole conversation, once merged) says. ``None`` means "not said"."""

    model_config = ConfigDict(extra="forbid")

    intent: Intent = "guidance"
    model: str | None = Field(default=None, description="canonical name from tools.models.resolve_model")
    model_mention: str | None = Field(default=None, description="the words that named the model")
    models: list[str] = Field(default_factory=list, description="every model named, in order ('A vs B')")
    model_error: str | None = Field(default=None, description="why the named model did not resolve")
    size_b: float | None = Field(default=None, description="a bare size such as '72B 模型', billions")
    task: Task | None = None
    task_hint: TaskHint | None = Field(default=None, description="training asked for without a method")
    precision: Precision | None = None
    quant: Quant | None = None
    quant_guessed: bool = Field(default=False, description="'量化'/'quantized' without bits: 4-bit assumed")
    context: int | None = Field(default=None, description="tokens per sequence (inference) or seq length")
    concurrency: int | None = None
    qps: float | None = None
    batch: int | None = None
    train_tokens: float | None = None
    budget_cny_month: float | None = None
    region: str | None = None
    gpu: str | None = Field(default=None, description="the one GPU the user wants to use")
    gpus: int | None = Field(default=None, description="number of GPUs the user has in mind")
    gpu_mentions: list[str] = Field(default_factory=list, description="GPU names as written, in order")
    families: list[str] = Field(default_factory=list)
    instance_types: list[str] = Field(default_factory=list)
    serving: bool = Field(default=False, description="words that imply inference: 部署, serve, 并发 ...")
    follow_up: bool = Field(default=False, description="phrased as a change of the previous question")
    accept_defaults: bool = Field(default=False, description="'ok', '默认就行': go on with the defaults")
    asks_explanation: bool = Field(default=False, description="'what is', '区别', 'why': wants an explanation")
    injection: bool = Field(default=False, description="tries to change the rules or extract secrets")
    off_topic: bool = Field(default=False, description="names something clearly outside GPUs (poems, weather)")
    topics: list[str] = Field(default_factory=list, description="guidance topics named: kv cache, awq ...")
    greeting: bool = Field(default=False, description="only a greeting: 你好, hi, hello")
    asks_token_cost: bool = Field(default=False, description="'price per million tokens', '每百万 tokens 多少钱'")
    asks_capacity: bool = Field(default=False, description="'how many concurrent requests fit', '能撑多少并发'")
    prompt_tokens: int | None = Field(default=None, description="per-request prompt length, in tokens")
    gen_tokens: int | None = Field(default=None, description="per-request output length, in tokens")
    lengths: list[TokenCount] = Field(default_factory=list, description="lengths given in characters/words/pages")
    samples: float | None = Field(default=None, description="training examples ('40k dialogues')")
    tokens_per_sample: float | None = None
    epochs: float | None = None
    max_instances: int | None = Field(default=None, description="'最多用两台': at most this many instances")
    instances: int | None = Field(default=None, description="'2 台 ecs.gn7i-...': instances of the named type")
    reach: ReachTopic | None = Field(default=None, description="a workload the tools cannot size")
    architecture: dict[str, int] | None = Field(
        default=None, description="a custom model's dimensions as config.json keys ('32 layers, hidden 4096 ...')"
    )
    daily_users: DailyUsers | None = Field(default=None, description="daily active users behind the concurrency")
    asks_verdict: bool = Field(default=False, description="'能跑吗', '够不够', 'is X a good choice', 'will it fit'")

    def stated(self) -> list[str]:
        """Return the workload slots this turn (or conversation) states; the rest are defaults."""
        return [f for f in _STATED_FIELDS if getattr(self, f) not in (None, [], False)]

    invalid: list[str] = Field(
        default_factory=list, description="impossible values as written ('并发 -5', '0.5 GPUs'); never replaced"
    )


_STATED_FIELDS = (
    "model", "task", "precision", "quant", "context", "prompt_tokens", "gen_tokens", "concurrency", "qps", "batch",
    "train_tokens", "budget_cny_month", "region", "gpu", "gpus", "max_instances", "instance_types", "families",
)  # fmt: skip

# ------------------------------------------------------------------------------------------ model

_FAMILY_WORDS = (
    r"通义千问|千问|qwen|qwq|llama|羊驼|deepseek|深度求索|chatglm|glm|智谱|mistral|mixtral|baichuan|百川|"
    r"gemma|phi|internlm|书生|yi|falcon|gpt-oss|minimax|kimi"
)


@lru_cache(maxsize=1)
def _model_start() -> re.Pattern[str]:
    """Words that start a model name: the Chinese nicknames here plus every family in the model registry."""
    words = "|".join(re.escape(w) for w in vocabulary.model_family_words())
    # A family word inside a longer hyphenated name ("R1-Distill-Qwen-7B") does not start a name.
    return re.compile(rf"(?<![A-Za-z])(?<![A-Za-z0-9]-)({_FAMILY_WORDS}|{words})", re.IGNORECASE)


_PIECE = re.compile(r"[\s\-_]*([A-Za-z0-9][A-Za-z0-9.]*|[\u4e00-\u9fff]+)")
# Words that may follow a family name inside a model name; anything else ends the name.
_NAME_WORDS = {
    "instruct",
    "chat",
    "coder",
    "math",
    "base",
    "vl",
    "moe",
    "distill",
    "it",
    "hf",
    "preview",
    "turbo",
    "plus",
    "max",
    "qwen",
    "llama",
    "r1",
    "v3",
    "v2",
    "v2.5",
    "v3.1",
    "v3.2",
    "lite",
    "air",
    "flash",
    "awq",
    "gptq",
    "int4",
    "int8",
    "fp8",
    "thinking",
}
_FORMAT_WORDS = {"awq", "gptq", "int4", "int8", "fp8"}
_SIZE_RE = re.compile(r"(?<![\d.])(\d{1,6}(?:\.\d{1,3})?)\s*[bB](?![A-Za-z])")


@dataclass
class _ModelFind:
    name: str | None = None
    mention: str | None = None
    error: str | None = None
    span: tuple[int, int] | None = None


def _model_candidates(text: str, start: int) -> list[tuple[str, int]]:
    """Candidate names starting at a family word, longest first, each with the index where it ends."""
    family = _model_start().match(text, start)
    assert family is not None
    pieces = [(family.group(1), family.end())]
    pos = family.end()
    while len(pieces) < 6 and (m := _PIECE.match(text, pos)):
        word = m.group(1)
        is_cjk = bool(re.match(r"[\u4e00-\u9fff]", word))
        if is_cjk or (not any(ch.isdigit() for ch in word) and word.lower() not in _NAME_WORDS):
            break
        # A gap before a plain number ends the name ("qwen 72b 20 并发") unless a size follows ("llama 3 70b").
        if m.group(0)[:1].isspace() and re.fullmatch(r"\d+", word):
            after = _PIECE.match(text, m.end())
            if not (after and re.fullmatch(r"\d+(?:\.\d+)?[bB]", after.group(1))):
                break
        pieces.append((m.group(0), m.end()))
        pos = m.end()
    out = []
    for n in range(len(pieces), 0, -1):
        joined = "".join(p for p, _ in pieces[:n]).strip()
        out.append((joined, pieces[n - 1][1]))
    return out


@lru_cache(maxsize=4096)
def _resolved(name: str) -> str | None:
    """Return the canonical name ``name`` resolves to (None: unknown); cached for repeated names."""
    try:
        return resolve_model(name).name
    except UnknownNameError:
        return None


@lru_cache(maxsize=1024)
def _resolve_error(name: str) -> str | None:
    try:
        resolve_model(name)
    except UnknownNameError as exc:
        return str(exc)
    return None


def _find_model(scan: Scan) -> _ModelFind:
    found = _ModelFind()
    for start in (m.start() for m in _model_start().finditer(scan.text)):
        if scan.is_used(start, start + 1):
            continue
        candidates = _model_candidates(scan.text, start)
        for cand, end in candidates:
            for variant in dict.fromkeys((cand, re.sub(r"\s+", "-", cand), re.sub(r"\s+", "", cand))):
                if (resolved := _resolved(variant)) is None:
                    continue
                scan.claim((start, end))
                return _ModelFind(name=resolved, mention=cand, span=(start, end))
        # Report the name without trailing format words: "Qwen-70B INT4" was looked up as "Qwen-70B".
        trimmed = [c for c in candidates if c[0].split()[-1].lower() not in _FORMAT_WORDS] or candidates
        longest, end = trimmed[0]
        # Only a name with a size or version is a failed lookup worth reporting ("Qwen2.5-70B").
        if found.error is None and any(ch.isdigit() for ch in longest):
            if error := _resolve_error(longest):
                found = _ModelFind(mention=longest, error=error, span=(start, end))
    if found.span:
        scan.claim(found.span)
        return found
    # Names that start with no family word ("R1-Distill-Qwen-7B", "ds-v3", "Mistral-Nemo-12B"): the registry's own.
    for m in vocabulary.model_pattern().finditer(scan.text):
        if not scan.is_used(m.start(), m.start() + 1) and (name := vocabulary.model_of_label(m.group(1))):
            scan.claim(m.span())
            return _ModelFind(name=name, mention=m.group(1), span=m.span())
    return found


def _find_size(scan: Scan) -> float | None:
    m = scan.find(rf"{NUM}\s*([bB])(?![A-Za-z])(?!\s*tokens?)|{NUM}\s*亿\s*参数")
    if not m:
        return None
    if m.group(1):
        size = parse_number(m.group(1))
    else:
        size = parse_number(m.group(3)) / 10  # 70 亿 = 7B
    return size if 0.1 <= size <= 2000 else None


# ------------------------------------------------------------------------------------------ task, precision

_INFERENCE_WORDS = (
    r"推理|部署|上线|serving|serve|inference|infer|deploy|host|在线服务|api\s*服务|对话服务|跑|运行|"
    r"\brun\b|\brunning\b|聊天|chatbot|生成服务|吞吐|throughput|tokens?/s|延迟|latency"
)
_FULL_RE = (
    r"全参|全量|全参数|full[\s\-]*(?:parameter\s*)?(?:fine[\s\-]*tun\w*|ft|training|finetun\w*)|\bfft\b|"
    r"fine[\s\-]*tun\w*\s+(?:\S+\s+){0,3}?fully|fully\s+fine[\s\-]*tun\w*|full\s+weights|all\s+(?:the\s+)?weights"
)
_FINETUNE_RE = r"微调|精调|fine[\s\-]*tun\w*|finetun\w*|\bsft\b"
_TRAIN_RE = r"训练|预训练|\btrain\w*|pre[\s\-]?train\w*"


def _find_task(scan: Scan) -> tuple[Task | None, TaskHint | None, bool]:
    text = scan.text
    serving = bool(re.search(_INFERENCE_WORDS, text, re.IGNORECASE))
    if re.search(r"q[\s\-]?lora", text, re.IGNORECASE):
        return "qlora", None, serving
    if re.search(r"(?<![a-z])lora", text, re.IGNORECASE):
        return "lora", None, serving
    if re.search(_FULL_RE, text, re.IGNORECASE) or re.search(PRETRAIN_RE, text, re.IGNORECASE):
        # Pretraining and continued pretraining train every weight: full training, never a LoRA guess.
        return "full", None, serving
    finetune = re.search(_FINETUNE_RE, text, re.IGNORECASE)
    train = re.search(_TRAIN_RE, text, re.IGNORECASE)
    # "微调后的模型部署" is about serving the result; "跑训练" is about training.
    if serving and re.search(r"推理|部署|serving|serve|inference|deploy|上线", text, re.IGNORECASE):
        return "inference", None, serving
    if finetune:
        return None, "finetune", serving
    if train:
        return None, "train", serving
    return ("inference" if serving else None), None, serving


_PRECISIONS: tuple[tuple[str, Precision, Quant | None], ...] = (
    (r"\bawq\b", "int4", "awq-int4"),
    (r"gptq[\s\-_]*(?:int)?8|int8[\s\-_]*gptq", "int8", "gptq-int8"),
    (r"\bgptq\b", "int4", "gptq-int4"),
    (r"\bnf4\b|bnb[\s\-_]*(?:4|nf4)|bitsandbytes", "int4", "bnb-nf4"),
    (r"\bfp8\b|\bw8a8[\s\-]*fp8\b|8\s*位浮点", "fp8", None),
    (r"\bint8\b|\bw8a8\b|\b8[\s\-]?bits?\b|8\s*比特|8\s*位\s*(?:量化|精度|整)|8bit", "int8", None),
    (r"\bint4\b|\bw4a16\b|\b4[\s\-]?bits?\b|4\s*比特|4\s*位\s*(?:量化|精度|整)|4bit", "int4", None),
    (r"\bbf16\b|bfloat16", "bf16", None),
    (r"\bfp16\b|float16|half[\s\-]precision|半精度", "fp16", None),
    (r"\bfp32\b|float32|全精度|单精度", "fp32", None),
)


def _find_precision(scan: Scan) -> tuple[Precision | None, Quant | None, bool]:
    # Read the whole text: "Qwen2.5-72B-Instruct-AWQ" names the format inside the model name.
    for pattern, precision, quant in _PRECISIONS:
        if re.search(pattern, scan.text, re.IGNORECASE):
            return precision, quant, False
    if re.search(r"量化|quantiz|quantis|quantized|quantised", scan.text, re.IGNORECASE):
        return "int4", None, True
    return None, None, False


# ------------------------------------------------------------------------------------------ workload numbers


def _find_budget(scan: Scan) -> float | None:
    cur = r"(?:¥|￥|cny\s*|rmb\s*)"
    cur_after = r"(?:元|块|cny|rmb|yuan|人民币)"
    per_month = r"(?:/\s*月|每个?月|一个月|/\s*month|per\s+month|a\s+month|monthly|/\s*mo\b|月)"
    mid = (
        r"\s*(?:is|of|to|为|是|：|:|改成|改为|调到|提高到|降到|设为|increased\s+to|raised\s+to|cut\s+to)?\s*"
        r"(?:每个?月|per\s+month|monthly|a\s+month|月)?\s*"
        r"(?:不超过|最多|大约|约|around|about|under|up\s+to|of)?\s*"
    )
    money = rf"{cur}?{NUM}\s*{SUFFIX}\s*{cur_after}?"
    m = scan.first(
        rf"(?:预算|budget){mid}{money}",
        rf"(?:每个?月|月|monthly)\s*(?:的)?\s*(?:预算|budget){mid}{money}",
        rf"{cur}{NUM}\s*{SUFFIX}\s*{cur_after}?\s*{per_month}",
        rf"{NUM}\s*{SUFFIX}\s*{cur_after}\s*{per_month}",
        rf"(?:不超过|最多|以内|under|below|at\s+most|up\s+to|within)\s*{cur}?{NUM}\s*{SUFFIX}\s*{cur_after}",
    )
    if not m:
        return None
    after = scan.text[m.end() : m.end() + 12]
    if re.match(r"\s*(?:/\s*(?:小时|h\b|hour)|每小时|per\s+hour|an?\s+hour)", after, re.IGNORECASE):
        return None  # an hourly figure is not a monthly budget; the planner compares monthly prices
    return parse_number(m.group(1), m.group(2))


def _find_train_tokens(scan: Scan) -> float | None:
    m = scan.find(
        rf"{NUM}\s*(thousand|million|billion|trillion|百万|千万|[kKmMbBtT万亿])\s*(?:个)?\s*(?:tokens?|token|词元)"
    )
    if not m:
        return None
    return parse_number(m.group(1), m.group(2))


def _context_value(number: str, suffix: str | None) -> int:
    # "32k" context means 32,768 tokens (the models' own convention); "1M"/"100万" are decimal.
    value = parse_number(number)
    if suffix and suffix.lower() == "k":
        return as_int(value * 1024)
    return as_int(parse_number(number, suffix)) if suffix else as_int(value)


_CTX_WORDS = (
    r"(?:上下文(?:长度|窗口)?|context(?:\s+(?:length|window))?|ctx|序列长度|seq(?:uence)?(?:[\s_]*len(?:gth)?)?(?![a-z])|"
    r"max[\s_]*len|输入长度|长度)"
)
_CTX_SUFFIX = r"(million|[kKmM]|万|百万)?"
# Words after a number that make it a count, not a length ("32k 上下文 50 并发": 50 is the concurrency).
_COUNTED = r"(?:个|路|位|并发|users?|concurren|qps|rps|张|卡|gpus?|台|requests?)"


def _find_context(scan: Scan, *, explicit: bool = False) -> int | None:
    """Context length; ``explicit`` reads only numbers next to a context word ("上下文 10M tokens").

    The explicit pass runs before training tokens are read, so a huge context stays a context (the
    planner then reports the model's limit) instead of turning into a training-token count.
    """
    patterns = [
        # "how many concurrent 32k users": a length per user in a capacity question, not 32,000 users
        rf"how\s+many\s+(?:concurrent\s+|simultaneous\s+|parallel\s+)?{NUM}\s*([kK])[\s\-]*(?:tokens?[\s\-]*)?"
        r"(?:context\s+)?(?:users|requests|sequences|sessions|chats|conversations)",
        # "32k 上下文", but not the "8" of "bs8 seq4096" (a context word followed by its own number)
        rf"{NUM}\s*{_CTX_SUFFIX}[\s\-]*(?:tokens?[\s\-]*)?(?:的)?\s*{_CTX_WORDS}(?!{OF}\d{{1,9}}(?![\d.])(?!\s*{_COUNTED}))",
        rf"{_CTX_WORDS}{OF}{NUM}\s*{_CTX_SUFFIX}(?![A-Za-z])",
    ]
    if not explicit:
        patterns += [
            rf"{NUM}\s*([kK])?[\s\-]*(?:tokens?|token)(?!\s*/)",
            r"(?<![\w.¥￥])(2|4|8|16|32|64|128|256|200|100)\s*([kK])(?![\w])",
        ]
    m = scan.first(*patterns)
    if not m:
        return None
    return _context_value(m.group(1), m.group(2))


# Nothing in a sizing question is negative, and GPUs come whole: such values are refused, never rounded.
_NEGATIVE_RE = r"-\s?\d{1,15}(?:\.\d{1,6})?(?!\s*[bB](?![A-Za-z]))(?![\d.])\s*(?:[kKwW万千]\b)?"
_FRACTION_GPUS_RE = (
    r"(?<![\w.])\d{{0,9}}\.\d{{1,6}}\s*(?:张|块|个)?\s*(?:nvidia\s*)?(?:(?:" + "{gpu}" + r")\s*)?"
    r"(?:卡|显卡|gpus?|cards?)(?![a-z])"
)
_QUANTITY_WORDS = (
    r"并发|concurren\w*|users?|requests?|用户|请求|人|张|块|卡|gpus?|cards?|qps|rps|batch|bs|批|"
    r"上下文|context|ctx|tokens?|预算|budget|元|cny|rmb|¥|￥|月|month|实例|instances?|台"
)


# "per million tokens" is a unit of cost, not a number of training tokens.
_TOKEN_COST_RE = r"(?:每|per|/)\s*(?:百万|一百万|1\s*m|million|m)\s*(?:个)?\s*(?:tokens?|token|词元)"


def _find_token_cost(scan: Scan) -> bool:
    """Claim "每百万 tokens" / "per million tokens" so it is not read as a token count."""
    return scan.find(_TOKEN_COST_RE) is not None


def _find_invalid(scan: Scan) -> list[str]:
    """Claim and return negative quantities and fractional GPU counts, as written."""
    found: list[str] = []
    for m in re.finditer(_NEGATIVE_RE, scan.text):
        glued = scan.text[m.start() - 1 : m.start()]
        before = scan.text[: m.start()].rstrip()
        # "Qwen2.5-7B", "1-2 卡", "10 - 20": a hyphen glued to a name, or between numbers, is no minus sign.
        if (glued.isascii() and (glued.isalnum() or glued in "._")) or (before and before[-1] in "0123456789~"):
            continue
        near = scan.text[max(0, m.start() - 12) : m.end() + 14]
        if not re.search(_QUANTITY_WORDS, near, re.IGNORECASE):
            continue
        scan.claim(m.span())
        found.append(_phrase(scan.text, m.start(), m.end()))
    for m in re.finditer(_FRACTION_GPUS_RE.format(gpu=GPU_NAME), scan.text, re.IGNORECASE):
        if not float(re.match(r"\d*\.\d+", m.group(0)).group(0)).is_integer():  # type: ignore[union-attr]
            scan.claim(m.span())
            found.append(m.group(0).strip())
    return found


def _phrase(text: str, start: int, end: int) -> str:
    """Return the value with the word it quantifies ("并发 -5", "-5 users"), for the refusal message."""
    after = re.match(r"\s*(?:个|位)?\s*([A-Za-z]+|[\u4e00-\u9fff]{1,2})", text[end:])
    if after and re.fullmatch(_QUANTITY_WORDS, after.group(1), re.IGNORECASE):
        return text[start : end + after.end()].strip()
    before = re.search(r"([A-Za-z]+|[\u4e00-\u9fff]{1,4})\s*(?:[:：=为是])?\s*$", text[:start])
    if before:
        return text[before.start() : end].strip()
    return text[start:end].strip()


def _find_concurrency(scan: Scan) -> int | None:
    m = scan.first(
        rf"{NUM}\s*{SUFFIX}\s*(?:个|路)?\s*(?:并发|concurren(?:t|cy)|simultaneous|parallel\s+(?:users|requests))",
        rf"(?:并发(?:数|量|用户数?|请求数?)?|concurrency|concurrent\s+users|concurrent\s+requests){OF}{NUM}\s*{SUFFIX}",
        rf"同时\s*(?:有)?\s*{NUM}\s*{SUFFIX}\s*(?:个|位)?\s*(?:用户|请求|人|会话)",
        rf"{NUM}\s*{SUFFIX}\s*(?:个|位)?\s*(?:用户|请求|人)\s*同时",
        rf"{NUM}\s*{SUFFIX}\s*(?:users?|requests?|sessions?)\s*(?:at\s+(?:the\s+same\s+time|once)|concurrently|in\s+parallel)",
        rf"(?:for|serve|serving|with)\s+{NUM}\s*{SUFFIX}\s*(?:simultaneous\s+|active\s+)?(?:users|people|clients|sessions)",
        rf"{NUM}\s*{SUFFIX}\s*(?:个|位)\s*(?:用户|人)",
        rf"(?<![\w.]){NUM}\s*{SUFFIX}\s*(?:concurrent\s+|simultaneous\s+|active\s+)?(?:users|people|clients)\b",
    )
    if not m:
        return None
    return as_int(parse_number(m.group(1), m.group(2)))


def _find_qps(scan: Scan) -> float | None:
    m = scan.first(
        rf"(?:qps|rps|每秒请求数?){OF}{NUM}",
        rf"{NUM}\s*(?:qps|rps|req/s|requests?\s*(?:per\s+second|/\s*s(?:ec)?\b))",
        rf"每秒\s*(?:处理)?\s*{NUM}\s*(?:个|次)?\s*(?:请求|query|查询|调用)",
    )
    return parse_number(m.group(1)) if m else None


def _find_batch(scan: Scan) -> int | None:
    m = scan.first(
        rf"(?:batch[\s_]*size|micro[\s\-_]*batch|batch|bs|批大小|批量大小|批次大小|批量){OF}{NUM}",
        rf"{NUM}\s*(?:的)?\s*(?:batch|批)",
    )
    return as_int(parse_number(m.group(1))) if m else None


# ------------------------------------------------------------------------------------------ intent

_INJECTION_RE = (
    r"ignore\s+(?:all\s+|any\s+)?(?:the\s+)?(?:previous|prior|above|earlier|your)\s+(?:instructions?|rules|prompts?)|"
    r"disregard\s+(?:all\s+|the\s+)?(?:previous|prior|above|your)|忽略(?:之前|以上|前面|上面|你的|所有)|无视(?:之前|以上|所有)|"
    r"system\s*prompt|系统提示|提示词|api[\s_\-]*key|密钥|secret|password|密码|token\s+of\s+your|"
    r"developer\s+mode|jailbreak|\bDAN\b|越狱|you\s+are\s+now|pretend\s+(?:to\s+be|you)|act\s+as|扮演|"
    r"reveal\s+your|print\s+your|show\s+(?:me\s+)?your\s+(?:instructions|prompt|config)|"
    r"环境变量|environment\s+variables?|\benv\b"
)
_OUT_OF_SCOPE_RE = (
    r"诗|poem|poetry|haiku|天气|weather|笑话|joke|菜谱|recipe|股票|stock\s+price|足球|football|电影|movie|"
    r"翻译|translate|写一篇|作文|essay|星座|horoscope|lottery|彩票|歌词|lyrics|小说|story"
)
_DOMAIN_RE = (
    r"gpu|显卡|显存|算力|实例|instance|ecs|阿里云|aliyun|alibaba|model|模型|llm|大模型|推理|训练|微调|部署|"
    r"vllm|kv|cache|量化|quant|awq|gptq|token|价格|price|cost|成本|费用|多少钱|tflops|nvlink|cuda|vram|memory|"
    r"内存|带宽|bandwidth|fine|lora|serving|inference|deploy|avx|hbm|gddr|fp8|bf16|fp16|int4|int8|tensor|"
    r"pcie|rdma|cloud|云|卡|region|地域"
)
_MEMORY_RE = (
    r"多少显存|显存(?:需求|占用|要多少|多少|够不够|够吗|多大)|需要多少(?:显存|内存|gpu\s*内存)|"
    r"how\s+much\s+(?:gpu\s+)?(?:vram|memory|gpu\s+memory)|(?:vram|memory)\s+(?:do(?:es)?\s+(?:i|it|we)\s+need|needed|required|requirement|usage|footprint)|"
    r"memory\s+estimate|estimate\s+(?:the\s+)?(?:gpu\s+)?memory|"
    r"(?<![\d.])\d{1,6}(?:\.\d{1,3})?\s*gi?b?\s*(?:的)?\s*显存|needs?\s+(?:about\s+)?\d{1,6}(?:\.\d{1,3})?\s*gi?b\b"
)
# "...and which instance?": a memory question that also asks where to run it wants the full plan.
_PLAN_CUE_RE = (
    r"which\s+(?:instance|gpu|card|machine)|what\s+(?:instance|gpu|machine)|how\s+many\s+(?:gpus|cards)|"
    r"选什么|选哪|哪(?:个|种|款)(?:实例|规格|卡|gpu|机器)|什么(?:实例|规格|配置|卡)|几张卡|多少张|推荐.{0,6}(?:实例|规格|配置)"
)
_COMPARE_RE = (
    r"\bvs\.?\b|versus|对比|比较|区别|差别|compare|comparison|difference|better|faster|slower|"
    r"比.{0,8}(?:快|慢|强|弱|好|差)|哪个|which\s+is"
)
_SPEC_RE = (
    r"参数|规格|规格参数|spec|specs|specification|显存多大|多大显存|带宽|bandwidth|算力|tflops|性能|performance|"
    r"memory|显存|fp8|nvlink"
)
_LIST_RE = (
    r"哪些|有什么(?!区别|不同|差别|差异)|列出|列一下|都有|所有|全部|list|which\s+instances?|what\s+instances?|"
    r"show\s+(?:me\s+)?(?:all\s+)?(?:the\s+)?instances?|instance\s+types?|实例规格|规格有"
)
_EXPLAIN_RE = (
    r"什么|区别|差别|为什么|怎么理解|是否|原理|介绍|解释|含义|意思|what\s+is|what\s+are|what's|why|difference|"
    r"explain|how\s+does|how\s+do\s+(?:i|you)\s+(?:choose|pick)|tell\s+me\s+about|meaning|"
    # Suitability ("抢占式实例适合训练吗", "is the H20 good for training?") is a question for the guidance.
    r"适合|适不适合|合适吗|值得|划算吗|suitable|suited|good\s+(?:for|choice)|worth\s+it|recommended\s+for"
)
_CAPACITY_RE = (
    r"how\s+many\s+(?:concurrent|simultaneous|parallel)|how\s+many\s+(?:users|requests|sequences)|"
    r"max(?:imum)?\s+concurren\w*|concurrency\s+capacity|"
    r"(?:多少|几)(?:个|路)?\s*并发|并发(?:能|可以)?(?:到|有|撑|支持)?多少|最大并发|能(?:撑|支持|扛)(?:住)?多少"
)
_VERDICT_RE = (
    r"能跑吗|能跑.{0,40}吗|能不能|跑得动|跑得了|够不够|够吗|够用吗|行不行|行吗|可以吗|能用吗|合适吗|是否(?:可以|够|合适)|放得下|装得下|"
    r"good\s+(?:choice|fit|option|idea)|\benough\b|sufficient|can\s+(?:it|i|we|this|that|one)\s+(?:run|serve|fit|handle)|"
    r"(?:will|does|would)\s+(?:it|this|that)\s+(?:fit|work|run)|\bfits?\?|viable|is\s+\S+\s+ok\b"
)
_TOPICS = {
    "kv cache": r"kv\s*cache|kv\s*缓存",
    "quantization": r"量化|quantiz|quantis|awq|gptq|int4|int8|fp8",
    "avx512": r"avx[\s\-_]*512|avx",
    "nvlink": r"nvlink|pcie",
    "vllm": r"vllm",
    "zero": r"zero[\s\-]*[123]|deepspeed|fsdp",
    "spot": r"抢占式|竞价|spot\s+instances?|preemptible",
    "price": r"价格|price|cost|成本|费用|多少钱|贵|cheap",
    "tflops": r"tflops|算力",
}


_GREETING_RE = (
    r"\s*(?:你好|您好|嗨|哈喽|hi|hello|hey|good\s+(?:morning|afternoon|evening))"
    r"[\s!.。！,，~]*(?:呀|啊)?[\s!.。！]*"
)
# "help me pick a GPU", "帮我选个实例": a sizing request with nothing to size yet; ask for the model and task.
_PICK_RE = (
    r"(?:help\s+me\s+|can\s+you\s+|please\s+)?(?:pick|choose|select|recommend)\s+(?:me\s+)?(?:an?\s+|the\s+)?"
    r"(?:gpu|instance|card|machine)|帮我选|推荐(?:一下|一个|个)?(?:gpu|显卡|卡|实例)|选(?:个|一个|什么)(?:gpu|显卡|卡|实例)"
)


def _intent(scan: Scan, s: Slots, raw: str) -> Intent:
    text = raw.lower()
    has_workload = bool(s.model or s.model_error or s.size_b)
    if not has_workload and not (s.gpu_mentions or s.families or s.topics) and re.search(_PICK_RE, text):
        return "plan"
    if re.search(_OUT_OF_SCOPE_RE, text) and not (has_workload or s.gpu_mentions or s.families):
        return "out_of_scope"
    if len(s.gpu_mentions) >= 2 and not has_workload and (re.search(_COMPARE_RE, text) or len(s.gpu_mentions) == 2):
        return "compare"
    if len(s.families) >= 2 and not has_workload and not s.instance_types and re.search(_COMPARE_RE, text):
        return "compare"  # "gn7i 和 gn7e 有什么区别": compare the families' GPUs
    if (s.families or s.instance_types) and s.gpu_mentions and not has_workload:
        return "verify"
    if s.instance_types and not has_workload:
        return "instances"
    if re.search(_MEMORY_RE, text) and has_workload and not s.gpu and not re.search(_PLAN_CUE_RE, text):
        return "memory"
    if has_workload:
        return "plan"
    if (s.families or s.gpu_mentions) and re.search(_LIST_RE, text):
        return "instances"
    numbers = s.concurrency or s.qps or s.train_tokens or s.budget_cny_month or s.gpus or s.context
    if len(s.gpu_mentions) == 1 and not s.families and not numbers and (s.precision or re.search(_SPEC_RE, text)):
        return "gpu_specs"  # "V100 能跑 bf16 吗", "H20 显存多大": about the GPU, not a workload
    workload_words = (
        s.task
        or s.task_hint
        or s.concurrency
        or s.qps
        or s.train_tokens
        or s.budget_cny_month
        or s.gpus
        or (s.follow_up and (s.precision or s.context or s.gpu or s.batch))
    )
    if workload_words and not s.asks_explanation and not s.families:
        return "plan"
    if len(s.gpu_mentions) == 1 and not s.families and re.search(_SPEC_RE, text):
        return "gpu_specs"
    if not re.search(_DOMAIN_RE, text) and not (s.families or s.gpu_mentions or s.topics):
        return "out_of_scope"
    return "guidance"


# ------------------------------------------------------------------------------------------ public


def understand(question: str) -> Slots:
    """Read one user turn into :class:`Slots` (no conversation context; see ``conversation``).

    Args:
        question: The user's words, Chinese or English.
    """
    text = spell_numbers(normalise(question))
    scan = Scan(text)
    model = _find_model(scan)
    models = [model.name] if model.name else []
    while models and len(models) < 3 and (other := _find_model(scan)).name:
        models.append(other.name)  # "Qwen3-30B-A3B vs Qwen2.5-32B": both are planned and compared
    names = find_catalog_names(scan)
    invalid = _find_invalid(scan)
    for written, span in invalid_numbers(text):
        if not scan.is_used(*span):
            scan.claim(span)
            invalid.append(written)
    lengths = stated_lengths(text)
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
    token_cost = _find_token_cost(scan)
    explicit_context = _find_context(scan, explicit=True)
    gpu_mentions = find_gpus(scan) or find_unknown_gpu(scan)  # reads, does not claim: "4 张 L20" is a count too
    budget = _find_budget(scan)
    train_tokens = _find_train_tokens(scan)
    qps = _find_qps(scan)
    concurrency = _find_concurrency(scan)
    batch = _find_batch(scan)
    gpus = find_gpu_count(scan)
    region = find_region(scan)
    precision, quant, guessed = _find_precision(scan)
    context = explicit_context or _find_context(scan)
    size = None if model.name or model.error else _find_size(scan)
    task, hint, serving = _find_task(scan)
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
        instance_types=names[0],
        families=names[1],
        serving=serving or bool(concurrency or qps) or bool(re.search(_CAPACITY_RE, text, re.IGNORECASE)),
        follow_up=_is_follow_up(text),
        accept_defaults=_accepts_defaults(text),
        asks_explanation=bool(re.search(_EXPLAIN_RE, text, re.IGNORECASE)),
        injection=bool(re.search(_INJECTION_RE, text, re.IGNORECASE)),
        off_topic=bool(re.search(_OUT_OF_SCOPE_RE, text, re.IGNORECASE)),
        topics=[t for t, pattern in _TOPICS.items() if re.search(pattern, text, re.IGNORECASE)],
        invalid=invalid,
        asks_capacity=bool(re.search(_CAPACITY_RE, text, re.IGNORECASE)),
        asks_token_cost=token_cost,
        greeting=bool(re.fullmatch(_GREETING_RE, text, re.IGNORECASE)),
    )
    # GPTQ/AWQ checkpoints are serving formats: "in 4-bit AWQ" implies inference.
    if slots.quant in ("awq-int4", "gptq-int4", "gptq-int8") and slots.task_hint is None:
        slots.serving = True
    if slots.task is None and slots.serving and slots.task_hint is None:
        slots.task = "inference"
    if dims and slots.model is None and slots.model_error is None:
        slots.architecture = dims[0]
        d = dims[0]
        slots.model = f"custom-{d['num_hidden_layers']}L-{d['hidden_size']}h"  # a label; the dimensions are the model
        slots.model_mention, slots.models = slots.model, [slots.model]
    _apply_lengths(slots, lengths)
    if volume.samples and volume.tokens_per_sample:
        slots.train_tokens = volume.samples * volume.tokens_per_sample * (volume.epochs or 1)
    elif slots.train_tokens and volume.epochs:
        slots.train_tokens *= volume.epochs
    slots.samples, slots.tokens_per_sample, slots.epochs = volume.samples, volume.tokens_per_sample, volume.epochs
    if dau and slots.concurrency is None:
        slots.daily_users, slots.concurrency, slots.serving = dau, dau.peak_concurrency, True
        if slots.task is None and slots.task_hint is None:
            slots.task = "inference"
    slots.max_instances = max_instances(text)
    slots.instances = instance_count(text)
    slots.asks_verdict = bool(re.search(_VERDICT_RE, text, re.IGNORECASE))
    slots.reach = out_of_reach(text)
    slots.intent = "out_of_reach" if slots.reach and not slots.model else _intent(scan, slots, text)
    return slots


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


def _is_follow_up(text: str) -> bool:
    return bool(
        re.match(
            r"\s*(?:那|那么|如果|换成|改成|改用|换用|要是|假如|再|还有|and\b|what\s+about|how\s+about|what\s+if|"
            r"and\s+if|instead|then|with\b|using\b|on\b|switch|change|make\s+it|try)",
            text,
            re.IGNORECASE,
        )
        or re.search(r"呢\s*[?？]?\s*$|instead\s*[?.]?\s*$", text, re.IGNORECASE)
    )


def _accepts_defaults(text: str) -> bool:
    return bool(
        re.fullmatch(
            r"\s*(?:好的?|好吧|行|可以|没问题|默认(?:就行|即可|吧)?|按默认(?:的)?(?:来|吧)?|随便|都行|你定|就这样|"
            r"ok(?:ay)?|sure|yes|yep|go\s+ahead|fine|defaults?(?:\s+(?:are|is)\s+fine)?|use\s+the\s+defaults?|"
            r"whatever|you\s+decide|sounds\s+good|(?:just\s+)?(?:assume|use)\s+(?:it|that|those|them|your\s+defaults?)|"
            r"just\s+assume|go\s+with\s+(?:it|that|the\s+defaults?)|按你说的(?:来|办)?|就这么办)[\s!.。！,，]*",
            text,
            re.IGNORECASE,
        )
    )
