"""Markdown tables of memory estimates, instance types and GPU specs for the deterministic engine's answers.

Pure functions of tool results, in Chinese or English; numbers are shown with :func:`assistant.render.fig`
like every other answer, so the grounding check can match them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assistant.answer import Language
from assistant.messages import say
from assistant.render import NA, fig, gpu_label
from tools.catalog import GPU, InstanceType

# ------------------------------------------------------------------------------------------ memory

MEMORY_TERMS = (
    ("weights_gib", "权重", "weights"),
    ("kv_cache_gib", "KV cache", "KV cache"),
    ("activations_gib", "激活", "activations"),
    ("gradients_gib", "梯度", "gradients"),
    ("optimizer_gib", "优化器状态", "optimizer states"),
    ("other_gib", "其他缓冲", "other buffers"),
    ("overhead_gib", "CUDA/框架开销", "CUDA/framework overhead"),
)


# ------------------------------------------------------------------------------------------ catalog


def instances_table(instances: Sequence[InstanceType], lang: Language, limit: int = 12) -> str:
    """Instance types as a table: GPU (marked when inferred), count, memory per GPU, vCPU, RAM."""
    head = say("tables.instances_head", lang)
    rows = [head, "|---|---|---|---|---|---|---|"]
    for inst in instances[:limit]:
        rows.append(
            f"| `{inst.instance_type}` | {gpu_label(inst, lang)} | {fig(inst.gpu_count, lang)} | "
            f"{fig(inst.gpu_memory_gib, lang)} | {fig(inst.vcpu, lang)} | {fig(inst.memory_gib, lang)} | "
            f"{_short_note(inst.gpu_interconnect, lang) or NA[lang]} |"
        )
    more = len(instances) - limit
    if more > 0:
        rows.append("\n" + say("tables.more", lang, n=more))
    return "\n".join(rows)


_SPEC_ROWS = (
    ("arch", "架构", "architecture", ""),
    ("memory_gib", "显存 (GB)", "memory (GB)", ""),
    ("memory_type", "显存类型", "memory type", ""),
    ("memory_bandwidth_gb_s", "显存带宽 (GB/s)", "memory bandwidth (GB/s)", ""),
    ("bf16_dense_tflops", "BF16 稠密 (TFLOPS)", "BF16 dense (TFLOPS)", ""),
    ("fp16_dense_tflops", "FP16 稠密 (TFLOPS)", "FP16 dense (TFLOPS)", ""),
    ("fp8_dense_tflops", "FP8 稠密 (TFLOPS)", "FP8 dense (TFLOPS)", ""),
    ("int8_dense_tops", "INT8 稠密 (TOPS)", "INT8 dense (TOPS)", ""),
    ("fp32_tflops", "FP32 (TFLOPS)", "FP32 (TFLOPS)", ""),
    ("nvlink_gb_s", "NVLink (GB/s)", "NVLink (GB/s)", ""),
    ("interconnect", "互联", "interconnect", ""),
    ("confidence", "数据可信度", "figures from", ""),
)


def _short_note(note: str | None, lang: Language) -> str | None:
    """Return a catalog note as a table cell: in Chinese only its leading name ("NVLink"), not English prose."""
    if note is None or lang == "en":
        return note
    head = re.split(r"\s*[(;,]", note, maxsplit=1)[0].strip()
    return head if len(re.findall(r"\b[a-z]{2,}\b", head)) < 2 else head.split()[0]


def gpu_specs_table(gpus: Sequence[GPU], lang: Language) -> str:
    """One column per GPU, one row per spec figure (dense throughput; "n/a" = not published)."""
    head = "| | " + " | ".join(g.name for g in gpus) + " |"
    rows = [head, "|---" * (len(gpus) + 1) + "|"]
    for field, zh, en, _ in _SPEC_ROWS:
        values = [getattr(g, field) for g in gpus]
        if all(v is None for v in values):
            continue
        cells = [fig(v, lang) if not isinstance(v, str) else (_short_note(v, lang) or "") for v in values]
        rows.append(f"| {zh if lang == 'zh' else en} | " + " | ".join(cells) + " |")
    return "\n".join(rows)
