"""Session 23 guidance and plan questions: a use without a model is planned on a stated default, and the
serving-engine choice (vLLM, TGI, Ollama) is answered from its own guidance section."""

from __future__ import annotations

import pytest
from engine_helpers import shared_engine, ungrounded

from assistant.answer import Answer, Message


def _plans(answer: Answer) -> list[dict[str, object]]:
    return [c.args for c in answer.tool_calls if c.name == "plan_gpu_deployment"]


@pytest.mark.parametrize(
    ("question", "assumed"),
    [
        ("we want to self-host an LLM for our 200 employees, what should we rent?", "no model named, so I assumed"),
        ("need something for a RAG demo next week, nothing fancy. what do I rent?", "no model named, so I assumed"),
        ("给公司内部搭一个知识库问答，租什么机器？", "没有指定模型，假设用"),
    ],
)
def test_a_use_without_a_model_is_planned_on_a_stated_default(question: str, assumed: str) -> None:
    answer = shared_engine().answer(question)
    assert answer.kind == "recommendation"
    assert _plans(answer) and _plans(answer)[0]["model"] == "Qwen2.5-7B-Instruct"
    assert answer.text.startswith(("**Recommended:**", "**推荐：**")) and "ecs." in answer.text.splitlines()[0]
    assert assumed in answer.text
    assert ungrounded(answer, question) == []


def test_a_family_named_without_a_size_is_planned_on_that_family() -> None:
    answer = shared_engine().answer("我想部署个 deepseek 给公司用")
    model = str(_plans(answer)[0]["model"])
    assert model.startswith("DeepSeek") and f"假设用 {model}" in answer.text


@pytest.mark.parametrize(
    "question",
    ["部署一个大模型要几张卡？20 并发", "help me pick a GPU", "How many GPUs do I need to serve a 72B model?"],
)
def test_a_request_with_no_use_still_asks_which_model(question: str) -> None:
    answer = shared_engine().answer(question)
    assert answer.kind == "clarification" and not answer.tool_calls


@pytest.mark.parametrize(
    ("question", "lang", "named"),
    [
        ("should we go with vLLM or TGI for serving qwen 14b?", "en", "TGI"),
        ("For an internal bot for a 10-person team, is Ollama good enough or should we set up vLLM?", "en", "Ollama"),
        ("小团队内部用，Ollama 够不够？还是上 vLLM", "zh", "Ollama"),
    ],
)
def test_the_serving_engine_choice_is_answered_from_its_section(question: str, lang: str, named: str) -> None:
    answer = shared_engine().answer(question)
    assert answer.kind == "guidance" and answer.language == lang
    assert "vLLM" in answer.text.splitlines()[0]  # the first line names the engine to start with
    assert named in answer.text
    assert bool(_plans(answer)) == ("qwen" in question)  # a named model is sized after the answer, nothing else
    assert any(c.doc == "inference-serving" and "TGI" in c.section for c in answer.citations)
    assert ungrounded(answer, question) == []


@pytest.mark.parametrize(
    ("question", "lang", "first", "sized"),
    [
        ("MoE 模型如 Qwen3-30B-A3B，显存按总参数算还是按激活参数算？", "zh", "按总参数量算", "按 Qwen3-30B-A3B"),
        ("what is tensor parallel and do I actually need it for a 70B model?", "en", "Tensor parallelism splits",
         "Sized for Llama-3.1-70B-Instruct"),
        ("LoRA、QLoRA 和全参微调到底差在哪？显存能省多少", "zh", "全参微调训练每个权重", None),
        ("what's the difference between LoRA and full fine-tuning in terms of memory?", "en", "Full fine-tuning trains",
         None),
    ],
)
def test_a_concept_question_is_answered_first_and_its_model_sized(
    question: str, lang: str, first: str, sized: str | None
) -> None:
    answer = shared_engine().answer(question)
    assert answer.kind == "guidance" and answer.language == lang
    assert answer.text.startswith(first)
    assert any(c.doc == "memory-sizing" or c.doc == "inference-serving" for c in answer.citations)
    if sized:
        assert sized in answer.text and _plans(answer)
    else:
        assert not answer.tool_calls or all(c.name == "search_guidance" for c in answer.tool_calls)
    assert ungrounded(answer, question) == []


def test_a_concept_question_with_a_load_is_still_a_plan() -> None:
    answer = shared_engine().answer("Qwen3-30B-A3B is MoE; what instance for 20 concurrent users, total vs active?")
    assert answer.kind == "recommendation" and _plans(answer)[0]["concurrency"] == 20


def test_two_concepts_asked_are_both_answered_in_question_order() -> None:
    question = "模型文件放 OSS 还是 NAS 好？加载一个 70B 的模型大概要多久"
    answer = shared_engine().answer(question)
    first, second = answer.text.split("\n\n")[:2]
    assert "OSS" in first and "NAS" in first and "分钟" in second
    assert {c.doc for c in answer.citations} == {"storage-and-models"}
    assert not any(c.name == "plan_gpu_deployment" for c in answer.tool_calls)  # storage is not sized
    assert ungrounded(answer, question) == []


def test_why_a_longer_context_needs_more_memory_is_the_kv_cache_and_is_sized() -> None:
    question = "Why does Qwen2.5-32B at 32k context need so much more GPU memory than at 4k?"
    answer = shared_engine().answer(question)
    assert answer.kind == "guidance" and "KV" in answer.text.splitlines()[0]
    assert _plans(answer) and _plans(answer)[0]["context"] == 32768
    assert ungrounded(answer, question) == []


def test_speculative_decoding_is_answered_from_its_own_section() -> None:
    answer = shared_engine().answer("投机解码（speculative decoding）能让推理快多少？值得开吗")
    assert answer.kind == "guidance" and answer.text.startswith("提速没有固定倍数")
    assert any("投机解码" in c.section for c in answer.citations)


@pytest.mark.parametrize(
    ("question", "concurrency"),
    [
        ("We'd like to run Llama 3.1 8B for an internal coding assistant, ~40 devs, in Hangzhou. What to get?", 4),
        ("Our support team (about 30 agents) wants an AI copilot on qwen 32b. Recommend a setup.", 3),
        ("8 engineers will use Qwen2.5-7B at the same time, which instance?", None),
    ],
)
def test_a_team_size_is_a_head_count_unless_they_work_at_the_same_time(question: str, concurrency: int | None) -> None:
    answer = shared_engine().answer(question)
    if concurrency:
        assert _plans(answer)[0]["concurrency"] == concurrency and "assuming 10%" in answer.text
    else:  # all eight at once is no 10% share of eight
        assert all(p.get("concurrency") != 1 for p in _plans(answer)) and "assuming 10%" not in answer.text


def test_a_starter_setup_for_a_hackathon_is_a_plan_on_a_stated_default() -> None:
    answer = shared_engine().answer("What's a sensible starter setup to host an open-source LLM for our hackathon?")
    assert answer.kind == "recommendation" and "no model named, so I assumed" in answer.text


def test_a_company_head_count_with_which_machine_is_a_plan_at_a_stated_share() -> None:
    answer = shared_engine().answer("公司想自建一个 AI 助手，大概 100 人用，用什么机器")
    assert answer.kind == "recommendation" and _plans(answer)[0]["concurrency"] == 10
    assert "没有指定模型，假设用" in answer.text and "10%" in answer.text


def test_how_much_faster_asks_for_speed_not_a_price() -> None:
    answer = shared_engine().answer("How much faster is speculative decoding on an L20?")
    assert not any(c.name in ("cheapest_region_for_gpu", "nearest_known_price") for c in answer.tool_calls)
    assert "There is no fixed speed-up" in answer.text


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("how much does AWQ hurt quality on qwen 72b?", "8-bit (LLM.int8(), GPTQ-Int8, FP8) is generally close"),
        ("where do I download models fast in China?", "In mainland China, download open models from ModelScope"),
        ("怎么估算训练要多久", "训练一个稠密 Transformer 约需 6 × N × D"),
        ("What is the difference between PAYG and subscription?", "Subscription wins when the instance runs most"),
    ],
)
def test_the_concept_asked_answers_the_first_line(question: str, first: str) -> None:
    answer = shared_engine().answer(question)
    assert answer.kind == "guidance" and answer.text.startswith(first)
    assert not answer.text.startswith("**About ¥")  # "how much does X hurt" asks for no price
    assert ungrounded(answer, question) == []


def test_a_team_tool_with_recommend_a_scheme_is_a_plan() -> None:
    answer = shared_engine().answer("我们想给 20 个研发搭一个代码助手，推荐什么方案")
    assert answer.kind == "recommendation" and "ecs." in answer.text.splitlines()[0]


@pytest.mark.parametrize(
    "question",
    ["老板让我搭个 ChatGPT 一样的东西给全公司用，租啥", "我们医院想本地化部署一个医疗问答模型，有什么推荐"],
)
def test_a_product_described_for_a_use_is_planned_not_refused(question: str) -> None:
    answer = shared_engine().answer(question)
    assert answer.kind == "recommendation" and "没有指定模型，假设用" in answer.text


def test_a_closed_model_itself_is_still_out_of_reach() -> None:
    assert shared_engine().answer("Can you size ChatGPT for me?").kind == "out_of_scope"


def test_a_follow_up_replaces_the_assumed_model() -> None:
    history = [Message(role="user", content="我想部署个 deepseek 给公司用"), Message(role="assistant", content="…")]
    answer = shared_engine().answer("用蒸馏版 32B 呢", history)
    assert _plans(answer)[0]["model"] == "DeepSeek-R1-Distill-Qwen-32B"


def test_a_setup_for_a_named_use_of_a_named_model_is_served() -> None:
    answer = shared_engine().answer("what's a good setup for a customer support bot on Qwen2.5-14B, 8k context?")
    assert answer.kind == "recommendation" and _plans(answer)[0]["context"] == 8192


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("什么是 MoE 模型", "混合专家（MoE）模型有很多个专家"),
        ("TP 和 PP 分别是什么", "张量并行把每一层的权重矩阵"),
        ("LoRA 微调 7B 需要 NVLink 吗", "模型或训练状态切到多张卡上时才重要"),
        ("how do vLLM and llama.cpp differ?", "Start new deployments on vLLM"),
    ],
)
def test_definitions_and_needs_are_answered_from_their_concept(question: str, first: str) -> None:
    answer = shared_engine().answer(question)
    assert answer.kind == "guidance" and answer.text.startswith(first)


def test_llama_cpp_on_a_laptop_is_still_out_of_reach() -> None:
    assert shared_engine().answer("run llama.cpp on my macbook with qwen 7b").kind == "out_of_scope"


@pytest.mark.parametrize("question", ["how can I cut my GPU bill for inference?", "怎么降低推理成本"])
def test_how_to_cut_cost_is_the_cost_checklist_not_which_model(question: str) -> None:
    answer = shared_engine().answer(question)
    assert answer.kind == "guidance" and answer.text.startswith(("Right-size the GPU first", "先把 GPU 选对"))
    assert {c.doc for c in answer.citations} == {"cost-optimization"}


@pytest.mark.parametrize(
    "question", ["need GPUs for an LLM-powered search feature, ~5 QPS", "想搞个私有化的大模型，预算有限"]
)
def test_a_product_feature_or_private_deployment_is_a_plan_on_the_default(question: str) -> None:
    answer = shared_engine().answer(question)
    assert answer.kind == "recommendation" and _plans(answer)[0]["model"] == "Qwen2.5-7B-Instruct"


@pytest.mark.parametrize(
    "question",
    [
        "Could you recommend an instance for an internal chatbot for ~300 staff in Beijing?",
        "can you suggest a setup for Qwen2.5-14B with 20 users?",
    ],
)
def test_a_polite_request_leads_with_the_recommendation_not_yes(question: str) -> None:
    answer = shared_engine().answer(question)
    assert answer.text.startswith("**Recommended:**")


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("Qwen2.5-72B 用 INT4 量化后效果会差很多吗", "8 位（LLM.int8()、GPTQ-Int8、FP8）通常接近 16 位的质量"),
        ("70B 模型为什么要多卡", "张量并行把每一层的权重矩阵"),
        ("Qwen2.5-32B 跑 32k 上下文为什么显存不够", "KV 缓存为正在服务的每条序列"),
        ("is continuous batching why vLLM is faster than HF transformers for Qwen2.5-7B?", "PagedAttention stores"),
    ],
)
def test_a_yes_no_or_why_about_a_concept_is_answered_by_it_not_by_the_fit(question: str, first: str) -> None:
    answer = shared_engine().answer(question)
    assert answer.kind == "guidance" and answer.text.startswith(first)
    assert _plans(answer)  # the model or size is still sized, after the answer
