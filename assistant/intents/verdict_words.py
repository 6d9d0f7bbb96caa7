"""Words of verdict and comparison questions: stated memory, GPU sets, "compare with", users.

Pure functions over the question text (no tools), used by :mod:`assistant.intents.verdicts`.
"""

from __future__ import annotations

import re
from typing import Any

from assistant.hardware_words import GPU_NAME
from assistant.intents.arguments import task_of
from assistant.phrases import spell_numbers
from assistant.reading import NUM, as_int, normalise, parse_number
from assistant.toolbox import find_instance_types
from assistant.understanding import Slots
from tools import catalog
from tools.errors import ToolInputError, UnknownNameError
from tools.hardware_fit import evaluate_hardware

# "how does that compare with two A10s?", "跟两张 H20 比呢": the earlier hardware against the new one.
COMPARE_WITH_RE = (
    r"compare[sd]?\s+(?:with|to|against)|compared\s+(?:with|to)|versus|\bvs\.?\s|(?:跟|和|与|同).{0,20}(?:比|相比)|对比"
)
# The question is about money ("which is cheaper", "划算", "性价比").
COST_RE = (
    r"cheap|cost|price|pric(?:ey|ier)|\bdeal\b|value|bang\s+for|econom|yuan|rmb|¥|"
    r"便宜|划算|成本|价格|费用|多少钱|性价比|省钱|更值(?!得)"
)
# The question asks which side holds more users (not merely states a user count).
USERS_RE = (
    r"(?:more|most)\s+(?:users|concurren\w*|sequences|requests|people)|how\s+many\s+(?:users|concurrent)|"
    r"(?:更多|最多).{0,4}(?:并发|用户|人)|并发.{0,4}(?:更多|最多|更高)|(?:撑|扛|支持)(?:得|的)?(?:住)?更多"
)
_MEMORY_CLAIM_RE = re.compile(r"(?<![\d.])(\d{1,4}(?:\.\d{1,2})?)\s*(?:gi?b|g)(?![a-z])", re.IGNORECASE)
_CHECK_RE = re.compile(
    r"对吗|对吧|是吗|是不是|吧\s*[?？]?\s*$|靠谱|没错|准确|真的|really|right\?|true\?|correct|is\s+(?:it|that)\s+(?:right|true)|"
    r"\bdoes\b.{0,40}\bneed\b|isn'?t\s+it|(?:需要|要)[^，,。？?]{0,16}吗",
    re.IGNORECASE,
)


def memory_claim(question: str) -> float | None:
    """Return the memory figure (GB) a question puts up for checking ("7B FP16 大约 14GB，对吗？"), or None."""
    if not _CHECK_RE.search(question):
        return None
    m = _MEMORY_CLAIM_RE.search(question)
    return float(m.group(1)) if m else None


def offered(gpu: str) -> bool:
    """Whether some instance type in the catalog has ``gpu`` (an unknown name counts as offered)."""
    try:
        return bool(find_instance_types(gpu=gpu).instances)
    except UnknownNameError:
        return True


_SET_RE = re.compile(
    rf"(?<![A-Za-z0-9.])(?P<n>{NUM})\s*(?:张|块|个|x|×|\*)?\s*(?P<g>{GPU_NAME})(?![0-9])(?:\s*\d{{2,3}}\s*g(?:i?b)?\b)?"
    rf"|(?<![A-Za-z0-9])(?P<g2>{GPU_NAME})(?![0-9])(?:\s*\d{{2,3}}\s*g(?:i?b)?\b)?\s*[x×*]\s*(?P<n2>\d{{1,2}})(?![\d.])",
    re.IGNORECASE,
)


def _gpu_name(written: str) -> str:
    """Return the catalog GPU a written name means; an ambiguous one ("A100") is its first variant."""
    try:
        return catalog.get_gpu(written).name
    except UnknownNameError as exc:
        if exc.suggestions and written.split()[0].lower() in exc.suggestions[0].lower():
            return exc.suggestions[0]
        raise


def gpu_sets(question: str) -> list[dict[str, Any]]:
    """Return each "N x GPU" set a question names ("4 张 L20 还是 2 张 H20", "4x L20 or 2x H20"), in order."""
    out: list[dict[str, Any]] = []
    for m in _SET_RE.finditer(spell_numbers(normalise(question))):
        written, count = m.group("g") or m.group("g2"), m.group("n") or m.group("n2")
        try:
            n = as_int(parse_number(count))
            name = _gpu_name(written)
        except (UnknownNameError, ValueError):
            continue
        hardware = {"gpu": name, "gpus": n, "instances": 1}
        if 0 < n <= 64 and hardware not in out:
            out.append(hardware)
    return out


def with_memory(question: str, gpu: str) -> bool:
    """Whether the GPU is written with its memory size ("A10 24G", "24GB A10", "L20 48G")."""
    stem = re.escape(re.split(r"[\-\s]", gpu)[-1 if gpu.upper().startswith("RTX") else 0])
    size = r"\d{2,3}\s*g(?:i?b)?\b"
    return bool(re.search(rf"{stem}(?![0-9])\s*[\-_]?\s*{size}|{size}\s*(?:的\s*)?{stem}(?![0-9])", question, re.I))


def known_type(name: str) -> bool:
    try:
        catalog.get_instance(name)
    except UnknownNameError:
        return False
    return True


_MACHINES_RE = re.compile(
    rf"(?<![A-Za-z0-9.])(?P<n>{NUM})\s*(?:台|nodes?|machines?|servers?|boxes|hosts?)(?:机器|服务器)?\s*[,，]?\s*"
    rf"(?:of\s+|with\s+|each\s+with\s+)?(?:每台\s*)?(?P<m>{NUM})\s*(?:张|卡|块|x|×|\*|[\s\-]*gpus?)"
    rf"|(?<![A-Za-z0-9.])(?P<n2>{NUM})\s*(?:x\s*)?(?P<m2>\d{{1,2}})[\s\-]*(?:gpu|卡)\s*(?:{GPU_NAME})?\s*"
    r"(?:boxes|servers|nodes|machines|instances|机器|服务器)",
    re.IGNORECASE,
)


def machines(question: str) -> tuple[int, int] | None:
    """Return (machines, GPUs per machine) for "两台 8 卡 H20", "2 nodes of 8x H800", "two 8-GPU boxes"."""
    m = _MACHINES_RE.search(spell_numbers(normalise(question)))
    if not m:
        return None
    try:
        n = as_int(parse_number(m.group("n") or m.group("n2")))
        per = as_int(parse_number(m.group("m") or m.group("m2")))
    except ValueError:
        return None
    return (n, per) if 1 <= n <= 64 and 1 <= per <= 16 else None


def instances_of(question: str, instance_type: str) -> int | None:
    """Return how many of a named instance type the user has ("two gn7i-c32g1.16xlarge", "2 x ecs.gn8is...")."""
    body = re.escape(instance_type.removeprefix("ecs."))
    text = spell_numbers(normalise(question))
    m = re.search(rf"(?<![A-Za-z0-9.])({NUM})\s*(?:x|×|\*|台|个)?\s*`?(?:ecs\.)?{body}", text, re.IGNORECASE)
    if not m:
        return None
    try:
        n = as_int(parse_number(m.group(1)))
    except ValueError:
        return None
    return n if 1 <= n <= 64 else None


def family_gpu(families: list[str]) -> str | None:
    """Return the one GPU of the first named family ("gn8is" -> L20), or None."""
    if not families:
        return None
    gpus = {i.gpu_name for i in catalog.list_instances(family=families[0])} - {None}
    return gpus.pop() if len(gpus) == 1 else None


_COMFORTABLE_PCT = 10.0  # the planner's line: under 10% headroom a fit is tight (fragmentation can still OOM)


def one_box(question: str, family: str, s: Slots | None = None) -> int | None:
    """'Would a gn6i do?', '一台 gn8v 能跑 DeepSeek-V3 吗': one box of the family, or None if not said so.

    The box is the family's smallest GPU count that holds the workload of ``s`` with room to spare, else the
    smallest that holds it tightly, else its widest (the nearest miss): "a single gn8v instance" for a 671B
    model is the 8-GPU type, not the 1-GPU one 550 GiB short.
    """
    if not re.search(rf"(?:\ba|\ban|\bone|\bsingle|一台|单台|一个)\s*(?:\w+\s+)?{re.escape(family)}(?![\w-])",
                     question, re.IGNORECASE):  # fmt: skip
        return None
    counts = sorted({i.gpu_count for i in catalog.list_instances(family=family)
                     if isinstance(i.gpu_count, int) and i.gpu_count and not i.vgpu})  # fmt: skip
    if not counts or s is None or not s.model:
        return counts[0] if counts else None
    gpu = next((i.gpu_name for i in catalog.list_instances(family=family) if i.gpu_name), None)
    tight = None
    for count in counts:
        try:
            fit = evaluate_hardware(s.model, task_of(s), gpu=gpu, gpus=count, precision=s.precision or "bf16",
                                    quant=s.quant or "none", context=s.context, concurrency=s.concurrency,
                                    with_changes=False)  # type: ignore[arg-type]  # fmt: skip
        except (ToolInputError, UnknownNameError):
            continue
        if fit.fits and fit.headroom_pct >= _COMFORTABLE_PCT:
            return count
        tight = tight or (count if fit.fits else None)
    return tight or counts[-1]


def only_size(family: str) -> int | None:
    """Return the GPU count of a family sold in one size only ("ebmgn7e": 8), else None.

    A bare-metal family named in a verdict is that box: its GPUs are judged, not the cheapest type of its GPU.
    """
    counts = {i.gpu_count for i in catalog.list_instances(family=family) if isinstance(i.gpu_count, int) and not i.vgpu}
    return counts.pop() if len(counts) == 1 else None


def family_size(question: str, family: str) -> int | None:
    """Return the GPU count a family's size class names ("gn8v-4x" -> 4, "gn7i-2x" -> 2), or None.

    Alibaba writes multi-GPU sizes as ``<family>-<N>x.<size>``; with the size left off, the class still fixes
    the GPU count, so "一台 gn8v-4x" is a 4-GPU box of gn8v, not its 8-GPU sibling.
    """
    m = re.search(rf"(?<![\w-]){re.escape(family)}-(\d{{1,2}})x(?![\w.])", question, re.IGNORECASE)
    if m is None:
        return None
    count = int(m.group(1))
    sizes = {i.gpu_count for i in catalog.list_instances(family=family)}
    return count if count in sizes else None
