"""What PyTorch's CUDA caching allocator reserves beyond the tensors: slack from its block sizes.

``torch.cuda.max_memory_reserved()`` exceeds ``max_memory_allocated()`` for two reasons, both from
``c10/cuda/CUDACachingAllocator.cpp`` (its header comment and ``get_allocation_size``):

* **rounding**: requests under 1 MiB share 2 MiB segments (small pool), requests of 1-10 MiB share
  20 MiB segments, larger requests get their own segment rounded up to a multiple of 2 MiB;
* **cached transients**: a freed block is kept for reuse, not returned to the driver (until
  ``empty_cache()`` or an out-of-memory retry). Best fit with splitting reuses it for any later request
  that fits; a request larger than every free block gets a new segment while the freed one stays
  reserved. At the peak, between none and all of the largest freed transient can be left unused.

So the slack grows with the largest transient block, not with the size of the model: a model that
only holds its weights shows almost none (torchtune PR #1348: CodeLlama-7B after loading, 13.19 GiB
allocated, 13.27 GiB reserved).

Training frees and re-allocates blocks of several large sizes every step (the loss's logits, the MLP
intermediates of each recomputed layer), so its cache holds more than one unused block. For training
the unused shares of those two blocks and a base are fitted on development rows that measured both
nvidia-smi and ``max_memory_allocated`` (``tools/data/memory_reserve.yaml``, fitted by
``benchmarks/fit_reserve_dev.py`` on ``benchmarks/data/memory_reserve_dev.csv``); inference keeps the
unfitted middle share below.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): pydantic would
# compile each field's annotation string again on every cold start (see README, Cold starts).
import math
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools import data_cache
from tools.architecture import ModelArchitecture
from tools.memory_terms import GIB, shapes

RESERVE_FILE = Path(__file__).resolve().parent / "data" / "memory_reserve.yaml"

MIB = 2**20
# c10/cuda/CUDACachingAllocator.cpp: kSmallSize, kSmallBuffer, kMinLargeAlloc, kLargeBuffer, kRoundLarge.
SMALL_SIZE = 1 * MIB
SMALL_BUFFER = 2 * MIB
MIN_LARGE_ALLOC = 10 * MIB
LARGE_BUFFER = 20 * MIB
ROUND_LARGE = 2 * MIB
# The unreused part of the largest freed transient lies between none and all of it; without a
# reserved-memory measurement to pin it we take the middle of that range and say so.
TRANSIENT_UNREUSED_SHARE = 0.5


def segment_rounding_bytes(block_bytes: float) -> float:
    """Bytes a segment holds beyond one request of ``block_bytes`` (2 MiB rounding above 10 MiB).

    Smaller requests are packed into shared 2 MiB / 20 MiB segments, counted once in
    :func:`weight_rounding_bytes`, so they add nothing here.
    """
    if block_bytes < MIN_LARGE_ALLOC:
        return 0.0
    return math.ceil(block_bytes / ROUND_LARGE) * ROUND_LARGE - block_bytes


def weight_rounding_bytes(arch: ModelArchitecture, bytes_per_weight: float, tp: int = 1) -> float:
    """Return the rounding slack of the weight tensors on one GPU: each matrix its own 2 MiB-rounded segment.

    Dense layers hold q, k, v, o and the MLP's two or three matrices; MoE layers one set of MLP matrices
    per expert (HF keeps each expert's ``nn.Linear``). Norms and biases share one small-pool segment, and
    1-10 MiB tensors at most one partly used 20 MiB segment.
    """
    h, a, d, kv = arch.hidden_size, arch.num_attention_heads, arch.head_dim, arch.num_kv_heads
    attention = [h * a * d, h * kv * d, h * kv * d, a * d * h]
    mlp_count = 3 if arch.gated_mlp else 2
    per_layer = [segment_rounding_bytes(n * bytes_per_weight / tp) for n in attention]
    dense = segment_rounding_bytes(h * arch.intermediate_size * bytes_per_weight / tp) * mlp_count
    moe = 0.0
    if arch.moe is not None:
        m = arch.moe
        expert = segment_rounding_bytes(h * m.expert_intermediate_size * bytes_per_weight / tp)
        moe = expert * mlp_count * m.num_experts
    layers = sum(per_layer) * arch.num_layers + dense * (arch.num_layers - arch.moe_layers) + moe * arch.moe_layers
    s = shapes(arch)
    embed = segment_rounding_bytes(s.embedding * 2 / tp) + segment_rounding_bytes(s.lm_head * 2 / tp)
    return layers + embed + SMALL_BUFFER + LARGE_BUFFER


def allocator_slack_bytes(rounding_bytes: float, largest_transient_bytes: float) -> float:
    """Reserved minus allocated at the peak, one GPU: segment rounding + the unreused cached transient.

    ``largest_transient_bytes`` is the largest single block freed before the peak (one MLP buffer of the
    prefill, the fp32 logits, a gradient bucket); :data:`TRANSIENT_UNREUSED_SHARE` of it is taken as left
    in the cache unused.
    """
    return rounding_bytes + TRANSIENT_UNREUSED_SHARE * largest_transient_bytes


class TrainingReserve(BaseModel):
    """Unused cached blocks at a training peak, one GPU (beyond CUDA context and weight rounding)."""

    # defer_build: read back from tools.data_cache without validating again (see tools.catalog.GPU).
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    base_gib: float = Field(ge=0, le=4, description="reserve at zero tokens")
    logits_share: float = Field(ge=0, le=4, description="unused share of one block of the loss's logits")
    mlp_share: float = Field(ge=0, le=4, description="unused share of one block of the MLP intermediate")
    fitted_on: Literal["dev"]
    rows: int = Field(ge=10, description="development rows the fit used")
    source: str = Field(min_length=20, description="URL of the measurements and the fit that produced the values")


class _ReserveFile(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    training: TrainingReserve


@cache
def load_training_reserve() -> TrainingReserve:
    """Return the fitted training reserve, validated once (a malformed file is a bug: it raises)."""
    return data_cache.cached("memory_reserve", [RESERVE_FILE], _read_reserve)


def _read_reserve() -> TrainingReserve:
    import yaml

    return _ReserveFile.model_validate(yaml.safe_load(RESERVE_FILE.read_text(encoding="utf-8"))).training


def training_slack_bytes(rounding_bytes: float, logits_bytes: float, mlp_block_bytes: float) -> float:
    """Reserved minus allocated at a training peak, one GPU: rounding + fitted base + unused cached blocks.

    ``logits_bytes`` is one block of the loss's logits as the loss builds it (fp32 where it upcasts, one
    chunk when chunked, 0 under a fused linear cross-entropy); ``mlp_block_bytes`` one MLP intermediate of
    a decoder layer (tokens x intermediate x activation bytes).
    """
    r = load_training_reserve()
    return rounding_bytes + r.base_gib * GIB + r.logits_share * logits_bytes + r.mlp_share * mlp_block_bytes
