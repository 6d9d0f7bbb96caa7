"""Workload phrases in the user's own units, read before the generic number patterns of ``understanding``.

* English number words become digits ("twelve users" -> "12 users", "two hundred" -> "200").
* Request lengths in tokens, Chinese characters, English words or pages ("每次问题约 800 个汉字，回答 200
  字左右", "two pages of English", "prompts of 2k tokens and 500 output tokens"), converted with
  :func:`tools.lengths.text_tokens` (a sourced ratio per language).
* Training volume as samples x tokens per sample x epochs ("40k dialogues averaging 2k tokens, two passes").
* Pretraining ("从头预训练", "continued pretraining") is full training.
* Numbers the tools must not guess at ("1e308", "10^9", "0 users") are reported as invalid, as written.
* Workloads the tools cannot size (image generation, speech, embeddings) are named, not planned as LLMs.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assistant.hardware_words import GPU_NAME
from assistant.reading import chinese_int, compiled, spoken_amounts
from tools.lengths import TextUnit, TokenCount, text_tokens

_UNITS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_SCALES = {"hundred": 100, "thousand": 1000}
_WORD = "|".join([*_UNITS, *_TENS])
_NUMBER_WORDS_RE = re.compile(
    # "a hundred and twenty" is one number: the words after "a hundred" continue it
    # "half a dozen" and "two dozen" too: read as one number here, or "a dozen" alone would become 12 in them
    rf"\b(?:(?:half\s+)?a\s+dozen|(?:an?\s+(?:hundred|thousand)|{_WORD})(?:[\s\-]+(?:{_WORD}|hundred|thousand|dozen|and)){{0,5}})\b",
    re.IGNORECASE,
)
# "one" alone is too common ("which one") to be a number unless it counts something ("one A10" counts a GPU).
_ONE_COUNTS = (
    r"[\s\-]+pages?\b|"  # "a one-page summary": one page of output
    r"\s+(?:gpus?|cards?|instances?|box(?:es)?|machines?|nodes?|epochs?|pass(?:es)?|users?|servers?|"
    rf"(?:nvidia\s*)?(?:{GPU_NAME})(?![0-9]))\b"
)


def english_number(words: str) -> int | None:
    """Read "twelve", "two hundred", "forty-two", "one thousand five hundred", "(half) a dozen" (None: no number)."""
    if m := re.fullmatch(r"(half\s+)?a\s+dozen", words.strip(), re.IGNORECASE):
        return 6 if m.group(1) else 12
    if m := re.fullmatch(r"an?\s+(hundred|thousand)", words.strip(), re.IGNORECASE):
        return _SCALES[m.group(1).lower()]
    words = re.sub(r"^\s*an?\s+(?=hundred|thousand)", "one ", words, flags=re.IGNORECASE)  # "a hundred and six"
    total, current, seen = 0, 0, False
    for token in re.split(r"[\s\-]+", words.lower()):
        if token == "and":
            continue
        if token in _UNITS:
            current += _UNITS[token]
        elif token in _TENS:
            current += _TENS[token]
        elif token == "dozen":  # "two dozen" 24
            current = max(current, 1) * 12
        elif token in _SCALES:
            current = max(current, 1) * _SCALES[token]
            if token == "thousand":
                total, current = total + current, 0
        else:
            return None
        seen = True
    return total + current if seen else None


# Misspellings common enough in quick questions that the words they stand for must still be read.
_TYPOS = (
    (r"\bconcur+en(t|cy|tly)\b", r"concurren\1"),
    (r"\bconcur+an(cy|t)\b", r"concurren\1"),
    (r"\bsimultan(?:ous|eous)(ly)?\b", r"simultaneous\1"),
    (r"\binstace(s?)\b", r"instance\1"),
    (r"\bcont?xt\b", "context"),
    (r"\blenght\b", "length"),
    (r"\bfine[\s\-]?tunning\b", "fine-tuning"),
    (r"(\d\s*[kKmMbB]?)\s*toks?\b", r"\1 tokens"),  # "avg 512 tok", "2k toks"
)


def fix_typos(text: str) -> str:
    """Return ``text`` with common misspellings of workload words corrected ("concurent users")."""
    for pattern, repl in _TYPOS:
        text = compiled(pattern).sub(repl, text)
    return text


# A pure function of the text, cached: the number guard reads every string of every tool result through it
# (hundreds per answer, the same catalog names and notes again and again), which was half of a warm answer.
@lru_cache(maxsize=8192)
def spell_numbers(text: str) -> str:
    """Replace English number words by digits, keeping a lone "one" unless it counts something."""

    def swap(m: re.Match[str]) -> str:
        words = m.group(0)
        if words.lower() == "one" and not re.match(_ONE_COUNTS, text[m.end() :], re.IGNORECASE):
            return words
        core = re.sub(r"(?:[\s\-]+and)+$", "", words)
        value = english_number(core)
        return f"{value}{words[len(core) :]}" if value is not None else words

    return spoken_amounts(_NUMBER_WORDS_RE.sub(swap, fix_typos(text)))


# ------------------------------------------------------------------------------------------ numbers

NUMBER = r"(?<![A-Za-z0-9_.])((?:\d{1,3}(?:,\d{3}){1,3}(?!\d)|\d{1,9})(?:\.\d{1,4})?)\s*([kK千wW万]|million\b)?"
_SCALE = {"k": 1e3, "千": 1e3, "w": 1e4, "万": 1e4, "million": 1e6}


_N_CN = r"(?<![零〇一二两三四五六七八九十百千万])([一二两三四五六七八九十百千]{1,6})\s*(万)?"


def number_value(m: re.Match[str], group: int = 1) -> float:
    suffix = (m.group(group + 1) or "").lower()
    return float(m.group(group).replace(",", "")) * _SCALE.get(suffix, 1.0)


_INVALID_RES = (
    r"(?<![\w.])\d{1,9}(?:\.\d{1,6})?\s*[eE]\s*[+\-]?\d{1,4}(?![\w])",  # 1e308
    r"(?<![\w.])\d{1,9}\s*(?:\^|\*\*)\s*\d{1,4}",  # 10^9, 10**9
    r"(?<![\w.\-])(?<!\d,)0+(?:\.0+)?\s*(?:个|位|张|块|台)?\s*(?:users?|用户|人|并发|concurren\w*|gpus?|显卡|卡|qps|rps|"
    r"instances?|台|requests?|请求)(?![a-z])",
    r"(?:并发|concurrency|users|qps|rps|gpus)\s*(?:of|is|=|为|是|:|：)?\s*0+(?![\d.])",
)


def invalid_numbers(text: str) -> list[tuple[str, tuple[int, int]]]:
    """Numbers written in a form the tools refuse to guess at (exponents, zero quantities), as written."""
    out = []
    for pattern in _INVALID_RES:
        out += [(m.group(0).strip(), m.span()) for m in compiled(pattern).finditer(text)]
    return out


# ------------------------------------------------------------------------------------------ lengths

LengthRole = Literal["prompt", "output"]


class StatedLength(BaseModel):
    """A per-request length the user gave, in their unit, and its tokens."""

    model_config = ConfigDict(extra="forbid")

    role: LengthRole
    count: TokenCount
    span: tuple[int, int]


_OUTPUT_WORDS = (
    r"回答|输出|回复|答案|生成|摘要|总结|output|outputs|answers?|responses?|completions?|generat\w*|replies|reply|"
    r"summary|summaries"
)
_PROMPT_WORDS = r"问题|提问|输入|提示词?|prompts?|inputs?|questions?|文档"
_UNIT_RES: tuple[tuple[str, TextUnit], ...] = (
    (
        r"(?:(?:个)?\s*(?:汉字|中文字符?|字)(?!节)|chinese\s+(?:characters?|chars?)\b|(?:characters?|chars?)\s+of\s+chinese\b)",
        "zh_characters",
    ),
    (r"(?:(?:english\s+)?words?\b|(?:个)?\s*(?:英文)?单词)", "en_words"),
    (r"(?:(?:english\s+)?characters?\b|chars?\b|(?:个)?\s*(?:英文字符|英文字母))", "en_characters"),
    (r"(?:pages?\b|页)(?:\s+of\s+(?:english|text))?", "pages"),
    (r"(?:(?:output|input|prompt|completion|generated|输出|输入)\s*)?tokens?\b", "tokens"),
)


def stated_lengths(text: str) -> list[StatedLength]:
    """Per-request prompt and output lengths with their unit ("800 个汉字", "2k tokens of output").

    A length counts only next to a word that says whose it is (prompt/question/input vs answer/output);
    a bare "32k tokens" stays a context length for ``understanding``.
    """
    found: list[StatedLength] = []
    for unit_re, unit in _UNIT_RES:
        if unit == "en_words" and re.search(_ENGLISH_TEXT, text, re.IGNORECASE):
            unit_re = rf"(?:{unit_re}|(?:个)?\s*词(?![汇元语组表性根]))"  # "英文邮件……回复 200 词": English words
        # "回答大约一千字", "三页英文材料", "五百个单词": Chinese numerals count text too
        number = f"(?:{NUMBER}|{_N_CN})" if unit in ("zh_characters", "pages", "en_words") else NUMBER
        for m in compiled(rf"{number}[\s\-]*{unit_re}").finditer(text):
            inner = re.search(rf"{_OUTPUT_WORDS}|{_PROMPT_WORDS}", m.group(0), re.IGNORECASE)
            if inner:
                role: LengthRole | None = "output" if re.fullmatch(_OUTPUT_WORDS, inner.group(0), re.I) else "prompt"
            else:
                role = _role(text, m.start(), m.end())
            if role is None and unit != "tokens":
                role = "prompt"  # "two pages of English": text the user sends, unless said otherwise
            if role is None or any(s.span[0] < m.end() and m.start() < s.span[1] for s in found):
                continue
            value = number_value(m) if m.group(1) else chinese_int(m.group(3)) * (1e4 if m.group(4) else 1)
            if value <= 0 or (unit == "tokens" and (m.group(2) or "").lower() not in ("k", "千", "")):
                continue
            found.append(StatedLength(role=role, count=text_tokens(value, unit), span=m.span()))
    return found


_DOCUMENT_AFTER = (
    r"[\s\-]*(?:的)?\s*(?:英文|中文|english\s+|chinese\s+)?\s*(?:的)?\s*"
    r"(?:报告|文档|文章|论文|合同|材料|资料|文件|reports?|documents?|docs?|articles?|papers?|pdfs?|contracts?|files?)"
)


_ENGLISH_TEXT = r"英文|英语|单词|\benglish\b"
_WRITES_BEFORE = (
    r"(?:写|写出|生成|产出|(?<![提指列])出|给出|返回)\s*(?:一份|一篇|一段|个)?\s*(?:约|大约|大概|差不多)?\s*$|"
    r"\bwrites?\s+(?:about\s+|~)?$"
)
# "1000字左右的摘要", "300 words or so of output": a hedge between a length and the word naming its role
_HEDGE_AFTER = r"^\s*(?:左右|上下|以内|之内|以下|or\s+so|or\s+less|tops|max)\s*"


def _role(text: str, start: int, end: int) -> LengthRole | None:
    before, after = text[max(0, start - 24) : start], text[end : end + 16]
    after = re.sub(_HEDGE_AFTER, "", after, flags=re.IGNORECASE)
    # A role word glued after the length names it ("2k-token prompts and 500-token answers"), unless a figure
    # of its own follows it ("输入 500 token 输出 200": 输出 labels the 200)
    labels_next = r"(?!\s*(?:约|大约|大概|about|around|~|≈|为|是|:|：)?\s*\d)"
    if re.match(rf"\s?(?:{_OUTPUT_WORDS})\b{labels_next}", after, re.IGNORECASE):
        return "output"
    if re.match(rf"\s?(?:{_PROMPT_WORDS})\b{labels_next}", after, re.IGNORECASE):
        return "prompt"
    # "总结 3 页英文报告", "summarise 20-page contracts": the document read is the input, whatever verb comes first
    if re.match(_DOCUMENT_AFTER, after, re.IGNORECASE):
        return "prompt"
    # "让它写 100 字中文总结": a verb of writing just before the length makes it output
    if re.search(_WRITES_BEFORE, before, re.IGNORECASE):
        return "output"
    if re.match(rf"\s*(?:的)?\s*(?:中文|英文|chinese\s+|english\s+)(?:的)?\s*(?:{_OUTPUT_WORDS})", after, re.I):
        return "output"
    out_before = re.search(rf"(?:{_OUTPUT_WORDS})[^,，。;；\d]*$", before, re.IGNORECASE)
    in_before = re.search(rf"(?:{_PROMPT_WORDS})[^,，。;；\d]*$", before, re.IGNORECASE)
    if out_before and (not in_before or out_before.start() > in_before.start()):
        return "output"
    if in_before:
        return "prompt"
    if re.match(rf"\s*(?:of\s+|的)?\s*(?:{_OUTPUT_WORDS})", after, re.IGNORECASE):
        return "output"
    if re.match(rf"\s*(?:of\s+|的)?\s*(?:english\s+)?(?:{_PROMPT_WORDS}|text|documents?)", after, re.IGNORECASE):
        return "prompt"
    # "~6k tokens of (retrieved) context per query": what each request sends, not the model's window
    if re.match(r"\s*of\s+(?:retrieved\s+|rag\s+)?context\s+(?:per|each|for\s+each|with\s+each)\b", after, re.I):
        return "prompt"
    return None


# ------------------------------------------------------------------------------------------ training volume


class TrainingVolumeText(BaseModel):
    """Samples, tokens per sample and epochs as stated (None: not said)."""

    model_config = ConfigDict(extra="forbid")

    samples: float | None = None
    tokens_per_sample: float | None = None
    epochs: float | None = None
    spans: list[tuple[int, int]] = Field(default_factory=list)


_SAMPLE_NOUNS = (
    r"dialogues?|conversations?|samples?|examples?|documents?|docs|instructions?|pairs|records|tickets|emails|"
    r"articles|transcripts|chats|rows|turns|prompts|queries|questions|items|entries|texts|completions|"
    r"对话|样本|数据|文档|指令|问答对|记录|工单|邮件|文章|轮对话|问题"
)
_SAMPLES_RE = (
    # "40k dialogues", "80k Q&A pairs", "20k instruction-response pairs": up to two words before the noun,
    # none of them a serving word ("20 concurrent chats" are users, not samples)
    rf"{NUMBER}\s*(?:(?:条|个|份|篇|封)\s*[\u4e00-\u9fff]{{0,4}}?)?\s*"
    r"(?:(?!(?:concurren|simultan|parallel|active|daily|online|live|peak|users?\b|per\b|a\b)\w*)"
    r"[A-Za-z][\w&/\-]{0,20}\s+){0,2}?"
    rf"(?:{_SAMPLE_NOUNS})(?![a-z])"
    # "5k questions a day" is a rate of requests, not a training set
    r"(?!\s*(?:a|per|each|every|/)\s*(?:day|hour|minute|min|second|sec|week|month)\b)"
)
_SAMPLES_AFTER_RE = (
    rf"(?:数据|样本|语料|训练集|dataset|data)[^\d,，。;；]{{0,8}}?{NUMBER}\s*(?:条|个|份|篇|samples?|examples?|rows?)"
)
_HEDGE = r"(?:of\s+|约|大约|大概|左右|about\s+|around\s+|roughly\s+|~\s*|≈\s*)?"
_PER_SAMPLE_RE = (
    # "average length 1.2k tokens", "平均长度约 800 token": a length word may stand between
    rf"(?:averag\w*|avg|average\s+of|each|per\s+sample|apiece|平均|每条|每个|每篇|每份)\s*"
    rf"(?:(?:length|len|size|长度|of|is|=|:|：|\w{{1,4}})\s*){{0,2}}{_HEDGE}"
    rf"{NUMBER}\s*(?:个)?\s*tokens?"
    rf"|{_HEDGE}{NUMBER}\s*tokens?\s+(?:each|apiece|per\s+(?:sample|example|dialogue|conversation|record|ticket|doc\w*))"
    # "20k examples of ~1k tokens", "100k dialogues with about 2k tokens"
    rf"|(?:{_SAMPLE_NOUNS})\s+(?:of|with|at)\s+{_HEDGE}{NUMBER}\s*tokens?"
)
_EPOCHS_RE = rf"{NUMBER}\s*(?:epochs?|passes|pass|轮|遍|个\s*epochs?)|(?:epochs?|轮数)\s*(?:=|:|：|为)?\s*{NUMBER}"
_EPOCHS_CN_RE = r"(?<![第一二两三四五六七八九十百千万])([一二两三四五六七八九十]{1,3})\s*(?:个\s*)?(?:epochs?|轮|遍)"


def training_volume(text: str) -> TrainingVolumeText:
    """Find samples, average tokens per sample and epochs in a training question."""
    out = TrainingVolumeText()
    if m := re.search(_SAMPLES_RE, text, re.IGNORECASE) or re.search(_SAMPLES_AFTER_RE, text, re.IGNORECASE):
        out.samples, out.spans = number_value(m), [*out.spans, m.span()]
    if m := re.search(_PER_SAMPLE_RE, text, re.IGNORECASE):
        group = next(g for g in (1, 3, 5) if m.group(g))
        out.tokens_per_sample, out.spans = number_value(m, group), [*out.spans, m.span()]
    if m := re.search(_EPOCHS_RE, text, re.IGNORECASE):
        group = 1 if m.group(1) else 3
        out.epochs, out.spans = number_value(m, group), [*out.spans, m.span()]
    elif m := re.search(_EPOCHS_CN_RE, text, re.IGNORECASE):  # "跑两轮", "三个 epoch"
        out.epochs, out.spans = float(chinese_int(m.group(1))), [*out.spans, m.span()]
    return out


PRETRAIN_RE = r"预训练|pre[\s\-]?train\w*|from\s+scratch|从头(?:开始)?训练|增量训练"

# ------------------------------------------------------------------------------------------ out of reach

ReachTopic = Literal["image", "speech", "embedding", "video"]
_REACH: dict[ReachTopic, str] = {
    "image": r"stable[\s\-]?diffusion|sdxl|\bsd\s*(?:1\.5|2|3)|\bflux\b|midjourney|文生图|图像生成|生成图片|生图|画图|"
    r"text[\s\-]to[\s\-]image|image\s+generation|diffusion\s+model|comfyui",
    "speech": r"whisper|\btts\b|\basr\b|语音识别|语音合成|speech[\s\-]to[\s\-]text|text[\s\-]to[\s\-]speech|"
    r"speech\s+recognition|cosyvoice|paraformer",
    "embedding": r"embedding\s+models?|embeddings?\s+(?:service|server|model)|向量模型|嵌入模型|\bbge\b|"
    r"text-embedding|rerank\w*|重排",
    "video": r"视频生成|video\s+generation|text[\s\-]to[\s\-]video|\bsora\b|wan2",
}


def out_of_reach(text: str) -> ReachTopic | None:
    """Name a workload the tools cannot size (image, speech, embedding, video models), if the text is about one."""
    for topic, pattern in _REACH.items():
        if re.search(pattern, text, re.IGNORECASE):
            return topic
    return None


DEFAULT_PEAK_SHARE = 0.1  # one in ten daily users online at the peak, when the user gives no peak factor
_DAU_RE = (
    rf"(?:日活(?:跃)?(?:用户)?(?:数)?|\bDAU\b|daily\s+active\s+users?|daily\s+users?)\s*(?:约|大约|about|of|:|：|为|是|有)?\s*{NUMBER}"
    rf"|{NUMBER}\s*(?:daily\s+active\s+users?|daily\s+users?|\bDAU\b|日活(?:跃)?(?:用户)?)"
    # "每天 3000 人用", "一天有 2 万用户访问", "3,000 users a day", "5k people use it every day": users per day
    rf"|(?:每天|每日|一天)\s*(?:有|大约|约|大概|差不多)?\s*{NUMBER}\s*(?:多|来|左右)?\s*(?:个|位|名)?\s*(?:人|用户|访客)"
    rf"|{NUMBER}\s*(?:users?|people|visitors|customers)\s+(?:use\s+it\s+)?(?:a|per|each|every)\s+day\b"
)
_PEAK_RE = (
    rf"(?:高峰|峰值|peak)[^\d%]{{0,16}}{NUMBER}\s*%"
    rf"|{NUMBER}\s*%[^\d%]{{0,20}}?(?:peak|高峰|峰值|online|在线|concurrent)"
)


class DailyUsers(BaseModel):
    """Daily active users and the share of them online at the peak."""

    model_config = ConfigDict(extra="forbid")

    users: float
    peak_share: float
    stated_share: bool
    spans: list[tuple[int, int]]

    @property
    def peak_concurrency(self) -> int:
        """Users online at once at the peak (at least one)."""
        return max(1, round(self.users * self.peak_share))


# "DAU 两万": the count in Chinese numerals
_DAU_CN_RE = rf"(?:日活(?:跃)?(?:用户)?(?:数)?|\bDAU\b)\s*(?:约|大约|大概|为|是|有|:|：)?\s*{_N_CN}"
# "one in twenty online at once", "1 out of 20", "二十分之一": a share stated as a fraction
_ONE_IN_RE = (
    rf"\b(?:one|1|a)\s+(?:in|out\s+of)\s+{NUMBER}|(?<![\d.])(\d{{1,4}})\s*分之一|([二三四五六七八九十百]{{1,4}})分之一"
)


def daily_users(text: str) -> DailyUsers | None:
    """Read "日活 1 万，高峰 5%" / "10k daily active users" (None: no daily-user figure)."""
    m = re.search(_DAU_RE, text, re.IGNORECASE)
    if m:
        users = number_value(m, next(g for g in range(1, len(m.groups()), 2) if m.group(g)))
    elif m := re.search(_DAU_CN_RE, text, re.IGNORECASE):
        users = chinese_int(m.group(1)) * (1e4 if m.group(2) else 1)
    else:
        return None
    peak = re.search(_PEAK_RE, text, re.IGNORECASE) or re.search(_ONE_IN_RE, text, re.IGNORECASE)
    share = _peak_share(peak) if peak else DEFAULT_PEAK_SHARE
    if users <= 0 or not 0 < share <= 1:
        return None
    spans = [m.span(), *([peak.span()] if peak else [])]
    return DailyUsers(users=users, peak_share=share, stated_share=bool(peak), spans=spans)


def _peak_share(peak: re.Match[str]) -> float:
    """Return the share online at the peak: a percentage, or one in N."""
    if peak.re.pattern != _ONE_IN_RE:
        return (number_value(peak) if peak.group(1) else number_value(peak, 3)) / 100
    n = number_value(peak) if peak.group(1) else float(peak.group(3) or chinese_int(peak.group(4)))
    return 1 / n if n >= 1 else 0.0


CN_SMALL = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
# "add A100", "throw H20 in too", "再加一个 gn6i": a turn that adds a side to the previous comparison.
ADDS_SIDE_RE = re.compile(
    r"\b(?:add(?:ing)?|include|including|throw\s+(?:\S+\s+){0,3}?in|as\s+well|too|also|third|fourth|one\s+more|"
    r"another\s+option|"
    r"(?:compare|put)\s+(?:it|that|them)\s+(?:in|too|against))\b|"
    r"再加|加上|加一个|加个|加入|放进来|也比|一起比|也算上|也对比|第三个|第三种|三个一起",
    re.IGNORECASE,
)
