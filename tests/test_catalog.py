"""GPU and instance catalog: data integrity, lookups, filters and loader errors."""

from __future__ import annotations

import ast
import csv
import json
from pathlib import Path

import pytest
import yaml

from tools import catalog
from tools.catalog import (
    GPU,
    DataFileError,
    InstanceType,
    choose_gpu,
    families,
    get_gpu,
    get_instance,
    gpu_for_instance,
    gpu_match,
    list_gpus,
    list_instances,
    load_gpus,
    load_instances,
    read_gpus,
    read_instances,
)
from tools.errors import UnknownNameError

KARPENTER = (
    "https://github.com/AliyunContainerService/karpenter-provider-alibabacloud/blob/"
    "bde204a3a86451a63b940a97e98c51077b3e422d/pkg/providers/instancetype/gpu.go"
)


# ------------------------------------------------------------------------------------- data integrity


def test_catalog_sizes() -> None:
    # 140 types in 46 families from the research catalog (shared/reference/aliyun_gpu_catalog.csv), plus
    # 35 types in 11 families that DescribeInstanceTypes returns (gn8e/gn8ep, gn8t/gn8te, ebmgn8t/ts,
    # gn9g, gn8ga/ebmgn8ga, ebmgn7v, sgn6i-vws; SpareCores crawler dump, 2026-01).
    assert len(load_instances()) == 175
    assert len(families()) == 57
    assert len({i.instance_type for i in load_instances()}) == 175


def test_every_row_has_a_source_url() -> None:
    for row in [*load_gpus(), *load_instances()]:
        assert "https://" in row.source, row


def test_instance_gpu_references_resolve() -> None:
    names = {g.name for g in load_gpus()}
    for inst in load_instances():
        for ref in (inst.gpu_model, inst.gpu_model_likely):
            assert ref is None or ref in names, inst.instance_type


def test_loaders_are_cached() -> None:
    assert load_gpus() is load_gpus()
    assert load_instances() is load_instances()


def test_models_are_frozen() -> None:
    inst = get_instance("ecs.gn7i-c8g1.2xlarge")
    with pytest.raises(ValueError):
        inst.vcpu = 999  # type: ignore[misc]


def test_instance_json_field_names_are_the_published_ones() -> None:
    # External scripts read these keys; renaming one is a breaking change.
    data = json.loads(get_instance("ecs.gn7i-c8g1.2xlarge").model_dump_json())
    assert list(data) == [
        "instance_type",
        "family",
        "gpu_model",
        "gpu_model_likely",
        "gpu_confidence",
        "gpu_count",
        "gpu_memory_gib",
        "vgpu",
        "vcpu",
        "memory_gib",
        "network_gbps",
        "network_note",
        "gpu_interconnect",
        "bare_metal",
        "regions",
        "retired",
        "status_note",
        "source",
        "notes",
    ]
    assert data["gpu_count"] == 1 and isinstance(data["gpu_count"], int)


def test_gpu_json_field_names_include_the_published_ones() -> None:
    data = json.loads(get_gpu("A10").model_dump_json())
    required = {
        "name",
        "aliases",
        "arch",
        "memory_gib",
        "usable_memory_gib",
        "memory_bandwidth_gb_s",
        "fp32_tflops",
        "tf32_dense_tflops",
        "bf16_dense_tflops",
        "fp16_dense_tflops",
        "fp8_dense_tflops",
        "int8_dense_tops",
        "int4_dense_tops",
        "supports_bf16",
        "supports_fp8",
        "nvlink_gb_s",
        "interconnect",
        "tdp_w",
        "confidence",
        "source",
        "notes",
    }
    assert required <= set(data)


def test_unknowns_stay_null() -> None:
    gn8te = get_instance("ecs.ebmgn8te.32xlarge")
    assert gn8te.gpu_model is None and gpu_for_instance(gn8te) is None  # 'G49E' is a code name
    ebmgn9t = get_instance("ecs.ebmgn9t.48xlarge")
    assert ebmgn9t.gpu_count is None and gpu_for_instance(ebmgn9t) is None
    assert get_gpu("H20").fp32_tflops is None  # sources conflict (44 vs 39.5)
    assert get_gpu("A800").memory_bandwidth_gb_s is None


def test_unsupported_precisions_are_null_not_zero() -> None:
    for name in ("V100-16GB", "V100-32GB", "T4"):
        gpu = get_gpu(name)
        assert gpu.supports_bf16 is False and gpu.bf16_dense_tflops is None
    assert get_gpu("A100-80GB").fp8_dense_tflops is None
    for gpu in load_gpus():
        for field in ("fp32_tflops", "bf16_dense_tflops", "fp16_dense_tflops", "fp8_dense_tflops", "tdp_w"):
            assert getattr(gpu, field) != 0, (gpu.name, field)


def test_issue_gpus_are_present() -> None:
    for name in (
        "A10",
        "A100-80GB",
        "A100-40GB",
        "L20",
        "H20",
        "H800",
        "A800",
        "H100-SXM",
        "H200",
        "V100-16GB",
        "V100-32GB",
        "T4",
        "A30",
        "A16",
        "P100",
        "P4",
        "L40S",
        "L4",
        "4090",
    ):
        assert isinstance(get_gpu(name), GPU)


# Usable memory per GPU from Alibaba's Karpenter provider (MiB), tolerance 1 MiB of rounding.
@pytest.mark.parametrize(
    ("gpu", "mib"),
    [
        ("A10", 22731),
        ("A100-80GB", 81251),
        ("A100-40GB", 40537),
        ("T4", 15109),
        ("V100-32GB", 32510),
        ("L20", 45056),
    ],
)
def test_usable_memory_matches_karpenter(gpu: str, mib: int) -> None:
    row = get_gpu(gpu)
    assert row.usable_memory_gib is not None
    assert abs(row.usable_memory_gib * 1024 - mib) < 1, KARPENTER
    assert row.usable_memory_source and KARPENTER in row.usable_memory_source


def test_usable_memory_unknown_where_no_source() -> None:
    assert get_gpu("H20").usable_memory_gib is None
    assert get_gpu("H800").usable_memory_gib is None


# ------------------------------------------------------------------------------------- GPU lookups


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("a100 80g", "A100-80GB"),
        ("A100 80GB", "A100-80GB"),
        ("A100-80GB", "A100-80GB"),
        ("nvidia a100 80gb", "A100-80GB"),
        ("a100-40g", "A100-40GB"),
        ("h20", "H20"),
        ("H 20", "H20"),
        ("4090", "RTX-4090"),
        ("GeForce RTX 4090", "RTX-4090"),
        ("NVIDIA A10", "A10"),
        ("Tesla T4", "T4"),
        ("l20", "L20"),
        ("h800", "H800"),
        ("v100 32g", "V100-32GB"),
        ("gn8v gpu", "gn8v-96GB (unnamed, likely H20)"),
    ],
)
def test_get_gpu_is_alias_and_format_tolerant(typed: str, canonical: str) -> None:
    assert get_gpu(typed).name == canonical


def test_unknown_gpu_suggests_close_names() -> None:
    with pytest.raises(UnknownNameError) as err:
        get_gpu("L2O")
    assert err.value.kind == "GPU" and err.value.name == "L2O"
    assert "L20" in err.value.suggestions
    assert "Did you mean" in str(err.value)


@pytest.mark.parametrize(
    ("short", "variant"), [("A100", "A100-80GB"), ("H100", "H100-SXM"), ("V100", "V100-16GB")]
)
def test_ambiguous_gpu_name_lists_variants(short: str, variant: str) -> None:
    with pytest.raises(UnknownNameError) as err:
        get_gpu(short)
    assert variant in err.value.suggestions


@pytest.mark.parametrize(("short", "default"), [("A100", "A100-80GB"), ("H100", "H100-SXM"), ("a100", "A100-80GB")])
def test_ambiguous_name_with_a_stated_default_resolves_and_says_so(short: str, default: str) -> None:
    choice = choose_gpu(short)
    assert choice.gpu.name == default
    assert choice.assumed and default in choice.assumed and len(choice.variants) > 1


def test_ambiguous_name_without_default_still_asks_back() -> None:
    with pytest.raises(UnknownNameError) as err:
        choose_gpu("V100")
    assert {"V100-16GB", "V100-32GB"} <= set(err.value.suggestions)
    assert choose_gpu("L20").assumed is None


def test_list_gpus_in_catalog_order() -> None:
    assert [g.name for g in list_gpus()] == [g.name for g in load_gpus()]


# ------------------------------------------------------------------------------------- instance lookups


def test_get_instance_with_or_without_prefix() -> None:
    assert get_instance("gn7i-c8g1.2xlarge") is get_instance("ecs.gn7i-c8g1.2xlarge")
    assert get_instance(" ECS.GN7I-C8G1.2XLARGE ").instance_type == "ecs.gn7i-c8g1.2xlarge"


def test_unknown_instance_suggests() -> None:
    with pytest.raises(UnknownNameError) as err:
        get_instance("ecs.gn7i-c8g1.3xlarge")
    assert err.value.kind == "instance type"
    assert "ecs.gn7i-c8g1.2xlarge" in err.value.suggestions


def test_families_are_unique_and_cover_issue_families() -> None:
    fams = families()
    assert len(fams) == len(set(fams))
    assert {"gn7i", "gn7e", "gn7", "gn8is", "gn8v", "ebmgn7ex", "gn6i", "gn6v"} <= set(fams)


def test_list_instances_filters() -> None:
    assert {i.family for i in list_instances(family="ecs.gn7i")} == {"gn7i"}
    # Per-GPU memory filter: only 80 GB+ parts.
    big = list_instances(min_gpu_memory_gib=80)
    assert big and all((i.gpu_memory_gib or 0) >= 80 for i in big)
    # Total memory filter counts all GPUs of the instance.
    assert "ecs.gn7i-c32g1.32xlarge" in {i.instance_type for i in list_instances(min_total_gpu_memory_gib=96)}


def test_list_instances_hides_retired_and_vgpu_by_default() -> None:
    default = list_instances()
    assert not any(i.retired or i.vgpu for i in default)
    everything = list_instances(include_retired=True, include_vgpu=True)
    assert len(everything) == 175
    assert "ecs.gn7i-c80g1.20xlarge" in {i.instance_type for i in list_instances(include_retired=True)}


def test_list_instances_by_gpu_includes_likely_and_ambiguous() -> None:
    # gn7e does not name its GPU; a filter on A100-80GB still finds it, through gpu_model_likely.
    a100_80 = {i.family for i in list_instances(gpu="A100 80GB")}
    assert {"gn7e", "ebmgn7e", "ebmgn7ex"} <= a100_80 and "gn7" not in a100_80
    # 'A100' alone is ambiguous for lookups but as a filter it means every A100 variant.
    assert {"gn7e", "gn7", "ebmgn7"} <= {i.family for i in list_instances(gpu="A100")}
    assert {i.family for i in list_instances(gpu="H20")} == {"gn8v", "gn8v-tee", "ebmgn8v"}


def test_list_instances_unknown_family_or_gpu() -> None:
    with pytest.raises(UnknownNameError) as err:
        list_instances(family="gn7j")
    assert "gn7i" in err.value.suggestions
    with pytest.raises(UnknownNameError):
        list_instances(gpu="Z9000")


def test_total_gpu_memory() -> None:
    assert get_instance("ecs.gn7e-c16g1.32xlarge").total_gpu_memory_gib == 640
    # A vGPU slice prints its own memory: 1/2 of an A10 has 12 GB, not 0.5 x 12.
    assert get_instance("ecs.vgn7i-vws-m12.3xlarge").total_gpu_memory_gib == 12
    assert get_instance("ecs.ebmgn9t.48xlarge").total_gpu_memory_gib is None


# ------------------------------------------------------------------------------------- GPU for instance


@pytest.mark.parametrize(
    ("instance", "gpu", "confidence", "named"),
    [
        ("ecs.gn7i-c8g1.2xlarge", "A10", "official", True),
        ("ecs.gn7e-c16g1.4xlarge", "A100-80GB", "official", True),
        ("ecs.gn7-c12g1.3xlarge", "A100-40GB", "official-historical", True),
        ("ecs.gn8v.4xlarge", "H20", "inferred", False),
        ("ecs.gn8is.2xlarge", "L20", "official", True),
        ("ecs.gn8ia.8xlarge", "L20", "official", True),
        ("ecs.gn9gc.4xlarge", "Blackwell-Pro-72GB (unnamed, gn9gc/ebmgn9ge/ebmgn9gc)", "official", False),
        ("ecs.ebmgn9g.64xlarge", "Blackwell-Pro-48GB (unnamed, ebmgn9g)", "official", False),
        ("ecs.gn7r-c16g1.4xlarge", "A16", "inferred", False),
    ],
)
def test_gpu_for_instance_resolves_named_or_likely(
    instance: str, gpu: str, confidence: str, named: bool
) -> None:
    match = gpu_match(instance)
    assert match is not None
    assert (match.gpu.name, match.confidence, match.named_by_alibaba) == (gpu, confidence, named)
    assert gpu_for_instance(get_instance(instance)) == match.gpu
    assert confidence in match.note or named


def test_gpu_for_instance_gives_planner_numbers() -> None:
    gpu = gpu_for_instance("gn8v-4x.8xlarge")
    assert gpu is not None and gpu.memory_bandwidth_gb_s == 4000 and gpu.bf16_dense_tflops == 148


def test_gpu_for_instance_unknown_gpu_is_none() -> None:
    assert gpu_for_instance("ecs.ebmgn8te.32xlarge") is None
    assert gpu_match("ecs.sgn8ia-m2.xlarge") is None


def test_unnamed_gn8v_gpu_row_points_at_h20() -> None:
    unnamed = get_gpu("gn8v-96GB (unnamed, likely H20)")
    assert unnamed.likely_same_as == "H20" and unnamed.fp32_tflops == 39.5
    assert unnamed.memory_gib == get_gpu("H20").memory_gib == 96


# ------------------------------------------------------------------------------------- loader errors


def _write_instances(tmp_path: Path, mutate: dict[str, str]) -> Path:
    src = catalog.INSTANCES_FILE.read_text(encoding="utf-8").splitlines()
    header = src[0].split(",")
    row = dict(zip(header, next(csv.reader([src[1]])), strict=True))
    row.update(mutate)
    path = tmp_path / "instances.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(row))
        writer.writeheader()
        writer.writerow(next(csv.DictReader(catalog.INSTANCES_FILE.open(encoding="utf-8"))))
        writer.writerow(row)
    return path


def test_bad_instance_row_names_file_and_row(tmp_path: Path) -> None:
    path = _write_instances(tmp_path, {"instance_type": "ecs.gn8v.8xlarge", "vcpu": "lots"})
    with pytest.raises(
        DataFileError, match=r"instances\.csv row 3 \(instance_type='ecs\.gn8v\.8xlarge'\): vcpu"
    ):
        read_instances(path)


def test_unknown_gpu_reference_is_rejected(tmp_path: Path) -> None:
    path = _write_instances(tmp_path, {"instance_type": "ecs.gn8v.8xlarge", "gpu_model_likely": "H21"})
    with pytest.raises(DataFileError, match=r"row 3 .*'H21'"):
        read_instances(path)


def test_extra_column_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "instances.csv"
    text = catalog.INSTANCES_FILE.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([text[0] + ",colour", text[1] + ",red"]) + "\n", encoding="utf-8")
    with pytest.raises(DataFileError, match=r"row 2 .*colour"):
        read_instances(path)


def test_bad_gpu_entry_names_file_entry_and_line(tmp_path: Path) -> None:
    data = yaml.safe_load(catalog.GPUS_FILE.read_text(encoding="utf-8"))
    data["gpus"][1]["memory_gib"] = -1
    path = tmp_path / "gpus.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(DataFileError, match=r"gpus\.yaml entry 2 \(line \d+, name='A30'\): memory_gib"):
        read_gpus(path)


def test_gpu_flags_must_match_figures(tmp_path: Path) -> None:
    data = yaml.safe_load(catalog.GPUS_FILE.read_text(encoding="utf-8"))
    data["gpus"][0]["supports_bf16"] = False  # A10 has a BF16 figure
    path = tmp_path / "gpus.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(DataFileError, match="supports_bf16"):
        read_gpus(path)


def test_duplicate_alias_is_rejected(tmp_path: Path) -> None:
    data = yaml.safe_load(catalog.GPUS_FILE.read_text(encoding="utf-8"))
    data["gpus"][1]["aliases"].append("a10")  # A30 row claims A10's name
    path = tmp_path / "gpus.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(DataFileError, match="clashes"):
        read_gpus(path)


def test_instance_model_rejects_wrong_family() -> None:
    row = get_instance("ecs.gn7i-c8g1.2xlarge").model_dump()
    row["family"] = "gn6i"
    with pytest.raises(ValueError, match="is not in family"):
        InstanceType.model_validate(row)


# ------------------------------------------------------------------------------------- layering


@pytest.mark.parametrize("module", ["catalog.py", "prices.py"])
def test_tools_import_nothing_from_upper_layers(module: str) -> None:
    tree = ast.parse((Path(catalog.__file__).parent / module).read_text(encoding="utf-8"))
    imported = {
        (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    top = {name.split(".")[0] for name in imported}
    assert not top & {"knowledge", "assistant", "ui", "langchain", "gradio", "chromadb"}
