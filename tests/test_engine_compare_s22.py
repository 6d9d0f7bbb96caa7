"""Comparisons phrased as people ask them (issue 8, area i8cmp6): the winner of what was asked, first.

"Should I pick X over Y?" is answered yes or no; "int4 or fp8, how many GPUs each?" plans the model in each
precision; "分别能撑多少并发" leads with the counts; "and versus H20?" after a plan on a named GPU weighs both;
a region comparison names the regions as the user wrote them; "每月差多少钱" between two instance types leads
with the month's gap. Every expected figure is read from the answer's own tool results, not written here.
"""

from __future__ import annotations

from typing import Any

from engine_helpers import ask, first_line

from assistant import render
from assistant.answer import Answer


def _results(answer: Answer, name: str) -> list[tuple[dict[str, Any], Any]]:
    return [(c.args, c.result) for c in answer.tool_calls if c.name == name]


def _cheapest_hourly(plan: dict[str, Any]) -> float:
    return min(o["price_cny_per_hour"] for o in plan["options"] if o["price_cny_per_hour"] is not None)


def test_pick_one_over_the_other_is_answered_no_when_the_other_is_cheaper() -> None:
    answer = ask("Would you choose the V100 over the A10 for Qwen2.5-3B-Instruct with 10 users? cheapest by the hour")
    hourly = {a["gpu"]: _cheapest_hourly(p) for a, p in _results(answer, "plan_gpu_deployment")}
    assert set(hourly) == {"V100", "A10"}  # both sides, one workload
    line = first_line(answer.text)
    winner = min(hourly, key=lambda g: hourly[g])
    assert line.startswith("**No.**" if winner == "A10" else "**Yes.**")
    assert f"¥{render.fig(hourly[winner])}" in line


def test_precisions_weighed_are_each_planned_with_the_card_counts_first() -> None:
    answer = ask("Llama-3.1-70B-Instruct for 16 users on A100 80GB: int4 or fp8, how many GPUs each, which is cheaper?")
    plans = {a["precision"]: p for a, p in _results(answer, "plan_gpu_deployment")}
    assert set(plans) == {"int4", "fp8"}
    line = first_line(answer.text)
    for precision, plan in plans.items():
        priced = [o for o in plan["options"] if o["price_cny_per_hour"] is not None]
        gpus = min(priced, key=lambda o: o["price_cny_per_hour"])["total_gpus"]  # the side's cheapest fit
        assert f"{precision.upper()} {gpus}" in line
    cheap = min(plans, key=lambda p: _cheapest_hourly(plans[p]))
    assert f"{cheap.upper()} is the pick on cost" in line
    assert "int4 (" not in answer.text.rpartition("**Understood:**")[2]  # each side's precision is its own


def test_one_card_written_with_its_memory_is_not_pinned_when_the_count_is_asked() -> None:
    answer = ask("Qwen2.5-72B-Instruct 用 int4 和 fp8 各需要几张 A100 80G?")
    assert not _results(answer, "evaluate_hardware_fit")  # "几张" asks the count: nothing fixed to one card
    counts = {a["precision"]: p["options"][0]["total_gpus"] for a, p in _results(answer, "plan_gpu_deployment")}
    assert set(counts) == {"int4", "fp8"}
    assert all(f"{p.upper()} {n} 张" in first_line(answer.text) for p, n in counts.items())


def test_how_many_users_each_leads_with_the_counts() -> None:
    answer = ask("两张 H20 跑 Qwen2.5-72B-Instruct,8k 上下文,int4 和 fp8 分别能撑多少并发?")
    users = {a["precision"]: r["sequences"] for a, r in _results(answer, "concurrent_users")}
    assert set(users) == {"int4", "fp8"} and users["int4"] != users["fp8"]
    line = first_line(answer.text)
    assert line.startswith("**按并发选")
    assert f"{max(users.values())} 路对 {min(users.values())} 路" in line


def test_versus_after_a_plan_on_a_named_gpu_weighs_both() -> None:
    answer = ask("and versus A100 80GB?", "Qwen2.5-32B-Instruct AWQ for 10 users on L20")
    plans = {a["gpu"]: p for a, p in _results(answer, "plan_gpu_deployment")}
    assert set(plans) == {"L20", "A100-80GB"}
    assert {a["concurrency"] for a, _ in _results(answer, "plan_gpu_deployment")} == {10}  # the earlier workload
    speed = {g: p["options"][0]["decode_tokens_per_s"] for g, p in plans.items()}
    fast = max(speed, key=lambda g: speed[g])
    assert first_line(answer.text).startswith(f"**{fast} is the pick on speed")


def test_regions_compared_are_named_as_the_user_wrote_them() -> None:
    answer = ask("ecs.gn7i-c8g1.2xlarge 在杭州和乌兰察布哪个便宜?")
    quotes = {a["region"]: q["hourly"] for a, q in _results(answer, "price_of_instance")}
    assert set(quotes) == {"cn-hangzhou", "cn-wulanchabu"}
    cheap = min(quotes, key=lambda r: quotes[r])
    city = {"cn-hangzhou": "杭州", "cn-wulanchabu": "乌兰察布"}[cheap]
    assert f"在 {city}（{cheap}） 更便宜" in first_line(answer.text)


def test_the_month_gap_between_two_types_answers_first() -> None:
    answer = ask("ecs.gn7i-c16g1.4xlarge 和 ecs.gn7i-c8g1.2xlarge 跑 Qwen2.5-7B,每月差多少钱?")
    ((_, gap),) = _results(answer, "compare_instance_prices")
    dear = gap["types"][-1]
    line = first_line(answer.text)
    assert f"¥{render.fig(dear['more_than_cheapest_cny'])}" in line and dear["instance_type"] in line
    assert f"按成本选 {gap['types'][0]['instance_type']}" in line  # and which one to take


def test_which_family_is_cheaper_leads_with_each_sides_price() -> None:
    answer = ask("gn7i or gn6i, which is cheaper?")
    quotes = [q for _, q in _results(answer, "price_of_instance") if q is not None and q["hourly"] is not None]
    cheapest = {}
    for q in quotes:  # each family's cheapest one-GPU type, as the price tool returned it
        family = q["instance_type"].split(".")[1].split("-")[0]
        if family not in cheapest or q["hourly"] < cheapest[family]["hourly"]:
            cheapest[family] = q
    assert set(cheapest) == {"gn7i", "gn6i"}
    win = min(cheapest, key=lambda f: cheapest[f]["hourly"])
    line = first_line(answer.text)
    assert line.startswith(f"**{win} is cheaper:**") and cheapest[win]["instance_type"] in line


def test_a_family_without_prices_is_said_to_have_none() -> None:
    answer = ask("gn7i 和 gn8is 哪个便宜")
    priced = {q["instance_type"] for _, q in _results(answer, "price_of_instance") if q is not None}
    assert priced and all(".gn7i" in t for t in priced)  # no gn8is type is in the price list
    assert first_line(answer.text).startswith("**只有 gn7i 有目录价：**")


def test_two_families_joined_by_or_are_compared_not_quoted() -> None:
    answer = ask("gn7i or gn6i?")
    assert {a["name"] for a, _ in _results(answer, "gpu_specs")} == {"A10", "T4"}
    assert first_line(answer.text).startswith("**Which to pick:**")


def test_a_gpu_priced_in_the_two_regions_named_only() -> None:
    answer = ask("Which region is cheapest for an A10 box, Beijing or Shenzhen?")
    quotes = {a["region"]: q["hourly"] for a, q in _results(answer, "price_of_instance")}
    assert set(quotes) == {"cn-beijing", "cn-shenzhen"}  # the regions asked, not every region
    line = first_line(answer.text)
    if quotes["cn-beijing"] == quotes["cn-shenzhen"]:
        assert "costs the same in cn-beijing, cn-shenzhen" in line
    else:
        assert f"cheaper in {min(quotes, key=lambda r: quotes[r])}" in line


def test_monthly_or_hourly_weighs_the_subscription_against_the_hour() -> None:
    answer = ask("for Qwen2.5-32B AWQ with 10 users is it cheaper to pay monthly or hourly?")
    top = _results(answer, "plan_gpu_deployment")[0][1]["options"][0]
    line = first_line(answer.text)
    assert line.startswith("**A subscription, if it runs around the clock:**")
    assert render.fig(top["subscription_cny_per_month"], "en") in line and render.fig(top["price_cny_per_hour"]) in line


def test_instead_of_in_a_weighing_question_is_the_other_side() -> None:
    answer = ask("should we go with the A10 instead of the T4 for Qwen2.5-3B-Instruct, 10 users, cheapest per hour?")
    hourly = {a["gpu"]: _cheapest_hourly(p) for a, p in _results(answer, "plan_gpu_deployment")}
    assert set(hourly) == {"A10", "T4"}  # the T4 is weighed, not ruled out
    assert first_line(answer.text).startswith("**Yes.**" if hourly["A10"] < hourly["T4"] else "**No.**")


def test_instead_of_in_an_instruction_still_rules_the_gpu_out() -> None:
    answer = ask("Plan Qwen2.5-14B for 8 users on L20 rather than A10")
    ((args, _),) = _results(answer, "plan_gpu_deployment")
    assert args["gpu"] == "L20"


def test_regions_weighed_get_no_four_bit_line_from_one_of_them() -> None:
    answer = ask("Hangzhou or Singapore for serving Qwen2.5-7B to 10 users - which is cheaper?")
    regions = {a.get("region") for a, _ in _results(answer, "plan_gpu_deployment")}
    assert {"cn-hangzhou", "ap-southeast-1"} <= regions
    assert all(a.get("precision") != "int4" for a, _ in _results(answer, "plan_gpu_deployment"))
    assert "4-bit" not in answer.text.partition("\n- ")[0]


def test_two_bare_sizes_are_both_sides_on_the_named_card() -> None:
    answer = ask("7B 和 14B 在一张 A10 上,哪个回答速度快?")
    fits = {a["model"]: r for a, r in _results(answer, "evaluate_hardware_fit")}
    assert set(fits) == {"Qwen2.5-7B-Instruct", "Qwen2.5-14B-Instruct"}  # a model for each size, one card each
    assert all(a["gpu"] == "A10" and a["gpus"] == 1 for a, _ in _results(answer, "evaluate_hardware_fit"))
    fitting = [m for m, r in fits.items() if r["fits"]]
    if len(fitting) == 1:
        assert first_line(answer.text).startswith(f"**只有 {fitting[0]} 放得下")
    assert answer.text.count("同规模的代表模型") == 1  # the models taken for the sizes are said once


def test_a_size_next_to_a_named_model_keeps_its_family() -> None:
    answer = ask("Qwen2.5-7B vs 14B for 8 users on L20 - which serves more users?")
    assert {a["model"] for a, _ in _results(answer, "plan_gpu_deployment")} == {
        "Qwen2.5-7B-Instruct", "Qwen2.5-14B-Instruct"}  # fmt: skip


def test_hours_a_month_weigh_pay_as_you_go_against_the_subscription() -> None:
    answer = ask("A10 box used 200 hours a month: subscription or pay-as-you-go?")
    quote = next(q for _, q in _results(answer, "price_of_instance") if q and q["subscription_monthly"])
    used = quote["hourly"] * 200
    line = first_line(answer.text)
    head = "**Pay-as-you-go is cheaper:**" if used < quote["subscription_monthly"] else "**A subscription is still"
    assert line.startswith(head) and render.fig(used, "en") in line


def test_the_monthly_cost_asked_is_compared_by_the_month() -> None:
    answer = ask("compare the monthly cost of running Qwen2.5-7B for 10 users on A10 vs T4")
    months = {}
    for args, plan in _results(answer, "plan_gpu_deployment"):  # each side's option the comparison stands on
        priced = [o for o in plan["options"] if o["price_cny_per_hour"] is not None]
        months[args["gpu"]] = min(priced, key=lambda o: o["price_cny_per_hour"])["price_cny_per_month"]
    cheap, dear = sorted(months, key=lambda g: months[g])
    line = first_line(answer.text)
    assert line.startswith(f"**{cheap} is the pick on cost:**")
    assert f"¥{render.fig(months[cheap], 'en')} vs ¥{render.fig(months[dear], 'en')} a month" in line


def test_a_gpu_set_the_tools_cannot_evaluate_is_said_not_dropped() -> None:
    answer = ask("For Qwen2.5-7B at 50 users, is one A100 or three A10s the better deal?")
    errors = [c.error for c in answer.tool_calls if c.name == "evaluate_hardware_fit" and c.error]
    assert errors  # three A10s cannot split the model's attention heads
    assert first_line(answer.text).startswith("**3 x A10 cannot be evaluated as written:**")
    assert "leaves the most room" not in answer.text  # one side left: no winner named over nothing


def test_a_few_percent_of_estimated_speed_is_no_split_verdict() -> None:
    answer = ask("A10 or T4 for a 7B chatbot?")
    speeds = []
    for _, plan in _results(answer, "plan_gpu_deployment"):
        priced = [o for o in plan["options"] if o["price_cny_per_hour"] is not None]
        speeds.append(min(priced, key=lambda o: o["price_cny_per_hour"])["decode_tokens_per_s"])
    assert len(speeds) == 2 and max(speeds) / min(speeds) < 1.05  # the two sides decode about as fast
    line = first_line(answer.text)
    assert line.startswith("**A10 is the pick on cost:**") and "speed" not in line


def test_more_for_the_money_is_weighed_per_token() -> None:
    answer = ask("Do I get more for my money with an A10 or a V100 for Qwen2.5-7B, 20 users?")
    per_m = {}
    for args, plan in _results(answer, "plan_gpu_deployment"):
        priced = [o for o in plan["options"] if o["price_cny_per_hour"] is not None]
        per_m[args["gpu"]] = min(priced, key=lambda o: o["price_cny_per_hour"])["cost_cny_per_million_tokens"]
    cheap = min(per_m, key=lambda g: per_m[g])
    line = first_line(answer.text)
    assert line.startswith(f"**{cheap} ") and f"¥{render.fig(per_m[cheap])} vs" in line and "per million" in line


def test_are_two_regions_the_same_price_is_answered_yes_or_no() -> None:
    answer = ask("同样跑 Qwen2.5-32B AWQ 10 并发,上海和北京价格一样吗?")
    hourly = {a["region"]: _cheapest_hourly(p) for a, p in _results(answer, "plan_gpu_deployment")}
    assert set(hourly) == {"cn-shanghai", "cn-beijing"}
    same = hourly["cn-shanghai"] == hourly["cn-beijing"]
    assert first_line(answer.text).startswith("**是的。**" if same else "**不是。**")


def test_would_other_hardware_be_better_weighs_it_against_the_earlier_set() -> None:
    answer = ask("would two A10s be better?", "Qwen2.5-32B AWQ 10 users on one L20")
    sets = {(a["gpu"], a["gpus"]) for a, _ in _results(answer, "evaluate_hardware_fit")}
    assert sets == {("L20", 1), ("A10", 2)}  # the earlier set and the one asked about, one workload
    assert {a["concurrency"] for a, _ in _results(answer, "evaluate_hardware_fit")} == {10}


def test_methods_weighed_without_hardware_are_each_planned_and_costed_per_run() -> None:
    answer = ask("Full fine-tuning vs LoRA for Qwen2.5-7B on 100M tokens: how much does each cost?")
    runs = {}
    for args, plan in _results(answer, "plan_gpu_deployment"):
        costs = [o["training_cost_cny"] for o in plan["options"] if o["training_cost_cny"] is not None]
        runs[args["task"]] = min(costs)  # each method's cheapest run, as the planner priced it
    assert set(runs) == {"full", "lora"}
    cheap = min(runs, key=lambda m: runs[m])
    line = first_line(answer.text)
    assert line.startswith(f"**{ {'full': 'full fine-tuning', 'lora': 'LoRA'}[cheap] } is the pick on cost:**")
    assert f"¥{render.fig(runs[cheap])} vs ¥{render.fig(max(runs.values()))} for the whole run" in line


def test_how_does_that_stack_up_weighs_the_earlier_gpu_and_names_the_unpriced_one() -> None:
    answer = ask("how does that stack up against an L20?", "What would Qwen2.5-14B-Instruct for 10 users cost on A10?")
    plans = {a["gpu"]: p for a, p in _results(answer, "plan_gpu_deployment")}
    assert set(plans) == {"A10", "L20"}
    assert {a["concurrency"] for a, _ in _results(answer, "plan_gpu_deployment")} == {10}  # the earlier workload
    assert all(o["price_cny_per_hour"] is None for o in plans["L20"]["options"])  # gn8is is not in the price list
    assert "**No list price for L20:**" in answer.text


def test_overkill_compared_to_another_card_is_yes_when_that_card_holds_it_too() -> None:
    answer = ask("Is the H20 overkill compared to the L20 for Qwen2.5-14B with 10 users?")
    plans = {a["gpu"]: p for a, p in _results(answer, "plan_gpu_deployment")}
    assert set(plans) == {"H20", "L20"} and plans["L20"]["options"]  # the L20 holds it too
    assert first_line(answer.text).startswith("**Yes.**")


def test_overkill_is_no_when_nothing_named_holds_it_on_the_card_count_stated() -> None:
    question = "Is the A100 80GB overkill compared to the A10 for Qwen2.5-32B-Instruct with 10 users on a single card?"
    answer = ask(question)
    fits = {(a["gpu"], a["gpus"]): r["fits"] for a, r in _results(answer, "evaluate_hardware_fit")}
    assert set(fits) == {("A100-80GB", 1), ("A10", 1)}  # "on a single card" holds for both sides
    assert not any(fits.values())
    assert first_line(answer.text).startswith("**No.**")


def test_which_uses_less_memory_is_answered_by_the_memory_each_needs() -> None:
    answer = ask("Qwen2.5-32B 和 Qwen3-32B 哪个更省显存?")
    need = {}
    for args, plan in _results(answer, "plan_gpu_deployment"):
        priced = [o for o in plan["options"] if o["price_cny_per_hour"] is not None]
        need[args["model"]] = min(priced, key=lambda o: o["price_cny_per_hour"])["headroom_pct"]
    roomy = max(need, key=lambda m: need[m])
    assert first_line(answer.text).startswith(f"**按余量选 {roomy}：**")  # memory asked: not the cost per token


def test_which_is_better_value_in_chinese_names_the_only_priced_side_first() -> None:
    answer = ask("跑 Qwen2.5-72B,H20 和 A100 谁更值?30 并发")
    unpriced = [a["gpu"] for a, p in _results(answer, "plan_gpu_deployment")
                if all(o["price_cny_per_hour"] is None for o in p["options"])]  # fmt: skip
    assert unpriced == ["H20"]
    assert first_line(answer.text).startswith("**只有 A100-80GB 有目录价：**")


def test_how_many_more_people_each_precision_holds_leads_with_the_counts() -> None:
    answer = ask("Qwen2.5-7B 在 A10 上用 fp16 和 int8 比,能多撑几个人?")
    users = {}
    for args, plan in _results(answer, "plan_gpu_deployment"):
        priced = [o for o in plan["options"] if o["price_cny_per_hour"] is not None]
        users[args["precision"]] = min(priced, key=lambda o: o["price_cny_per_hour"])["max_concurrent_sequences"]
    assert set(users) == {"fp16", "int8"}
    most = max(users, key=lambda p: users[p])
    line = first_line(answer.text)
    assert line.startswith(f"**按并发选 {most.upper()}：**") and f"{users[most]} 路对" in line
