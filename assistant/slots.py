"""The typed request one user turn is read into: what is asked (the intent) and every slot, stated or not.

:mod:`assistant.understanding` fills it from the words; the conversation merges turns of it; the intents
read it. Kept apart from the readers so a module that only needs the shape does not import every pattern.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assistant.media_reading import MediaAsk
from assistant.phrases import DailyUsers
from assistant.rate_words import RateBasis
from assistant.reach_reading import ReachAsk
from assistant.speed_words import SpeedTargets
from assistant.task_words import TaskHint
from assistant.usage_words import Billing, UsageHours
from tools.lengths import TokenCount
from tools.workload import Precision, Quant, Task

__all__ = ["Intent", "Slots"]

Intent = Literal[
    "plan",
    "memory",
    "instances",
    "gpu_specs",
    "compare",
    "verify",
    "guidance",
    "out_of_reach",
    "out_of_scope",
    "media",
    "prices",
    "lengths",
    "model_search",
    "gpu_lineup",
]
"""What the user asks for.

plan: which instances, how many, what it costs. memory: only how much GPU memory. instances: list or
check instance types. gpu_specs: one GPU's figures. compare: two GPUs side by side. verify: a claim that a
family has some GPU ("gn7i 是 A100 吗"). guidance: a question the guidance documents answer. out_of_reach:
a workload the tools cannot size (training image, speech or embedding models). media: serving or sizing
an image/video, vision-language, speech, embedding or reranker model. prices: region and billing
prices of an instance type or GPU ("哪个地域最便宜", "包月多少钱"). lengths: how many tokens a text length
in characters, words or pages is, asked on its own. model_search: the largest model the named hardware
serves ("一张 L20 最大能跑多大的模型"). out_of_scope:
nothing about GPUs, models or Alibaba Cloud.
"""



class Slots(BaseModel):
    """What one user turn (or a whole conversation, once merged) says. ``None`` means "not said"."""

    model_config = ConfigDict(extra="forbid")

    intent: Intent = "guidance"
    model: str | None = Field(default=None, description="canonical name from tools.models.resolve_model")
    model_mention: str | None = Field(default=None, description="the words that named the model")
    models: list[str] = Field(default_factory=list, description="every model named, in order ('A vs B')")
    model_error: str | None = Field(default=None, description="why the named model did not resolve")
    size_b: float | None = Field(default=None, description="a bare size such as '72B 模型', billions")
    task: Task | None = None
    task_hint: TaskHint | None = Field(default=None, description="training asked for without a method")
    precision: Precision | None = None
    quant: Quant | None = None
    quant_guessed: bool = Field(default=False, description="'量化'/'quantized' without bits: 4-bit assumed")
    context: int | None = Field(default=None, description="tokens per sequence (inference) or seq length")
    concurrency: int | None = None
    qps: float | None = None
    batch: int | None = None
    train_tokens: float | None = None
    budget_cny_month: float | None = None
    job_budget_cny: float | None = Field(default=None, description="'训练预算 10 万': for the whole training run")
    region: str | None = None
    gpu: str | None = Field(default=None, description="the one GPU the user wants to use")
    gpus: int | None = Field(default=None, description="number of GPUs the user has in mind")
    gpu_mentions: list[str] = Field(default_factory=list, description="GPU names as written, in order")
    gpu_memory_gb: int | None = Field(default=None, description="'显存 24G': the GPU was named by its memory only")
    exclude_gpus: list[str] = Field(default_factory=list, description="GPUs ruled out: 'not on A10s', '不要 T4'")
    cheaper_than: str | None = Field(default=None, description="the GPU to beat on price: 'cheaper than an A100'")
    families: list[str] = Field(default_factory=list)
    instance_types: list[str] = Field(default_factory=list)
    serving: bool = Field(default=False, description="words that imply inference: 部署, serve, 并发 ...")
    follow_up: bool = Field(default=False, description="phrased as a change of the previous question")
    accept_defaults: bool = Field(default=False, description="'ok', '默认就行': go on with the defaults")
    asks_explanation: bool = Field(default=False, description="'what is', '区别', 'why': wants an explanation")
    injection: bool = Field(default=False, description="tries to change the rules or extract secrets")
    off_topic: bool = Field(default=False, description="names something clearly outside GPUs (poems, weather)")
    topics: list[str] = Field(default_factory=list, description="guidance topics named: kv cache, awq ...")
    greeting: bool = Field(default=False, description="only a greeting: 你好, hi, hello")
    asks_token_cost: bool = Field(default=False, description="'price per million tokens', '每百万 tokens 多少钱'")
    asks_capacity: bool = Field(default=False, description="'how many concurrent requests fit', '能撑多少并发'")
    prompt_tokens: int | None = Field(default=None, description="per-request prompt length, in tokens")
    gen_tokens: int | None = Field(default=None, description="per-request output length, in tokens")
    lengths: list[TokenCount] = Field(default_factory=list, description="lengths given in characters/words/pages")
    samples: float | None = Field(default=None, description="training examples ('40k dialogues')")
    tokens_per_sample: float | None = None
    epochs: float | None = None
    max_instances: int | None = Field(default=None, description="'最多用两台': at most this many instances")
    max_gpus: int | None = Field(default=None, description="'at most 16 GPUs', 'GPU 不超过 8 张': a cap, not hardware")
    instances: int | None = Field(default=None, description="'2 台 ecs.gn7i-...': instances of the named type")
    reach: ReachAsk | None = Field(default=None, description="a workload the tools cannot size")
    architecture: dict[str, int] | None = Field(
        default=None, description="a custom model's dimensions as config.json keys ('32 layers, hidden 4096 ...')"
    )
    architecture_assumed: list[str] = Field(default_factory=list, description="dimensions not given: defaults")
    daily_users: DailyUsers | None = Field(default=None, description="daily active users behind the concurrency")
    asks_verdict: bool = Field(default=False, description="'能跑吗', '够不够', 'is X a good choice', 'will it fit'")
    media: MediaAsk | None = Field(default=None, description="an image/video, speech or embedding workload")
    # Workload area (issue 8): how the user pays and for how many hours a month the deployment runs.
    billing: Billing | None = Field(default=None, description="'包年包月', 'pay as you go', 'spot' as stated")
    rate: RateBasis | None = Field(default=None, description="how the concurrency or QPS was derived, if it was")
    scale: dict[str, float] | None = Field(default=None, description="'double the users': figures a follow-up scales")
    usage_hours: UsageHours | None = Field(default=None, description="'10 hours a day on weekdays': when it runs")
    rental_hours: float | None = Field(default=None, description="'for a 2-day hackathon': rented 48 h in all")
    foreign_money: str | None = Field(default=None, description="'$2000/month': money not in CNY, as written")
    asks_cost: bool = Field(default=False, description="'一个月要多少钱', 'what would it cost': a price is asked")
    asks_cheapest: bool = Field(default=False, description="'cheapest way to fine-tune', '最省钱': least cost")
    users: float | None = Field(default=None, description="'200 employees', '500 个注册用户': the people it is for")
    asks_user_cost: bool = Field(default=False, description="'monthly cost per user', '摊到每个用户多少钱'")
    speed: SpeedTargets | None = Field(default=None, description="'30 tokens/s per user', '首 token 1 秒内'")
    job_requests: float | None = Field(default=None, description="'10 万条数据 ... 要多久': a batch job's requests")
    asks_full_load: bool = Field(default=False, description="'满载总吞吐多少', 'max throughput of this box'")
    asks_request_rate: bool = Field(default=False, description="'how many requests/s can it serve', '最大 QPS 多少'")
    asks_longest_context: bool = Field(default=False, description="'how long can each context be', '每人最长多少'")
    unnamed_model: str | None = Field(
        default=None, description="'for our 200 employees', '部署个 deepseek': the model assumed when none is named"
    )

    def stated(self) -> list[str]:
        """Return the workload slots this turn (or conversation) states; the rest are defaults."""
        return [f for f in _STATED_FIELDS if getattr(self, f) not in (None, [], False)]

    invalid: list[str] = Field(
        default_factory=list, description="impossible values as written ('并发 -5', '0.5 GPUs'); never replaced"
    )


_STATED_FIELDS = (
    "model", "task", "precision", "quant", "context", "prompt_tokens", "gen_tokens", "concurrency", "qps", "batch",
    "train_tokens", "budget_cny_month", "job_budget_cny", "region", "gpu", "gpus", "max_instances", "instance_types",
    "families", "billing", "usage_hours", "rental_hours", "scale", "epochs", "max_gpus", "exclude_gpus",
)  # fmt: skip
