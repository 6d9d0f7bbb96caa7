"""Yes/no questions answered yes or no first (issue 8, i8form) through ``gpu-advisor ask --json`` and ``/v1/ask``.

Each check reads the typed outcome in the answer's own tool calls (context limit, 6·N·D hours, price, fit) and
requires the first line's yes or no to agree with it; multi-turn through the CLI's history file and the API's
session.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_helpers import ask_api, ask_api_follow_up, ask_cli, ask_cli_follow_up

from assistant.form_leads import lead_verdict

pytestmark = pytest.mark.slow

Body = dict[str, Any]


def _result(body: Body, tool: str) -> dict[str, Any]:
    found = [c["result"] for c in body["tool_calls"] if c["name"] == tool and isinstance(c["result"], dict)]
    assert found, f"{tool} not called: {[c['name'] for c in body['tool_calls']]}"
    return found[-1]  # type: ignore[no-any-return]


def _context_limit(body: Body) -> None:
    assert _result(body, "model_card")["max_context"] < 16_000 and lead_verdict(body["text"]) == "no"


def _deadline(body: Body) -> None:
    runs = [c["result"] for c in body["tool_calls"] if c["name"] == "training_run" and isinstance(c["result"], dict)]
    assert runs and runs[0]["hours"] > 48 and lead_verdict(body["text"]) == "no"  # the named set; then one in time


def _amount(body: Body) -> None:
    quote = _result(body, "price_of_instance")
    assert (quote["subscription_monthly"] or quote["monthly"]) > 3000 and lead_verdict(body["text"]) == "no"


CASES: list[tuple[str, str, Callable[[Body], None]]] = [
    ("context-limit", "Baichuan2-7B-Chat 能不能直接吃 16k 的长文本？用 A10 部署", _context_limit),
    ("deadline", "两天之内要把 Qwen2.5-72B 在 10 亿 token 上全参训完，一台 8 卡 A100 来得及吗", _deadline),
    ("amount", "Can I get an ecs.gn7i-c8g1.2xlarge for 3000 RMB a month?", _amount),
]
FIRST = "我们现在有 4 张 L20"
FOLLOW = "跑 Qwen2.5-72B BF16 够吗"


def _four_l20(body: Body) -> None:
    fit = _result(body, "evaluate_hardware_fit")
    assert (fit["hardware"]["gpu"], fit["hardware"]["gpus"]) == ("L20", 4)
    assert lead_verdict(body["text"]) == ("yes" if fit["fits"] else "no")


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


def test_cli_hardware_stated_first_is_judged(cli_env: dict[str, str], tmp_path: Path) -> None:
    first = ask_cli(cli_env, FIRST)
    _four_l20(ask_cli_follow_up(cli_env, tmp_path, FIRST, first["text"], FOLLOW))


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


def test_api_hardware_stated_first_is_judged(client: httpx.Client) -> None:
    _, follow = ask_api_follow_up(client, FIRST, FOLLOW)
    _four_l20(follow)
