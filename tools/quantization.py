"""Weight storage formats: bytes per parameter for each precision and quantisation format.

Quantised checkpoints (GPTQ, AWQ, bitsandbytes, FP8) quantise only the decoder's linear layers
(attention projections, MLP and expert matrices). Embeddings, an untied ``lm_head``, norms and MoE
routers stay in 16-bit; the Qwen2.5 GPTQ/AWQ measurements (transformers 4.46, A100) match that split
within ~0.1-0.4 GiB (see ``benchmarks/estimator_accuracy.py``).

Group-quantised formats store, per group of ``g`` consecutive input weights of one output column, a
16-bit scale and a packed zero point, so their cost per weight is ``bits/8 + (2 + zero_bytes)/g``.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): pydantic would
# compile each field's annotation string again on every cold start (see README, Cold starts).
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.architecture import ModelArchitecture

Precision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4"]
Quant = Literal["none", "gptq-int4", "gptq-int8", "awq-int4", "bnb-nf4", "bnb-int8", "fp8"]
FormatName = Literal[
    "fp32", "bf16", "fp16", "fp8", "int8", "int4", "gptq-int4", "gptq-int8", "awq-int4", "bnb-nf4", "bnb-int8"
]

DEFAULT_GROUP_SIZE = 128
_HALF = 2.0  # bytes of an fp16/bf16 number


class WeightFormat(BaseModel):
    """How one checkpoint stores its weights."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: FormatName
    linear_bytes_per_param: float = Field(gt=0, description="bytes per decoder linear-layer weight, incl. scales")
    other_bytes_per_param: float = Field(
        gt=0, description="bytes per embedding / lm_head / norm / router weight (kept 16-bit when quantised)"
    )
    bits: int = Field(description="nominal bits of a linear-layer weight")
    dequant_scratch: bool = Field(
        description="kernel dequantises a whole weight matrix to fp16 for long inputs (GPTQ/AWQ/bnb)"
    )
    description: str

    @property
    def quantized(self) -> bool:
        """True when linear layers are stored in fewer bits than the embeddings."""
        return self.linear_bytes_per_param < self.other_bytes_per_param


def _group_quant(bits: int, zero_bits: int, group: int) -> float:
    return bits / 8 + (_HALF + zero_bits / 8) / group


def fp32() -> WeightFormat:
    """Full precision: 4 bytes per weight everywhere."""
    return WeightFormat(
        name="fp32",
        linear_bytes_per_param=4,
        other_bytes_per_param=4,
        bits=32,
        dequant_scratch=False,
        description="fp32: 4 B per weight",
    )


def half(name: Literal["bf16", "fp16"]) -> WeightFormat:
    """bf16 / fp16: 2 bytes per weight everywhere, the format most checkpoints ship in."""
    return WeightFormat(
        name=name,
        linear_bytes_per_param=2,
        other_bytes_per_param=2,
        bits=16,
        dequant_scratch=False,
        description=f"{name}: 2 B per weight",
    )


def fp8() -> WeightFormat:
    """FP8 (e4m3) linear weights with per-tensor, per-channel or 128x128-block fp32 scales.

    Scales add < 0.03 % (one fp32 per output channel or per 16,384-weight block), so the estimate uses
    1 byte per linear weight; embeddings and lm_head stay 16-bit (Qwen3-FP8, Llama-3.x-FP8 style).
    """
    return WeightFormat(
        name="fp8",
        linear_bytes_per_param=1.0,
        other_bytes_per_param=2,
        bits=8,
        dequant_scratch=False,
        description="FP8 linear layers (1 B + negligible scales), embeddings/lm_head 16-bit",
    )


def int8_generic() -> WeightFormat:
    """Describe generic W8 (SmoothQuant / compressed-tensors W8A8): 1 B + a 16-bit scale per channel."""
    return WeightFormat(
        name="int8",
        linear_bytes_per_param=1.0,
        other_bytes_per_param=2,
        bits=8,
        dequant_scratch=False,
        description="int8 linear layers with per-channel scales, embeddings/lm_head 16-bit",
    )


def int4_generic(group: int = DEFAULT_GROUP_SIZE) -> WeightFormat:
    """Describe generic 4-bit group quantisation (like AWQ: fp16 scale + 4-bit zero per group)."""
    return WeightFormat(
        name="int4",
        linear_bytes_per_param=_group_quant(4, 4, group),
        other_bytes_per_param=2,
        bits=4,
        dequant_scratch=True,
        description=f"int4, group {group} (fp16 scale + 4-bit zero per group)",
    )


def gptq(bits: Literal[4, 8], group: int = DEFAULT_GROUP_SIZE) -> WeightFormat:
    """GPTQ (AutoGPTQ/Optimum layout): ``qweight`` packed in int32, ``qzeros`` packed, fp16 ``scales``.

    Per weight: ``bits/8`` + (2-byte scale + ``bits``-bit zero) / group. g=128 gives 0.520 B (int4) and
    1.023 B (int8). The ``g_idx`` vector (4 B per input feature) is below 0.1 % and left out. For long
    prompts the exllama/cuda kernels dequantise a matrix into an fp16 scratch buffer.
    """
    name: FormatName = "gptq-int4" if bits == 4 else "gptq-int8"
    return WeightFormat(
        name=name,
        linear_bytes_per_param=_group_quant(bits, bits, group),
        other_bytes_per_param=2,
        bits=bits,
        dequant_scratch=True,
        description=f"GPTQ int{bits}, group {group}, embeddings/lm_head 16-bit",
    )


def awq(group: int = DEFAULT_GROUP_SIZE) -> WeightFormat:
    """AWQ (AutoAWQ GEMM layout): 4-bit weights, fp16 scale and 4-bit zero per group of 128.

    0.520 B per linear weight; above ~1k tokens AutoAWQ dequantises a matrix to fp16 and calls a plain
    matmul, so long prompts need one fp16 copy of the largest matrix as scratch.
    """
    return WeightFormat(
        name="awq-int4",
        linear_bytes_per_param=_group_quant(4, 4, group),
        other_bytes_per_param=2,
        bits=4,
        dequant_scratch=True,
        description=f"AWQ int4, group {group}, embeddings/lm_head 16-bit",
    )


def bnb_nf4() -> WeightFormat:
    """Bitsandbytes NF4 (QLoRA) with double quantisation: 4-bit codes, int8 absmax per 64 weights.

    Per weight: 0.5 + 1/64 (int8 absmax) + 4/(64*256) (fp32 second-level scale) = 0.516 B. Without
    double quantisation the absmax is fp32 (0.5625 B). torchtune/torchao's NF4Tensor has the same cost.
    Each layer is dequantised to bf16 on the fly, one matrix at a time.
    """
    return WeightFormat(
        name="bnb-nf4",
        linear_bytes_per_param=0.5 + 1 / 64 + 4 / (64 * 256),
        other_bytes_per_param=2,
        bits=4,
        dequant_scratch=True,
        description="bitsandbytes NF4, block 64 + double quantisation, embeddings 16-bit",
    )


def bnb_int8() -> WeightFormat:
    """Bitsandbytes LLM.int8(): int8 weights plus one fp32 scale per output row (negligible)."""
    return WeightFormat(
        name="bnb-int8",
        linear_bytes_per_param=1.0,
        other_bytes_per_param=2,
        bits=8,
        dequant_scratch=False,
        description="bitsandbytes LLM.int8() (1 B + row scales), embeddings/lm_head 16-bit",
    )


@lru_cache(maxsize=64)
def weight_format(precision: Precision, quant: Quant, checkpoint_group_size: int | None = None) -> WeightFormat:
    """Choose the storage format for a precision/quantisation pair.

    ``quant`` wins when set (``precision`` then only names the compute dtype); otherwise low-bit
    ``precision`` values (fp8/int8/int4) mean a generic quantised checkpoint of that width.

    Args:
        precision: compute/weight precision from the request.
        quant: checkpoint quantisation format from the request ("none" for a plain checkpoint).
        checkpoint_group_size: group size from the checkpoint's ``quantization_config`` (None: 128).
    """
    group = checkpoint_group_size if checkpoint_group_size and checkpoint_group_size > 0 else DEFAULT_GROUP_SIZE
    match quant:
        case "gptq-int4":
            return gptq(4, group)
        case "gptq-int8":
            return gptq(8, group)
        case "awq-int4":
            return awq(group)
        case "bnb-nf4":
            return bnb_nf4()
        case "bnb-int8":
            return bnb_int8()
        case "fp8":
            return fp8()
    match precision:
        case "fp32":
            return fp32()
        case "bf16" | "fp16":
            return half(precision)
        case "fp8":
            return fp8()
        case "int8":
            return int8_generic()
        case "int4":
            return int4_generic(group)
    raise AssertionError(f"unhandled precision {precision}")


def checkpoint_quant(arch: ModelArchitecture) -> Quant:
    """Name the request-level format of a checkpoint's own ``quantization_config`` ("none" if absent)."""
    q = arch.quantization
    if q is None:
        return "none"
    match q.method:
        case "gptq":
            return "gptq-int8" if q.bits == 8 else "gptq-int4"
        case "awq":
            return "awq-int4"
        case "bnb-nf4":
            return "bnb-nf4"
        case "bnb-int8":
            return "bnb-int8"
        case "fp8":
            return "fp8"
        case "compressed-tensors":
            return "fp8" if q.bits == 8 else "gptq-int4"
    return "none"
