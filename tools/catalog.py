"""GPU spec sheets and Alibaba Cloud GPU instance types, loaded from validated data files.

Data lives in ``tools/data/gpus.yaml`` and ``tools/data/instances.csv``; every row carries a source.
Both files are validated by the pydantic models below on first use (``extra="forbid"``), and a bad
row fails with the file and row named (:class:`DataFileError`). Nothing is loaded at import time.

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
import functools
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from tools import data_cache
from tools.errors import UnknownNameError

DATA_DIR = Path(__file__).parent / "data"
GPUS_FILE = DATA_DIR / "gpus.yaml"
INSTANCES_FILE = DATA_DIR / "instances.csv"

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

_ModelT = TypeVar("_ModelT", bound=BaseModel)


class DataFileError(ValueError):
    """A catalog data file is malformed; the message names the file and the row. Fix the data file."""


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


# ---------------------------------------------------------------------------------------------- loading


def _error_text(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        parts.append(f"{loc}: {err['msg']}" if loc else err["msg"])
    return "; ".join(parts)


def read_csv_rows(path: Path, model: type[_ModelT], key_field: str) -> tuple[_ModelT, ...]:
    """Read a CSV data file and validate every row with ``model``.

    Empty cells become ``None``. Row numbers in errors are file line numbers (the header is line 1).

    Args:
        path: the CSV file.
        model: pydantic model for one row (``extra="forbid"`` catches unknown columns).
        key_field: column shown in error messages to identify the row, e.g. ``instance_type``.

    Raises:
        DataFileError: a row does not validate; names the file, the line and the row key.
    """
    import csv

    rows: list[_ModelT] = []
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        for raw in reader:
            line = reader.line_num
            if None in raw:
                raise DataFileError(f"{path.name} row {line}: more cells than header columns")
            cells = {k: (v.strip() if v.strip() else None) for k, v in raw.items()}
            try:
                rows.append(model.model_validate(cells))
            except ValidationError as exc:
                key = cells.get(key_field)
                where = f"{path.name} row {line} ({key_field}={key!r})"
                raise DataFileError(f"{where}: {_error_text(exc)}") from exc
    return tuple(rows)


def yaml_loader() -> Any:
    """PyYAML's libyaml parser where it has one (its wheels do): ~20x faster than the pure-Python one.

    PyYAML is imported here, not at module import: a cold start that reads the catalogs from
    :mod:`tools.data_cache` never parses YAML.
    """
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _yaml_item_lines(text: str, key: str) -> list[int]:
    """1-based line numbers of the items of the top-level sequence ``key`` (for error messages)."""
    import yaml

    root = yaml.compose(text, Loader=yaml_loader())
    if not isinstance(root, yaml.MappingNode):
        return []
    for key_node, value_node in root.value:
        if key_node.value == key and isinstance(value_node, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value_node.value]
    return []


class _GPUFile(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    gpus: list[dict[str, Any]]
    ambiguous_names: dict[str, list[str]] = {}
    ambiguous_defaults: dict[str, str] = {}


def read_gpus(path: Path = GPUS_FILE) -> tuple[tuple[GPU, ...], dict[str, tuple[str, ...]]]:
    """Read and validate a GPU YAML file.

    Returns:
        The GPU rows in file order, and the ambiguous short names (e.g. 'A100') with their variants.

    Raises:
        DataFileError: a malformed file, a bad entry (named by index, line and name), duplicate names or
            aliases, or an ambiguous name / likely_same_as that points at no GPU.
    """
    return _read_gpu_file(path)[:2]


def _read_gpu_file(
    path: Path,
) -> tuple[tuple[GPU, ...], dict[str, tuple[str, ...]], dict[str, str]]:
    """:func:`read_gpus`, plus the stated default of each ambiguous name ('A100' -> 'A100-80GB')."""
    import yaml

    text = path.read_text(encoding="utf-8")
    try:
        top = _GPUFile.model_validate(yaml.load(text, Loader=yaml_loader()))
    except (ValidationError, yaml.YAMLError) as exc:
        raise DataFileError(f"{path.name}: {exc}") from exc
    gpus: list[GPU] = []
    for index, entry in enumerate(top.gpus):
        try:
            gpus.append(GPU.model_validate(entry))
        except ValidationError as exc:
            # Line numbers cost a second parse: only worth it for the error message.
            lines = _yaml_item_lines(text, "gpus")
            line = lines[index] if index < len(lines) else "?"
            name = entry.get("name")
            where = f"{path.name} entry {index + 1} (line {line}, name={name!r})"
            raise DataFileError(f"{where}: {_error_text(exc)}") from exc
    ambiguous = {k: tuple(v) for k, v in top.ambiguous_names.items()}
    _check_gpu_names(path, gpus, ambiguous)
    for short, default in top.ambiguous_defaults.items():
        if default not in ambiguous.get(short, ()):
            raise DataFileError(f"{path.name}: default {default!r} for '{short}' is not one of its variants")
    return tuple(gpus), ambiguous, dict(top.ambiguous_defaults)


def _check_gpu_names(path: Path, gpus: Sequence[GPU], ambiguous: dict[str, tuple[str, ...]]) -> None:
    names = {g.name for g in gpus}
    seen: dict[str, str] = {}
    for gpu in gpus:
        for label in (gpu.name, *gpu.aliases):
            key = normalize_gpu_name(label)
            if seen.get(key, gpu.name) != gpu.name:
                raise DataFileError(f"{path.name}: '{label}' of {gpu.name} clashes with {seen[key]}")
            seen[key] = gpu.name
        if gpu.likely_same_as is not None and gpu.likely_same_as not in names:
            raise DataFileError(f"{path.name}: {gpu.name} likely_same_as {gpu.likely_same_as!r} is not a GPU")
    for short, variants in ambiguous.items():
        if normalize_gpu_name(short) in seen:
            raise DataFileError(f"{path.name}: ambiguous name '{short}' is also a GPU name or alias")
        unknown = [v for v in variants if v not in names]
        if unknown:
            raise DataFileError(f"{path.name}: ambiguous name '{short}' lists unknown GPUs {unknown}")


def read_instances(path: Path = INSTANCES_FILE) -> tuple[InstanceType, ...]:
    """Read and validate an instance-type CSV file; GPU references must exist in the GPU catalog.

    Raises:
        DataFileError: a bad row (file, line and instance type named), a duplicate instance type, or a
            ``gpu_model``/``gpu_model_likely`` that is not a canonical GPU name.
    """
    rows = read_csv_rows(path, InstanceType, "instance_type")
    gpu_names = {g.name for g in load_gpus()}
    seen: set[str] = set()
    for line, inst in enumerate(rows, start=2):
        if inst.instance_type in seen:
            raise DataFileError(f"{path.name} row {line}: duplicate instance_type {inst.instance_type!r}")
        seen.add(inst.instance_type)
        for ref in (inst.gpu_model, inst.gpu_model_likely):
            if ref is not None and ref not in gpu_names:
                raise DataFileError(
                    f"{path.name} row {line} (instance_type={inst.instance_type!r}): "
                    f"GPU {ref!r} is not a canonical name in {GPUS_FILE.name}"
                )
    return rows


@functools.cache
def _gpu_catalog() -> tuple[tuple[GPU, ...], dict[str, tuple[str, ...]], dict[str, str]]:
    return data_cache.cached("gpus", [GPUS_FILE], lambda: _read_gpu_file(GPUS_FILE))


def _gpu_file() -> tuple[tuple[GPU, ...], dict[str, tuple[str, ...]]]:
    return _gpu_catalog()[:2]


@functools.cache
def _ambiguous_defaults() -> dict[str, str]:
    return {normalize_gpu_name(k): v for k, v in _gpu_catalog()[2].items()}


@functools.cache
def load_gpus() -> tuple[GPU, ...]:
    """All GPU rows from ``tools/data/gpus.yaml`` (validated once, then cached)."""
    return _gpu_file()[0]


@functools.cache
def load_instances() -> tuple[InstanceType, ...]:
    """All instance types from ``tools/data/instances.csv`` (validated once, then cached)."""
    # The GPU file is a source too: read_instances checks every GPU name against it.
    return data_cache.cached("instances", [INSTANCES_FILE, GPUS_FILE], lambda: read_instances(INSTANCES_FILE))


# ---------------------------------------------------------------------------------------------- GPUs


def normalize_gpu_name(text: str) -> str:
    """Lookup key for a GPU name: case, spaces, dashes, a vendor prefix and 'GB'/'GiB'/'G' do not matter.

    >>> normalize_gpu_name("NVIDIA A100 80GB") == normalize_gpu_name("a100-80g")
    True
    """
    s = text.lower()
    s = re.sub(r"\b(nvidia|tesla|geforce)\b", " ", s)
    s = re.sub(r"(\d)\s*(gib|gb|g)\b", r"\1g", s)
    return re.sub(r"[^a-z0-9]", "", s)


@functools.cache
def _gpu_index() -> tuple[dict[str, GPU], dict[str, tuple[str, ...]]]:
    gpus, ambiguous = _gpu_file()
    by_key = {normalize_gpu_name(label): g for g in gpus for label in (g.name, *g.aliases)}
    return by_key, {normalize_gpu_name(k): v for k, v in ambiguous.items()}


def _suggest(query: str, candidates: dict[str, str], limit: int = 5) -> list[str]:
    """Close matches of ``query`` among candidate keys, mapped to display names (deduplicated)."""
    import difflib

    out: list[str] = []
    for key in difflib.get_close_matches(query, list(candidates), n=limit * 3, cutoff=0.6):
        if candidates[key] not in out:
            out.append(candidates[key])
    for key, name in candidates.items():
        if query and query in key and name not in out:
            out.append(name)
    return out[:limit]


def get_gpu(name: str) -> GPU:
    """Look up a GPU by canonical name or alias ('A100 80GB', 'a100-80g', 'h20', '4090').

    Args:
        name: what the user typed; case, spaces, dashes and a leading 'NVIDIA' are ignored.

    Raises:
        UnknownNameError: unknown name (with close matches), or an ambiguous one such as 'A100' (with
            its variants as suggestions).
    """
    by_key, ambiguous = _gpu_index()
    key = normalize_gpu_name(name)
    if key in by_key:
        return by_key[key]
    if key in ambiguous:
        raise UnknownNameError("GPU", name, list(ambiguous[key]))
    labels = {k: g.name for k, g in by_key.items()}
    raise UnknownNameError("GPU", name, _suggest(key, labels))


class GPUChoice(BaseModel):
    """A GPU picked for a name, and the assumption made when the name was ambiguous."""

    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    gpu: GPU
    assumed: str | None = Field(description="set when an ambiguous name was read as its stated default")
    variants: tuple[str, ...] = Field(default=(), description="all variants of an ambiguous name")


def choose_gpu(name: str) -> GPUChoice:
    """Look up a GPU; an ambiguous name with a stated default ('A100' -> A100-80GB) resolves to it.

    Use where one GPU must be picked (a price, a plan) and say ``assumed`` to the user; where no default
    is stated ('V100'), the error lists the variants so the caller can ask back.

    Raises:
        UnknownNameError: unknown name, or an ambiguous one without a stated default.
    """
    try:
        return GPUChoice(gpu=get_gpu(name), assumed=None)
    except UnknownNameError:
        key = normalize_gpu_name(name)
        default = _ambiguous_defaults().get(key)
        if default is None:
            raise
        variants = _gpu_index()[1][key]
        note = f"'{name}' has several variants ({', '.join(variants)}); assumed {default}"
        return GPUChoice(gpu=get_gpu(default), assumed=note, variants=variants)


def list_gpus() -> list[GPU]:
    """All GPUs in catalog order."""
    return list(load_gpus())


def gpu_names_for_filter(name: str) -> set[str]:
    """Canonical names a GPU filter matches: an ambiguous name matches all its variants."""
    _, ambiguous = _gpu_index()
    key = normalize_gpu_name(name)
    names = set(ambiguous[key]) if key in ambiguous else {get_gpu(name).name}
    for gpu in load_gpus():
        if gpu.name in names and gpu.likely_same_as:
            names.add(gpu.likely_same_as)
    return names


# ---------------------------------------------------------------------------------------------- instances


def _instance_key(text: str) -> str:
    s = re.sub(r"\s+", "", text.lower())
    return s if s.startswith("ecs.") else f"ecs.{s}"


@functools.cache
def _instance_index() -> dict[str, InstanceType]:
    return {inst.instance_type: inst for inst in load_instances()}


def _instance_suggestions(key: str, limit: int = 5) -> list[str]:
    """Types a mistyped name probably meant: by a GPU named in it ('ecs.l20-...'), then by spelling."""
    import difflib

    index = _instance_index()
    body = key.removeprefix("ecs.")
    token = re.split(r"[.-]", body)[0]
    size = body.rsplit(".", 1)[-1] if "." in body else ""
    out: list[str] = []
    try:
        gpu_names = gpu_names_for_filter(token)
    except UnknownNameError:
        gpu_names = set()
    by_gpu = [i for i in index.values() if i.gpu_name in gpu_names and not (i.retired or i.vgpu)]
    # Same size first: 'ecs.l20-c32g1.8xlarge' most likely meant an L20 type with 32 vCPU.
    by_gpu.sort(key=lambda i: i.instance_type.rsplit(".", 1)[-1] != size)
    out.extend(i.instance_type for i in by_gpu)
    out.extend(difflib.get_close_matches(key, list(index), n=limit, cutoff=0.75))
    if not out:
        out.extend(difflib.get_close_matches(key, list(index), n=3, cutoff=0.0))
    return list(dict.fromkeys(out))[:limit]


def get_instance(instance_type: str) -> InstanceType:
    """Look up an instance type, with or without the 'ecs.' prefix ('gn7i-c8g1.2xlarge').

    Raises:
        UnknownNameError: no such type in the catalog; suggestions list likely intended types.
    """
    index = _instance_index()
    # Tools pass catalog names (the planner, hundreds of times a plan): no need to normalise those.
    key = instance_type if instance_type in index else _instance_key(instance_type)
    found = index.get(key)
    if found is None:
        raise UnknownNameError("instance type", instance_type, _instance_suggestions(key))
    return found


def families() -> list[str]:
    """Instance family names in catalog order ('gn8v', 'gn8v-tee', 'gn8is', ...)."""
    return list(dict.fromkeys(inst.family for inst in load_instances()))


def _family_key(family: str) -> str:
    key = re.sub(r"\s+", "", family.lower()).removeprefix("ecs.")
    if key not in families():
        raise UnknownNameError("instance family", family, _suggest(key, {f: f for f in families()}))
    return key


def list_instances(
    family: str | None = None,
    gpu: str | None = None,
    min_gpu_memory_gib: float | None = None,
    include_retired: bool = False,
    *,
    min_total_gpu_memory_gib: float | None = None,
    include_vgpu: bool = False,
) -> list[InstanceType]:
    """Instance types matching all given filters, in catalog order.

    Args:
        family: e.g. 'gn7i' (an 'ecs.' prefix is accepted).
        gpu: GPU name or alias; matches the named GPU or, where Alibaba does not name it, the likely
            one. An ambiguous name ('A100') matches all its variants.
        min_gpu_memory_gib: minimum memory PER GPU (nominal, as printed).
        include_retired: also return retired and historical types.
        min_total_gpu_memory_gib: minimum memory of all GPUs of the instance together.
        include_vgpu: also return vGPU slices and fractional-GPU types.

    Raises:
        UnknownNameError: unknown family or GPU name.
    """
    fam = _family_key(family) if family is not None else None
    gpu_names = gpu_names_for_filter(gpu) if gpu is not None else None
    out = []
    for inst in load_instances():
        if (inst.retired and not include_retired) or (inst.vgpu and not include_vgpu):
            continue
        if fam is not None and inst.family != fam:
            continue
        if gpu_names is not None and inst.gpu_name not in gpu_names:
            continue
        if min_gpu_memory_gib is not None and (inst.gpu_memory_gib or 0) < min_gpu_memory_gib:
            continue
        if min_total_gpu_memory_gib is not None and (inst.total_gpu_memory_gib or 0) < min_total_gpu_memory_gib:
            continue
        out.append(inst)
    return out


def _as_instance(inst: InstanceType | str) -> InstanceType:
    return get_instance(inst) if isinstance(inst, str) else inst


def gpu_match(inst: InstanceType | str) -> GPUMatch | None:
    """Return the GPU behind an instance type (named or likely) with its confidence; None if unknown.

    Raises:
        UnknownNameError: ``inst`` is a name that is not in the catalog.
    """
    inst = _as_instance(inst)
    if inst.gpu_name is None:
        return None
    gpu = get_gpu(inst.gpu_name)
    named = inst.gpu_model is not None
    if named:
        note = f"{inst.family}: Alibaba names the GPU ({gpu.name})."
    else:
        note = f"{inst.family}: Alibaba does not name the GPU; {gpu.name} is {inst.gpu_confidence}."
    return GPUMatch(gpu=gpu, named_by_alibaba=named, confidence=inst.gpu_confidence, note=note)


def gpu_for_instance(inst: InstanceType | str) -> GPU | None:
    """Return the GPU row of an instance type (named, else likely); None where the GPU is unknown.

    Check ``inst.gpu_confidence`` (or use :func:`gpu_match`) before presenting an inferred GPU as fact.

    Raises:
        UnknownNameError: ``inst`` is a name that is not in the catalog.
    """
    inst = _as_instance(inst)
    # gpu_name is a canonical GPU name (read_instances checks it), so no alias matching is needed.
    return None if inst.gpu_name is None else _gpus_by_name()[inst.gpu_name]


@functools.cache
def _gpus_by_name() -> dict[str, GPU]:
    return {gpu.name: gpu for gpu in load_gpus()}
