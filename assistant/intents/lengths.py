"""Length conversions asked for on their own: "how many tokens is 1,500 English words?", "800 个汉字是多少 token"."""

from __future__ import annotations

from assistant import render
from assistant.messages import say
from assistant.price_phrases import link_urls
from assistant.run import Events, Reply, Run
from assistant.toolbox import text_length_tokens
from assistant.understanding import Slots
from tools.lengths import TokenCount


class LengthsIntent(Run):
    """Converts the lengths the user gave into tokens with the sourced ratio of their unit."""

    def tokens(self, s: Slots) -> Events:
        """One line per length, the token count first, then the ratio and its source."""
        lines = []
        for stated in s.lengths:
            count, err = yield from self.call(
                "text_length_tokens", text_length_tokens, amount=stated.amount, unit=stated.unit
            )
            if err:
                return self.error(err)
            assert isinstance(count, TokenCount)
            lines.append(self.length_line(count))
        notes = [say("length.varies", self.lang)]
        return Reply(text="\n\n".join([*lines, *notes]), kind="estimate")

    def length_line(self, c: TokenCount) -> str:
        """Render one conversion: the count first, then the ratio and its source."""
        return say(
            "length.answer", self.lang, amount=render.fig(c.amount), unit=say(f"unit.{c.unit}", self.lang),
            tokens=render.fig(c.tokens), ratio=render.fig(c.tokens_per_unit),
            unit_one=say(f"unit_one.{c.unit}", self.lang), source=link_urls(c.source or ""),
        )  # fmt: skip
