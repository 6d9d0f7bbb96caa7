"""Planner: options that fit, honest rejections, prices with sources, layouts that make sense."""

from __future__ import annotations

import pytest

from tools import catalog
from tools.errors import ToolInputError, UnknownNameError
from tools.plan import Plan, plan_deployment
from tools.workload import Workload, parse_workload


def _plan(**kwargs: object) -> Plan:
    return plan_deployment(parse_workload(kwargs))


@pytest.fixture(scope="module")
def qwen72_awq() -> Plan:
    # The reference question: Qwen2.5-72B, AWQ int4, 32k context, 20 concurrent sequences.
    return _plan(model="qwen2.5-72b", quant="awq-int4", context=32768, concurrency=20)


def test_every_option_fits_and_flags_tight_fits(qwen72_awq: Plan) -> None:
    assert qwen72_awq.options
    for option in qwen72_awq.options:
        assert option.per_gpu_gib_needed <= option.per_gpu_capacity_gib
        assert option.tight_fit == (option.headroom_pct < 10)
        assert option.max_concurrent_sequences is not None and option.max_concurrent_sequences >= 20


def test_prices_carry_their_source_and_date(qwen72_awq: Plan) -> None:
    priced = [o for o in qwen72_awq.options if o.price_cny_per_hour is not None]
    assert priced, "the cheapest options for this workload have list prices"
    for option in priced:
        assert option.price_source and option.price_as_of and option.price_region
        assert option.price_as_of in option.price_source and option.price_source.startswith(option.price_region)
    for option in qwen72_awq.options:
        if option.price_cny_per_hour is None:
            assert option.price_cny_per_month is None and option.cost_cny_per_million_tokens is None


def test_single_a10_is_rejected_with_a_reason(qwen72_awq: Plan) -> None:
    # 72B at 4 bits is ~38 GiB of weights alone: more than one A10's 22 GiB (article error #7).
    reasons = {r.instance_type: r.reason for r in qwen72_awq.rejected}
    assert "ecs.gn7i-c8g1.2xlarge" in reasons
    assert reasons["ecs.gn7i-c8g1.2xlarge"].code == "reject.memory_one_sequence"
    assert all(o.instance_type != "ecs.gn7i-c8g1.2xlarge" for o in qwen72_awq.options)


def test_options_are_ranked_by_monthly_price_among_priced(qwen72_awq: Plan) -> None:
    monthly = [o.price_cny_per_month for o in qwen72_awq.options if o.price_cny_per_month is not None]
    assert monthly == sorted(monthly)


def test_layout_uses_fewest_gpus_on_an_instance_type() -> None:
    plan = _plan(model="qwen2.5-72b", quant="awq-int4", context=32768, concurrency=20, gpu="A100-80GB")
    best = plan.options[0]
    # 20 x 32k tokens of KV (~200 GiB) plus ~39 GiB of weights fit on four 80 GB GPUs with TP4.
    assert best.total_gpus == best.tensor_parallel * best.pipeline_parallel * best.data_parallel
    assert best.total_gpus <= 4


def test_gpu_preference_filters_options() -> None:
    plan = _plan(model="qwen2.5-7b", context=8192, concurrency=4, gpu="L20")
    assert plan.options and all(o.gpu_model == "L20" for o in plan.options)
    assert any(r.reason.code == "reject.not_requested_gpu" for r in plan.rejected)


def test_budget_rejects_dearer_options() -> None:
    plan = _plan(model="qwen2.5-72b", quant="awq-int4", context=32768, concurrency=20, budget_cny_month=100000)
    for option in plan.options:
        assert option.price_cny_per_month is None or option.price_cny_per_month <= 100000
    assert any(r.reason.code == "reject.over_budget" for r in plan.rejected)


def test_more_concurrency_never_needs_fewer_gpus() -> None:
    def gpus(concurrency: int) -> int:
        plan = _plan(model="qwen2.5-32b", context=16384, concurrency=concurrency, gpu="A100-80GB")
        return min(o.total_gpus for o in plan.options)

    counts = [gpus(c) for c in (1, 8, 32, 64)]
    assert counts == sorted(counts)


def test_qps_target_adds_replicas() -> None:
    low = _plan(model="qwen2.5-7b", context=4096, gen_tokens=512, qps=0.1, gpu="A10")
    high = _plan(model="qwen2.5-7b", context=4096, gen_tokens=512, qps=20, gpu="A10")
    assert high.options[0].data_parallel > low.options[0].data_parallel
    assert high.options[0].decode_tokens_per_s >= 20 * 512


def test_fp8_runs_natively_on_fp8_gpus_weight_only_on_ampere_and_not_before() -> None:
    plan = _plan(model="qwen2.5-7b", precision="fp8", context=4096, max_options=50)
    for option in plan.options:
        gpu = catalog.get_gpu(option.gpu_model or option.gpu_model_likely or "")
        weight_only = any(n.code == "option.fp8_weight_only" for n in option.notes)
        assert gpu.supports_fp8 or (gpu.arch == "Ampere" and weight_only)
    assert any(r.reason.code == "reject.fp8_unsupported" for r in plan.rejected if r.family in ("gn6v", "gn6e", "gn6i"))


def test_fp8_checkpoint_is_not_planned_on_volta() -> None:
    # DeepSeek-R1 ships FP8 weights: V100 (Volta) has neither FP8 Tensor Cores nor FP8 Marlin kernels.
    plan = _plan(model="deepseek-r1", context=8192, gpu="V100")
    assert not plan.options
    assert any(r.reason.code == "reject.fp8_unsupported" for r in plan.rejected if r.family in ("gn6v", "gn6e"))


def test_top_option_is_the_same_whatever_the_number_of_options() -> None:
    one = _plan(model="llama3.1-8b", context=4096, max_options=1)
    five = _plan(model="llama3.1-8b", context=4096, max_options=5)
    assert one.options[0].instance_type == five.options[0].instance_type
    assert one.options[0].price_cny_per_hour is not None


def test_comfortable_fits_rank_before_tight_ones() -> None:
    plan = _plan(model="qwen2.5-72b", quant="awq-int4", context=32768, concurrency=20, max_options=10)
    flags = [o.tight_fit for o in plan.options if o.price_cny_per_hour is not None]
    assert flags == sorted(flags)


def test_lora_shards_the_frozen_base_when_one_gpu_cannot_hold_it() -> None:
    # Qwen2.5-14B LoRA at 4k: ~28 GiB of bf16 base does not fit one A10 (22 GiB), ZeRO-3 over 4 does.
    plan = _plan(model="qwen2.5-14b", task="lora", seq_len=4096, gpu="A10")
    assert plan.options and any(n.code == "option.zero" and n.values["stage"] == 3 for n in plan.options[0].notes)


def test_qps_sizing_counts_prefill_work() -> None:
    # 10 req/s of 32k-token prompts is ~326k prompt tokens/s: prefill, not decode, sets the fleet size.
    plan = _plan(model="qwen2.5-7b", qps=10, context=32768, gen_tokens=128, gpu="A100-80GB")
    best = plan.options[0]
    assert best.prefill_tokens_per_s is not None and best.prefill_tokens_per_s >= 10 * (32768 - 128)


def test_pipeline_stages_split_the_kv_cache() -> None:
    # Across two 8-GPU instances each GPU keeps half of the layers, so half of the KV cache.
    plan = _plan(model="deepseek-r1", context=131072, concurrency=16, gpu="H20", max_options=10)
    multi = [o for o in plan.options if o.pipeline_parallel > 1]
    single = _plan(model="deepseek-r1", context=8192, concurrency=1, gpu="H20", max_options=10)
    assert multi or single.options
    for option in multi:
        assert option.per_gpu_gib_needed <= option.per_gpu_capacity_gib


def test_multi_instance_layouts_only_on_rdma_capable_types() -> None:
    plan = _plan(model="llama3.1-405b", context=8192, concurrency=4, max_options=50)
    for option in plan.options:
        if option.instances > 1 and option.pipeline_parallel > 1:
            inst = catalog.get_instance(option.instance_type)
            note = (inst.network_note or "").lower()
            assert (inst.network_gbps or 0) >= 100 or "rdma" in note or "roce" in note


def test_budget_warns_when_unpriced_options_could_not_be_checked() -> None:
    plan = _plan(model="qwen2.5-72b", quant="awq-int4", context=32768, concurrency=20, budget_cny_month=30000)
    assert any(w.code == "plan.unpriced_budget" for w in plan.warnings)
    assert any(w.code == "plan.all_over_budget" for w in plan.warnings)


def test_gpu_missing_from_the_catalog_is_said() -> None:
    plan = _plan(model="qwen2.5-7b", context=4096, gpu="H100")
    assert not plan.options and any(w.code == "plan.no_gpu_in_catalog" for w in plan.warnings)


def test_moe_model_plans_on_total_parameters() -> None:
    plan = _plan(model="qwen3-30b-a3b", context=8192, concurrency=4)
    assert plan.params_b > 30 and plan.active_params_b < 4
    assert all(o.memory.weights_gib * o.tensor_parallel > 50 for o in plan.options)


def test_full_finetune_of_70b_needs_many_gpus_and_reports_time() -> None:
    plan = _plan(model="llama3.1-70b", task="full", seq_len=2048, batch=1, train_tokens=1e9)
    assert plan.options
    for option in plan.options:
        assert option.total_gpus >= 8
        assert option.training_hours is not None and option.training_hours > 0


def test_lora_fits_a_single_a10_for_an_8b_model() -> None:
    plan = _plan(model="llama3.1-8b", task="lora", seq_len=2048, gpu="A10")
    single = [o for o in plan.options if o.total_gpus == 1]
    assert single
    # The estimate fits one A10; the band's upper end decides whether that fit is tight.
    for option in single:
        assert option.per_gpu_gib_needed <= option.per_gpu_capacity_gib
        assert option.per_gpu_gib_upper is not None
        assert option.tight_fit == (option.per_gpu_gib_upper > option.per_gpu_capacity_gib)


def test_tight_means_the_band_crosses_usable_memory_and_ranks_after_comfortable_fits() -> None:
    plan = _plan(model="llama3.1-8b", task="lora", seq_len=2048, gpu="A10")
    assert any("band" in note.text for option in plan.options for note in option.notes)
    flags = [option.tight_fit for option in plan.options if option.price_cny_per_hour is not None]
    assert flags == sorted(flags)  # comfortable (False) before tight (True)
    assert any("fits are checked against the upper end" in line.text for line in plan.assumptions)


def test_unknown_model_suggests_names() -> None:
    with pytest.raises(UnknownNameError, match="Qwen2.5-72B"):
        _plan(model="Qwen2.5-70B")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"model": "qwen2.5-7b", "concurrency": -3}, "concurrency"),
        ({"model": "qwen2.5-7b", "context": 0}, "context"),
        ({"model": "qwen2.5-7b", "task": "full", "quant": "awq-int4"}, "full fine-tuning"),
        ({"model": "qwen2.5-7b", "task": "lora", "concurrency": 4}, "concurrency"),
        ({"model": "qwen2.5-7b", "context": 100, "gen_tokens": 200}, "gen_tokens"),
        ({"model": "qwen2.5-7b", "region": "mars"}, "region"),
    ],
)
def test_bad_workloads_get_one_clear_message(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ToolInputError, match=message):
        parse_workload(fields)


def test_context_beyond_the_model_is_warned() -> None:
    plan = plan_deployment(Workload(model="llama2-7b", context=16384))
    assert any(w.code == "plan.context_over_max" for w in plan.warnings)


def test_region_prices_every_option_in_that_region() -> None:
    plan = _plan(model="qwen2.5-7b", context=4096, region="cn-beijing")
    priced = [o for o in plan.options if o.price_source]
    assert priced and all(o.price_source.startswith("cn-beijing") for o in priced)
    assert all(o.price_region in (None, "cn-beijing") for o in plan.options)
