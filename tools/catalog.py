"""GPU spec sheets and Alibaba Cloud GPU instance types: loading, validating and looking them up.

Data lives in ``tools/data/gpus.yaml`` and ``tools/data/instances.csv``; every row carries a source.
Both files are validated by the row models of :mod:`tools.catalog_rows` on first use (``extra="forbid"``),
and a bad row fails with the file and row named (:class:`~tools.data_files.DataFileError`). Nothing is
loaded at import time. The row models are re-exported here (``catalog.GPU``, ``catalog.InstanceType``).
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): pydantic would
# compile each field's annotation string again on every cold start (see README, Cold starts).
import functools
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tools import data_cache
from tools.catalog_rows import GPU, GpuConfidence, GPUMatch, InstanceType, SpecConfidence, Vendor
from tools.data_files import DataFileError, error_text, read_csv_rows, yaml_item_lines, yaml_loader
from tools.errors import UnknownNameError

__all__ = [
    "DATA_DIR",
    "GPU",
    "GPUS_FILE",
    "INSTANCES_FILE",
    "GPUChoice",
    "GPUMatch",
    "GpuConfidence",
    "InstanceType",
    "SpecConfidence",
    "Vendor",
    "DataFileError",
    "choose_gpu",
    "families",
    "get_gpu",
    "get_instance",
    "gpu_for_instance",
    "gpu_match",
    "gpu_names_for_filter",
    "list_gpus",
    "list_instances",
    "load_gpus",
    "load_instances",
    "normalize_gpu_name",
    "read_gpus",
    "read_instances",
]

DATA_DIR = Path(__file__).parent / "data"
GPUS_FILE = DATA_DIR / "gpus.yaml"
INSTANCES_FILE = DATA_DIR / "instances.csv"


# ---------------------------------------------------------------------------------------------- loading


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
            lines = yaml_item_lines(text, "gpus")
            line = lines[index] if index < len(lines) else "?"
            name = entry.get("name")
            where = f"{path.name} entry {index + 1} (line {line}, name={name!r})"
            raise DataFileError(f"{where}: {error_text(exc)}") from exc
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
