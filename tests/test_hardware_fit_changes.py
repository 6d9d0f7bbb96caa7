"""The smallest change that makes a run fit named hardware, for adapters on several GPUs.

Domain: LoRA on several GPUs replicates the frozen base under plain data parallel; sharding it (FSDP /
ZeRO-3, as PEFT documents) and a 4-bit base together (FSDP+QLoRA, which trains 70B models on two 24 GB
cards) are the changes practitioners make, so the search must try them, the pair included.
"""

from __future__ import annotations

from tools.hardware_fit import evaluate_hardware


def test_lora_72b_on_eight_a10s_fits_with_a_sharded_4_bit_base() -> None:
    fit = evaluate_hardware("Qwen2.5-72B-Instruct", task="lora", gpu="A10", gpus=8)
    assert not fit.fits and fit.per_gpu_needed_gib > 100  # a full bf16 replica on each card
    tried = {c.code: c for c in fit.changes}
    assert not tried["sharded_adapters"].fits  # bf16 base sharded: still ~30 GiB per card
    assert tried["qlora_sharded"].fits and tried["qlora_sharded"].per_gpu_gib < fit.per_gpu_usable_gib
    assert fit.changes[0].code == "qlora_sharded"  # the fitting change is offered first


def test_a_single_gpu_is_not_offered_sharding() -> None:
    fit = evaluate_hardware("Qwen2.5-72B-Instruct", task="lora", gpu="A10", gpus=1)
    assert not {"sharded_adapters", "qlora_sharded"} & {c.code for c in fit.changes}
