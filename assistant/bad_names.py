"""Hardware a question names that does not exist, or in impossible numbers: found, never replaced.

A workload on an instance type the catalog does not have ("Qwen2.5-7B on ecs.gn9x.8xlarge") is answered
with the catalog's closest names, not planned on some other instance; a GPU written with its brand that
the catalog does not know ("RTX 5090", "MI300X") is kept as written so the tools answer "Unknown GPU ...
Did you mean ...?" instead of planning on every GPU; "0 张 L20" or "-2 GPUs" is an invalid value.
"""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING

from annotated_types import Le

from assistant.hardware_words import GPU_NAME
from assistant.messages import say
from tools import catalog, regions, vocabulary
from tools.errors import UnknownNameError
from tools.workload import Workload

if TYPE_CHECKING:
    from assistant.understanding import Slots

_BRANDED_GPU = re.compile(
    r"(?<![\w.\-])((?:nvidia\s+|amd\s+)?(?:geforce\s+)?(?:rtx|gtx|titan|quadro|tesla|radeon|instinct|mi|ascend|昇腾|gaudi)\s*-?\s*"
    r"[a-z]?\d{2,4}[a-z]{0,3}(?:\s+(?:ti|super))?)(?![\w.\-])",
    re.IGNORECASE,
)
_HARDWARE_COUNT = re.compile(
    rf"(?<![\w.])(?<!\d,)(?<!\s-\s)(?<!\s-)((?:(?<!\s)-\s*\d+|-\d+|0+)(?:\.\d+)?)\s*(?:(张|块|台)\s*(?:{GPU_NAME})?\s*(?:卡|显卡|gpu|实例|机器)?|"
    rf"(?:x\s*)?(?:nvidia\s+)?(?:{GPU_NAME})\s*(?:gpus?|cards?)?|gpus?\b|cards?\b|instances?\b|nodes?\b|machines?\b)",
    re.IGNORECASE,
)

# A fraction right before a unit that comes whole; "1.5万 users" and "1.5k users" have a scale word between.
_FRACTION = re.compile(
    r"(?<![\w.])(?<!\d,)\d+\.\d+\s*(?:(?:concurrent\s+|simultaneous\s+)?users?\b|people\b|gpus?\b|cards?\b|instances?\b|"
    r"machines?\b|nodes?\b|个?并发|个?用户|人(?:同时)?|张|块|台|(?:x\s*)?(?:nvidia\s+)?(?:" + GPU_NAME + r")s?\b)",
    re.IGNORECASE,
)

_ZERO_CONTEXT = re.compile(
    r"(?<![\w.,])0+[\s\-]*(?:k\s*)?tokens?\s+(?:of\s+)?(?:context|上下文)|(?:上下文|context)\s*(?:of|is|=|为|:)?\s*0\b",
    re.IGNORECASE,
)
# A budget of nothing ("预算 0 元", "budget $0"): a value to correct, not a filter that rejects every option.
_ZERO_BUDGET = re.compile(
    r"(?:预算|budget)\s*(?:is|of|=|为|是|:|：)?\s*(?:¥|￥|\$|cny|rmb)?\s*0+(?:\.0+)?(?![\d.,])\s*(?:元|块|cny|rmb|yuan)?",
    re.IGNORECASE,
)
# A batch of nothing ("batch 设成 0", "批大小为 0") and a negative written in words ("并发改成负 8").
_ZERO_BATCH = re.compile(
    r"(?:batch(?:[\s_]*size)?|批大小|批量大小)\s*(?:is|of|=|为|是|设成|设为|设置为|改成|改为|:|：)?\s*0+(?![\d.])",
    re.IGNORECASE,
)
_NEGATIVE_WORD = re.compile(r"负\s*(?:\d+(?:\.\d+)?|[一二两三四五六七八九十百千万]+)(?!\s*(?:载|责|面|担|荷))")
# More GPUs than any one job is sized for (the largest clusters are tens of thousands): said, not ignored.
_MAX_GPUS = 100_000
_MANY_GPUS = re.compile(
    rf"(?<![\w.])(\d{{1,3}}(?:,\d{{3}})+|\d{{6,}})\s*(?:张|块)?\s*(?:x\s*)?(?:nvidia\s+)?(?:{GPU_NAME})?\s*"
    r"(?:gpus?\b|cards?\b|卡|显卡)",
    re.IGNORECASE,
)


# A bare GPU-shaped name ("H300", "B300", "L40", "K80"): a letter NVIDIA uses and two to four digits.
_BARE_GPU = re.compile(r"(?<![\w.\-])([ABHLTVPK]\d{2,4}[A-Z]?)(?![\w.\-])")
# A card counted like a GPU ("2x H2O", "两张 A1OO"): a name with a digit in it, whatever its letters.
_COUNTED_GPU = re.compile(
    r"(?:(?<![\w.])\d{1,3}\s*[x×*]\s*|(?:\d{1,3}|[两二三四五六八])\s*(?:张|块)\s*)"
    r"([A-Z][A-Z0-9]{0,4}\d[A-Z0-9]{0,4})(?![\w.\-])"
)


def find_branded_gpu(text: str) -> list[str]:
    """GPU names the catalog does not know ("RTX 5090", "MI300X", "H300"), as written."""
    found = []
    for m in [*_BRANDED_GPU.finditer(text), *_BARE_GPU.finditer(text), *_COUNTED_GPU.finditer(text)]:
        name = re.sub(r"\s+", " ", m.group(1)).strip()
        try:
            catalog.get_gpu(name)
        except UnknownNameError as exc:
            if not exc.suggestions or name.upper() not in {s.upper() for s in exc.suggestions}:
                found.append(name)
    return list(dict.fromkeys(found))


def impossible_hardware_counts(text: str) -> list[str]:
    """Return impossible counts as written.

    Zero or negative counts of GPUs, cards or instances ("0 张 L20", "-2 GPUs"), and fractions of things
    that come whole ("2.5 users", "0.5 张卡"). A number in a pasted table's cell ("| 0  NVIDIA A10  On |",
    nvidia-smi's GPU index) is a column value, not a count.
    """
    found = [m.group(0).strip() for m in _HARDWARE_COUNT.finditer(text) if not _in_table_cell(text, m.start())]
    found += [m.group(0).strip() for m in _MANY_GPUS.finditer(text) if float(m.group(1).replace(",", "")) > _MAX_GPUS]
    found += [m.group(0).strip() for m in (*_ZERO_CONTEXT.finditer(text), *_ZERO_BUDGET.finditer(text))]
    found += [m.group(0).strip() for m in (*_ZERO_BATCH.finditer(text), *_NEGATIVE_WORD.finditer(text))]
    return found + [m.group(0).strip() for m in _FRACTION.finditer(text) if not any(m.group(0) in f for f in found)]


def _in_table_cell(text: str, start: int) -> bool:
    return text[:start].rstrip().endswith("|")


def unknown_family_line(family: str, lang: str) -> str:
    """Say that a family does not exist and list the catalog's GPU families with their GPUs, in ``lang``."""
    gpus: dict[str, str] = {}
    for inst in catalog.load_instances():
        gpu = inst.gpu_model or inst.gpu_model_likely
        if not inst.retired and gpu and re.fullmatch(r"gn\d+[a-z]*", inst.family):  # the plain families, not ebm/scc
            gpus.setdefault(inst.family, re.sub(r"\s*\(.*\)$", "", gpu))  # "GPU-H-e-141GB (unnamed, ...)"
    near = difflib.get_close_matches(family.lower(), list(gpus), n=3, cutoff=0.6)
    shown = [f"`{f}` ({gpus[f]})" if lang == "en" else f"`{f}`（{gpus[f]}）" for f in (near or sorted(gpus))]
    return say("bad.unknown_family", lang, name=family, families=("、" if lang == "zh" else ", ").join(shown))


def unknown_instance_types(names: list[str]) -> list[UnknownNameError]:
    """Return the named instance types the catalog does not have (and that name no GPU), with the closest names."""
    errors = []
    for name in names:
        if re.search(rf"(?<![a-z0-9])(?:{GPU_NAME})(?![0-9])", name, re.IGNORECASE):
            continue  # "ecs.l20-c32g1.8xlarge" names its GPU: said not to exist, then planned on that GPU
        try:
            catalog.get_instance(name)
        except UnknownNameError as exc:
            errors.append(exc)
    return errors


# A word right before a version or size ("qwne2.5", "lama-3", "deepseak v3"): a misspelt family name if it is
# one letter off a registry family (difflib ratio), never a word that is a family or a short token like "fp16".
_FAMILY_TYPO = re.compile(r"(?<![A-Za-z])([A-Za-z]{4,9})(?=[\s\-_]*v?\d)")


def respell_families(text: str) -> str:
    """Correct a model family name misspelt by a letter or two to the registry's spelling ("qwne" -> "qwen")."""
    families = [w for w in vocabulary.model_family_words() if len(w) >= 4]

    def fix(match: re.Match[str]) -> str:
        word = match.group(1)
        low = word.lower()
        if low in families or not families:
            return word
        best = max(families, key=lambda f: difflib.SequenceMatcher(None, low, f).ratio())
        ratio = difflib.SequenceMatcher(None, low, best).ratio()
        close = best[0] == low[0] and abs(len(best) - len(low)) <= 1 and ratio >= 0.75
        return best.capitalize() if close else word

    return _FAMILY_TYPO.sub(fix, text)


# A number no tool accepts for any quantity: longer than the largest limit of the workload schema (training
# tokens, at most 1e14) has digits. "99999999999999999999 users" is refused as written, not silently dropped.
_ENDLESS_NUMBER = re.compile(r"(?<![\w.])\d{16,}(?![\w.])")
# Slots the planner takes as workload fields, checked against that field's own upper limit.
_LIMITED = ("concurrency", "qps", "context", "gen_tokens", "batch", "train_tokens", "max_instances")


def endless_numbers(text: str) -> list[str]:
    """Return numbers too long for any quantity a tool accepts, as written."""
    out = []
    for m in _ENDLESS_NUMBER.finditer(text):
        word = re.match(r"\s*(?:个|位)?\s*([A-Za-z]+(?:\s+[A-Za-z]+)?|[\u4e00-\u9fff]{1,3})", text[m.end() :])
        out.append(m.group(0) + (word.group(0).rstrip() if word else ""))  # "99…9 concurrent users"
    return out


def beyond_limits(slots: Slots) -> list[tuple[str, float, float]]:
    """Return (slot, value, limit) for each stated number above what the planner's workload schema accepts.

    The limits are the tool's own (``tools.workload.Workload``), so a question is refused with the same bound
    the tool would apply, in the user's language, instead of pasting the tool's validation error.
    """
    out = []
    for name in _LIMITED:
        if name == "context" and slots.model:
            continue  # the model's own window (32,768 for Qwen2.5-7B) is the bound worth saying; the planner says it
        value = getattr(slots, name, None)
        limit = _upper_limit(name)
        if isinstance(value, int | float) and limit is not None and value > limit:
            out.append((name, float(value), limit))
    return out


def _upper_limit(name: str) -> float | None:
    field = Workload.model_fields.get(name)
    bounds = [m.le for m in field.metadata if isinstance(m, Le)] if field else []
    return float(bounds[0]) if bounds else None  # type: ignore[arg-type]


# A word written like a model's name: mixed case inside it or letters with digits ("SeamlessM4T", "MusicGen",
# "Wav2Lip", "CogVideoX-5B"), optionally with dashed or dotted parts.
_NAME_LIKE = re.compile(
    r"(?<![\w\-.])([A-Za-z][A-Za-z0-9]*(?:[a-z][A-Z]|[A-Za-z]\d|\d[A-Za-z])[A-Za-z0-9]*(?:[\-.][A-Za-z0-9]+)*)(?![\w\-])"
)
# Words of this trade written like names that are no model: frameworks, formats, number formats, units.
_NOT_MODELS = re.compile(
    r"(?i)^(?:vllm|sglang|lora|qlora|dora|pytorch|deepspeed|megatron\w*|tensorrt\w*|llamacpp|gguf|ggml|onnx\w*|"
    r"fp\d+|bf\d+|int\d+|nf\d|w\d+a\d+|awq|gptq|kv|gpus?|cpus?|qps|rps|ttft|tpot|mfu|rdma|erdma|nvlink\d*|"
    r"pcie\d*|hbm\d*e?|gddr\d*x?|cuda\d*|nccl|zero\d?|fsdp|ddp|openai|chatgpt|huggingface|modelscope|"
    r"pai|eas|dlc|ack|ecs|oss|nas|cpfs|essd|k8s|macbook\w*|iphone\w*|m[1-4]\w*|\d+[kmgt]i?b?|"
    r"(?:tok|token)s?/s|p\d{2}|v\d+(?:\.\d+)*)$"
)


def unknown_model_names(text: str) -> list[str]:
    """Return words written like model names that no catalog knows (no GPU, family, instance or model).

    Used only where the engine would otherwise ask "which model is it?": a name the user did give is said
    to be out of the catalogs instead of being asked for again.
    """
    out = []
    for m in _NAME_LIKE.finditer(text):
        word = m.group(1)
        if _NOT_MODELS.match(word) or _is_catalog_word(word):
            continue
        out.append(word)
    return list(dict.fromkeys(out))


def _is_catalog_word(word: str) -> bool:
    if re.fullmatch(rf"(?i)(?:{GPU_NAME})s?", word) or vocabulary.model_of_label(word):
        return True
    low = word.lower().removeprefix("ecs.")
    if any(low == f or low.startswith(f + "-") or low.startswith(f + ".") for f in catalog.families()):
        return True
    families = [f.lower() for f in vocabulary.model_family_words()]
    return any(low.startswith(f) for f in families if len(f) >= 3)  # "Qwen3.5-7B" is a model name gone wrong


# Memory asked of one GPU ("单卡 5000TB 显存", "a GPU with 2 TB of memory"): checked against the catalog's largest.
_PER_GPU_MEMORY = re.compile(
    r"(?:单卡|每卡|每张卡|一张卡|单张(?:卡|gpu)?|per[\s\-](?:gpu|card)|(?:a|one|single)\s+(?:gpu|card)\s+with|"
    r"gpus?\s+with)\s*(?:有|带|能有)?\s*(?:at\s+least|至少|超过|over|more\s+than)?\s*"
    r"(\d+(?:\.\d+)?)\s*(tb|tib|t|gb|gib|g)(?![a-z])\s*(?:的)?\s*(?:显存|memory|vram|of\s+(?:memory|vram))",
    re.IGNORECASE,
)


def per_gpu_memory_asked(text: str) -> tuple[str, float] | None:
    """Return the per-GPU memory a question asks for, as written and in GiB, or None."""
    m = _PER_GPU_MEMORY.search(text)
    if m is None:
        return None
    gib = float(m.group(1)) * (1024 if m.group(2).lower().startswith("t") else 1)
    return f"{m.group(1)} {m.group(2).upper().replace('G', 'GB') if len(m.group(2)) == 1 else m.group(2)}", gib


# Settings written as such but known to no table: a region id-like word after "region"/"in" ("mars-north-1"),
# a place before 地域/区域/节点 after 在/部署在 ("在阿里云西安地域"), a precision no format has ("int3", "FP2",
# "3-bit"). Refused with the valid values, never silently dropped for the default.
_REGION_ID_WORD = re.compile(
    r"(?:\bregions?\s*[:：=]?\s*|\bin\s+(?:the\s+)?|地域\s*|区域\s*)([a-z]{2,}(?:-[a-z]+)+-\d{1,2}[a-z]?)(?![\w\-])|"
    r"(?<![\w\-])([a-z]{2,}(?:-[a-z]+)+-\d{1,2}[a-z]?)\s+(?:region|地域|区域)",
    re.IGNORECASE,
)
_REGION_PLACE_ZH = re.compile(
    r"(?:在|到|放在|部署在|选|用)\s*(?:阿里云)?(?:的)?\s*([\u4e00-\u9fff]{2,4})\s*(?:地域|区域|节点|region)"
)
_PRECISION_WORD = re.compile(
    r"(?<![\w.\-])(?:(u?int|fp|bf|nf|mxfp)\s?-?(\d{1,2})|(\d{1,2})\s?-?\s?bits?|(\d{1,2})\s*(?:比特|位(?=量化|精度)))(?![\w])",
    re.IGNORECASE,
)
_NOT_A_PLACE = re.compile(r"哪|什么|其他|其它|别的|这个|那个|这些|那些|同一|同个|不同|所有|每个|各|多个|几个|国内|海外")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_KNOWN_PRECISIONS = {("int", "4"), ("int", "8"), ("fp", "8"), ("fp", "16"), ("fp", "32"), ("bf", "16"), ("nf", "4")}
_KNOWN_BITS = {"4", "8", "16", "32"}


def unknown_region(text: str) -> str | None:
    """Return a region the user wrote that Alibaba Cloud does not have (no id or alias of regions.yaml), as written."""
    known_ids = {r.id for r in regions.region_names()}
    aliases = regions.region_aliases()
    for m in _REGION_ID_WORD.finditer(text):
        word = (m.group(1) or m.group(2)).lower()
        if word not in known_ids:
            return word
    for m in _REGION_PLACE_ZH.finditer(text):
        place = m.group(1)
        if _NOT_A_PLACE.match(place):
            continue  # "在哪个地域最便宜", "选其他区域": a question or a pointer, not a place
        if not any(place.endswith(a) or a.endswith(place) for a in aliases if _CJK.search(a)):
            return place
    return None


def unknown_precision(text: str) -> str | None:
    """Return a precision the user wrote that no weight format has ("int3", "FP2", "3-bit"), as written."""
    for m in _PRECISION_WORD.finditer(text):
        kind, bits = (m.group(1) or "").lower(), m.group(2) or m.group(3) or m.group(4)
        known = (kind, bits) in _KNOWN_PRECISIONS if kind else bits in _KNOWN_BITS
        if not known:
            return m.group(0).strip()
    return None
