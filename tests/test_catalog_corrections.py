"""The seed article's factual errors (research notes, catalog_notes.md section 3, rows 1-12), each pinned.

Each case: the article's claim, the correct fact, its source, and a check of the catalog data. Rows 7,
11 and 12 are memory arithmetic; here only their catalog part is pinned (GPU sizes); the estimator's
own tests cover the arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from tools.catalog import GPU, get_gpu, get_instance, gpu_match, list_instances, load_instances
from tools.errors import UnknownNameError

ALIYUN_EN = (
    "https://www.alibabacloud.com/help/en/ecs/user-guide/"
    "gpu-accelerated-compute-optimized-and-vgpu-accelerated-instance-families-1"
)
ALIYUN_NAMING = "https://help.aliyun.com/zh/ecs/user-guide/instance-specification-naming-and-classification"
ALIYUN_BAREMETAL_ZH = "https://help.aliyun.com/zh/ecs/user-guide/elastic-bare-metal-server-overview"
NVIDIA_A100 = "https://www.nvidia.com/en-us/data-center/a100/"
NVIDIA_A10 = "https://www.nvidia.com/en-us/data-center/products/a10-gpu/"
QWEN_README = "https://github.com/QwenLM/Qwen/blob/03cd81f/README.md#inference-performance"
GB = 1e9
GIB = 2**30


def _unknown_instance(name: str) -> list[str]:
    with pytest.raises(UnknownNameError) as err:
        get_instance(name)
    assert err.value.suggestions, "an unknown type must come with suggestions"
    return err.value.suggestions


def _usable_bytes(gpu: GPU) -> float:
    assert gpu.usable_memory_gib is not None
    return gpu.usable_memory_gib * GIB


def check_1_gn7i_is_a10() -> None:
    rows = list_instances(family="gn7i", include_retired=True)
    assert rows and {r.gpu_model for r in rows} == {"A10"}
    assert {r.gpu_memory_gib for r in rows} == {24}
    assert {r.gpu_count for r in rows} == {1, 2, 4, 8}
    assert {r.gpu_confidence for r in rows} == {"official"}
    assert get_gpu("A10").nvlink_gb_s is None
    assert not any("gn7i" in r.family for r in list_instances(gpu="A100-80GB"))


def check_2_gn7e_is_80gb_a100_class() -> None:
    rows = list_instances(family="gn7e")
    assert {r.gpu_memory_gib for r in rows} == {80}
    assert {r.gpu_count for r in rows} == {1, 2, 4, 8}
    for row in rows:
        match = gpu_match(row)
        assert match is not None and match.gpu.name == "A100-80GB"
        # The spec tables print only 80 GB; DescribeInstanceTypes names the GPU 'A100'.
        assert match.confidence == "official" and match.named_by_alibaba
    assert not any(r.gpu_name == "A10" for r in rows)


def check_3_gn7e_c32g1_8xlarge_does_not_exist() -> None:
    suggestions = _unknown_instance("ecs.gn7e-c32g1.8xlarge")
    assert "ecs.gn7i-c32g1.8xlarge" in suggestions
    a10 = get_instance("ecs.gn7i-c32g1.8xlarge")
    assert (a10.vcpu, a10.memory_gib, a10.gpu_count, a10.gpu_model, a10.gpu_memory_gib) == (
        32,
        188,
        1,
        "A10",
        24,
    )
    assert all("-c16g1." in r.instance_type for r in list_instances(family="gn7e", include_retired=True))


def check_4_only_ebmgn7i_32xlarge_exists() -> None:
    suggestions = _unknown_instance("ecs.ebmgn7i.24xlarge")
    assert "ecs.ebmgn7i.32xlarge" in suggestions
    rows = list_instances(family="ebmgn7i", include_retired=True)
    assert [r.instance_type for r in rows] == ["ecs.ebmgn7i.32xlarge"]
    only = rows[0]
    assert (only.vcpu, only.memory_gib, only.gpu_count, only.gpu_model, only.gpu_memory_gib) == (
        128,
        768,
        4,
        "A10",
        24,
    )
    for name in ("ecs.ebmgn7e.32xlarge", "ecs.ebmgn7ex.32xlarge"):
        inst = get_instance(name)
        assert (inst.gpu_count, inst.gpu_memory_gib, inst.gpu_model) == (8, 80, "A100-80GB")


def check_5_h800_is_about_3x_a100() -> None:
    h800, a100 = get_gpu("H800"), get_gpu("A100-80GB")
    assert h800.bf16_dense_tflops == pytest.approx(989, rel=0.01)
    assert h800.fp8_dense_tflops == pytest.approx(1979, rel=0.01)
    assert a100.bf16_dense_tflops == 312 and a100.supports_fp8 is False
    assert h800.bf16_dense_tflops / a100.bf16_dense_tflops >= 3.0
    assert h800.nvlink_gb_s == 400 and a100.nvlink_gb_s == 600  # the cut that was made
    assert not any(i.gpu_name == "H800" for i in load_instances())


def check_6_avx512_is_a_cpu_feature() -> None:
    assert not any("avx" in field for field in GPU.model_fields)
    assert get_gpu("A10").interconnect is not None and "PCIe Gen4" in get_gpu("A10").interconnect
    assert all("Ice Lake" in (r.notes or "") for r in list_instances(family="gn7i"))


def check_7_a10_memory() -> None:
    a10 = get_gpu("A10")
    assert a10.memory_gib == 24
    # 70B at 4 bits is ~35 GB of weights: more than one A10 holds; Alibaba's 8x A10 host exists.
    assert 70e9 * 0.5 > _usable_bytes(a10)
    assert get_instance("ecs.ebmgn7ix.32xlarge").gpu_count == 8


def check_8_l20_types() -> None:
    suggestions = _unknown_instance("ecs.l20-c32g1.8xlarge")
    assert any(s.startswith("ecs.gn8is") for s in suggestions)
    named = {i.family for i in load_instances() if i.gpu_model == "L20"}
    assert named == {"gn8is", "gn8ia", "ebmgn8is", "ebmgn8ia"}
    assert [i.gpu_count for i in list_instances(family="gn8is")] == [1, 1, 2, 4, 8]
    assert get_gpu("L20").memory_gib == 48


def check_9_h800_type_does_not_exist() -> None:
    _unknown_instance("ecs.h800-cv12xe.24xlarge")
    assert get_gpu("h800").name == "H800"
    assert list_instances(gpu="H800", include_retired=True, include_vgpu=True) == []


def check_10_a100_312_is_dense_tensor() -> None:
    for name in ("A100-80GB", "A100-40GB", "A100-80GB-PCIe", "A100-40GB-PCIe"):
        gpu = get_gpu(name)
        assert (gpu.bf16_dense_tflops, gpu.fp16_dense_tflops, gpu.fp32_tflops) == (312, 312, 19.5)
        assert "624" in (gpu.notes or "") or name.endswith("PCIe")


def check_11_weights_only_memory() -> None:
    # 70B FP16 weights = 140 GB = 130.4 GiB: above one A100-80GB, within two.
    a100 = get_gpu("A100-80GB")
    assert a100.memory_gib == 80
    weights = 70e9 * 2
    assert _usable_bytes(a100) < weights < 2 * _usable_bytes(a100)


def check_12_l20_48gb_below_qwen72b_int4() -> None:
    l20 = get_gpu("L20")
    assert l20.memory_gib == 48
    # Qwen-72B-Chat-Int4 measured 48.86 GB: one L20 cannot hold it, two can.
    assert _usable_bytes(l20) < 48.86 * GB < 2 * _usable_bytes(l20)


@dataclass(frozen=True)
class Correction:
    row: int
    claim: str
    fact: str
    source: str
    check: Callable[[], None]


CORRECTIONS = [
    Correction(
        1,
        "gn7i: A100 (SXM) 80GB, for large-model training",
        "gn7i is NVIDIA A10 24 GB, PCIe without NVLink, 1-8 GPUs",
        f"{ALIYUN_EN}#f0fceb6eb6g8f ; {ALIYUN_NAMING}",
        check_1_gn7i_is_a10,
    ),
    Correction(
        2,
        "gn7e: A10 24GB",
        "gn7e has 80 GB per GPU (A100 80GB, named by the DescribeInstanceTypes API), 1/2/4/8 GPUs",
        f"{ALIYUN_EN}#aa0e2de67bbmb ; https://pypi.org/project/deepnccl/",
        check_2_gn7e_is_80gb_a100_class,
    ),
    Correction(
        3,
        "ecs.gn7e-c32g1.8xlarge is an A10 instance",
        "no such type; ecs.gn7i-c32g1.8xlarge is 32 vCPU / 188 GiB / 1x A10",
        f"{ALIYUN_EN}#f0fceb6eb6g8f",
        check_3_gn7e_c32g1_8xlarge_does_not_exist,
    ),
    Correction(
        4,
        "ecs.ebmgn7i.24xlarge is A100 80G",
        "only ecs.ebmgn7i.32xlarge exists: 128 vCPU, 768 GiB, 4x A10 24 GB",
        f"{ALIYUN_EN}#section-c3o-993-wra",
        check_4_only_ebmgn7i_32xlarge_exists,
    ),
    Correction(
        5,
        "H800 is slightly slower than A100",
        "H800 ~989 dense BF16 / ~1979 FP8 vs A100 312 and no FP8: ~3x faster; only NVLink/FP64 cut",
        f"{NVIDIA_A100} ; https://aiwiki.ai/wiki/nvidia_h800",
        check_5_h800_is_about_3x_a100,
    ),
    Correction(
        6,
        "A10 supports AVX512",
        "AVX-512 is a host-CPU ISA (gn7i: Intel Ice Lake), not a GPU feature",
        f"{NVIDIA_A10} ; {ALIYUN_EN}#f0fceb6eb6g8f",
        check_6_avx512_is_a_cpu_feature,
    ),
    Correction(
        7,
        "A10 24GB is enough for quantized models under 70B",
        "A10 has 24 GB; 70B INT4 weights alone are ~35 GB",
        f"{NVIDIA_A10} ; {QWEN_README}",
        check_7_a10_memory,
    ),
    Correction(
        8,
        "L20 instance ecs.l20-c32g1.8xlarge",
        "no such type; L20 types are gn8is, gn8ia, ebmgn8is and ebmgn8ia",
        f"{ALIYUN_EN}#gn8is ; {ALIYUN_NAMING}",
        check_8_l20_types,
    ),
    Correction(
        9,
        "H800 instance ecs.h800-cv12xe.24xlarge",
        "no such type, and no ECS family documented with H800",
        f"{ALIYUN_NAMING} ; {ALIYUN_EN}",
        check_9_h800_type_does_not_exist,
    ),
    Correction(
        10,
        "A100 FP16 312 TFLOPS",
        "312 is dense FP16/BF16 Tensor Core (624 sparse; FP32 19.5)",
        NVIDIA_A100,
        check_10_a100_312_is_dense_tensor,
    ),
    Correction(
        11,
        "7B FP16 ~ 14GB, 70B FP16 ~ 140GB",
        "weights only (decimal GB); 140 GB needs more than one A100-80GB",
        f"{NVIDIA_A100} ; {QWEN_README}",
        check_11_weights_only_memory,
    ),
    Correction(
        12,
        "Qwen-70B INT4 on 1-2x L20 48G",
        "L20 has 48 GB; Qwen-72B-Chat-Int4 measured 48.86 GB, so 2x L20 is the minimum",
        f"{ALIYUN_EN}#gn8is ; {QWEN_README} ; {ALIYUN_BAREMETAL_ZH}",
        check_12_l20_48gb_below_qwen72b_int4,
    ),
]


def test_all_twelve_rows_are_covered() -> None:
    assert [c.row for c in CORRECTIONS] == list(range(1, 13))


@pytest.mark.parametrize("correction", CORRECTIONS, ids=[f"row{c.row}" for c in CORRECTIONS])
def test_seed_claim_is_corrected(correction: Correction) -> None:
    assert correction.source.startswith("https://")
    correction.check()
