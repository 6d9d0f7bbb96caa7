"""'Cheapest way to run Llama-3-70B?' with no precision stated: the 4-bit option is named when it costs less.

The plan sizes BF16 weights unless the user says otherwise, which is right for quality but not the cheapest way;
a user asking for the cheapest is told what 4-bit weights would cost, from the same planner, beside the BF16 price.
A precision or format the user stated is kept (nothing is offered then).
"""

from __future__ import annotations

import re

from assistant import render
from assistant.hardware_words import named_regions
from assistant.intents.arguments import plan_args, task_of
from assistant.intents.cheaper_than import cheapest_by_hour
from assistant.messages import say
from assistant.run import Events, Run
from assistant.toolbox import plan_gpu_deployment
from assistant.understanding import Slots
from tools.plan import Plan

CHEAPEST_WAY_RE = (
    r"\bcheapest\s+(?:way|setup|option|route|approach|config\w*)\b|最便宜的(?:部署)?(?:方案|办法|方式|做法|配置)|"
    r"最省钱的(?:部署)?(?:方案|办法|方式|做法|配置)"
)
_CHEAPEST_RE = r"\bcheapest\b|\bcheaper\b|lowest\s+cost|\bon\s+a\s+budget\b|最便宜|最省钱|便宜(?:一)?点|省钱|成本最低"


class CheapestInt4(Run):
    """The 4-bit line of a 'cheapest' plan question."""

    def int4_line(self, s: Slots, plan: Plan, first: bool = False) -> Events:
        """Return the 4-bit line when it costs less; ``first``: it answers "the cheapest way" and leads."""
        asked = re.search(_CHEAPEST_RE, self.question, re.IGNORECASE)
        if not asked or s.precision or s.quant or task_of(s) != "inference" or s.architecture or s.gpu:
            return []
        if len(named_regions(self.question)) >= 2:
            return []  # "Hangzhou or Singapore?": the regions are what is weighed; one region's 4-bit price misleads
        ours = cheapest_by_hour(plan)
        if ours is None:
            return []
        cheap, _ = yield from self.call(
            "plan_gpu_deployment", plan_gpu_deployment, **plan_args(s.model_copy(update={"precision": "int4"}))
        )
        four = cheapest_by_hour(cheap) if isinstance(cheap, Plan) else None
        if four is None or (four.price_cny_per_hour or 0.0) >= (ours.price_cny_per_hour or 0.0):
            return []
        code = "cheapest.int4_first" if first else "cheapest.int4"
        return [say(code, self.lang, instances=four.instances, instance_type=four.instance_type,
                    gpus=four.total_gpus, gpu=render.gpu_label(four, self.lang),
                    hourly=render.fig(four.price_cny_per_hour), bf16=render.fig(ours.price_cny_per_hour))]  # fmt: skip
