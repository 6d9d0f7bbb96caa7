"""One golden test per software-stack quirk the estimator models, each with its source.

Published figures here come from the held-out set (``benchmarks/data/memory_heldout.csv``); they test a
behaviour, no constant was fitted on them. Tolerances are stated per case.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tools.errors import ToolInputError
from tools.hf_config import architecture_from_config
from tools.memory import estimate_memory
from tools.memory_band import band_for, load_bands
from tools.memory_stack import (
    fused_linear_ce_bytes,
    is_serving_engine,
    kv_cache_copies_at_peak,
    modules_to_save_params,
    optimizer_from_name,
    parse_version,
    prompt_logits_bytes_per_element,
    vllm_profile_tokens,
    zero3_live_params,
    zero3_persistent_params,
    zero3_settings,
    zero_bucket_bytes,
)
from tools.memory_terms import GIB, eager_attention_score_bytes, layer_backward_bytes, shapes
from tools.models import resolve_model
from tools.throughput import GpuPerf, decode_speed

QWEN2_BENCH = "https://qwen.readthedocs.io/en/v2.0/_sources/benchmark/speed_benchmark.rst.txt"
QWEN1_README = "https://github.com/QwenLM/Qwen/blob/2df8e8ac450fa185c421a08b0090ef81826caa6e/README.md"
VLLM_PR_10511 = "https://github.com/vllm-project/vllm/pull/10511"
A100 = GpuPerf(name="A100-80GB", memory_bandwidth_gb_s=2039, dense_tflops=312, link_gb_s=600)


def test_versions_compare_as_numbers() -> None:
    assert parse_version("4.38.2") == (4, 38, 2)
    assert parse_version("0.6.5.post1") == (0, 6, 5)
    assert parse_version("4.46.0+cu121") == (4, 46, 0)
    assert parse_version(None) is None and parse_version("main") is None


def test_old_transformers_keep_logits_for_every_prompt_position() -> None:
    # Source: QWEN2_BENCH, transformers 4.38.2: Qwen2-0.5B-Instruct, 30720-token prompt + 2048 generated,
    # sum of max_memory_allocated 27.61 GiB; the logits (30720 x 151936 x 6 B = 26.1 GiB) dominate.
    arch = resolve_model("Qwen2-0.5B-Instruct")
    assert prompt_logits_bytes_per_element("transformers", "4.38.2", arch) == 6.0
    assert prompt_logits_bytes_per_element("transformers", "4.46.0", arch) == 0.0
    assert prompt_logits_bytes_per_element("vllm", "0.4.2", arch) == 0.0
    old = estimate_memory(
        {"model": arch.name, "prompt_tokens": 30720, "gen_tokens": 2048, "framework_version": "4.38.2"}, arch
    )
    new = estimate_memory({"model": arch.name, "prompt_tokens": 30720, "gen_tokens": 2048}, arch)
    assert old.total_tensors_gib == pytest.approx(27.61, rel=0.05)
    assert new.total_tensors_gib < 5
    assert any("4.38.2" in line.text for line in old.assumptions)


def test_remote_code_qwen_v1_concatenates_its_kv_cache_and_keeps_bf16_logits() -> None:
    # Source: QWEN1_README "Inference Performance": Qwen-7B-Chat BF16, 2048 tokens generated after 1
    # context token, 16.99 GB (max_memory_allocated). Two KV copies alive at the end of a step.
    arch = resolve_model("Qwen-7B-Chat")
    assert kv_cache_copies_at_peak("transformers", None, arch) == 2.0
    assert prompt_logits_bytes_per_element("transformers", "4.32.0", arch) == 2.0
    est = estimate_memory({"model": arch.name, "prompt_tokens": 1, "gen_tokens": 2048}, arch)
    single = arch.kv_cache_elements(2049) * 2 / GIB
    assert est.per_gpu.kv_cache_gib == pytest.approx(2 * single, rel=0.01)
    assert est.per_gpu_tensors_gib == pytest.approx(16.99, rel=0.05)


def test_tuple_caches_before_transformers_4_36_hold_two_copies() -> None:
    # transformers v4.36.0 release notes: the Cache classes (DynamicCache) replace the legacy tuples.
    llama = resolve_model("Llama-3.1-8B-Instruct")
    assert kv_cache_copies_at_peak("transformers", "4.35.2", llama) == 2.0
    assert kv_cache_copies_at_peak("transformers", "4.36.0", llama) == 1.0
    assert kv_cache_copies_at_peak("vllm", "0.2.0", llama) == 1.0


def test_qwen_v1_names_never_collapse_onto_qwen25() -> None:
    v1 = resolve_model("Qwen-7B-Chat")
    assert v1.family == "Qwen" and v1.num_kv_heads == v1.num_attention_heads == 32
    assert resolve_model("Qwen/Qwen-72B-Chat").name == "Qwen-72B-Chat"
    assert resolve_model("qwen 7b").name == "Qwen2.5-7B-Instruct"  # a bare size: the newest generation
    # Full multi-head attention: 8x the KV cache of Qwen2.5-7B's 4 KV heads (per layer, same head size).
    q25 = resolve_model("Qwen2.5-7B-Instruct")
    per_layer_v1 = v1.kv_cache_elements(1) / v1.num_layers
    per_layer_q25 = q25.kv_cache_elements(1) / q25.num_layers
    assert per_layer_v1 / per_layer_q25 == pytest.approx(32 / 4)


def test_qwen_v1_config_halves_intermediate_size() -> None:
    # modeling_qwen.py QWenMLP: ff_dim_in = config.intermediate_size // 2; Qwen-7B has 7.72B parameters.
    arch = resolve_model("Qwen-7B-Chat")
    assert arch.intermediate_size == 11008
    assert arch.param_breakdown().total / 1e9 == pytest.approx(7.72, abs=0.01)


def test_tensor_parallel_shards_weights_and_kv_but_not_hidden_states() -> None:
    # Source: VLLM_PR_10511: Llama-3-8B on H100, weights 14.96 GiB at TP1 and 7.48 GiB per GPU at TP2.
    arch = resolve_model("Llama-3-8B-Instruct")
    req = {"model": arch.name, "framework": "vllm", "prompt_tokens": 4096, "gen_tokens": 0}
    tp1 = estimate_memory(req, arch)
    tp2 = estimate_memory({**req, "gpus": 2}, arch)
    assert tp1.per_gpu.weights_gib == pytest.approx(14.96, rel=0.01)
    assert tp2.per_gpu.weights_gib == pytest.approx(7.48, rel=0.02)
    assert tp2.per_gpu.kv_cache_gib == pytest.approx(tp1.per_gpu.kv_cache_gib / 2, rel=0.01)
    # The profile run's hidden states and sampler logits are replicated: activations shrink by less than 2x.
    assert tp2.per_gpu.activations_gib > tp1.per_gpu.activations_gib / 2


def test_json_carries_allocated_reserved_and_nvidia_smi() -> None:
    est = estimate_memory({"model": "Qwen2.5-7B-Instruct", "prompt_tokens": 4096, "gen_tokens": 512})
    data = json.loads(est.model_dump_json())
    assert data["per_gpu_allocated_gib"] == data["per_gpu_tensors_gib"]
    assert data["per_gpu_allocated_gib"] < data["per_gpu_reserved_gib"] < data["per_gpu_nvidia_smi_gib"]
    assert data["per_gpu_nvidia_smi_gib"] == data["per_gpu_total_gib"]
    # nvidia-smi minus reserved is the CUDA context (0.5 GiB on one GPU, no NCCL).
    assert data["per_gpu_nvidia_smi_gib"] - data["per_gpu_reserved_gib"] == pytest.approx(0.5, abs=0.002)


def test_peft_modules_to_save_trains_a_copy_of_embeddings_and_head() -> None:
    # Source: QWEN1_README "Profiling of Memory and Speed": Qwen-7B LoRA (emb) 33.7G vs LoRA 20.1G at
    # 256 tokens: 13.6 GB more for trainable wte + lm_head copies. Tolerance 15%.
    arch = resolve_model("Qwen-7B-Chat")
    assert modules_to_save_params(arch, ("embed", "lm_head")) == 2 * arch.vocab_size * arch.hidden_size
    req = {"model": arch.name, "task": "lora", "seq_len": 256, "lora_r": 64, "framework": "peft"}
    plain = estimate_memory(req, arch)
    emb = estimate_memory({**req, "modules_to_save": "embed,lm_head"}, arch)
    extra_gb = (emb.per_gpu_total_gib - plain.per_gpu_total_gib) * GIB / 1e9
    assert extra_gb == pytest.approx(13.6, rel=0.15)
    assert any("modules_to_save" in line.text for line in emb.assumptions)


def test_dora_adds_one_dense_adapted_matrix() -> None:
    arch = resolve_model("Llama-3.1-8B-Instruct")
    req = {"model": arch.name, "task": "lora", "seq_len": 1024, "framework": "peft"}
    lora = estimate_memory(req, arch)
    dora = estimate_memory({**req, "use_dora": True}, arch)
    added = (dora.per_gpu_tensors_gib - lora.per_gpu_tensors_gib) * GIB
    assert added == pytest.approx(shapes(arch).largest_matrix * 2, rel=0.02)


def test_deepspeed_buckets_follow_hf_auto_sizes() -> None:
    # HF Trainer DeepSpeed integration: reduce_bucket_size = hidden^2, stage3_prefetch_bucket_size = 0.9 hidden^2.
    arch = resolve_model("Qwen2.5-7B-Instruct")
    h2 = arch.hidden_size**2
    assert zero_bucket_bytes(arch, 3, hf_auto=True) == pytest.approx(1.9 * h2 * 2)
    assert zero_bucket_bytes(arch, 2, hf_auto=False) == pytest.approx(2 * 500_000_000 * 2)
    assert zero_bucket_bytes(arch, 0, hf_auto=True) == 0.0
    req = {"model": arch.name, "task": "full", "seq_len": 2048, "gpus": 8, "zero": 3}
    plain = estimate_memory(req, arch)
    ds = estimate_memory({**req, "framework": "deepspeed"}, arch)
    added = ds.per_gpu.other_gib - plain.per_gpu.other_gib
    assert added == pytest.approx(1.9 * h2 * 2 / GIB, abs=0.002)  # the estimate rounds to 0.001 GiB


def test_torchtune_trains_in_pure_bf16_unless_told_otherwise() -> None:
    arch = resolve_model("Llama-3.1-8B-Instruct")
    req = {"model": arch.name, "task": "full", "seq_len": 2048, "gpus": 8, "zero": 3}
    hf = estimate_memory(req, arch)
    tt = estimate_memory({**req, "framework": "torchtune"}, arch)
    forced = estimate_memory({**req, "framework": "torchtune", "master_weights": True}, arch)
    assert tt.per_gpu.optimizer_gib == pytest.approx(hf.per_gpu.optimizer_gib / 3, rel=0.01)  # 4 B vs 12 B
    assert forced.per_gpu.optimizer_gib == pytest.approx(hf.per_gpu.optimizer_gib, rel=0.01)


def test_chunked_cross_entropy_holds_a_fraction_of_the_full_logits_loss() -> None:
    # torchtune CEWithChunkedOutputLoss (8 chunks) vs HF ForCausalLMLoss on full fp32 logits.
    arch = resolve_model("Llama-3.1-8B-Instruct")
    req = {"model": arch.name, "task": "lora", "seq_len": 8192, "framework": "torchtune"}
    full = estimate_memory(req, arch)
    chunked = estimate_memory({**req, "chunked_ce": True}, arch)
    assert chunked.per_gpu.activations_gib < 0.5 * full.per_gpu.activations_gib


def test_eight_bit_and_paged_optimizers() -> None:
    arch = resolve_model("Llama-3.1-8B-Instruct")
    req = {"model": arch.name, "task": "full", "seq_len": 1024, "framework": "torchtune"}
    adamw = estimate_memory(req, arch)
    eight = estimate_memory({**req, "optimizer": "adamw-8bit"}, arch)
    paged = estimate_memory({**req, "optimizer": "paged-adamw-8bit"}, arch)
    assert eight.per_gpu.optimizer_gib == pytest.approx(adamw.per_gpu.optimizer_gib / 2, rel=0.02)  # 2 B vs 4 B
    assert paged.per_gpu.optimizer_gib == 0.0  # unified memory, paged to host


def test_eager_attention_builds_the_score_matrix() -> None:
    arch = resolve_model("Qwen2.5-7B-Instruct")
    assert eager_attention_score_bytes(arch, 8192, 8192, 1) == 28 * 8192 * 8192 * 6
    req = {"model": arch.name, "prompt_tokens": 8192, "gen_tokens": 1}
    sdpa = estimate_memory(req, arch)
    eager = estimate_memory({**req, "attn_implementation": "eager"}, arch)
    # 28 heads x 8192^2 x 6 B = 10.5 GiB of scores instead of a 1 GiB MLP transient.
    assert eager.per_gpu.activations_gib > sdpa.per_gpu.activations_gib + 9


def test_config_import_reads_non_gated_mlps_and_multi_query() -> None:
    # bigcode/starcoder config.json: 15.5B parameters, multi_query, n_inner 24576 (two-matrix MLP).
    starcoder = architecture_from_config(
        {
            "model_type": "gpt_bigcode",
            "n_embd": 6144,
            "n_layer": 40,
            "n_head": 48,
            "n_inner": 24576,
            "n_positions": 8192,
            "vocab_size": 49152,
            "multi_query": True,
        },
        name="starcoder",
        source_url="https://huggingface.co/bigcode/starcoder/blob/main/config.json",
    )
    assert (starcoder.num_kv_heads, starcoder.gated_mlp, starcoder.max_context) == (1, False, 8192)
    assert starcoder.param_breakdown().total / 1e9 == pytest.approx(15.5, abs=0.1)
    # tiiuae/falcon-7b: multi_query, MLP 4 x hidden by the config class default, 6.92B parameters.
    falcon = architecture_from_config(
        {
            "model_type": "falcon",
            "hidden_size": 4544,
            "num_hidden_layers": 32,
            "num_attention_heads": 71,
            "vocab_size": 65024,
            "multi_query": True,
            "bias": False,
            "max_position_embeddings": 2048,
        },
        name="falcon-7b",
        source_url="https://huggingface.co/tiiuae/falcon-7b/blob/main/config.json",
    )
    assert (falcon.num_kv_heads, falcon.gated_mlp, falcon.intermediate_size) == (1, False, 4 * 4544)
    assert falcon.param_breakdown().total / 1e9 == pytest.approx(6.92, abs=0.02)
    # EleutherAI/pythia-2.8b (GPT-NeoX) and microsoft/phi-2: full MHA, two-matrix MLP, 2.7-2.8B.
    for model_type, vocab in (("gpt_neox", 50304), ("phi", 51200)):
        arch = architecture_from_config(
            {
                "model_type": model_type,
                "hidden_size": 2560,
                "intermediate_size": 10240,
                "num_attention_heads": 32,
                "num_hidden_layers": 32,
                "vocab_size": vocab,
                "max_position_embeddings": 2048,
                "tie_word_embeddings": False,
            },
            name=model_type,
            source_url="config.json",
        )
        assert (arch.num_kv_heads, arch.gated_mlp) == (32, False)
        assert arch.param_breakdown().total / 1e9 == pytest.approx(2.78, abs=0.02)


def test_every_estimate_carries_a_band_from_held_out_residuals() -> None:
    bands = load_bands()
    assert set(bands) == {"inference-transformers", "inference-serving", "fine-tuning"}
    for band in bands.values():
        assert band.p10 <= 1.0 <= band.p90 and band.rows >= 10
    est = estimate_memory({"model": "Qwen2.5-7B-Instruct", "task": "lora", "seq_len": 2048})
    assert est.per_gpu_band_low_gib <= est.per_gpu_total_gib <= est.per_gpu_band_high_gib
    assert est.per_gpu_band_high_gib == pytest.approx(est.per_gpu_total_gib * band_for("peft", "lora").p90, rel=0.01)
    assert any("uncertainty band" in line.text and "held-out" in line.text for line in est.assumptions)


def test_hf_transformers_decode_is_launch_bound_and_vllm_is_not() -> None:
    # Calibration source (Qwen2.5 speed benchmark, transformers 4.46, A100): Qwen2.5-0.5B BF16 47.4 tokens/s,
    # Qwen2.5-7B 40.4 tokens/s: almost the same, because Python launches dominate a small model's step.
    small, big = resolve_model("Qwen2.5-0.5B-Instruct"), resolve_model("Qwen2.5-7B-Instruct")
    hf_small = decode_speed(
        small, A100, weight_bytes_total=0.99e9, kv_bytes_per_sequence=0, batch=1, engine="transformers"
    )
    hf_big = decode_speed(big, A100, weight_bytes_total=15.2e9, kv_bytes_per_sequence=0, batch=1, engine="transformers")
    vllm_small = decode_speed(small, A100, weight_bytes_total=0.99e9, kv_bytes_per_sequence=0, batch=1)
    assert hf_small.tokens_per_s_per_stream == pytest.approx(47.4, rel=0.15)
    assert hf_big.tokens_per_s_per_stream == pytest.approx(40.4, rel=0.15)
    assert vllm_small.tokens_per_s_per_stream > 5 * hf_small.tokens_per_s_per_stream


def test_stack_validation_messages() -> None:
    from tools.errors import ToolInputError

    assert is_serving_engine("sglang") and not is_serving_engine("peft")
    with pytest.raises(ToolInputError, match="inference engine"):
        estimate_memory({"model": "Qwen2.5-7B-Instruct", "task": "lora", "framework": "vllm"})
    with pytest.raises(ToolInputError, match="training stack"):
        estimate_memory({"model": "Qwen2.5-7B-Instruct", "framework": "deepspeed"})
    with pytest.raises(ToolInputError, match="framework_version"):
        estimate_memory({"model": "Qwen2.5-7B-Instruct", "framework_version": "latest please"})


def test_cli_takes_framework_and_version() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "ui",
            "estimate",
            "--model",
            "Qwen2-0.5B-Instruct",
            "--prompt-tokens",
            "14336",
            "--gen-tokens",
            "2048",
            "--framework",
            "transformers",
            "--framework-version",
            "4.38.2",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["framework_version"] == "4.38.2"
    assert data["total_tensors_gib"] == pytest.approx(13.48, rel=0.05)  # QWEN2_BENCH, 14336-token prompt


def test_peft_kbit_preparation_upcasts_unquantised_weights_of_a_bnb_base() -> None:
    # peft/utils/other.py prepare_model_for_kbit_training: fp16/bf16 params -> fp32 unless GPTQ/AWQ.
    arch = resolve_model("Llama-3.1-8B-Instruct")
    req = {"model": arch.name, "task": "qlora", "seq_len": 1024}
    hf = estimate_memory({**req, "framework": "transformers"}, arch)
    peft = estimate_memory({**req, "framework": "peft"}, arch)
    gptq = estimate_memory({**req, "framework": "peft", "quant": "gptq-int4"}, arch)
    pb = arch.param_breakdown()
    added = (peft.per_gpu.weights_gib - hf.per_gpu.weights_gib) * GIB
    assert added == pytest.approx((pb.embedding + pb.lm_head + pb.norms) * 2, rel=0.01)
    assert gptq.per_gpu.weights_gib < peft.per_gpu.weights_gib


TORCHTUNE_PR_1348 = "https://github.com/meta-pytorch/torchtune/pull/1348"


def test_reserved_slack_grows_with_the_largest_transient_not_with_the_model() -> None:
    # Source: TORCHTUNE_PR_1348, CodeLlama-7B right after loading: peak allocated 13.19 GiB, reserved
    # 13.27 GiB: 0.08 GiB of slack (a flat 5% of the tensors would say 0.66). Llama-2-7B differs from
    # CodeLlama-7B by 16 vocabulary rows. Tolerance 0.1 GiB absolute.
    # Rule: c10/cuda/CUDACachingAllocator.cpp (2 MiB rounding, freed blocks cached, best fit with splits).
    arch = resolve_model("Llama-2-7B-Chat")
    loaded = estimate_memory({"model": arch.name, "prompt_tokens": 1, "gen_tokens": 1}, arch)
    assert loaded.per_gpu_reserved_gib - loaded.per_gpu_allocated_gib == pytest.approx(0.08, abs=0.1)
    long = estimate_memory({"model": arch.name, "prompt_tokens": 16384, "gen_tokens": 1}, arch)
    mlp_buffer = 16384 * arch.intermediate_size * 2 / GIB
    slack = long.per_gpu_reserved_gib - long.per_gpu_allocated_gib
    assert slack == pytest.approx(0.5 * mlp_buffer, abs=0.1)
    assert long.per_gpu_nvidia_smi_gib - long.per_gpu_reserved_gib == pytest.approx(0.5, abs=0.002)


VLLM_ISSUE_15815 = "https://github.com/vllm-project/vllm/issues/15815"


def test_vllm_v0_profiles_a_whole_max_model_len_prefill_and_v1_a_chunk() -> None:
    # Rule: vllm/config.py SchedulerConfig (V0: max(max_model_len, 2048) without chunked prefill; 512 when
    # arg_utils.py switches chunked prefill on above 32K) and V1 (0.8+) always chunked, 8192 tokens.
    assert vllm_profile_tokens("0.6.4", None, 10000) == 10000
    assert vllm_profile_tokens("0.6.4", None, 131072) == 512
    assert vllm_profile_tokens("0.8.5", None, 10000) == 8192
    assert vllm_profile_tokens(None, 4096, 131072) == 4096
    # Source: VLLM_ISSUE_15815, "Initializing a V0 LLM engine (v0.7.1)", Qwen2.5-32B-Instruct bf16, TP 2 on
    # L40S, max_seq_len=10000, chunked_prefill_enabled=False: "PyTorch activation peak memory takes 1.26GiB".
    # Tolerance 20% (the sampler term is sized on Llama-3's vocabulary).
    arch = resolve_model("Qwen2.5-32B-Instruct")
    common = {"model": arch.name, "framework": "vllm", "gpus": 2, "prompt_tokens": 1000, "max_model_len": 10000}
    v0 = estimate_memory({**common, "framework_version": "0.7.1"}, arch)
    v1 = estimate_memory({**common, "framework_version": "0.8.5"}, arch)
    assert v0.per_gpu.activations_gib == pytest.approx(1.26, rel=0.2)
    assert v1.per_gpu.activations_gib < v0.per_gpu.activations_gib
    assert any("V0 engine" in line.text and "10000 tokens" in line.text for line in v0.assumptions)
    assert any("up to 512" in line.text for line in v1.assumptions)


DS_ZERO_CONFIG = "https://github.com/microsoft/DeepSpeed/blob/master/deepspeed/runtime/zero/config.py"
HF_DS_AUTO = "https://github.com/huggingface/transformers/blob/main/src/transformers/integrations/deepspeed.py"


def test_deepspeed_zero3_by_its_config_names() -> None:
    # Sources: DS_ZERO_CONFIG (defaults: prefetch 5e7, persistence 1e5, max live 1e9) and HF_DS_AUTO ("auto":
    # stage3_prefetch_bucket_size 0.9 h^2, stage3_param_persistence_threshold 10 h). Tensors under the
    # threshold are never partitioned (norms, q/k/v biases); DeepSpeed gathers leaf modules.
    arch = resolve_model("Qwen2.5-7B-Instruct")
    h, kv_width = arch.hidden_size, arch.num_kv_heads * arch.head_dim
    assert zero3_settings(arch, None, None, None) == (int(0.9 * h * h), 10 * h, 1_000_000_000)
    per_layer_small = 2 * h + (h + 2 * kv_width)  # two RMSNorms + q/k/v biases
    assert zero3_persistent_params(arch, 10 * h) == arch.num_layers * per_layer_small + h
    embedding = shapes(arch).embedding  # the largest leaf module
    assert zero3_live_params(arch, 0, 1_000_000_000) == embedding
    assert zero3_live_params(arch, 10**8, 10**8) == embedding  # max_live never starves the running module
    req = {"model": arch.name, "task": "full", "seq_len": 2048, "gpus": 8, "zero": 3, "framework": "deepspeed"}
    auto = estimate_memory(req, arch)
    keep_all = estimate_memory({**req, "stage3_param_persistence_threshold": 10**9}, arch)
    assert keep_all.per_gpu.weights_gib > 7 * auto.per_gpu.weights_gib / 2  # whole matrices on every GPU
    capped = estimate_memory({**req, "stage3_max_live_parameters": embedding}, arch)
    assert capped.per_gpu.other_gib < auto.per_gpu.other_gib  # no room left for the prefetch bucket
    assert any("stage3_param_persistence_threshold 35,840" in line.text for line in auto.assumptions)


def test_zero3_on_one_gpu_with_offloaded_parameters_holds_only_the_gathered_modules() -> None:
    # Source: DeepSpeed "Memory Requirements" docs (estimate_zero3_model_states_mem_needs): with
    # offload_param=cpu and offload_optimizer=cpu one GPU needs 4 B x the largest layer's parameters
    # (its 16-bit weights and gradients); the weights half is 2 B x that layer, plus persistent tensors.
    arch = resolve_model("Qwen2.5-7B-Instruct")
    base = {"model": arch.name, "task": "full", "seq_len": 2048, "zero": 3, "framework": "deepspeed"}
    offloaded = estimate_memory({**base, "offload": "optimizer+params"}, arch)
    largest = shapes(arch).embedding * 2 / GIB
    assert offloaded.per_gpu.weights_gib == pytest.approx(largest, rel=0.01)
    assert offloaded.per_gpu.optimizer_gib == 0.0
    on_gpu = estimate_memory(base, arch)
    assert on_gpu.per_gpu.weights_gib == pytest.approx(arch.param_breakdown().total * 2 / GIB + largest, rel=0.01)
    nvme = estimate_memory({**base, "offload": "optimizer+params", "offload_device": "nvme"}, arch)
    assert nvme.per_gpu_tensors_gib == offloaded.per_gpu_tensors_gib
    assert "nvme" in nvme.layout.text and any("ZeRO-Infinity" in line.text for line in nvme.assumptions)


def test_fsdp_sharding_strategies_are_their_own_option() -> None:
    # Source: torch.distributed.fsdp.ShardingStrategy docs: FULL_SHARD shards parameters, gradients and
    # optimizer states; SHARD_GRAD_OP keeps parameters unsharded in forward/backward; NO_SHARD is DDP.
    arch = resolve_model("Llama-3.1-8B-Instruct")
    req = {"model": arch.name, "task": "full", "seq_len": 2048, "gpus": 8}
    for strategy, stage in (("FULL_SHARD", 3), ("SHARD_GRAD_OP", 2), ("NO_SHARD", 0)):
        fsdp = estimate_memory({**req, "fsdp_sharding_strategy": strategy}, arch)
        zero = estimate_memory({**req, "zero": stage}, arch)
        assert fsdp.per_gpu_tensors_gib == zero.per_gpu_tensors_gib
    full = estimate_memory({**req, "fsdp_sharding_strategy": "FULL_SHARD"}, arch)
    assert any("PyTorch FSDP FULL_SHARD" in line.text for line in full.assumptions)
    with pytest.raises(ToolInputError, match="shards like zero 3"):
        estimate_memory({**req, "fsdp_sharding_strategy": "FULL_SHARD", "zero": 2}, arch)
    with pytest.raises(ToolInputError, match="PyTorch FSDP"):
        estimate_memory({**req, "fsdp_sharding_strategy": "FULL_SHARD", "framework": "deepspeed"}, arch)
    with pytest.raises(ToolInputError, match="nvme"):
        estimate_memory({**req, "offload_device": "nvme"}, arch)


LIGER_FLCE = "https://github.com/linkedin/Liger-Kernel/blob/main/src/liger_kernel/ops/fused_linear_cross_entropy.py"
TORCH_ADAMW = "https://github.com/pytorch/pytorch/blob/main/torch/optim/adamw.py"
HF_OPTIM_NAMES = "https://github.com/huggingface/transformers/blob/main/src/transformers/training_args.py"


def test_liger_fused_linear_cross_entropy_never_holds_the_full_logits() -> None:
    # Source: LIGER_FLCE comment: "BT = 4096*4, V = 32000, H = 4096 ==> inc_factor = 8, chunk_size = 2048".
    arch = resolve_model("Llama-2-7B-Chat")  # V = 32000, H = 4096
    tokens = 4096 * 4
    expected = tokens * 4096 * 2 + 2048 * 32000 * 2 + tokens * 4
    assert fused_linear_ce_bytes(arch, tokens, 2) == expected
    req = {"model": arch.name, "task": "lora", "seq_len": 4096, "batch": 4}
    full = estimate_memory(req, arch)
    liger = estimate_memory({**req, "fused_linear_ce": True}, arch)
    full_logits = tokens * 32000 * 12  # HF ForCausalLMLoss: bf16 + fp32 + fp32 grad + bf16 grad
    # Peak at the start of backward: checkpoints + the larger of the loss and one layer's backward.
    layer = layer_backward_bytes(arch, tokens, compiled=False)
    saved = (full_logits - max(expected, layer)) / GIB
    assert full.per_gpu.activations_gib - liger.per_gpu.activations_gib == pytest.approx(saved, abs=0.002)
    assert any("Liger" in m for m in liger.meanings.values())


def test_optimizers_by_the_names_stacks_give_them() -> None:
    # Sources: HF_OPTIM_NAMES (OptimizerNames, also TRL's), torchtune configs (optimizer._component_),
    # TORCH_ADAMW: the foreach step builds ``torch._foreach_sqrt(exp_avg_sqs)``, a copy of the second moment.
    assert optimizer_from_name("paged_adamw_8bit") == ("paged-adamw-8bit", False)
    assert optimizer_from_name("bitsandbytes.optim.PagedAdamW8bit") == ("paged-adamw-8bit", False)
    assert optimizer_from_name("torchao.optim.AdamW8bit") == ("adamw-8bit", False)
    assert optimizer_from_name("adamw_torch") == ("adamw", True)
    assert optimizer_from_name("adamw_torch_fused") == ("adamw", False)
    assert optimizer_from_name("lion") is None
    arch = resolve_model("Qwen2.5-1.5B-Instruct")
    req = {"model": arch.name, "task": "full", "seq_len": 512}
    fused = estimate_memory({**req, "optimizer": "adamw_torch_fused"}, arch)
    foreach = estimate_memory({**req, "optimizer": "adamw_torch"}, arch)
    assert foreach.peak_phase == "optimizer step (foreach temporaries)"
    extra = foreach.per_gpu.optimizer_gib - fused.per_gpu.optimizer_gib
    assert extra == pytest.approx(arch.param_breakdown().total * 4 / GIB, rel=0.01)  # fp32 second moment
    eight = estimate_memory({**req, "optimizer": "adamw_8bit"}, arch)
    assert eight.per_gpu.optimizer_gib < fused.per_gpu.optimizer_gib
    in_bwd = estimate_memory({**req, "optimizer": "adamw_torch", "optimizer_in_backward": True}, arch)
    assert in_bwd.peak_phase != "optimizer step (foreach temporaries)"
