"""A sizing question about something no vocabulary knows: the workload is out of reach, named as written.

The tools size what the catalogs and the guidance know: the LLMs of ``tools/data/models.yaml``, the media
models of ``tools/data/media_models.yaml``, on the GPUs and instances of the other data files, with the
frameworks and terms the guidance discusses. A question that asks for hardware ("which instance", "几张卡",
"is one A10 enough") for a named system that appears in none of them ("OpenFOAM", "MMPose", "COLMAP",
"StyleGAN3") and gives no sign of a language model is about a workload the tools cannot size. Saying so,
with the name as the user wrote it, beats asking "which LLM?" or planning on a misread. The vocabulary is
every word of the data files and the guidance, so adding a model or a passage is the whole change.

A model of the user's own ("our in-house model", "自研的大模型") with no size is sizable once its size is
known: that is asked for, not refused.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.hardware_words import GPU_NAME
from assistant.media_reading import media_trained
from assistant.reach_reading import ReachAsk, cpu_only, cpu_run, media_training, other_part, without_product_likeness
from assistant.reading import compiled
from knowledge.documents import default_docs_dir

if TYPE_CHECKING:
    from assistant.understanding import Slots

_DATA_DIR = Path(__file__).resolve().parents[1] / "tools" / "data"
# A written name: letters, digits, dashes and dots ("Real-ESRGAN", "XTTS-v2", "instant-ngp", "DCN-v2").
_TOKEN = re.compile(r"(?<![\w.\-])([A-Za-z][A-Za-z0-9]*(?:[\-.][A-Za-z0-9]+)*)(?![\w\-])")
_PARTS = re.compile(r"[\-.]")
_INNER_CAPITAL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_LETTER_DIGIT = re.compile(r"[A-Za-z]\d|\d[A-Za-z]")
_DIGIT = re.compile(r"\d")
_CAPITALISED = re.compile(r"[A-Z][a-z]{3,}")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;。！？：；\n\"'(（]\s*)$")
_MODEL_WORD = re.compile(r"\s+model\b", re.IGNORECASE)
_SUFFIX = re.compile(r"-(?:style|like|based|type|ish)$", re.IGNORECASE)
# Words common in any question that are no product name, whatever their case ("GPU", "QPS", "SLA").
_COMMON = frozenset(
    "gpu gpus cpu cpus vcpu vcpus api apis ai ml llm llms rag qps rps tps sla slo http https json yaml csv sql "
    "nvidia amd intel aws ok faq diy poc mvp saas b2b b2c tb gb gib mb tib pb kw kwh usd cny rmb eur "
    "ecs oss nas ack pai eas dsw ram vpc slb eip cdn id ids ui ux ceo cto hr it qa ops devops mlops".split()
)
_SIZING_ASK = (
    r"which\s+(?:\w+\s+){0,3}?(?:gpus?|instances?|cards?|machines?|servers?|box(?:es)?|setup|hardware|types?)|"
    r"what(?:'s|\s+is)?\s+(?:\w+\s+){0,2}?(?:gpus?|instances?|hardware|setup|machines?|box(?:es)?|cards?|config\w*)|"
    r"how\s+many\s+(?:\w+\s+){0,2}?(?:gpus?|cards?|instances?|servers?|machines?|nodes?|boxes|[a-z]\d{1,3}s)\b|"
    r"how\s+much\s+(?:gpu|vram|memory)|\bvram\b|gpu\s+memory|\benough\b|\boverkill\b|how\s+long|\brent\b|"
    r"(?:什么|啥)\s*(?:样的)?\s*(?:gpu|显卡|卡|实例|配置|机器|服务器|规格)|哪(?:种|个|款|类)\s*(?:gpu|显卡|卡|实例|机器|服务器|配置|规格)|"
    r"几张|几台|几块|多少张|多少台|多少块|显存|够(?:不够|吗|用)|多久|多长时间|需要.{0,6}(?:gpu|显卡|卡)|租"
)
# Signs that the workload is a language model after all: then the usual "which model?" is the right question.
_LLM_CUE = (
    r"大模型|语言模型|language\s+models?|\bllms?\b|chat\s*bots?|聊天|对话|客服|问答|\brag\b|知识库|\bagents?\b|"
    r"\btokens?\b|上下文|\bcontext\b|\bprompts?\b|文本生成|text\s+generation|\bgpt\b|\bchat\b|\bbots?\b|"
    r"assistants?\b|copilot|customer\s+(?:service|support)|summari[sz]\w*|translat\w*|翻译|摘要|写作|文案|"
    r"code\s+(?:completion|generation|assistant)|代码(?:补全|生成)|机器人|"
    # LLM serving and application stacks: the model behind them is the workload, so "which model?" is right.
    r"xinference|lmdeploy|fastchat|\btgi\b|text[\s\-]generation[\s\-]inference|localai|open[\s\-]?webui|lobechat|"
    r"chatglm|dify|fastgpt|maxkb|ragflow|anythingllm|langchain|llama[\s\-]?index|autogen|crewai|qwen|llama|deepseek"
)
_OWN_MODEL = (
    r"(?:our|my)\s+(?:own\s+)?(?:in[\s\-]?house|proprietary|custom|internal)\s+(?:\w+\s+)?model|"
    r"(?:our|my)\s+own\s+(?:\w+\s+)?model|(?:trained|built)\s+(?:our|my)\s+own\s+(?:\w+\s+)?model|"
    r"in[\s\-]?house\s+(?:\w+\s+)?model|自研|自己(?:训练|训|做|开发)的(?:大)?模型|内部(?:的)?(?:大)?模型|私有(?:的)?(?:大)?模型"
)


@cache
def known_words() -> frozenset[str]:
    """Every word of the data files and the guidance, lower case: names the tools or the guidance know."""
    files = [*sorted(_DATA_DIR.glob("*.yaml")), *sorted(_DATA_DIR.glob("*.csv")), *default_docs_dir().glob("*/*.md")]
    words: set[str] = set(_COMMON)
    for path in files:
        for token in _TOKEN.findall(path.read_text(encoding="utf-8")):
            words.add(token.lower())
            words.update(part.lower() for part in _PARTS.split(token) if part)
    return frozenset(words)


def _is_name(token: str) -> bool:
    """Tell whether a token is written like a product name (inner or all capitals, digits, dashes)."""
    if len(token) < 3:
        return False
    return bool(
        _INNER_CAPITAL.search(token)  # OpenFOAM, MMPose, StyleGAN
        or (token.isupper() and len(token) >= 4)  # COLMAP, GROMACS
        or _LETTER_DIGIT.search(token)  # XTTS-v2, YOLOv8
        or "-" in token  # instant-ngp, Real-ESRGAN
    )


# Capitalised words that are no product, even inside a sentence: people, languages, days, operating systems.
_PLAIN_CAPITALS = frozenset(
    "i i'm i'd we our english chinese cantonese mandarin japanese korean french german spanish monday tuesday "
    "wednesday thursday friday saturday sunday january february march april may june july august september "
    "october november december china europe asia america linux windows ubuntu docker python".split()
)


def _is_capitalised_name(text: str, start: int, token: str) -> bool:
    """Tell whether a Capitalised word inside a sentence ("to run Demucs for ...") is a name, not a plain word."""
    if not _CAPITALISED.fullmatch(token) or token.lower() in _PLAIN_CAPITALS:
        return False
    return not _SENTENCE_START.search(text[:start])  # the first word of a sentence


def unknown_name(text: str, *, model_like: bool = False) -> str | None:
    """Return the first product-like name in ``text`` that no data file or guidance passage mentions.

    With ``model_like`` only a name written like a model's ("LayoutLMv3", "a Foo model") counts: a question
    that also names a model the tools do size mentions libraries and products that are no part of the workload.
    """
    known = known_words()
    for m in _TOKEN.finditer(text):
        token = m.group(1)
        parts = [p.lower() for p in _PARTS.split(token) if p]
        named = _is_name(token) or (not model_like and _is_capitalised_name(text, m.start(), token))
        if model_like and not (_DIGIT.search(token) or _MODEL_WORD.match(text, m.end())):
            continue
        plural_of_known = token[-1:] == "s" and token[:-1].lower() in known  # "V100s", "A10s": cards, no product
        if named and token.lower() not in known and not all(p in known for p in parts) and not plural_of_known:
            return _SUFFIX.sub("", token)  # "AlphaZero-style"
    return None


def unsizable_workload(text: str) -> ReachAsk | None:
    """Read a sizing question about a named system no vocabulary knows, or about an unsized model of the user's own.

    The caller checks first that no model, size or architecture was read from ``text``.
    """
    if not compiled(_SIZING_ASK).search(text.lower()):
        return None
    if compiled(_OWN_MODEL).search(text.lower()):
        return ReachAsk(topic="own_model")
    if compiled(_LLM_CUE).search(text.lower()):
        return None
    name = unknown_name(without_product_likeness(text))  # "搭个 ChatGPT 一样的东西": a kind of product, no name
    return ReachAsk(topic="unknown", name=name) if name else None


def unsizable(slots: Slots, text: str) -> ReachAsk | None:
    """Read a sizing question whose workload is no model the tools know and not sized by the user either.

    Beside a model the tools do size, a model-like name no vocabulary knows ("plus a LayoutLMv3 model") is
    the out-of-reach part named under the answer.
    """
    if slots.model and not slots.model_error and (name := unknown_name(text, model_like=True)):
        return ReachAsk(topic="unknown", name=name)
    if slots.model or slots.model_error or slots.size_b or slots.architecture:
        return None
    return unsizable_workload(text)


def settle_reach(slots: Slots, text: str, *, trains: bool) -> None:
    """Settle the intent and out-of-reach part of ``slots`` once the media model, if any, is read (in place)."""
    llm_load = trains or slots.concurrency is not None or slots.qps is not None  # the LLM has a workload of its own
    media_trains = media_trained(text)
    if slots.media is not None and slots.media.kind and media_beside_llm(slots) and not cpu_only(text) and (
        media_trains or llm_load
    ):
        # "Serve Qwen2.5-7B for 10 users and Whisper", "fine-tune Whisper, then serve Qwen2.5-14B": the LLM is
        # answered, the media model sized after it; training the media model is named as not in the figures instead.
        if media_trains:
            slots.reach = media_training(slots.media.kind, text).model_copy(update={"name": slots.media.model})
            slots.media = None
        else:
            slots.reach = other_part(text, slots.media.kind)
    elif slots.media is not None and slots.media.model is not None:
        # A named image/speech/embedding model is more specific than any LLM name it contains
        # ("千问VL 7B" is not Qwen-7B); training these models is still out of reach.
        trained = media_training(slots.media.kind, text) if trains else None
        if trained is None:
            trained = cpu_only(text)  # "只用 CPU 跑 bge-m3": no GPU instance to size, said so instead of a GPU plan
        # An out-of-reach part beside the media model ("YOLO first, then Qwen2.5-VL") is named under the answer.
        side = other_part(text, slots.media.kind)
        slots.intent, slots.reach = ("out_of_reach", trained) if trained else ("media", side)
    elif slots.reach and slots.reach.topic in ("local", "rl_llm") and slots.intent != "out_of_reach":
        slots.intent = "out_of_reach"  # a laptop or CPU-only run of a named LLM: not an instance to size
    elif slots.reach and slots.reach.subject == "energy":
        slots.intent = "out_of_reach"  # "the carbon footprint of training Qwen2.5-72B": no tool computes power
    elif slots.model and (cpu := cpu_run(text)):
        slots.intent, slots.reach = "out_of_reach", cpu  # "Qwen2.5-3B on a plain ECS box with no GPU at all"


def media_beside_llm(slots: Slots) -> bool:
    """Whether the question names an LLM and, apart from it, a media model to serve that is no RAG retriever."""
    media = slots.media.model if slots.media else None
    if not slots.model or media is None or rag_pipeline(slots):
        return False
    return not _name_words(media) >= _name_words(slots.model) - {"instruct"}  # "Qwen2.5-VL-7B" holds no LLM


def rag_pipeline(slots: Slots) -> bool:
    """Whether the question names an LLM and an embedding or reranker model: a retrieval pipeline (RAG)."""
    if not slots.model or slots.media is None or slots.media.model is None:
        return False
    # "Qwen3-Embedding-8B" also reads as family Qwen3 and size 8B: an LLM found inside the media name is none.
    inside = _name_words(slots.media.model) >= _name_words(slots.model) - {"instruct"}
    return slots.media.kind in ("embedding", "reranker") and not inside


def _name_words(name: str) -> set[str]:
    """Split a model name into its words: "Qwen3-Embedding-8B" -> {"qwen3", "embedding", "8b"}."""
    return set(re.findall(r"[a-z]+\d*(?:\.\d+)?|\d+(?:\.\d+)?b", name.lower()))


def written_model_name(text: str) -> str | None:
    """Return a model-like name as written ("CLIP", "SigLIP", "YOLOv8"), known or not, that is no GPU or instance.

    For a media ask with no registry model ("用 CLIP 做向量化"): the name the user chose is what cannot be sized,
    so it is named rather than asked for.
    """
    for m in _TOKEN.finditer(text):
        token = m.group(1)
        if not _is_name(token) or token.lower() in _COMMON or compiled(rf"^(?:{GPU_NAME})$").match(token):
            continue
        if re.match(r"(?i)^(?:ecs|gn\d|ebm|sgn|vgn)", token):
            continue
        return token
    return None
