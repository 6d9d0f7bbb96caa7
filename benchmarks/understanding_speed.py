"""Worst-case speed of the rule-based understanding: 4,000-character questions that repeat one name.

    .venv/bin/python benchmarks/understanding_speed.py

Every pattern must stay linear in the question's length (issue 10: a question repeating a model or GPU
name hundreds of times must be understood in well under a second). Prints the time per question.
"""

from __future__ import annotations

import time

from assistant.understanding import understand

REPEATED = (
    "Qwen2.5-72B ",
    "L20 ",
    "gn7i ",
    "llama-9999B ",
    "qwen ",
    "1",
    "一",
    "百",
    "-5 users ",
    "ecs.gn7i-c8g1.2xlarge ",
    "0.5 张卡 ",
    "32k tokens ",
    "H20 vs A100 ",
    "twelve users ",
    "1e308 ",
)


def main() -> int:
    understand("warm up the catalogs: L20 gn7i Qwen2.5-7B")
    worst = 0.0
    for text in REPEATED:
        question = (text * (4000 // len(text) + 1))[:4000]
        start = time.perf_counter()
        understand(question)
        elapsed = time.perf_counter() - start
        worst = max(worst, elapsed)
        print(f"{text.strip()!r:>28} x {4000 // len(text)}: {elapsed * 1000:7.1f} ms")
    print(f"worst: {worst * 1000:.1f} ms (target: well under 1,000 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
