"""Whether the guidance says anything about what a question is specifically about.

A search always returns its nearest passages, related or not: "how do I get an invoice for my GPU instance?"
finds a section on instance names, "how do I reset the root password?" one on instance families. Quoting
them would answer a different question (issue 8: "never unrelated passages"). A question is taken as
outside the guidance when it uses words the guidance never uses, and none of its words that only a few
sections use (the specific ones, unlike "GPU" or "实例") are in the passages found: then the answer says
that plainly instead of quoting the nearest passage.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache

from knowledge.models import Passage
from tools.regions import region_names
from tools.vocabulary import family_names, gpu_labels, model_labels

# A word in more than this share of the guidance's sections is the domain's own ("GPU", "阿里云", "instance"):
# finding it in a passage says nothing about whether the passage is on the question's subject.
COMMON_SHARE = 0.2
# Tokens that say nothing alone: numbers, single letters, one Chinese character.
_NOISE = re.compile(r"[\d.,%]+|[a-z]{1,2}|[\u4e00-\u9fff]")


def uncovered_terms(shares: Mapping[str, float], passages: Sequence[Passage], named: Sequence[str] = ()) -> list[str]:
    """Return the question's words the guidance never uses, when its passages miss every specific word.

    Args:
        shares: Each search token of the question with the share of guidance sections that contain it.
        passages: The passages the answer would quote.
        named: The GPUs, families and instance types the question names: a passage naming one is on topic
            ("Tell me about the H20"), however common the name is in the guidance.

    Returns:
        The unknown words in the question's order, without those inside another ("开发票", not also
        "发票"); empty when the guidance knows every word or a passage has one of the question's specific words.
    """
    words = {t: share for t, share in shares.items() if not _NOISE.fullmatch(t)}
    # A region, GPU, family or model the guidance happens not to spell ("杭州") is still the product's own word.
    unknown = [t for t, share in words.items() if share == 0.0 and not _in_vocabulary(t)]
    if not unknown or not passages:
        return []
    specific = [t for t, share in words.items() if 0.0 < share <= COMMON_SHARE] + [n.lower() for n in named]
    text = " ".join(f"{p.section} {p.text}" for p in passages).lower()
    if any(t in text for t in specific):
        return []
    ordered = list(dict.fromkeys(unknown))  # in the question's order, so the answer reads the same every time
    return [t for t in ordered if not any(t != other and t in other for other in ordered)]


@cache
def _vocabulary() -> tuple[str, ...]:
    """Every region id and alias, GPU, family and model name of the catalogs, lower case."""
    regions = [name.lower() for r in region_names() for name in (r.id, *r.aliases)]
    return (*regions, *gpu_labels(), *family_names(), *model_labels())


def _in_vocabulary(token: str) -> bool:
    """Whether a search token is (part of) a catalog name: jieba cuts "乌兰察布" into "乌兰" and "乌兰察" too."""
    return any(token in word for word in _vocabulary())
