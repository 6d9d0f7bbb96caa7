"""A follow-up that adds a side to the previous comparison: "add A100 to the comparison", "再加一个 gn6i 呢？".

The previous turn compared two or more GPUs, families or models; this turn asks to add one more ("add",
"as a third option", "也放进来比"). The comparison is then made again with every side, the new one last,
under the same workload. Without such a word, a newly named side replaces the old ones as a follow-up
usually does ("what about on L20?").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from assistant.hardware_words import find_replaced_gpus
from assistant.intents.arguments import plan_args
from assistant.phrases import ADDS_SIDE_RE
from assistant.reading import Scan
from assistant.run import Events, Run
from assistant.toolbox import plan_gpu_deployment
from assistant.understanding import Slots, understand
from tools import catalog
from tools.errors import UnknownNameError
from tools.plan import Plan

# Words that add to a comparison rather than replace it.
_MAX_SIDES = 3
# "and against an H800?", "vs an L40S?", "跟 H20 比呢": one more side weighed against the earlier ones.
_AGAINST_RE = re.compile(
    r"\bagainst\b|\bvs\.?\b|\bversus\b|compared?\s+(?:to|with)|(?:跟|和|与|同).{0,12}比|相比|对比", re.IGNORECASE
)
# "what about H20 - better or worse than that?", "换 H20 会更好吗": the new GPU weighed against the earlier answer.
_BETTER_RE = re.compile(
    r"\bbetter\b|\bworse\b|\bbeat\b|\bcompare\w*|\bvs\.?\b|\bversus\b|than\s+(?:that|this|it|before)|"
    r"\bstacks?\s+up\b|\bmeasures?\s+up\b|"
    r"更好|更差|更划算|更便宜|更快|好还是|哪个好|比.{0,6}(?:好|强|差)|相比|对比|(?:跟|和|与|同).{0,12}比",
    re.IGNORECASE,
)


def _gpu_key(name: str) -> str:
    """Compare GPU names as the catalog does ("A100 80G" and "A100-80GB" are one GPU)."""
    try:
        return catalog.choose_gpu(name).gpu.name
    except UnknownNameError:
        return catalog.normalize_gpu_name(name)


def _joined(before: list[str], new: list[str], key: Callable[[str], str] = str.lower) -> list[str]:
    """Return the earlier sides, then the new ones not already among them (at most three)."""
    seen = {key(x) for x in before}
    return [*before, *[x for x in new if key(x) not in seen]][:_MAX_SIDES]


def _replaced(question: str, earlier: Slots, turn: Slots) -> dict[str, list[str]] | None:
    """'把 T4 换成 L20 再比', 'swap the T4 for an L20': the earlier GPU sides with the replaced one swapped."""
    gone = {_gpu_key(g) for g in find_replaced_gpus(Scan(question))}
    if not gone or len(earlier.gpu_mentions) < 2 or not turn.gpu_mentions:
        return None
    new = iter(turn.gpu_mentions)
    sides = [next(new, g) if _gpu_key(g) in gone else g for g in earlier.gpu_mentions]
    return {"gpu_mentions": _joined(sides, list(new), _gpu_key)}


def sides_added(question: str, previous: str | None, turn: Slots) -> dict[str, list[str]] | None:
    """Return the sides to compare when ``question`` adds one to ``previous``'s comparison, else None.

    Keys are the slot names to update: ``models``, ``gpu_mentions`` or ``families``. A side named "against"
    the earlier ones ("and against an H800?", "跟 H20 比呢") adds to them too; one that replaces an earlier
    side ("把 T4 换成 L20") takes its place.
    """
    if previous is None:
        return None
    earlier = understand(previous)
    if swapped := _replaced(question, earlier, turn):
        return swapped
    one_new = len(turn.gpu_mentions) + len(turn.families) + len(turn.models) == 1
    if not (ADDS_SIDE_RE.search(question) or (one_new and _AGAINST_RE.search(question))):
        return None
    if len(earlier.models) >= 2 and turn.models:
        return {"models": _joined(earlier.models, turn.models)}
    if len(earlier.gpu_mentions) >= 2 and turn.gpu_mentions:
        return {"gpu_mentions": _joined(earlier.gpu_mentions, turn.gpu_mentions, _gpu_key)}
    if len(earlier.families) >= 2 and turn.families:
        return {"families": _joined(earlier.families, turn.families)}
    return None


class CompareFollowUp(Run):
    """Folds a side added by a follow-up into the comparison the previous turn asked for."""

    def with_added_side(self, s: Slots) -> Slots:
        """Return the slots with every side of the comparison when this turn adds one (else unchanged)."""
        previous = next((m.content for m in reversed(self.history) if m.role == "user"), None)
        added = sides_added(self.question, previous, self.conv.turn)
        if not added:
            return s
        # The sides replace the one GPU this turn would otherwise fix; the workload (model, users, context) stays.
        update: dict[str, object] = {**added, "gpu": None, "gpus": None}
        if "models" in added:
            update = {**added, "model": added["models"][0]}  # models on the same hardware: the hardware stays
        self.conv.turn = self.conv.turn.model_copy(update=added)
        return s.model_copy(update=update)


    def with_previous_pick(self, s: Slots) -> Events:
        """Return the slots comparing the earlier answer's GPU with the one this follow-up names (else unchanged).

        "what about on H20 instead - better or worse than that?" after a plan on any GPU: the earlier workload is
        planned again as it was (the recorded call says which GPU it picked), and both GPUs become the sides.
        """
        turn = self.conv.turn
        previous = next((m.content for m in reversed(self.history) if m.role == "user"), None)
        if not (previous and turn.follow_up and len(turn.gpu_mentions) == 1 and _BETTER_RE.search(self.question)):
            return s
        if turn.models or not s.model:
            return s  # another model: the usual follow-up reading
        before = understand(previous)
        named = before.gpu_mentions
        if len(named) > 1 or (named and before.gpus):
            # the earlier turn compared GPUs itself (adding a side is with_added_side's), or fixed a count:
            # "one L20 ..." then "how does that compare with two A10s?" weighs the two sets as named
            return s
        if named:  # "Plan 72B on A100 80GB" then "and versus H20?": the GPU the user fixed is the earlier side
            picked: str | None = named[0]
        else:
            unfixed = s.model_copy(update={"gpu": None, "gpus": None})
            earlier, _ = yield from self.call("plan_gpu_deployment", plan_gpu_deployment, **plan_args(unfixed))
            picked = earlier.options[0].gpu_model if isinstance(earlier, Plan) and earlier.options else None
        if not picked or _gpu_key(picked) == _gpu_key(turn.gpu_mentions[0]):
            return s
        sides = [picked, turn.gpu_mentions[0]]
        self.conv.turn = turn.model_copy(update={"gpu_mentions": sides})
        return s.model_copy(update={"gpu_mentions": sides, "gpu": None, "gpus": None})
