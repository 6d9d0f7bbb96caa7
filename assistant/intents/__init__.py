"""The offline engine's intent handlers, registered in one place.

Each intent of :data:`assistant.understanding.Intent` is answered by one method of a small
:class:`assistant.run.Run` subclass in this package; :mod:`assistant.engine` composes them. A new kind of
question is a new module here plus one line in :data:`HANDLERS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from assistant.intents.catalog import CatalogIntent
from assistant.intents.gpu_lineup import GpuLineupIntent
from assistant.intents.gpus import GpuIntent
from assistant.intents.guidance import GuidanceIntent
from assistant.intents.lengths import LengthsIntent
from assistant.intents.media import MediaIntent
from assistant.intents.model_search import ModelSearchIntent
from assistant.intents.prices import PricesIntent
from assistant.intents.reach import ReachIntent
from assistant.intents.verdicts import VerdictIntent
from assistant.run import Events
from assistant.understanding import Intent, Slots

Handler = Callable[[Any, Slots], Events]

HANDLERS: dict[Intent, Handler] = {
    "plan": VerdictIntent.verdict_or_workload,  # comparisons and verdicts on named hardware, else the plan
    "memory": VerdictIntent.verdict_or_workload,
    "instances": CatalogIntent.instances,
    "verify": CatalogIntent.verify,
    "gpu_specs": GpuIntent.specs,
    "compare": GpuIntent.compare,
    "guidance": GuidanceIntent.guidance_answer,
    "out_of_reach": ReachIntent.out_of_reach,
    "media": MediaIntent.media,
    "prices": PricesIntent.prices,
    "lengths": LengthsIntent.tokens,
    "model_search": ModelSearchIntent.largest_models,
    "gpu_lineup": GpuLineupIntent.lineup,
}
