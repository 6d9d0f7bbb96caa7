"""What new users said in the session-23 mixed pass, honoured by the offline engine (real engine, hashing index)."""

from __future__ import annotations

import pytest

from assistant.understanding import understand
from tests.engine_helpers import ask, first_line


@pytest.mark.parametrize(
    ("text", "users"),
    [
        ("如果并发涨到 80 人呢", 80),
        ("并发变成 120 呢", 120),
        ("what if the users grow to 60?", 60),
        ("Qwen2.5-14B behind our helpdesk, ~30 tickets being answered at the same moment", 30),
    ],
)
def test_changed_and_team_sized_loads_are_the_concurrency(text: str, users: int) -> None:
    assert understand(text).concurrency == users


def test_a_raised_concurrency_follow_up_keeps_the_model() -> None:
    answer = ask("如果并发涨到 80 人呢", "Qwen2.5-14B，20 人并发，用什么实例")
    call = next(c for c in answer.tool_calls if c.name == "plan_gpu_deployment")
    assert call.args["model"] == "Qwen2.5-14B-Instruct" and call.args["concurrency"] == 80


@pytest.mark.parametrize(
    "question",
    [
        "Llama-3.1-8B 128k 上下文单条请求的 KV cache 有多大",
        "Llama-3.1-8B 128k context, how big is the KV cache for one request?",
    ],
)
def test_the_kv_cache_size_is_the_first_line(question: str) -> None:
    answer = ask(question)
    assert answer.kind == "estimate"
    # 32 layers x 8 KV heads x 128 dims x 2 (K and V) x 2 bytes = 128 KiB per token; 128k tokens = 16 GiB
    assert "KV cache" in first_line(answer.text) and "16 GiB" in first_line(answer.text)


def test_how_long_a_conversation_runs_is_the_context() -> None:
    slots = understand(
        "With one ecs.gn8is-4x.16xlarge running Qwen2.5-32B, how many people can be chatting at once if "
        "conversations run to 8k tokens?"
    )
    assert slots.context == 8192 and slots.train_tokens is None


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        ("We want a private chatbot for our support team, ~40 agents. Budget is flexible. Suggestions?", "en"),
        ("想给公司 50 个客服搭个 AI 助手，高峰 20 人同时用，租什么机器", "zh"),
    ],
)
def test_a_chat_service_without_a_model_is_planned_for_a_stated_default(question: str, lang: str) -> None:
    answer = ask(question)
    assert answer.kind == "recommendation"
    call = next(c for c in answer.tool_calls if c.name == "plan_gpu_deployment")
    assert call.args["model"] == "Qwen2.5-7B-Instruct"  # assistant.unnamed_model.DEFAULT_SERVING_MODEL
    said = "no model named" if lang == "en" else "没有指定模型"
    second = answer.text.split("\n\n")[1]
    assert said in second  # the assumed model is said right under the recommendation, not folded


def test_a_bare_large_model_is_still_asked_about() -> None:
    answer = ask("部署一个大模型要几张卡？20 并发")
    assert answer.kind == "clarification" and not answer.tool_calls


def test_a_hardware_question_is_not_an_explanation() -> None:
    assert not understand("高峰 20 人同时用，租什么机器").asks_explanation
    assert understand("KV cache 是什么").asks_explanation


def test_a_knowledge_base_assistant_without_a_model_is_planned() -> None:
    answer = ask("公司内部想搭一个知识库问答助手，大概 30 人同时在用，推荐什么实例")
    call = next(c for c in answer.tool_calls if c.name == "plan_gpu_deployment")
    assert call.args["concurrency"] == 30 and answer.kind == "recommendation"


def test_the_sum_of_the_requests_lengths_is_not_said_as_a_context() -> None:
    answer = ask("每次输入大约 2000 字中文，输出 300 字，Qwen2.5-7B，并发 20，需要多大显存")
    assert "上下文 1380" not in answer.text  # 1200 + 180 tokens: no tool gave that sum
    assert "输入 1200 tokens" in answer.text and "输出 180 tokens" in answer.text


@pytest.mark.parametrize(
    "question",
    [
        "Qwen2.5-14B 用 vLLM 部署，max_model_len 设多少合适",
        "What max_model_len should I set for Qwen2.5-32B-AWQ on one L20 with 8 users?",
    ],
)
def test_max_model_len_is_answered_by_the_longest_context_per_user(question: str) -> None:
    answer = ask(question)
    assert any(c.name == "longest_context_per_user" for c in answer.tool_calls)
    assert "tokens" in first_line(answer.text)


@pytest.mark.parametrize(
    "question",
    [
        "Is 4-bit 72B on 2 L20 better than BF16 32B on one A100?",
        "2 张 L20 跑 int4 的 Qwen2.5-72B，和 1 张 A100 跑 bf16 的 Qwen2.5-32B，哪个划算",
    ],
)
def test_each_hardware_side_keeps_its_own_model(question: str) -> None:
    answer = ask(question)
    fits = [c.args for c in answer.tool_calls if c.name == "evaluate_hardware_fit"]
    sides = {(a["gpu"], a["gpus"], a["model"]) for a in fits}
    assert ("L20", 2, "Qwen2.5-72B-Instruct") in sides
    assert any(g.startswith("A100") and n == 1 and m == "Qwen2.5-32B-Instruct" for g, n, m in sides)
    assert "does not fit" not in answer.text and "放不下" not in answer.text  # 32B BF16 fits one 80 GB A100


def test_a_memory_comparison_of_two_gpus_leads_with_memory() -> None:
    answer = ask("how much memory does an L20 have compared to an A10?")
    assert first_line(answer.text).startswith("Memory") and "48 vs 24" in first_line(answer.text)
    assert answer.text.count("48 vs 24 GB") == 1


def test_a_vague_performance_comparison_still_leads_with_the_pick() -> None:
    assert "怎么选" in first_line(ask("A10 和 L20 哪个性能好").text)


def test_vram_after_the_model_is_a_memory_question() -> None:
    answer = ask("gemma 2 9b vram for inference?")
    assert answer.kind == "estimate" and "GiB" in first_line(answer.text)


@pytest.mark.parametrize(
    ("follow", "said"),
    [("which region is cheapest for that?", "cheapest region"), ("哪个地域最便宜", "最便宜的地域")],
)
def test_the_cheapest_region_follow_up_leads_with_the_region(follow: str, said: str) -> None:
    answer = ask(follow, "Qwen2.5-7B for 5 users, which instance?")
    line = first_line(answer.text)
    assert said in line and "cn-" in line
    assert "⚠" not in answer.text.split("\n\n")[1]  # said once, not again as a warning


@pytest.mark.parametrize(
    ("text", "gpu"),
    [
        ("想在 gn6v 上 LoRA 一个 Qwen2.5-7B，V100 那个 16G 的，靠谱不", "V100-16GB"),
        ("the 32GB V100 for Qwen2.5-7B?", "V100-32GB"),
    ],
)
def test_a_memory_size_said_apart_from_the_gpu_names_that_variant(text: str, gpu: str) -> None:
    assert understand(text).gpu_mentions == [gpu]


def test_lora_one_named_card_cannot_hold_offers_qlora_on_it() -> None:
    answer = ask("想在 gn6v 上 LoRA 一个 Qwen2.5-7B，V100 那个 16G 的，靠谱不")
    assert "QLoRA" in answer.text and "一张 V100-16GB 就够" in answer.text
    assert any(c.name == "estimate_gpu_memory" and c.args.get("task") == "qlora" for c in answer.tool_calls)


def test_a_per_token_near_tie_is_called_even_then_the_hour_decides() -> None:
    from assistant.intents.compare_lead import SideOutcome, lead_line

    a10 = SideOutcome(label="A10", hourly=9.53, per_million=10.02, tokens_per_s=100)
    l20 = SideOutcome(label="L20", hourly=11.63, per_million=10.31, tokens_per_s=120)
    line = lead_line([a10, l20], "which is cheaper per million tokens, A10 or L20?", "en")
    assert line is not None and line.startswith("**About even per token:**") and "By the hour, A10" in line
    clear = l20.model_copy(update={"per_million": 12.31})
    assert lead_line([a10, clear], "which is cheaper per million tokens, A10 or L20?", "en").startswith("**A10 is")


def test_how_many_gpus_for_some_users_asks_for_gpus_not_capacity() -> None:
    assert not understand("llama3 70b how many gpus for 10 users").asks_capacity
    assert understand("how many users can 2 L20s serve with Qwen2.5-32B?").asks_capacity


@pytest.mark.parametrize(
    ("question", "tool"),
    [
        ("Can I run Qwen2.5-7B and Qwen2.5-14B together on one A100 80GB?", "evaluate_models_on_one_gpu"),
        ("run llama 3.1 8b and qwen2.5 7b side by side on a single L20, 4 users each?", "evaluate_models_on_one_gpu"),
        ("一张 L20 上同时跑 Qwen2.5-7B 和 bge-m3 可以吗", "evaluate_colocation"),
    ],
)
def test_models_on_one_named_gpu_are_judged_together_on_it(question: str, tool: str) -> None:
    answer = ask(question)
    [call] = [c for c in answer.tool_calls if c.name == tool]
    assert call.args["gpu"] in ("A100-80GB", "L20")
    assert not any(c.name == "fleet_cost" for c in answer.tool_calls)  # not each model on its own instances
    assert first_line(answer.text).startswith(("**Yes", "**能放下"))


@pytest.mark.parametrize(
    ("question", "opening"),
    [
        ("Is FP8 supported on the L20 and does it help for Qwen2.5-72B?", "**Yes.** The L20 supports FP8"),
        ("Does the A10 support FP8 for Qwen2.5-14B?", "**No.** The A10 has no native FP8"),
    ],
)
def test_a_precision_support_question_on_a_named_gpu_leads_with_the_support(question: str, opening: str) -> None:
    answer = ask(question)
    assert first_line(answer.text).startswith(opening)
    assert any(c.name == "gpu_specs" for c in answer.tool_calls)


def test_supporting_users_is_no_precision_support_question() -> None:
    answer = ask("两张 L20 跑 Qwen2.5-32B FP8，8k 上下文，能支持多少并发")
    assert not any(c.name == "gpu_specs" for c in answer.tool_calls)
    assert "原生支持" not in first_line(answer.text)


@pytest.mark.parametrize(
    "question",
    [
        "Is ecs.ebmgn7i.24xlarge the A100 80G instance for training Qwen-7B?",
        "For SDXL the article recommends ecs.gn7e-c32g1.8xlarge with an A10. Does that type exist?",
    ],
)
def test_a_question_about_a_type_that_does_not_exist_says_so_first(question: str) -> None:
    answer = ask(question)
    line = first_line(answer.text)
    assert "There is no instance type" in line or "does not exist" in line


def test_the_number_in_a_gpu_name_is_no_request_rate() -> None:
    slots = understand("Qwen2.5-72B INT4 用 2 张 L20 QPS 能上 100 吗")
    assert slots.qps == 100 and slots.gpus == 2 and slots.gpu == "L20"


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        ('Which claims in that "how to pick a GPU on Alibaba Cloud for LLMs" article are wrong?', "en"),
        ("那篇《阿里云做大模型怎么选GPU》的文章有哪些错误", "zh"),
    ],
)
def test_the_articles_errors_are_answered_from_the_corrections(question: str, lang: str) -> None:
    answer = ask(question)
    assert answer.kind == "guidance"
    assert any(c.doc == "original-article-corrections" for c in answer.citations)
    assert first_line(answer.text).startswith("Twelve" if lang == "en" else "文章有十二处")


def test_a_quantisation_saving_question_says_the_weights_shrink_and_the_rest_does_not() -> None:
    answer = ask("Does INT8 quantization cut memory by more than half?")
    assert first_line(answer.text).startswith("For the weights, roughly")
    assert any(c.doc == "quantization" for c in answer.citations)


def test_three_gpus_figure_asked_each_lists_every_card() -> None:
    answer = ask("文章说显存带宽 A100 > A10 > T4，具体各是多少")
    line = first_line(answer.text)
    assert "A10 600 GB/s" in line and "T4 320 GB/s" in line


@pytest.mark.parametrize(
    ("question", "opening"),
    [("文章说 L20 支持 FP8，A10 呢", "**不支持。**"), ("Does the A10 support FP8 like the L20?", "**No.**")],
)
def test_precision_support_of_two_cards_answers_the_card_asked_first(question: str, opening: str) -> None:
    answer = ask(question)
    assert first_line(answer.text).startswith(opening) and "A10" in first_line(answer.text)


def test_a_vector_database_beside_the_llm_is_named_as_not_sized() -> None:
    answer = ask("部署 Qwen2.5-7B 做 RAG，向量库用 Milvus，整套要什么配置")
    assert answer.kind == "recommendation" and "向量库或数据库部分" in answer.text
    alone = ask("How big an instance for Elasticsearch with 10M documents?")
    assert alone.kind == "out_of_scope" and first_line(alone.text).startswith("**I can't size this:**")


@pytest.mark.parametrize(
    ("question", "opening"),
    [
        ("Is the T4 really the slowest in memory bandwidth among A100, A10 and T4?", "**Yes, the T4.**"),
        ("Is the A10 the fastest in bandwidth among A100, A10 and T4?", "**No, the A100-80GB is.**"),
        ("A100、A10、T4 哪个显存带宽最高", "**是 A100-80GB。**"),
    ],
)
def test_the_extreme_of_a_figure_among_named_cards_is_answered_first(question: str, opening: str) -> None:
    assert first_line(ask(question).text).startswith(opening)


@pytest.mark.parametrize(
    "question", ["阿里云真的有 H800 实例吗？文章说是合规训练的替代", "Does Alibaba have H100 instances?"]
)
def test_whether_the_catalog_has_a_gpu_is_looked_up_not_asked_back(question: str) -> None:
    answer = ask(question)
    assert any(c.name == "find_instance_types" for c in answer.tool_calls)
    assert first_line(answer.text).startswith(("**没有：**", "**No:**"))


def test_the_cost_of_a_managed_service_is_said_to_be_out_of_reach() -> None:
    answer = ask("文章说推理可以用函数计算 FC 的 Serverless GPU 按流量伸缩，这个你能帮我算成本吗")
    assert answer.kind == "out_of_scope"


@pytest.mark.parametrize(
    ("question", "opening"),
    [
        ("文章里说 gn7e 是 A10，那 gn7e 最小的规格多少钱一小时", "**不是。** gn7e 用的是 **A100-80GB**"),
        ("The article says gn7e has the A10. How much is gn7e per hour?", "**No.** gn7e has the **A100-80GB**"),
    ],
)
def test_a_wrong_gpu_claim_before_a_family_price_question_is_corrected_after_the_price(
    question: str, opening: str
) -> None:
    answer = ask(question)
    assert first_line(answer.text).startswith("**`ecs.gn7e-")  # the price asked answers first
    assert answer.text.split("\n\n")[1].startswith(opening)


def test_a_family_price_question_without_a_claim_leads_with_the_price() -> None:
    assert first_line(ask("gn7e 多少钱一小时").text).startswith("**`ecs.gn7e-")


def test_samples_with_a_length_in_characters_and_epochs_are_the_training_volume() -> None:
    slots = understand("训练 Qwen2.5-7B LoRA，数据 2 万条，每条 800 字，跑 3 轮，一张 A100 要多久")
    assert slots.train_tokens == 20_000 * 480 * 3  # 800 Chinese characters ≈ 480 tokens (the stated ratio)
    answer = ask("训练 Qwen2.5-7B LoRA，数据 2 万条，每条 800 字，跑 3 轮，一张 A100 要多久")
    assert any(c.name == "training_run" for c in answer.tool_calls)
