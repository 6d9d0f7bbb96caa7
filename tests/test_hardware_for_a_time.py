"""The time named hardware is there for is the run's deadline, and an answer never says a paragraph twice.

Found asking as a new user: "64 H800s for two weeks, 50B tokens continued pretraining on Qwen2.5-72B — enough?"
answered "Yes, it fits." (twice) without the time or that Alibaba rents no H800. Domain: 6·N·D for 72.7B
parameters and 50B tokens on 64 H800s at 40% MFU is about 13 days, inside two weeks; ECS has no H800 type.
"""

from __future__ import annotations

import httpx
import pytest
from engine_helpers import ask_api, first_line

from assistant.question_form import deadline_hours
from assistant.render import unique_paragraphs


@pytest.mark.parametrize(
    ("question", "hours"),
    [
        ("64 H800s for two weeks, 50B tokens continued pretraining on Qwen2.5-72B — enough?", 336),
        ("we can get 16 A100s for 3 days, pretrain 1B on 20B tokens?", 72),
        ("rent 8 cards for a week", 168),
    ],
)
def test_hardware_for_a_time_is_a_deadline(question: str, hours: float) -> None:
    assert deadline_hours(question) == hours


def test_serving_without_a_time_has_no_deadline() -> None:
    assert deadline_hours("serve qwen for 10 users for our support team") is None


def test_a_repeated_paragraph_is_said_once() -> None:
    text = "**Yes.** fits\n\nTraining time: 3 h\n\n**Yes.** fits\n\n| a |\n|---|"
    assert unique_paragraphs(text) == "**Yes.** fits\n\nTraining time: 3 h\n\n| a |\n|---|"


def test_api_h800_for_two_weeks(client: httpx.Client) -> None:
    body = ask_api(client, "64 H800s for two weeks, 50B tokens continued pretraining on Qwen2.5-72B — enough?")
    [run] = [c for c in body["tool_calls"] if c["name"] == "training_run"][:1]
    assert run["args"]["gpus"] == 64 and run["args"]["tokens"] == 50e9
    assert first_line(body["text"]).startswith("**Alibaba Cloud has no H800")
    paragraphs = [p.strip() for p in body["text"].split("\n\n") if p.strip()]
    assert len(paragraphs) == len(set(paragraphs))
