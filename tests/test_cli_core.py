"""The core CLI as external scripts use it: real subprocesses, exact flag names and JSON shapes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BREAKDOWN_KEYS = {"weights_gib", "kv_cache_gib", "activations_gib", "gradients_gib", "optimizer_gib", "overhead_gib"}


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ui", *args], capture_output=True, text=True, input=stdin, timeout=120
    )


def test_estimate_json_shape() -> None:
    out = run("estimate", "--model", "Qwen2.5-7B-Instruct", "--prompt-tokens", "2048", "--gen-tokens", "512", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert {"params_b", "num_gpus", "per_gpu", "per_gpu_total_gib", "assumptions"} <= data.keys()
    assert BREAKDOWN_KEYS <= data["per_gpu"].keys()
    assert data["params_b"] == pytest.approx(7.62, abs=0.01)
    assert isinstance(data["assumptions"], list) and data["assumptions"]


def test_estimate_training_flags() -> None:
    out = run(
        "estimate", "--model", "llama3.1-8b", "--task", "full", "--seq-len", "2048", "--batch", "2", "--gpus", "4",
        "--zero", "3", "--no-grad-ckpt", "--optimizer", "adamw-8bit", "--json",
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["num_gpus"] == 4 and data["per_gpu"]["optimizer_gib"] > 0


def test_estimate_from_jsonl_keeps_going_after_a_bad_line(tmp_path: Path) -> None:
    lines = [
        {"model": "qwen2.5-7b", "prompt_tokens": 1000, "gen_tokens": 100},
        {"model": "Qwen2.5-70B"},
        "not json",
        {"model": "llama3.1-8b", "task": "lora", "seq_len": 2048, "lora_r": 8},
        {"model": "qwen2.5-7b", "batch": -1},
        "",
        {"model": "qwen2.5-7b"},
    ]
    path = tmp_path / "requests.jsonl"
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    out = run("estimate", "--from", str(path))
    assert out.returncode == 0, out.stderr
    results = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(results) == 7  # one output line per input line, blank ones included
    assert "per_gpu" in results[0] and "per_gpu" in results[3]
    assert "Did you mean" in results[1]["error"]
    assert "invalid JSON" in results[2]["error"]
    assert "batch" in results[4]["error"]
    assert "empty line" in results[5]["error"] and "per_gpu" in results[6]


def test_plan_json_shape_and_reference_question() -> None:
    out = run(
        "plan", "--model", "qwen2.5-72b", "--quant", "awq-int4", "--context", "32768", "--concurrency", "20", "--json"
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["options"] and data["rejected"]
    for option in data["options"]:
        assert {
            "instance_type", "gpu_model", "gpu_count", "instances", "per_gpu_gib_needed", "headroom_pct",
            "price_cny_per_hour", "price_source",
        } <= option.keys()
        assert option["per_gpu_gib_needed"] <= option["per_gpu_capacity_gib"]
    assert any(o["price_cny_per_hour"] is not None and o["price_source"] for o in data["options"])
    assert all("reason" in r for r in data["rejected"])


def test_catalog_lists_as_json() -> None:
    instances = json.loads(run("instances", "--json").stdout)
    assert {"instance_type", "family", "gpu_model", "gpu_count", "gpu_memory_gib", "vcpu", "memory_gib", "source"} <= (
        instances[0].keys()
    )
    gn7i = [i for i in instances if i["instance_type"] == "ecs.gn7i-c32g1.8xlarge"][0]
    assert (gn7i["gpu_model"], gn7i["gpu_count"], gn7i["vcpu"]) == ("A10", 1, 32)
    gpus = json.loads(run("gpus", "--json").stdout)
    assert {"name", "memory_gib", "memory_bandwidth_gb_s", "bf16_dense_tflops", "source"} <= gpus[0].keys()
    models = json.loads(run("models", "--json").stdout)
    assert len(models) >= 40


def test_human_output_is_a_table() -> None:
    out = run("plan", "--model", "qwen2.5-7b", "--context", "8192", "--concurrency", "4")
    assert out.returncode == 0 and "instance type" in out.stdout and "assumptions" in out.stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("estimate", "--model", "Qwen2.5-70B"), "Did you mean"),
        (("estimate", "--model", "qwen2.5-7b", "--batch", "-4"), "--batch:"),
        (("estimate", "--model", "qwen2.5-7b", "--prompt-tokens", "999999999"), "--prompt-tokens:"),
        (("estimate", "--model", "qwen2.5-7b", "--task", "full", "--quant", "gptq-int4"), "gptq-int4"),
        (("plan", "--model", "qwen2.5-7b", "--concurrency", "0"), "--concurrency:"),
        (("plan", "--model", "qwen2.5-7b", "--gpu", "H9000"), "Unknown GPU"),
        (("estimate", "--model", "qwen2.5-7b", "--precision", "fp64"), "invalid choice"),
        (("estimate", "--model", "/nonexistent/config.json"), "config"),
    ],
)
def test_bad_input_is_one_line_without_traceback(args: tuple[str, ...], needle: str) -> None:
    out = run(*args)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert needle in out.stderr
