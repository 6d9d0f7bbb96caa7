"""Yes/no answers to claims about GPUs, read against the spec sheets (``tools/data/gpus.yaml``).

"The A100 does 312 TFLOPS in FP16, true?", "H800 性能略低于 A100，这个说法靠谱吗？", "H20 和 A100 哪个解码更快？":
the first line answers the claim or the question (yes/no, or the winner) with the figures that decide it;
the spec table and the passages follow. Pure functions: they read the question and typed ``GPU`` rows,
and return a message code with its figures, so the text lives in the message catalogue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tools.catalog import GPU

# The figure a claim is about, and the spec fields that may hold it (dense first; sparse is 2x dense).
_METRICS: dict[str, tuple[str, ...]] = {
    "tflops": ("bf16_dense_tflops", "fp16_dense_tflops", "tf32_dense_tflops", "fp8_dense_tflops", "fp32_tflops"),
    "tops": ("int8_dense_tops", "int4_dense_tops"),
    "bandwidth": ("memory_bandwidth_gb_s",),
    "memory": ("memory_gib",),
}
_NUMBER_CLAIM = re.compile(
    r"(?<![\d.])(\d{1,5}(?:\.\d{1,2})?)\s*(?:"
    r"(?P<tflops>t\s*flops|tflop)|(?P<tops>tops)|(?P<bandwidth>gb/s|tb/s|g/s)|(?P<memory>gi?b?\b|g(?=显存|的显存|\s|$)|gb显存)"
    r")",
    re.IGNORECASE,
)
# A yes/no question or a claim put up for checking ("true?", "对吗", "靠谱吗", "right?").
_ASKS_CHECK = re.compile(
    r"\btrue\b|\bright\b|\bcorrect\b|\breally\b|isn'?t\s+it|is\s+it|\bdoes\s+(?:it|the)\b|\bis\s+the\b|"
    r"对吗|对吧|是吗|是不是|吧[?？]?\s*$|靠谱|准确吗|真的|没错|是否|吗[?？]?\s*$|should\s+i|\?\s*$|？\s*$",
    re.IGNORECASE,
)
_WORSE = r"slower|worse|weaker|less\s+powerful|behind|inferior|lower|smaller|less|低于|慢|弱|不如|差|落后|低|小|少"
_BETTER = (
    r"faster|better|stronger|more\s+powerful|ahead\s+of|superior|higher|bigger|larger|more|"
    r"高于|快|强|超过|胜过|领先|高|大|多"
)
# "better"/"worse" with no job named: no single spec decides it
_GENERIC = r"better|worse|superior|inferior|好|差|不如"
_WHICH = re.compile(r"哪个|哪一个|哪张|which|谁|多少|几倍|how\s+much|how\s+many\s+times", re.IGNORECASE)
_TRAINING = re.compile(r"训练|微调|预训练|train|fine[\s\-]*tun|prefill|预填充|算力|compute|tflops", re.IGNORECASE)
_MEMORY = re.compile(r"显存|vram|memory\s+(?:size|capacity)|\bmemory\b", re.IGNORECASE)
_DECODE = re.compile(r"解码|推理|生成|decode|decoding|inference|serving|serve|带宽|bandwidth|tokens?/s", re.IGNORECASE)


@dataclass
class ClaimLine:
    """A message code (``claim.*`` in the catalogue) and its figures."""

    code: str
    figures: dict[str, object] = field(default_factory=dict)


def number_claim(question: str, gpu: GPU, lang: str) -> ClaimLine | None:
    """Check a figure the user states about one GPU ("312 TFLOPS", "48G 显存", "4 TB/s"), if any."""
    if not _ASKS_CHECK.search(question):
        return None
    for m in _NUMBER_CLAIM.finditer(question):
        kind = next(k for k in _METRICS if m.group(k))
        value = float(m.group(1)) * (1000 if kind == "bandwidth" and "tb" in m.group(0).lower() else 1)
        if kind == "memory" and value < 8:
            continue  # "4 张", "8k" are not memory sizes
        return _check_value(gpu, _asked_first(question, kind), value, lang)
    return None


def _asked_first(question: str, kind: str) -> tuple[str, ...]:
    """Return the metric's fields with the precision the user names ("FP16", "INT8") first."""
    named = [f for f in _METRICS[kind] if re.search(rf"\b{f.split('_')[0]}\b", question, re.IGNORECASE)]
    return (*named, *(f for f in _METRICS[kind] if f not in named))


def _check_value(gpu: GPU, names: tuple[str, ...], value: float, lang: str) -> ClaimLine | None:
    fields = [(f, getattr(gpu, f)) for f in names if getattr(gpu, f)]
    if not fields:
        return None
    labels = {name: _LABELS[name][0 if lang == "zh" else 1] for name, _ in fields}
    label = labels[fields[0][0]]
    for name, actual in fields:
        if abs(actual - value) <= 0.02 * actual:
            return ClaimLine("claim.number_yes", {"gpu": gpu.name, "value": _fig(value), "what": labels[name]})
        if name.endswith(("tflops", "tops")) and abs(2 * actual - value) <= 0.02 * actual:
            return ClaimLine(
                "claim.number_sparse",
                {"gpu": gpu.name, "value": _fig(value), "dense": _fig(actual), "what": labels[name]},
            )
    return ClaimLine("claim.number_no", {"gpu": gpu.name, "value": _fig(value), "actual": _fig(fields[0][1]),
                                         "what": label})  # fmt: skip


def comparison_line(question: str, a: GPU, b: GPU, lang: str) -> ClaimLine | None:
    """Answer "is A slower than B?" (yes/no) or "which is faster for X?" (the winner) from the spec sheets."""
    text = question.lower()
    metric = "bandwidth" if _DECODE.search(text) and not _TRAINING.search(text) else "compute"
    if _MEMORY.search(text) and not re.search(r"带宽|bandwidth", text, re.IGNORECASE):
        metric = "memory"  # "L20 的显存比 A10 大吗"
    first, second = _in_order(text, a, b)
    if first is None or second is None:
        return None
    claim = re.search(rf"(?:{_WORSE})|(?:{_BETTER})", text[_position(text, first) :], re.IGNORECASE)
    job = _DECODE.search(text) or _TRAINING.search(text) or _MEMORY.search(text)
    if claim and not job and re.fullmatch(_GENERIC, claim.group(0), re.IGNORECASE):
        return None  # "is the L20 better than the A10?" names no job: the per-job pick answers, not compute alone
    if _WHICH.search(text):
        # a bare "which should I pick / 选哪个" names no job: the per-job pick line answers it better
        if not re.search(rf"{_BETTER}|{_WORSE}|训练|train|解码|decode|推理|inference", text, re.IGNORECASE):
            return None
        said = re.search(rf"{_WORSE}|{_BETTER}", text, re.IGNORECASE)
        if not job and (said is None or re.fullmatch(_GENERIC, said.group(0), re.IGNORECASE)):
            return None  # "which is better, L20 or A10?": no job named, so the per-job pick line answers
        return winner_line(first, second, metric, lang)
    if claim is None or not _ASKS_CHECK.search(text):
        return None
    says_worse = bool(re.fullmatch(_WORSE, claim.group(0), re.IGNORECASE))
    win = winner_line(first, second, metric, lang)
    if win is None:
        return None
    true = (win.figures["winner"] == second.name) == says_worse
    return ClaimLine("claim.compare_yes" if true else "claim.compare_no", win.figures)


def winner_line(a: GPU, b: GPU, metric: str, lang: str) -> ClaimLine | None:
    name = {"compute": "bf16_dense_tflops", "bandwidth": "memory_bandwidth_gb_s", "memory": "memory_gib"}[metric]
    va, vb = getattr(a, name), getattr(b, name)
    if not va or not vb or va == vb:
        return None
    hi, lo, vh, vl = (a, b, va, vb) if va > vb else (b, a, vb, va)
    codes = {"compute": "claim.trains_faster", "bandwidth": "claim.decodes_faster", "memory": "claim.more_memory"}
    code = codes[metric]
    what = _LABELS[name][0 if lang == "zh" else 1]
    figures = {"winner": hi.name, "loser": lo.name, "high": _fig(vh), "low": _fig(vl), "what": what}
    return ClaimLine(code, figures)


def _in_order(text: str, a: GPU, b: GPU) -> tuple[GPU | None, GPU | None]:
    pa, pb = _position(text, a), _position(text, b)
    if pa < 0 and pb < 0:
        return a, b
    return (a, b) if (pa if pa >= 0 else 10**6) <= (pb if pb >= 0 else 10**6) else (b, a)


def _position(text: str, gpu: GPU) -> int:
    stem = re.split(r"[\-\s]", gpu.name.lower())[0]
    found = re.search(rf"(?<![a-z0-9]){re.escape(stem)}(?![0-9])", text)
    return found.start() if found else -1


def _fig(value: float, digits: int = 2) -> str:
    return f"{round(value, digits):g}"


_LABELS = {  # field -> (zh, en)
    "bf16_dense_tflops": ("稠密 BF16 算力（TFLOPS）", "dense BF16 TFLOPS"),
    "fp16_dense_tflops": ("稠密 FP16 算力（TFLOPS）", "dense FP16 TFLOPS"),
    "tf32_dense_tflops": ("稠密 TF32 算力（TFLOPS）", "dense TF32 TFLOPS"),
    "fp8_dense_tflops": ("稠密 FP8 算力（TFLOPS）", "dense FP8 TFLOPS"),
    "fp32_tflops": ("FP32 算力（TFLOPS）", "FP32 TFLOPS"),
    "int8_dense_tops": ("稠密 INT8 算力（TOPS）", "dense INT8 TOPS"),
    "int4_dense_tops": ("稠密 INT4 算力（TOPS）", "dense INT4 TOPS"),
    "memory_bandwidth_gb_s": ("显存带宽（GB/s）", "memory bandwidth (GB/s)"),
    "memory_gib": ("显存（GB）", "memory (GB)"),
}
