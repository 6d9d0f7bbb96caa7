"""Hardware the user fixed ("4 张 L20", "on ecs.gn8is.4xlarge", "a single 4-GPU gn7i box", "最多用两台").

The named hardware is evaluated as named (never swapped for a sibling with fewer GPUs): the first line
says whether the workload fits, with the per-GPU figures that decide it; then the smallest change that
makes it fit. The planner's ranked options follow as the alternative.
"""

from __future__ import annotations

from typing import Any

from assistant import render
from assistant.intents.arguments import task_of
from assistant.messages import say
from assistant.run import Events, Run
from assistant.toolbox import evaluate_hardware_fit, find_instance_types
from assistant.understanding import Slots
from tools import catalog
from tools.errors import UnknownNameError
from tools.hardware_fit import HardwareFit


class HardwareIntent(Run):
    """Evaluates the hardware a user named before anything else is suggested."""

    def named_hardware(self, s: Slots) -> Events:
        """Return the hardware arguments the user fixed (instance type, or GPU and count), or None."""
        instances = s.max_instances or 1
        for name in s.instance_types:
            try:
                return {"instance_type": catalog.get_instance(name).instance_type, "instances": instances}
            except UnknownNameError:
                continue
        if s.families and s.gpus:
            # "a single 4-GPU gn7i box": the family's type with exactly that many GPUs.
            listed, _ = yield from self.call("find_instance_types", find_instance_types, family=s.families[0])
            sized = [i for i in (listed.instances if listed else []) if i.gpu_count == s.gpus and not i.vgpu]
            if sized:
                return {"instance_type": sized[0].instance_type, "instances": instances}
        if s.gpu and s.gpus:
            return {"gpu": s.gpu, "gpus": s.gpus, "instances": instances}
        return None

    def hardware_verdict(self, s: Slots, hardware: dict[str, Any]) -> Events:
        """Yes or no on the named hardware, the deciding figures, and the smallest change that fits."""
        task = task_of(s)
        args: dict[str, Any] = {"model": s.model, "task": task, **hardware}
        if task == "inference":
            args |= {"precision": s.precision, "quant": s.quant, "context": s.context, "gen_tokens": s.gen_tokens}
            args["concurrency"] = s.concurrency or s.batch
        else:
            args |= {"batch": s.batch, "seq_len": s.context}
            if task == "full" and s.precision in ("bf16", "fp16", "fp32"):
                args["precision"] = s.precision
        fit, err = yield from self.call("evaluate_hardware_fit", evaluate_hardware_fit, **args)
        if err or not isinstance(fit, HardwareFit):
            return None
        return self.fit_lines(fit)

    def fit_lines(self, fit: HardwareFit) -> list[str]:
        """Render a fit: the verdict line, then the fixing changes (up to two)."""
        hw = fit.hardware
        if hw.instance_type:
            per = hw.gpus // hw.instances
            label = (
                say("hardware.instances", self.lang, instances=hw.instances, instance_type=hw.instance_type,
                    count=hw.gpus, gpu=hw.gpu)
                if hw.instances > 1
                else say("hardware.instance", self.lang, instance_type=hw.instance_type, count=per, gpu=hw.gpu)
            )  # fmt: skip
        elif hw.gpus == 1:
            label = say("hardware.one_gpu", self.lang, gpu=hw.gpu)
        else:
            label = say("hardware.gpus", self.lang, count=hw.gpus, gpu=hw.gpu)
        figures = {"hardware": label, "model": fit.model, "need": render.fig(fit.per_gpu_needed_gib)}
        figures["usable"] = render.fig(fit.per_gpu_usable_gib)
        if fit.fits:
            return [say("fit.yes", self.lang, **figures, pct=render.fig(fit.headroom_pct))]
        lines = [say("fit.no", self.lang, **figures, short=render.fig(fit.shortfall_gib))]
        fixes = [c for c in fit.changes if c.fits][:2]
        if fixes:
            sep = "；或 " if self.lang == "zh" else "; or "
            changes = sep.join(
                say(f"change.{c.code}", self.lang, value=c.value, gib=render.fig(c.per_gpu_gib)) for c in fixes
            )
            lines.append(say("fit.fix", self.lang, changes=changes))
        else:
            most = max((int(c.value) for c in fit.changes if c.code == "more_gpus"), default=hw.gpus)
            lines.append(say("fit.no_fix", self.lang, gpus=most))
        return lines
