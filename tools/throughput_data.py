"""Sourced constants of the speed model, read from ``tools/data/speed_constants.yaml``.

Every row names its ``source`` and whether it was ``fitted_on`` development rows
(``benchmarks/data/speed_dev.csv``) or taken from a published figure as is. Nothing here is fitted on
the held-out speed set. Three kinds of rows:

* ``engines``: the fixed cost of one decode step of a serving engine (scheduler, sampling, CUDA-graph
  replay), added to the memory time of the step.
* ``kernel_families``: weight-only quantised GEMMs (GPTQ/AWQ) dequantise inside the kernel: a fixed
  cost per decoder layer plus their own achieved share of the bandwidth.
* ``achieved_bandwidth``: the share of the spec-sheet bandwidth a GPU reaches at batch-1 decode,
  relative to the A100-80GB the dense efficiency was calibrated on (1.0 = same share).
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): pydantic would
# compile each field's annotation string again on every cold start (see README, Cold starts).
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools import data_cache

SPEED_CONSTANTS_FILE = Path(__file__).resolve().parent / "data" / "speed_constants.yaml"
FittedOn = Literal["dev", "published"]


class _Row(BaseModel):
    # defer_build: rows read from tools.data_cache are never validated again (see tools.catalog.GPU).
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    source: str = Field(min_length=10, description="URL and what was read there")
    fitted_on: FittedOn = Field(description="dev = fitted on speed_dev.csv; published = a figure read as is")


class EngineOverhead(_Row):
    """Fixed cost of one decode step of one serving engine, in two scopes.

    ``step_overhead_s`` is the model-runner step alone (what ``bench_latency``/TPOT measure);
    ``request_overhead_s`` is what a whole request pays per generated token through the engine's
    scheduler, sampler and detokeniser loop (what generated tokens / wall time measures). An engine
    without a sourced request figure uses vLLM's, and says so.
    """

    engine: str
    step_overhead_s: float = Field(ge=0, lt=0.05)
    request_overhead_s: float | None = Field(default=None, ge=0, lt=0.05)


class KernelFamily(_Row):
    """Efficiency of one kernel family at batch-1 decode."""

    family: Literal["weight_only_int"]
    layer_overhead_s: float = Field(ge=0, lt=0.001, description="fixed cost per decoder layer and step")
    eta_bandwidth: float = Field(gt=0, le=1, description="achieved / spec bandwidth of the dequantising GEMM")


class AchievedBandwidth(_Row):
    """Batch-1 decode bandwidth share of one GPU model relative to the A100-80GB calibration."""

    gpu: str
    relative_to_a100: float = Field(gt=0.3, le=1.2)


class SpeedConstants(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    engines: list[EngineOverhead]
    kernel_families: list[KernelFamily]
    achieved_bandwidth: list[AchievedBandwidth]

    def engine(self, name: str) -> EngineOverhead:
        for row in self.engines:
            if row.engine == name:
                return row
        raise KeyError(f"no step overhead for engine {name!r} in {SPEED_CONSTANTS_FILE.name}")

    def request_overhead_s(self, name: str) -> float:
        """Per-token engine cost of a whole request; vLLM's fitted figure where the engine has none."""
        own = self.engine(name).request_overhead_s
        return own if own is not None else self.request_overhead_s("vllm") if name != "vllm" else 0.0

    def kernel_family(self, name: str) -> KernelFamily:
        return next(row for row in self.kernel_families if row.family == name)

    def bandwidth_share(self, gpu: str) -> float:
        """Relative batch-1 bandwidth share; 1.0 (the A100 calibration) for GPUs without a sourced row."""
        for row in self.achieved_bandwidth:
            if row.gpu == gpu:
                return row.relative_to_a100
        return 1.0


@cache
def speed_constants() -> SpeedConstants:
    """Read and validate the constants (once per process; from the catalog cache on a cold start)."""
    return data_cache.cached("speed_constants", [SPEED_CONSTANTS_FILE], _read_constants)


def _read_constants() -> SpeedConstants:
    import yaml

    from tools.data_files import yaml_loader  # PyYAML only when the cache misses

    with SPEED_CONSTANTS_FILE.open(encoding="utf-8") as fh:
        return SpeedConstants.model_validate(yaml.load(fh, Loader=yaml_loader()))
