"""The rows of the hardware catalogs: a GPU spec sheet and an Alibaba Cloud GPU instance type.

Validated on load by :mod:`tools.catalog` (``extra="forbid"``); every row carries a source.

Conventions:
    * GPU throughput figures are dense (no 2:4 sparsity), in TFLOPS or TOPS; ``None`` = unknown or
      not supported, never 0.
    * ``memory_gib`` on a GPU and ``gpu_memory_gib`` on an instance are the nominal sizes as printed
      ("GB"); ``usable_memory_gib`` is what the driver/cloud reports, where a source gives it.
    * Alibaba does not name the GPU of several families (A100/Hopper class, Blackwell). Those rows
      keep ``gpu_model`` empty and put the likely GPU in ``gpu_model_likely`` with a confidence.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): pydantic would
# compile each field's annotation string again on every cold start (see README, Cold starts).
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

GpuConfidence = Literal["official", "official-historical", "inferred", "uncertain"]
"""How sure the catalog is about which GPU an instance type has.

official: Alibaba's current docs or its DescribeInstanceTypes API (``GPUSpec``) name the GPU, or they
    print the full spec of an unnamed GPU row.
official-historical: named in an older official Alibaba doc, not in the current tables.
inferred: not named by Alibaba; strong indirect evidence (memory, bandwidth, quota group, Alibaba code).
uncertain: weak or partial evidence; treat the GPU as unknown for sizing.
"""

SpecConfidence = Literal["official", "third-party", "uncertain"]
"""Where a GPU row's figures come from: manufacturer/Alibaba spec sheet, secondary sources, or partial."""

Vendor = Literal["NVIDIA", "AMD", "Intel"]


class GPU(BaseModel):
    """One GPU model with spec-sheet figures (per GPU, dense throughput)."""

    # defer_build: the validator is built on first validation; a start that reads the rows from
    # tools.data_cache never validates one, so it need not build it (here and on the other row models).
    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    name: str = Field(description="canonical name, e.g. 'A100-80GB', 'H20', 'L20'")
    aliases: tuple[str, ...] = Field(default=(), description="what users type, e.g. 'a100 80g'")
    vendor: Vendor
    arch: str | None = Field(description="architecture, e.g. 'Ampere'; None where the vendor does not say")
    form_factor: str | None = None
    memory_gib: float = Field(gt=0, description="nominal memory per GPU as the vendor prints it")
    memory_type: str | None = None
    usable_memory_gib: float | None = Field(
        gt=0, description="memory per GPU that CUDA/the cloud reports; None = unknown"
    )
    usable_memory_source: str | None = None
    memory_bandwidth_gb_s: float | None = Field(gt=0, description="peak memory bandwidth, GB/s")
    fp32_tflops: float | None = Field(gt=0, description="non-Tensor FP32, TFLOPS")
    tf32_dense_tflops: float | None = Field(gt=0)
    bf16_dense_tflops: float | None = Field(gt=0, description="None where BF16 is unsupported or unknown")
    fp16_dense_tflops: float | None = Field(gt=0, description="Tensor Core FP16 (FP32 accumulate)")
    fp8_dense_tflops: float | None = Field(gt=0)
    fp4_dense_tflops: float | None = Field(gt=0)
    int8_dense_tops: float | None = Field(gt=0)
    int4_dense_tops: float | None = Field(gt=0)
    supports_bf16: bool | None = Field(description="None: no source states it")
    supports_fp8: bool | None = Field(description="None: no source states it")
    nvlink_gb_s: float | None = Field(gt=0, description="NVLink bandwidth per GPU, GB/s; None if no NVLink")
    interconnect: str | None
    tdp_w: float | None = Field(gt=0)
    confidence: SpecConfidence
    likely_same_as: str | None = Field(
        default=None, description="for an unnamed cloud GPU: the named GPU it most likely is"
    )
    source: str = Field(description="URL(s), ' ; '-separated")
    notes: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> "GPU":
        if "http" not in self.source:
            raise ValueError("source must contain at least one URL")
        for flag, value, what in (
            (self.supports_bf16, self.bf16_dense_tflops, "bf16"),
            (self.supports_fp8, self.fp8_dense_tflops, "fp8"),
        ):
            if flag is False and value is not None:
                raise ValueError(f"supports_{what} is false but {what}_dense_tflops is set")
            if value is not None and flag is not True:
                raise ValueError(f"{what}_dense_tflops is set, so supports_{what} must be true")
        if self.usable_memory_gib is not None:
            if self.usable_memory_gib > self.memory_gib:
                raise ValueError("usable_memory_gib exceeds memory_gib")
            if not self.usable_memory_source:
                raise ValueError("usable_memory_gib needs a usable_memory_source")
        return self


class InstanceType(BaseModel):
    """One Alibaba Cloud ECS GPU instance type, as Alibaba documents it."""

    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    instance_type: str = Field(description="full name, e.g. 'ecs.gn7i-c8g1.2xlarge'")
    family: str = Field(description="e.g. 'gn7i', 'ebmgn8v', 'gn8v-tee'")
    gpu_model: str | None = Field(description="canonical GPU name where Alibaba names it, else None")
    gpu_model_likely: str | None = Field(description="GPU it most likely has where Alibaba does not name it")
    gpu_confidence: GpuConfidence
    gpu_count: int | float | None = Field(
        ge=0, description="GPUs per instance; a fraction for a slice of a GPU (1/12 = 0.0833); None = unknown"
    )
    gpu_memory_gib: float | None = Field(
        gt=0, description="GPU memory per GPU (per slice for vGPU rows) as Alibaba prints it"
    )
    vgpu: bool = Field(description="a virtualised slice of a GPU (GRID vGPU or a fraction of a card)")
    vcpu: int | None = Field(gt=0)
    memory_gib: float | None = Field(gt=0, description="host RAM")
    network_gbps: float | None = Field(gt=0, description="baseline network bandwidth, Gbit/s")
    network_note: str | None = Field(default=None, description="NIC split, burst or RDMA add-on")
    gpu_interconnect: str | None
    bare_metal: bool
    regions: tuple[str, ...] = Field(default=(), description="region ids where known; empty = unknown")
    retired: bool
    status_note: str | None = None
    source: str = Field(description="URL(s), ' ; '-separated")
    notes: str | None = None

    @field_validator("regions", mode="before")
    @classmethod
    def _split_regions(cls, value: Any) -> Any:
        # CSV cells hold 'cn-hangzhou;cn-shanghai'; an empty cell arrives as None.
        if value is None:
            return ()
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(";") if part.strip())
        return value

    @model_validator(mode="after")
    def _consistent(self) -> "InstanceType":
        match = re.fullmatch(r"ecs\.([a-z0-9-]+)\.([a-z0-9]+)", self.instance_type)
        if not match:
            raise ValueError(f"instance_type {self.instance_type!r} is not 'ecs.<family...>.<size>'")
        if not match.group(1).startswith(self.family.split("-")[0]):
            raise ValueError(f"instance_type {self.instance_type!r} is not in family {self.family!r}")
        if self.gpu_model and self.gpu_model_likely:
            raise ValueError("set gpu_model (named by Alibaba) or gpu_model_likely, not both")
        if self.gpu_confidence == "official-historical" and not self.gpu_model:
            raise ValueError("official-historical confidence needs gpu_model")
        if self.gpu_confidence == "inferred" and not self.gpu_model_likely:
            raise ValueError("inferred confidence needs gpu_model_likely")
        if "http" not in self.source:
            raise ValueError("source must contain at least one URL")
        return self

    @property
    def gpu_name(self) -> str | None:
        """The GPU named by Alibaba, else the likely one, else None."""
        return self.gpu_model or self.gpu_model_likely

    @property
    def total_gpu_memory_gib(self) -> float | None:
        """GPU memory of the whole instance (nominal GB as printed); None if count or size is unknown.

        A slice (``gpu_count`` < 1) already prints the slice's own memory, so it is not scaled.
        """
        if self.gpu_count is None or self.gpu_memory_gib is None:
            return None
        if self.gpu_count < 1:
            return self.gpu_memory_gib
        return self.gpu_count * self.gpu_memory_gib


class GPUMatch(BaseModel):
    """The GPU behind an instance type, with how sure the catalog is about it."""

    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    gpu: GPU
    named_by_alibaba: bool = Field(description="False: the GPU is the likely one, not Alibaba's word")
    confidence: GpuConfidence
    note: str
