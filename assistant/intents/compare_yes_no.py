"""A yes or no in front of a comparison asked as a yes/no question.

"Is 2x A10 faster than one A100?", "H20 比 L20 好吗？", "A10 是不是比 T4 便宜？" ask whether one side (the
subject) beats the other, not which one wins: the first line answers yes or no, then the winner line with
its figures (issue 8: "yes/no-shaped comparisons must lead with the answer to that question"). The subject
is the side not written right after "than" / "比" / "compared with"; each side is found in the question by
the parts of its label no other side shares ("A10" in "2 x A10", "14B" in "Qwen2.5-14B-Instruct").
"""

from __future__ import annotations

import re

from assistant.messages import say
from assistant.question_form import read_form
from assistant.run import Language

# A comparative between two named things: "faster than", "比 T4 便宜", "compared with", "比起". Not "比较"
# (to compare) nor "对比" (a comparison asked for), which ask which is better, not whether.
_COMPARATIVE = (
    r"\bthan\b|比起|相比|(?<![对相价])比(?!较|例|方|如)|compared\s+(?:to|with)|不如|\b(?:beats?|outperforms?|outrun)\b|"
    # "should I pick the T4 over the A10?", "go with X instead of Y", "选 X 而不是 Y": whether X is the better pick
    r"\b(?:pick|choose|go(?:ing)?\s+(?:with|for)|take|prefer|use|get|rent)\b[^?.!,;]{1,40}?\b(?:over|instead\s+of)\b|"
    r"而不是|而非|"
    # "Is gn7i-c16g1.4xlarge overkill vs gn7i-c8g1.2xlarge?": overkill weighed against the other side
    r"\boverkill\s+(?:vs\.?|versus)\s"
)
# The object of the comparison follows one of these, with at most a count in between ("than one A100").
_OBJECT_BEFORE = (
    r"(?:\bthan|比起|相比(?:于)?|(?<![对相])比|不如|compared\s+(?:to|with)|\bversus|\bvs\.?|\bbeats?|\boutperforms?|"
    r"\bover|\binstead\s+of|而不是|而非)\s*"
    r"(?:(?:a|an|one|the|single|two|four|eight|\d+|[一二两三四五六七八九十]+)\s*(?:x|×|张|块|台)?\s*)?$"
)


# A comparative that asks whether the subject loses ("is X slower / more expensive than Y?", "会比 Y 慢吗"):
# the winner of the criterion answers it the other way round. Looked for next to the comparative only.
_WORSE = r"slower|more\s+expensive|pric(?:ier|ey)|costlier|dearer|worse|less\s+(?:capable|efficient)|慢|贵|差|不如"


def asks_whether_worse(question: str) -> bool:
    """Whether the comparative asks if the subject is the worse side ("is the A10 pricier than the T4?")."""
    near = [question[max(0, m.start() - 25) : m.end() + 25]
            for m in re.finditer(_COMPARATIVE, question, re.IGNORECASE)]  # fmt: skip
    return any(re.search(_WORSE, part, re.IGNORECASE) for part in near) or bool(re.search(r"不如", question))


# A yes/no about the first side, the other offered after it: "gn7i 划算吗，还是 T4 更省钱？", "Is the A10 worth
# it, or is the T4 cheaper?": the side asked about first is the subject, as with a comparative.
_FIRST_ASKED = (
    r"(?:吗|么|嘛)\s*[,，?？]?\s*(?:还是|或者|或是)|[?？]\s*(?:or|还是)\b|"
    r",\s*or\s+(?:is|are|would|will|does|do|should|could)\b"
)
# "Is the H20 overkill compared to the L20?": whether the subject is more than the workload needs, which is
# yes when the other side holds it too (whichever is faster), no when only the subject does.
_OVERKILL = (
    r"overkill|over[\s\-]?(?:spec(?:ced|'d)?|powered|provisioned)|more\s+than\s+(?:we|i)\s+need|"
    r"大材小用|杀鸡用牛刀|性能过剩|浪费"
)


# "We run it on 4 A10s; would moving to one A100 save money?", "换成 1 张 A100 能省钱吗": the side switched to is
# the subject, whatever was named first
_SWITCH = (
    r"\b(?:mov(?:e|ing)|switch(?:ing)?|migrat(?:e|ing)|upgrad(?:e|ing)|downgrad(?:e|ing))\s+to\b|"
    r"换成|改用|换到|迁移到|迁到|升级到|降级到|改成"
)


def asks_whether_better(question: str) -> bool:
    """Whether ``question`` asks yes or no about one side beating another ("is X cheaper than Y?")."""
    form = read_form(question)
    if "yes_no" not in (form.form, *form.also):
        return False
    return re.search(f"{_COMPARATIVE}|{_FIRST_ASKED}|{_SWITCH}", question, re.IGNORECASE) is not None


def _names(label: str) -> list[str]:
    """Return the ways a side's label may be written: itself, without ``ecs.`` and counts, and its hyphen parts."""
    core = re.sub(r"^\s*\d+\s*(?:x|×|张|块|台)\s*", "", label.strip("` ")).strip("` ")
    core = re.sub(r"^ecs\.", "", core, flags=re.IGNORECASE)
    if m := re.fullmatch(r"(.+?)\s*[(（](.+?)[)）]", core):  # a family with its GPU: "gn7i (A10)"
        return [core, m.group(1).strip(), m.group(2).strip()]
    parts = core.split("-")
    prefixes = ["-".join(parts[:i]) for i in range(len(parts), 0, -1)]
    return [core, *prefixes, *(p for p in parts if re.search(r"\d", p) and len(p) >= 2)]


def _position(names: list[str], question: str) -> int | None:
    """Return the earliest place any of ``names`` is written in the question (not inside a longer name)."""
    found = [
        m.start()
        for name in names
        if (m := re.search(rf"(?<![A-Za-z0-9.]){re.escape(name)}(?![0-9])", question, re.IGNORECASE))
    ]
    return min(found) if found else None


def subject_of(labels: list[str], question: str) -> str | None:
    """Return the label of the side the question asks about ("is **X** faster than Y"), or None."""
    names = {label: _names(label) for label in labels}
    shared = {n.lower() for a in labels for b in labels if a != b for n in names[a] if n.lower() in
              {m.lower() for m in names[b]}}  # fmt: skip
    placed = []
    for label in labels:
        at = _position([n for n in names[label] if n.lower() not in shared], question)
        if at is not None:
            placed.append((at, label))
    placed.sort()
    if len(placed) < 2:
        return None
    if switch := re.search(_SWITCH, question, re.IGNORECASE):
        after = [label for at, label in placed if at >= switch.end()]
        if after:
            return after[0]
    subjects = [label for at, label in placed if not re.search(_OBJECT_BEFORE, question[:at], re.IGNORECASE)]
    return subjects[0] if subjects else None


def yes_no_lead(line: str, winners: list[tuple[str, str]], labels: list[str], question: str, lang: Language) -> str:
    """Put "Yes." / "No." (or "yes on cost, but not on speed") in front of a comparison's winner line.

    ``winners`` holds (criterion name, winning label) in the order the line states them; ``line`` is
    returned unchanged when the question is not a yes/no comparison or its subject cannot be told.
    """
    if not winners or not asks_whether_better(question):
        return line
    subject = subject_of(labels, question)
    if subject is None:
        return line
    if re.search(_OVERKILL, question, re.IGNORECASE):  # only the subject fits (or none): no; else the other suffices
        only = winners[0][1] if len(winners) == 1 and not winners[0][0] else None
        needed = only is not None and only in (subject, "")
        return f"{say('lead.yn_no' if needed else 'lead.yn_yes', lang)} {line}"
    wins = [(label == subject) != asks_whether_worse(question) for _, label in winners]
    if all(wins):
        head = say("lead.yn_yes", lang)
    elif not any(wins):
        head = say("lead.yn_no", lang)
    else:
        (c1, _), (c2, _) = winners[0], winners[1]
        head = say("lead.yn_first" if wins[0] else "lead.yn_second", lang, ca=c1, cb=c2)
    return f"{head} {line}"


# "Do I need an H20 or will an L20 do?", "上 H20 还是 A10 就够了？": the side offered as enough is the subject.
_ENOUGH = (
    r"(?:\bor\b|还是|或者)\s*(?:will|would|is|does|can|could)?\s*"
    r"(?P<one>an?\s+(?!pair|couple|few)|one\s+|a\s+single\s+|single\s+|just\s+(?:an?|one)\s+|(?:一|单)\s*(?:张|块|个|台)\s*|单卡\s*)?"
    r"(?:the\s+|just\s+)?(?P<side>[\w.\-]+(?:\s+[\w.\-]+)?)\s*"
    r"(?:do\b|be\s+enough|enough|suffice|be\s+fine|cut\s+it|就够了?|就够用|够了?|够用|就行|就可以)"
)


# "Is an A10 good enough for X or should I splurge on an A100?", "A10 够用吗，还是要上 A100": the side asked about
# first is offered as enough, the other only as the alternative.
_ENOUGH_FIRST = (
    r"\b(?:is|are|would|will)\s+(?P<one>an?\s+(?!pair|couple|few)|one\s+|a\s+single\s+|single\s+)?(?:the\s+)?"
    r"(?P<side>[\w.\-]+(?:\s+[\w.\-]+)?)\s+(?:good\s+)?enough\b[^?？]{0,80}?(?:[?,]\s*)?\bor\b|"
    r"(?P<one_zh>(?:一|单)\s*(?:张|块)\s*|单卡\s*)?(?P<side_zh>[A-Za-z][\w.\-]*)\s*(?:就)?(?:够用?|够了)(?:吗|么|嘛)?"
    r"\s*[,，]?\s*(?:还是|或者)"
)


def _enough_match(question: str) -> tuple[str, bool] | None:
    """Return the side offered as enough as written, and whether it is offered as one card."""
    if m := re.search(_ENOUGH, question, re.IGNORECASE):
        return m.group("side"), m.group("one") is not None
    if m := re.search(_ENOUGH_FIRST, question, re.IGNORECASE):
        if m.group("side"):
            return m.group("side"), m.group("one") is not None
        return m.group("side_zh"), m.group("one_zh") is not None
    return None


def enough_subject(labels: list[str], question: str) -> str | None:
    """Return the label of the side the question offers as enough ("... or will an L20 do?"), or None."""
    m = _enough_match(question)
    if m is None:
        return None
    side = m[0]
    found = [label for label in labels if _position(_names(label), side) is not None]
    return found[0] if len(found) == 1 else None


def enough_on_one(question: str) -> bool:
    """Whether the side offered as enough is offered as one card ("or will **an** L20 do?", "还是一张 L20 就够")."""
    m = _enough_match(question)
    return m is not None and m[1]
