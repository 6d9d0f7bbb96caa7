"""Expectations of the answer-quality evals and the checks that grade an ``Answer`` against them.

Every question set uses these models: the development set (``tests/evals/assistant_questions.yaml``) and the
held-out persona sets (``tests/evals/persona_questions.yaml`` and ``tests/evals/heldout/*.yaml``). Every check
reads only the typed ``Answer`` (text, details, kind, language, tool calls with their arguments and results,
citations, warnings), never an engine's internal state, so the same expectations grade any engine.

Tool arguments are matched wherever they sit in a call (nested dicts included), and an argument name may
list alternatives with ``|`` (``prompt_tokens|context``), so an expectation states the user's figure
without fixing how a tool spells its parameters.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from assistant.answer import Answer, Message, ToolCall
from assistant.guards import Evidence, extract_numbers, ungrounded_numbers
from tools.plan import Plan
from tools.plan_pricing import monthly_cost

Verdict = Literal["yes", "no", "yes_but"]


class ToolExpectation(BaseModel):
    """A tool call that must have been made: its name (any tool when omitted) and a subset of its arguments."""

    model_config = ConfigDict(extra="forbid")

    tool: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    args_range: dict[str, tuple[float, float]] = Field(
        default_factory=dict, description="argument -> [low, high], inclusive"
    )
    result_range: dict[str, tuple[float, float]] = Field(
        default_factory=dict, description="field of the call's result -> [low, high], inclusive"
    )


class Honours(BaseModel):
    """Hardware and limits the user fixed: the answer must evaluate exactly these, not a substitute."""

    model_config = ConfigDict(extra="forbid")

    gpu: str | None = None
    gpu_count: int | None = None
    instance_type: str | None = None
    family: str | None = None
    region: str | None = None
    max_instances: int | None = None


class NumberRange(BaseModel):
    """A number somewhere in the checked text lies in ``[low, high]``."""

    model_config = ConfigDict(extra="forbid")

    low: float
    high: float


class Expect(BaseModel):
    """What a good answer to one question looks like (every field optional; unset = not checked)."""

    model_config = ConfigDict(extra="forbid")

    kind: str | None = None
    kind_any: list[str] = Field(default_factory=list)
    language: Literal["zh", "en"] | None = None
    calls: list[ToolExpectation] = Field(default_factory=list)
    calls_any: list[ToolExpectation] = Field(default_factory=list, description="one of these calls was made")
    not_called: list[str] = Field(default_factory=list)
    no_tools: bool = False
    top_fits: bool = False
    top_gpu_any: list[str] = Field(default_factory=list)
    options_gpu_any: list[str] = Field(default_factory=list)
    not_recommended: list[str] = Field(default_factory=list)
    min_top_gpus: int | None = None
    max_monthly_cny: float | None = None
    text_contains: list[str] = Field(default_factory=list)
    text_contains_any: list[str] = Field(default_factory=list)
    text_not_contains: list[str] = Field(default_factory=list)
    text_matches: str | None = Field(default=None, description="regex searched in the text")
    first_line_has_any: list[str] = Field(default_factory=list, description="case-insensitive")
    first_line_matches: str | None = Field(default=None, description="regex searched in the first line")
    first_line_number: NumberRange | None = None
    first_line_not_passage: bool = False
    verdict: list[Verdict] = Field(default_factory=list, description="the first line's yes/no reading")
    honours: Honours | None = None
    training_tokens: float | None = Field(default=None, description="a call carries this many (within 5%)")
    cites_doc_any: list[str] = Field(default_factory=list)
    no_unrelated_citations: list[str] = Field(
        default_factory=list, description="every citation mentions one of these words (none cited also passes)"
    )
    max_chars_before_details: int | None = None
    no_raw_urls: bool = False
    single_language: bool = False
    warns: bool = False
    grounded: bool = True

    @field_validator("verdict", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value


class Case(BaseModel):
    """One eval question, with the earlier user turns of its conversation."""

    model_config = ConfigDict(extra="forbid")

    id: str
    question: str
    history: list[str] = Field(default_factory=list)
    expect: Expect
    persona: str | None = None
    category: str | None = None
    language: Literal["zh", "en"] | None = None
    known_gap: str | None = Field(
        default=None, description="why the engine still fails it: counted as a failure, an xfail in pytest"
    )


class PersonaCase(Case):
    """A held-out question: who asks it, what kind of question it is and in which language."""

    persona: Literal["startup", "research", "enterprise_rag", "student", "ops", "article"]
    category: str
    language: Literal["zh", "en"]


class QuestionFile(BaseModel):
    """A question file: optional expectations shared by every question, then the questions."""

    model_config = ConfigDict(extra="forbid")

    defaults: dict[str, Any] = Field(default_factory=dict)
    questions: list[dict[str, Any]]


def load_cases(path: Path, *, held_out: bool = False) -> list[Case]:
    """Read and validate a question file; ``defaults`` fill each question's unset expectations."""
    raw = QuestionFile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    model = PersonaCase if held_out else Case
    cases: list[Case] = []
    for item in raw.questions:
        expect = {**raw.defaults, **item.get("expect", {})}
        if item.get("language") and "language" not in expect:
            expect["language"] = item["language"]
        cases.append(model.model_validate({**item, "expect": expect}))
    return cases


def history_of(case: Case) -> list[Message]:
    """The case's earlier user turns, each followed by a placeholder assistant turn."""
    out: list[Message] = []
    for turn in case.history:
        out += [Message(role="user", content=turn), Message(role="assistant", content="(answer)")]
    return out


def category_of(case: Case) -> str:
    """The case's category: stated, or the second part of a development-set id (``zh-plan-...`` -> plan)."""
    if case.category:
        return case.category
    parts = case.id.split("-")
    return parts[1] if len(parts) > 1 else parts[0]


def language_of(case: Case) -> str:
    """The question's language: stated, else the development set's id prefix."""
    return case.language or ("zh" if case.id.startswith("zh-") else "en")


def check(case: Case, answer: Answer) -> list[str]:
    """Every expectation ``answer`` misses, as one line each (empty: the case passes)."""
    e, problems = case.expect, []
    if e.kind and answer.kind != e.kind:
        problems.append(f"kind {answer.kind!r}, expected {e.kind!r}")
    if e.kind_any and answer.kind not in e.kind_any:
        problems.append(f"kind {answer.kind!r}, expected one of {e.kind_any}")
    if e.language and answer.language != e.language:
        problems.append(f"language {answer.language!r}, expected {e.language!r}")
    problems += _check_calls(e, answer)
    problems += _check_plan(e, answer)
    problems += check_text(e, answer)
    if e.honours:
        problems += _check_honours(e.honours, answer)
    docs = {c.doc for c in answer.citations}
    if e.cites_doc_any and not docs & set(e.cites_doc_any):
        problems.append(f"cites {sorted(docs)}, expected one of {e.cites_doc_any}")
    if e.warns and not answer.warnings:
        problems.append("no warning")
    if e.grounded and (bad := _ungrounded(case, answer)):
        problems.append(f"ungrounded numbers {bad}")
    return problems


def flat_items(value: Any) -> list[tuple[str, Any]]:
    """Every (key, value) pair of a JSON-like value, at any depth (lists searched too)."""
    out: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            out.append((str(key), item))
            out += flat_items(item)
    elif isinstance(value, list):
        for item in value:
            out += flat_items(item)
    return out


def _same(got: Any, want: Any) -> bool:
    if isinstance(got, list):  # a tool comparing several GPUs or models takes them as a list
        return any(_same(item, want) for item in got)
    if isinstance(want, bool) or isinstance(got, bool):
        return got is want
    if isinstance(want, int | float) and isinstance(got, int | float):
        return abs(float(got) - float(want)) <= 1e-6 * max(1.0, abs(float(want)))
    if isinstance(want, str) and isinstance(got, str):
        return _norm(got) == _norm(want)
    return bool(got == want)


def _norm(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name.lower()).removeprefix("ecs.")


def _has_arg(args: dict[str, Any], key: str, test: Any) -> bool:
    names = set(key.split("|"))
    return any(k in names and test(v) for k, v in flat_items(args))


def _in_range(value: Any, low: float, high: float) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and low <= value <= high


def call_matches(want: ToolExpectation, call: ToolCall) -> bool:
    """Whether one tool call satisfies ``want``."""
    if want.tool and call.name != want.tool:
        return False
    args, result = call.args, {"result": call.result}
    if not all(_has_arg(args, k, lambda got, v=v: _same(got, v)) for k, v in want.args.items()):
        return False
    if not all(_has_arg(args, k, lambda got, r=r: _in_range(got, *r)) for k, r in want.args_range.items()):
        return False
    return all(_has_arg(result, k, lambda got, r=r: _in_range(got, *r)) for k, r in want.result_range.items())


def _describe(want: ToolExpectation) -> str:
    parts = [f"{k}={v}" for k, v in want.args.items()] + [f"{k} in {list(r)}" for k, r in want.args_range.items()]
    parts += [f"-> {k} in {list(r)}" for k, r in want.result_range.items()]
    return f"{want.tool or 'a tool'}({', '.join(parts)})"


def _check_calls(e: Expect, answer: Answer) -> list[str]:
    problems = []
    made = [(c.name, c.args) for c in answer.tool_calls]
    if e.no_tools and made:
        problems.append(f"tools called: {[name for name, _ in made]}")
    for want in e.calls:
        if not any(call_matches(want, c) for c in answer.tool_calls):
            problems.append(f"no call {_describe(want)}; made {made}")
    if e.calls_any and not any(call_matches(w, c) for w in e.calls_any for c in answer.tool_calls):
        problems.append(f"none of {[_describe(w) for w in e.calls_any]}; made {made}")
    problems += [f"{name} called" for name in e.not_called if any(n == name for n, _ in made)]
    if e.training_tokens is not None:
        values = [v for c in answer.tool_calls for k, v in flat_items([c.args, c.result]) if _is_train_tokens(k)]
        if not any(_in_range(v, e.training_tokens * 0.95, e.training_tokens * 1.05) for v in values):
            problems.append(f"no call with {e.training_tokens:.4g} training tokens; found {values}")
    return problems


def _is_train_tokens(key: str) -> bool:
    return "token" in key and "train" in key


def plans_of(answer: Answer) -> list[Plan]:
    """Every plan the answer's tool calls returned."""
    return [
        Plan.model_validate(c.result)
        for c in answer.tool_calls
        if c.name == "plan_gpu_deployment" and isinstance(c.result, dict)
    ]


def _check_plan(e: Expect, answer: Answer) -> list[str]:
    wants_plan = e.top_fits or e.top_gpu_any or e.options_gpu_any or e.not_recommended or e.min_top_gpus
    if not (wants_plan or e.max_monthly_cny):
        return []
    plans = plans_of(answer)
    if not plans:
        return ["no plan"]
    plan = plans[0]
    if not plan.options:
        return ["plan has no options"]
    top, problems = plan.options[0], []
    gpus = [o.gpu_model or o.gpu_model_likely for o in plan.options]
    if e.top_fits and top.per_gpu_gib_needed > top.per_gpu_capacity_gib:
        problems.append(f"top option needs {top.per_gpu_gib_needed} > {top.per_gpu_capacity_gib} GiB")
    if e.top_gpu_any and (top.gpu_model or top.gpu_model_likely) not in e.top_gpu_any:
        problems.append(f"top GPU {top.gpu_model or top.gpu_model_likely}, expected one of {e.top_gpu_any}")
    if e.options_gpu_any and not set(gpus) & set(e.options_gpu_any):
        problems.append(f"option GPUs {gpus}, expected one of {e.options_gpu_any}")
    shown = {o.instance_type for o in plan.options}
    problems += [f"{name} recommended" for name in e.not_recommended if name in shown]
    if e.min_top_gpus and top.total_gpus < e.min_top_gpus:
        problems.append(f"top option has {top.total_gpus} GPUs, expected at least {e.min_top_gpus}")
    if e.max_monthly_cny is not None:
        # A part-time deployment ("2 hours a day") pays for its hours: that is the month the budget bounds.
        dear = [o.instance_type for o in plan.options if (monthly_cost(o) or 0) > e.max_monthly_cny]
        problems += [f"{name} is over the budget" for name in dear]
    return problems


_COUNT_KEYS = {"gpus", "gpu_count", "num_gpus", "n_gpus", "total_gpus", "gpus_total"}
_COUNT_WORDS = {
    1: "一|单|one|a single|single",
    2: "两|二|双|two",
    3: "三|three",
    4: "四|four",
    6: "六|six",
    8: "八|eight",
    16: "十六|sixteen",
}
REGION_NAMES = {
    "cn-hangzhou": ("杭州", "hangzhou"),
    "cn-shanghai": ("上海", "shanghai"),
    "cn-beijing": ("北京", "beijing"),
    "cn-shenzhen": ("深圳", "shenzhen"),
    "cn-zhangjiakou": ("张家口", "zhangjiakou"),
    "cn-wulanchabu": ("乌兰察布", "ulanqab", "wulanchabu"),
    "cn-hongkong": ("香港", "hong kong"),
    "ap-southeast-1": ("新加坡", "singapore"),
}


def _check_honours(h: Honours, answer: Answer) -> list[str]:
    """The fixed hardware is named in the text AND is what the tools evaluated."""
    text, problems = answer.text.lower(), []
    dump = json.dumps([[c.args, c.result] for c in answer.tool_calls], ensure_ascii=False).lower()
    for label, name in (("gpu", h.gpu), ("instance type", h.instance_type)):
        if name is None:
            continue
        # "A10" must not match "A100": the name may not run on into another digit.
        named = re.compile(rf"(?<![a-z0-9]){re.escape(name.lower().removeprefix('ecs.'))}(?![0-9])")
        if not named.search(text):
            problems.append(f"text does not name the {label} {name}")
        if not named.search(dump):
            problems.append(f"no tool evaluated the {label} {name}")
    if h.family:
        pattern = re.compile(rf"(?<![a-z0-9]){re.escape(h.family.lower())}(?![a-z0-9])")
        if not pattern.search(text):
            problems.append(f"text does not name the family {h.family}")
        if not pattern.search(dump):
            problems.append(f"no tool evaluated the family {h.family}")
    if h.gpu_count:
        problems += _check_gpu_count(h.gpu_count, h.gpu, answer)
    if h.region:
        if not any(_has_arg(c.args, "region", lambda v, r=h.region: _same(v, r)) for c in answer.tool_calls):
            problems.append(f"no call priced in {h.region}")
        names = (h.region, *REGION_NAMES.get(h.region, ()))
        if not any(n in text for n in names):
            problems.append(f"text does not name the region {h.region}")
    if h.max_instances:
        too_many = [o.instance_type for p in plans_of(answer) for o in p.options if o.instances > h.max_instances]
        problems += [f"{name} needs more than {h.max_instances} instances" for name in too_many]
    return problems


def _check_gpu_count(n: int, gpu: str | None, answer: Answer) -> list[str]:
    problems = []
    counts = [v for c in answer.tool_calls for k, v in flat_items([c.args, c.result]) if k in _COUNT_KEYS]
    if not any(_same(v, n) for v in counts):
        problems.append(f"no tool evaluated {n} GPUs; counts seen {sorted(set(map(str, counts)))}")
    number = f"{n}|{_COUNT_WORDS[n]}" if n in _COUNT_WORDS else str(n)
    unit = r"张|块|卡|×|x\b|\*|-?gpus?\b|cards?\b|个?\s*gpu" + (f"|{re.escape(gpu)}" if gpu else "")
    said = rf"(?<![\d.])(?:{number})\s*(?:{unit})|[×x*]\s*{n}(?![\d.])"
    if not re.search(said, answer.text, re.IGNORECASE):
        problems.append(f"text does not state {n} GPUs")
    return problems


def _ungrounded(case: Case, answer: Answer) -> list[str]:
    payloads = [part for c in answer.tool_calls for part in (c.args, c.result, c.error)]
    evidence = Evidence(texts=[case.question, *case.history], payloads=payloads)
    return [m.raw for m in ungrounded_numbers(answer.text, evidence)]


def numbers_in(text: str) -> list[float]:
    """Every value a number in ``text`` may stand for (units like 万 and k applied)."""
    return [v for m in extract_numbers(text) for v in m.candidates]


_FORM_PROBLEMS = (
    "a raw URL in the body",
    "characters before the details",
    "English phrases in a Chinese answer",
    "Chinese characters in an English answer",
    "first line is a quoted passage",
)


def is_form_problem(problem: str) -> bool:
    """Whether a problem concerns only the answer's form (links, length, language mix, quoted opening)."""
    return any(marker in problem for marker in _FORM_PROBLEMS)


def first_line(text: str) -> str:
    """The first non-empty line of ``text``, without markdown emphasis or heading marks."""
    for line in text.splitlines():
        if line.strip():
            return re.sub(r"[*_#`]", "", line).strip()
    return ""


_NO_EN = r"no|not|doesn'?t|does not|won'?t|will not|cannot|can'?t|isn'?t|insufficient|too small|too little"
_YES_EN = r"yes|fits?|enough|can|sufficient|suffices|good choice|works?|is a good"
# "不是"/"不对" answer a claim ("gn7i 是 A100 吧?" -> "不是。"); "是的" confirms one.
_NO_ZH = (
    "不能|不够|不行|不可以|放不下|装不下|跑不了|跑不动|跑不起来|不合适|不建议|不适合|不足以|无法|不是|不对|不正确|"
    # refusals that are no answers too ("不支持。", "来不及", "没必要"); hedged ones ("不太合适") are still no
    "不支持|来不及|赶不上|达不到|没必要|不必要|不需要|用不着|不值得|不值|不划算|不太合适|不太适合|不太够|超出预算"
)
# 能 only as a verb: not inside 性能/功能/可能/智能/效能/本能, nor the question form 能否.
_YES_ZH = "(?<![性功智效可本])能(?!否)|可以|够|放得下|装得下|跑得动|跑得起来|合适|适合|足够|没问题|是的|正确"
_VERDICT = re.compile(rf"(?P<no>\b(?:{_NO_EN})\b|{_NO_ZH})|(?P<yes>\b(?:{_YES_EN})\b|{_YES_ZH})", re.IGNORECASE)
_BUT = re.compile(r"\b(?:but|however|though|although)\b|但|不过|然而|只是", re.IGNORECASE)


def verdict_of(line: str) -> Verdict | None:
    """The yes/no reading of a first line: its earliest yes or no word decides; a later "but" makes yes_but."""
    found = _VERDICT.search(line)
    if found is None:
        return None
    if found.group("no"):
        return "no"
    return "yes_but" if _BUT.search(line, found.end()) else "yes"


_MD_LINK_TARGET = re.compile(r"\]\([^)]*\)")
_RAW_URL = re.compile(r"https?://|www\.", re.IGNORECASE)
_CODE = re.compile(r"`[^`]*`")
_URL = re.compile(r"https?://\S+|www\.\S+")
_CJK = re.compile(r"[\u3400-\u9fff]")
# Three or more plain lowercase English words in a row: an English sentence inside a Chinese answer
# (names, units and abbreviations are capitalised or carry digits, so they do not match).
_EN_PHRASE = re.compile(r"(?<![A-Za-z0-9])[a-z]{2,}(?:[ ,'-]+[a-z]{2,}){2,}(?![A-Za-z0-9])")


def check_text(e: Expect, answer: Answer) -> list[str]:
    """Expectations on the answer's words: content, first line, verdict, length, links, language."""
    text, problems = answer.text, []
    problems += [f"text lacks {s!r}" for s in e.text_contains if s not in text]
    if e.text_contains_any and not any(s in text for s in e.text_contains_any):
        problems.append(f"text has none of {e.text_contains_any}")
    problems += [f"text contains {s!r}" for s in e.text_not_contains if s in text]
    if e.text_matches and not re.search(e.text_matches, text, re.IGNORECASE):
        problems.append(f"text does not match {e.text_matches!r}")
    if "Traceback (most recent call last)" in text:
        problems.append("a traceback in the text")
    problems += _check_first_line(e, answer)
    if e.no_unrelated_citations:
        words = [w.lower() for w in e.no_unrelated_citations]
        for c in answer.citations:
            about = f"{c.doc_title} {c.section} {c.snippet}".lower()
            if not any(w in about for w in words):
                problems.append(f"unrelated citation {c.doc}#{c.anchor}")
    if e.max_chars_before_details is not None and len(text) > e.max_chars_before_details:
        problems.append(f"{len(text)} characters before the details, expected at most {e.max_chars_before_details}")
    if e.no_raw_urls and _RAW_URL.search(_MD_LINK_TARGET.sub("]", text)):
        problems.append("a raw URL in the body")
    if e.single_language:
        problems += _check_single_language(answer)
    return problems


def _check_first_line(e: Expect, answer: Answer) -> list[str]:
    line, problems = first_line(answer.text), []
    if e.first_line_has_any and not any(s.lower() in line.lower() for s in e.first_line_has_any):
        problems.append(f"first line {line[:80]!r} has none of {e.first_line_has_any}")
    if e.first_line_matches and not re.search(e.first_line_matches, line, re.IGNORECASE):
        problems.append(f"first line {line[:80]!r} does not match {e.first_line_matches!r}")
    if e.first_line_number:
        low, high = e.first_line_number.low, e.first_line_number.high
        if not any(low <= v <= high for v in numbers_in(line)):
            problems.append(f"first line {line[:80]!r} has no number in [{low:g}, {high:g}]")
    if e.verdict and (got := verdict_of(line)) not in e.verdict:
        problems.append(f"first line {line[:80]!r} reads as {got}, expected {'/'.join(e.verdict)}")
    if e.first_line_not_passage:
        raw = answer.text.lstrip()
        starts = [c.snippet[:40] for c in answer.citations if len(c.snippet) >= 20]
        if raw.startswith(">") or any(s and s in line for s in starts):
            problems.append(f"first line is a quoted passage: {line[:80]!r}")
    return problems


def _check_single_language(answer: Answer) -> list[str]:
    parts = [answer.text, *(d.markdown for d in answer.details)]
    # Link targets, raw URLs (graded by no_raw_urls) and code spans are identifiers, not prose.
    body = _CODE.sub(" ", _URL.sub(" ", _MD_LINK_TARGET.sub("]", "\n".join(parts))))
    if answer.language == "en":
        cjk = _CJK.findall(body)
        return [f"Chinese characters in an English answer: {''.join(cjk[:12])!r}"] if cjk else []
    phrases = _EN_PHRASE.findall(body)
    return [f"English phrases in a Chinese answer: {phrases[:3]}"] if phrases else []
