"""Instance-type questions: list a family or GPU, check a name exists, verify a claimed GPU."""

from __future__ import annotations

import re

from assistant import render, render_tables
from assistant.answer import AnswerDetail
from assistant.bad_names import unknown_family_line
from assistant.billing_words import asked_hours, asks_type_gap
from assistant.intents.arguments import (
    gpu_token,
)
from assistant.messages import say
from assistant.run import Events, Reply, Run
from assistant.toolbox import (
    find_instance_types,
    gpu_specs,
    price_of_instance,
)
from assistant.understanding import Slots
from tools.catalog import InstanceType, get_gpu
from tools.errors import UnknownNameError

_COMPARE_TYPES_RE = r"\bvs\.?\b|versus|\bor\b|compare|differen|better|which|还是|和|跟|与|对比|比较|区别|哪个|选"


def _same_gpu(claimed: str, actual: str) -> bool:
    """Whether a claimed GPU name ("A100", "A100 80G") is the instance type's GPU ("A100-80GB")."""
    try:
        return get_gpu(claimed).name == actual
    except UnknownNameError as exc:  # an ambiguous family name ("A100") matches any of its variants
        return actual in exc.suggestions and actual.lower().startswith(claimed.lower().split()[0])


def _family_of(name: str) -> str:
    return re.split(r"[.-]", name.removeprefix("ecs."))[0]


# A list of types this long (about eight rows) is the answer on its own: the passage beside it folds away.
_LONG_LIST_CHARS = 1100


class CatalogIntent(Run):
    """Answers from the instance catalog."""

    def instances(self, s: Slots) -> Events:
        """List instance types of the named families or GPUs, and check named instance types exist."""
        if len(s.instance_types) >= 2 and re.search(_COMPARE_TYPES_RE, self.question, re.IGNORECASE):
            compared = yield from self.compare_types(s)
            if compared is not None:
                return compared
        parts: list[str] = []
        for name in s.instance_types:
            check = yield from self.check_instance(name, claimed=None)
            if ("price" in s.topics or s.asks_cost) and (line := (yield from self.price_line(name, s.region))):
                parts += [line, check]  # "per-month price of ecs.gn7i-...": the price answers first
            else:
                parts.append(check)
        targets = [("family", f) for f in s.families if not any(f in i for i in s.instance_types)]
        targets += [("gpu", g) for g in s.gpu_mentions] if not targets else []
        for kind, value in targets[:3]:
            found, err = yield from self.call("find_instance_types", find_instance_types, **{kind: value})
            if err:
                # the tool's error is English: say it from the catalog in the answer's language
                parts.append(unknown_family_line(value, self.lang) if kind == "family" else say(
                    "catalog.unknown_gpu", self.lang, name=value))  # fmt: skip
                continue
            assert found is not None
            if not found.instances:
                parts.append(say("catalog.none_with", self.lang, name=value))
                continue
            head = say("catalog.types_of", self.lang, name=value, count=found.count)
            parts.append(head + "\n\n" + render_tables.instances_table(found.instances, self.lang))
        query = " ".join([*s.families, *s.gpu_mentions, *s.instance_types]) or self.question
        passages = yield from self.search(query, n=1, prefer_docs=("instance-families", "original-article-corrections"))
        quotes = self.quotes(passages, query)
        if sum(len(p) for p in parts) > _LONG_LIST_CHARS:  # a long list is the answer; the passage folds
            folded = [AnswerDetail(title=say("guidance.head", self.lang), markdown="\n\n".join(quotes))]
            return Reply(text="\n\n".join(parts), kind="guidance", details=folded if quotes else [])
        return Reply(text="\n\n".join(parts + quotes), kind="guidance")

    def compare_types(self, s: Slots) -> Events:
        """Two or three instance types side by side: GPUs, host, hourly price; the first line picks one."""
        found: list[tuple[InstanceType, float | None]] = []
        for name in s.instance_types[:3]:
            listed, _ = yield from self.call("find_instance_types", find_instance_types, family=_family_of(name))
            inst = next((i for i in (listed.instances if listed else []) if i.instance_type == name), None)
            if inst is None:
                return None  # a made-up name: the existence check answers instead
            quote, _ = yield from self.call("price_of_instance", price_of_instance, instance_type=name, region=s.region)
            found.append((inst, quote.hourly if quote is not None else None))
        priced = sorted((p, i.instance_type) for i, p in found if p is not None)
        gpus = {(i.gpu_name, i.gpu_count) for i, _ in found}
        lines: list[str] = []
        if len(gpus) == 1 and len(priced) == len(found):
            (gpu, count), cheap, dear = next(iter(gpus)), priced[0], priced[-1]
            lines.append(say("types.same_gpu", self.lang, gpu=gpu, count=count, cheap=cheap[1],
                             price=render.fig(cheap[0]), other=dear[1], other_price=render.fig(dear[0])))  # fmt: skip
        else:
            specs = []
            for gpu_name in dict.fromkeys(i.gpu_name for i, _ in found if i.gpu_name):
                spec, _ = yield from self.call("gpu_specs", gpu_specs, name=gpu_name)
                if spec is not None:
                    specs.append(spec)
            holds = say("catalog.list_sep", self.lang).join(
                say("catalog.holds", self.lang, name=i.instance_type, count=render.fig(i.gpu_count),
                    gpu=render.gpu_label(i, self.lang))
                for i, _ in found
            )  # fmt: skip
            pick = self.pick(specs) if len(specs) >= 2 else ""  # GpuIntent's "which to pick for which job"
            lines.append(say("catalog.pick_holds", self.lang, pick=pick, holds=holds))
            if len(priced) >= 2:
                cheaper = say("types.cheaper", self.lang, cheap=priced[0][1], price=render.fig(priced[0][0]),
                              other=priced[-1][1], other_price=render.fig(priced[-1][0]))  # fmt: skip
                # "哪个便宜?": the price answers first; otherwise which GPU suits what does
                lines.insert(0 if asks_type_gap(self.question) else len(lines), cheaper)
        table = render_tables.instances_table([i for i, _ in found], self.lang)
        prices = " · ".join(f"`{i.instance_type}` ¥{render.fig(p)}/h" for i, p in found if p is not None)
        return Reply(text="\n\n".join(p for p in [*lines, table, prices] if p), kind="guidance")

    def price_line(self, name: str, region: str | None) -> Events:
        """Quote the list price of one instance type, hourly and monthly, with its source and date."""
        hours = asked_hours(self.question, self.conv.slots.rental_hours)  # "per day?", "for 3 days?"
        args = {"instance_type": name, "region": region} | ({"hours": hours} if hours else {})
        quote, err = yield from self.call("price_of_instance", price_of_instance, **args)
        if err:
            return ""  # check_instance already said the type does not exist
        if quote is None:
            return say("catalog.no_price", self.lang, name=name)
        parts = " · ".join(render.price_parts(quote.hourly, quote.monthly, quote.monthly_basis, self.lang))
        source = render.source_label(quote.source_line, self.lang)
        line = say("catalog.price", self.lang, name=name, parts=parts, source=source)
        if quote.payg_for_hours is None or hours is None:
            return line
        total = say("prices.for_hours", self.lang, total=render.fig(quote.payg_for_hours), hours=render.fig(hours),
                    type=quote.instance_type, hourly=render.fig(quote.hourly), region=quote.region, as_of=quote.as_of)
        return f"{total}\n\n{line}"  # the hours asked answer first

    def check_instance(self, name: str, claimed: str | None) -> Events:
        """Say whether an instance type exists; if not, what its family really offers."""
        body = name.removeprefix("ecs.")
        family = re.split(r"[.-]", body)[0]
        listed, _ = yield from self.call("find_instance_types", find_instance_types, family=family)
        if listed is not None and any(i.instance_type == name for i in listed.instances):
            inst = next(i for i in listed.instances if i.instance_type == name)
            gpu, count = render.gpu_label(inst, self.lang), render.fig(inst.gpu_count)
            memory, ram = render.fig(inst.gpu_memory_gib), render.fig(inst.memory_gib)
            line = say("catalog.exists", self.lang, name=name, gpu=gpu, count=count, memory=memory,
                       vcpu=inst.vcpu, ram=ram)  # fmt: skip
            if claimed is None:
                return line
            # "ecs.gn7i-c32g1.8xlarge 是 H800 吗？": the claim is answered before the facts.
            same = _same_gpu(claimed, inst.gpu_name or "")
            verdict = (
                say("catalog.claim_yes", self.lang)
                if same
                else say("catalog.claim_no", self.lang, gpu=gpu, claimed=claimed)
            )
            return f"{verdict} {line}"
        lines = [say("catalog.no_such_type", self.lang, name=name)]
        if listed is not None:
            sizes = ", ".join(f"`{i.instance_type}`" for i in listed.instances)
            gpus = sorted({render.gpu_label(i, self.lang) for i in listed.instances})
            sep = say("catalog.list_sep", self.lang)
            lines.append(say("catalog.family_types", self.lang, family=family, sizes=sizes, gpus=sep.join(gpus)))
        else:
            lines.append(say("catalog.no_family_either", self.lang, family=family))
        gpu = claimed or gpu_token(family)
        if gpu:
            same_gpu, gerr = yield from self.call("find_instance_types", find_instance_types, gpu=gpu)
            if same_gpu is not None and same_gpu.instances:
                size = body.split(".", 1)[-1] if "." in body else ""
                tail = body.split("-", 1)[-1] if "-" in body else size
                close = [i for i in same_gpu.instances if i.instance_type.endswith(tail)] or same_gpu.instances[:5]
                names = ", ".join(f"`{i.instance_type}`" for i in close[:5])
                lines.append(say("catalog.types_with_gpu", self.lang, gpu=gpu, names=names))
            elif same_gpu is not None:
                lines.append(say("catalog.no_type_has_gpu", self.lang, gpu=gpu))
        return " ".join(lines)

    def verify(self, s: Slots) -> Events:
        """Check a claim that a family or instance type has some GPU, and cite the correction."""
        claimed = s.gpu_mentions[0]
        parts: list[str] = []
        for name in s.instance_types:
            parts.append((yield from self.check_instance(name, claimed=claimed)))
        families = [f for f in s.families if not any(f"ecs.{f}" in i or f"ecs.{f}-" in i for i in s.instance_types)]
        if families:
            holder_families = yield from self.families_with(claimed)
            for family in families:
                listed, err = yield from self.call("find_instance_types", find_instance_types, family=family)
                if err or listed is None:  # "gn12 是 H100 吗": no such family, in the user's language, with real ones
                    parts.append(unknown_family_line(family, self.lang))
                    continue
                parts.append(self.family_verdict(family, listed.instances, claimed, holder_families))
        query = f"{' '.join(s.families + s.instance_types)} {claimed} {self.question}"
        passages = yield from self.search(query, n=2, prefer_docs=("original-article-corrections", "instance-families"))
        parts += self.quotes(passages, query)
        return Reply(text="\n\n".join(parts), kind="guidance")

    def families_with(self, gpu: str) -> Events:
        """Return the families whose types carry ``gpu`` (where a claimed GPU really is), sorted."""
        holders, _ = yield from self.call("find_instance_types", find_instance_types, gpu=gpu)
        return sorted({i.family for i in holders.instances}) if holders else []

    def family_verdict(self, family: str, instances: list[InstanceType], claimed: str, holders: list[str]) -> str:
        """Yes or no: does ``family`` have the ``claimed`` GPU? With the real GPU and where the claimed one is."""
        gpus = sorted({render.gpu_label(i, self.lang) for i in instances})
        memory = sorted({render.fig(i.gpu_memory_gib) for i in instances if i.gpu_memory_gib})
        counts = sorted({i.gpu_count for i in instances if i.gpu_count})
        per_instance = "/".join(render.fig(c) for c in counts)
        has = family in holders
        real = say("catalog.family_has", self.lang, family=family, gpus=say("catalog.list_sep", self.lang).join(gpus),
                   memory="/".join(memory), per_instance=per_instance)  # fmt: skip
        where = ", ".join(holders)
        if has:
            return say("catalog.family_yes", self.lang, real=real)
        elsewhere = (
            say("catalog.claimed_in", self.lang, claimed=claimed, where=where)
            if holders
            else say("catalog.claimed_nowhere", self.lang, claimed=claimed)
        )
        return say("catalog.family_no", self.lang, real=real, claimed=claimed) + elsewhere
