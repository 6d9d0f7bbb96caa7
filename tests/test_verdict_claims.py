"""Claims about GPUs read against the spec sheets, and the words that fix one card ("a single 4090")."""

from __future__ import annotations

import pytest

from assistant.intents.catalog import _same_gpu
from assistant.intents.gpu_claims import comparison_line, number_claim, winner_line
from assistant.intents.verdict_words import gpu_sets, machines
from assistant.understanding import understand
from tools.catalog import get_gpu


@pytest.mark.parametrize(
    ("question", "gpu", "code"),
    [
        ("The A100 does 312 TFLOPS in FP16, true?", "A100-80GB", "claim.number_yes"),
        ("A100 有 624 TFLOPS 吗", "A100-80GB", "claim.number_sparse"),
        ("H20 has 296 TFLOPS of BF16, right?", "H20", "claim.number_sparse"),
        ("L20 显存是 48G 吧？", "L20", "claim.number_yes"),
        ("Is the A10's memory 32 GB?", "A10", "claim.number_no"),
    ],
)
def test_a_stated_figure_is_checked_against_the_spec_sheet(question: str, gpu: str, code: str) -> None:
    claim = number_claim(question, get_gpu(gpu), "en")
    assert claim is not None and claim.code == code


def test_a_figure_without_a_question_is_not_a_claim() -> None:
    assert number_claim("Plan Qwen2.5-7B on A10 with 24 GB", get_gpu("A10"), "en") is None


def test_the_sparse_figure_names_the_dense_one() -> None:
    gpu = get_gpu("A100-80GB")
    claim = number_claim("A100 有 624 TFLOPS 吗", gpu, "zh")
    assert claim is not None and claim.figures["dense"] == f"{gpu.bf16_dense_tflops:g}"


@pytest.mark.parametrize(
    ("question", "a", "b", "code"),
    [
        ("Is the H800 slower than the A100?", "H800", "A100-80GB", "claim.compare_no"),
        ("H800 性能略低于 A100，这个说法靠谱吗？", "H800", "A100-80GB", "claim.compare_no"),
        ("Is the H800 faster than the A100?", "H800", "A100-80GB", "claim.compare_yes"),
        ("Is the A10 slower than the L20 for decoding?", "A10", "L20", "claim.compare_yes"),
        ("H20 和 A100 80GB 哪个解码更快？", "H20", "A100-80GB", "claim.decodes_faster"),
        ("A800 和 H800 做预训练选哪个", "A800-80GB", "H800", "claim.trains_faster"),
    ],
)
def test_comparative_claims_and_which_questions(question: str, a: str, b: str, code: str) -> None:
    line = comparison_line(question, get_gpu(a), get_gpu(b), "en")
    assert line is not None and line.code == code


def test_the_winner_is_the_gpu_with_the_higher_figure() -> None:
    h20, l20 = get_gpu("H20"), get_gpu("L20")
    fast = winner_line(l20, h20, "bandwidth", "en")
    assert (
        fast is not None and fast.figures["winner"] == max((h20, l20), key=lambda g: g.memory_bandwidth_gb_s or 0).name
    )
    compute = winner_line(l20, h20, "compute", "en")
    assert compute is not None and compute.figures["winner"] == "H20" and compute.code == "claim.trains_faster"


@pytest.mark.parametrize(
    "question",
    [
        "will a single RTX 4090 handle Qwen2.5-14B AWQ?",
        "Is one A10 enough to serve Qwen2.5-7B?",
        "7B needs 14 GB, so a 16 GB card like the T4 is enough?",
    ],
)
def test_one_named_card_is_a_count_of_one(question: str) -> None:
    slots = understand(question)
    assert slots.gpus == 1 and slots.asks_verdict


def test_one_instance_of_a_family_is_not_one_gpu() -> None:
    assert understand("Is one A10 instance enough for Qwen2.5-7B?").gpus is None


@pytest.mark.parametrize(
    ("question", "sets"),
    [
        ("4 张 L20 还是 2 张 H20 跑 Qwen2.5-72B AWQ", [("L20", 4), ("H20", 2)]),
        ("Qwen2.5-72B AWQ: 4x L20 or 2x H20?", [("L20", 4), ("H20", 2)]),
        ("八张 A10 和两张 A100 80G 部署 70B", [("A10", 8), ("A100-80GB", 2)]),
        ("we have 4 L20 cards", [("L20", 4)]),
    ],
)
def test_gpu_sets_are_read_in_order(question: str, sets: list[tuple[str, int]]) -> None:
    assert [(h["gpu"], h["gpus"]) for h in gpu_sets(question)] == sets


@pytest.mark.parametrize(
    ("question", "boxes"),
    [
        ("两台 8 卡 H20 跑 DeepSeek-R1", (2, 8)),
        ("3 台机器，每台 4 张 A10", (3, 4)),
        ("two 8-GPU H20 boxes", (2, 8)),
        ("2 nodes of 8x H800", (2, 8)),
        ("4 张 L20, 16 并发", None),
    ],
)
def test_machines_of_several_gpus(question: str, boxes: tuple[int, int] | None) -> None:
    assert machines(question) == boxes


@pytest.mark.parametrize(
    ("claimed", "actual", "same"),
    [("A10", "A100-80GB", False), ("A100", "A100-80GB", True), ("A100 80G", "A100-80GB", True), ("H800", "A10", False)],
)
def test_a_claimed_gpu_matches_only_its_own_variants(claimed: str, actual: str, same: bool) -> None:
    assert _same_gpu(claimed, actual) is same
