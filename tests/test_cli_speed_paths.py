"""What a cold ``gpu-advisor plan`` may skip, and that skipping it never changes an answer.

A run builds only the parser of its own command, and builds Settings (pydantic-settings) only when a live
price snapshot could be in use. These tests check the shortcuts against the full paths they stand for.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from assistant.settings import Settings
from tools.media_models import find_media_model, load_media_models
from tools.media_names import is_media_name
from tools.price_snapshot import Availability, snapshot_root, write_snapshot
from tools.prices import Price
from ui.cli import _COMMAND_MODULE, _COMMAND_MODULES, build_parser
from ui.commands.prices import _SNAPSHOTS_DIR, default_data_dir
from ui.tables import _console, _print_list

A10 = "ecs.gn7i-c8g1.2xlarge"
PLAN = ["plan", "--model", "qwen2.5-7b", "--region", "cn-beijing", "--json"]


def _commands_of(module: str) -> set[str]:
    parser = build_parser((module,))
    sub = next(a for a in parser._actions if a.dest == "command")
    return set(sub.choices or ())


def test_every_command_is_mapped_to_the_module_that_registers_it() -> None:
    registered = {command: module for module in _COMMAND_MODULES for command in _commands_of(module)}
    assert registered == _COMMAND_MODULE


@pytest.mark.parametrize("command", sorted(_COMMAND_MODULE))
def test_the_parser_of_one_command_reads_its_options_as_the_full_parser_does(command: str) -> None:
    one = build_parser((_COMMAND_MODULE[command],), command)
    full = build_parser()

    def options(parser: argparse.ArgumentParser) -> dict[str, object]:
        sub = next(a for a in parser._actions if a.dest == "command")
        chosen = (sub.choices or {})[command]
        # Nested sub-commands (prices show|compare|...) compare by name: their parsers are new objects.
        return {
            " ".join(a.option_strings) or a.dest: (a.dest, a.default, None if a.choices is None else list(a.choices))
            for a in chosen._actions
        }

    assert options(one) == options(full)


def test_the_media_name_keys_answer_as_the_media_registry_does() -> None:
    names = [m.name for m in load_media_models()] + [a for m in load_media_models() for a in m.aliases]
    names += ["qwen2.5-72b", "Llama-3.1-8B-Instruct", "sdxl 1.0", "whisper", "not a model"]
    for name in names:
        assert is_media_name(name) == (find_media_model(name) is not None), name
    assert is_media_name("SDXL") and not is_media_name("qwen2.5-72b")


def test_the_shortcut_looks_where_settings_and_snapshots_are() -> None:
    # The suite clears every GPU_ADVISOR_ variable and runs in a directory without a .env file.
    assert Settings().data_dir == default_data_dir()
    assert snapshot_root(default_data_dir()) == default_data_dir() / _SNAPSHOTS_DIR


def _write_live_snapshot(data_dir: Path) -> None:
    price = Price(
        instance_type=A10, region="cn-beijing", billing="pay-as-you-go", price=1.25, unit="per hour", currency="CNY",
        as_of="2026-12-01T22:10:00Z", authority="live", source="DescribePrice",
    )
    stock = Availability(
        instance_type=A10, region="cn-beijing", zone="cn-beijing-k", status="WithStock",
        as_of="2026-12-01T22:10:00Z", source="DescribeAvailableResource",
    )
    write_snapshot(snapshot_root(data_dir), "2026-12-01T22:10:00Z", [price], [stock])


def _plan(env: dict[str, str], cwd: Path) -> dict[str, object]:
    code = (
        "import json, sys\n"
        "from ui.cli import main\n"
        "try:\n"
        f"    main({PLAN!r})\n"
        "except SystemExit as done:\n"
        "    assert not done.code, done.code\n"
        "heavy = ('assistant', 'knowledge', 'pydantic_settings', 'yaml', 'rich', 'logging', 'platformdirs')\n"
        "print(json.dumps(sorted(m for m in heavy if m in sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cwd, timeout=120)
    assert out.returncode == 0, out.stderr
    plan_line, imported_line = out.stdout.strip().splitlines()
    return {"plan": json.loads(plan_line), "imported": json.loads(imported_line)}


def _top_price_is_live(result: dict[str, object]) -> bool:
    plan = result["plan"]
    assert isinstance(plan, dict)
    return any(o["instance_type"] == A10 and o["price_live"] for o in plan["options"])


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.upper().startswith("GPU_ADVISOR_")}
    # platformdirs puts the default data directory under XDG_DATA_HOME.
    return {**keep, "XDG_DATA_HOME": str(tmp_path / "xdg")}


def test_a_plan_without_any_snapshot_imports_neither_settings_nor_the_assistant(
    env: dict[str, str], tmp_path: Path
) -> None:
    env["GPU_ADVISOR_DATA_DIR"] = str(tmp_path / "data")
    _plan(env, tmp_path)  # the first run may fill the catalog cache
    result = _plan(env, tmp_path)
    assert not _top_price_is_live(result)
    assert result["imported"] == []  # JSON output needs no rich either; a warm cache needs no YAML; no logging


@pytest.mark.parametrize("where", ["variable", "lower-case variable", "default directory", ".env file"])
def test_a_live_snapshot_is_used_wherever_the_settings_find_the_data_directory(
    env: dict[str, str], tmp_path: Path, where: str
) -> None:
    data = tmp_path / "data"
    if where == "variable":
        env["GPU_ADVISOR_DATA_DIR"] = str(data)
    elif where == "lower-case variable":  # pydantic-settings matches names in any case
        env["gpu_advisor_data_dir"] = str(data)
    elif where == "default directory":
        data = tmp_path / "xdg" / "gpu-advisor"
    else:
        (tmp_path / ".env").write_text(f"GPU_ADVISOR_DATA_DIR={data}\n", encoding="utf-8")
    _write_live_snapshot(data)
    result = _plan(env, tmp_path)
    assert _top_price_is_live(result), where
    assert "pydantic_settings" in result["imported"]  # Settings decided, as before
    env["GPU_ADVISOR_PRICES_OFFLINE"] = "true"
    assert not _top_price_is_live(_plan(env, tmp_path))


_LIST_ITEMS = [
    "short",
    "a long assumption that the console has to wrap, since it is far wider than the forty columns given " * 2,
    "[bold]not markup[/bold], :smile: is not an emoji, http://example.com/?a=[1]",
    "宽字符 占两列 " * 12,
    "",
]


@pytest.mark.parametrize("terminal", [True, False])
@pytest.mark.parametrize("width", [40, 200])
def test_a_list_printed_at_once_reads_as_its_lines_printed_one_by_one(terminal: bool, width: int) -> None:
    def console(out: io.StringIO) -> Console:
        return Console(
            file=out, force_terminal=terminal, color_system="truecolor" if terminal else None, width=width,
            highlight=False, emoji=False,
        )

    one_by_one, at_once = io.StringIO(), io.StringIO()
    lines = console(one_by_one)
    lines.print("[bold]assumptions[/bold]")
    for item in _LIST_ITEMS:
        lines.print(f"  - {item}", markup=False)
    _print_list(console(at_once), "assumptions", _LIST_ITEMS)
    assert at_once.getvalue() == one_by_one.getvalue()


@pytest.mark.parametrize("columns", [None, "123"])
def test_the_console_size_read_once_is_the_size_rich_reads(
    monkeypatch: pytest.MonkeyPatch, columns: str | None
) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    fixed = _console()
    live = Console(highlight=False, emoji=False)
    if not live.is_terminal:  # piped, as under pytest: 200 columns (see ui.tables._console)
        live = Console(highlight=False, emoji=False, width=200)
    assert fixed.size == live.size


def _script_run(entry: str, args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    # An exit handler that prints, and an object whose finalizer speaks only in the interpreter's teardown.
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('exit handler ran'))\n"
        "class Teardown:\n"
        "    def __del__(self):\n"
        "        sys.__stderr__.write('torn down\\n')\n"
        "keep = Teardown()\n"
        f"sys.argv = ['gpu-advisor', *{args!r}]\n"
        f"from ui.cli import {entry}\n"
        f"{entry}()\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.mark.parametrize(
    "args",
    [
        ["plan", "--model", "qwen2.5-7b", "--region", "cn-beijing"],
        ["plan", "--model", "qwen2.5-7b", "--json"],
        ["plan", "--model", "no-such-model"],  # a one-line error, status 2
        ["plan", "--concurrency", "8"],  # an argument error from argparse
        ["-v", "gpus", "--json"],
    ],
)
def test_the_script_ends_a_computing_command_as_the_interpreter_would(args: list[str], tmp_path: Path) -> None:
    quick = _script_run("run", args, tmp_path)  # the gpu-advisor script: no teardown
    usual = _script_run("main", args, tmp_path)  # the interpreter's own exit
    assert quick.returncode == usual.returncode
    assert quick.stdout == usual.stdout and quick.stdout.endswith("exit handler ran\n")
    assert usual.stderr.endswith("torn down\n")
    assert quick.stderr == usual.stderr.removesuffix("torn down\n")  # the shortcut was taken, nothing else differs


def test_a_computing_command_still_warns_on_stderr_without_configuring_logging(
    env: dict[str, str], tmp_path: Path
) -> None:
    # A damaged live snapshot is skipped with a warning; a plan without -v leaves logging unconfigured,
    # so Python's last-resort handler prints it (the message alone); -v configures logging as before.
    env["GPU_ADVISOR_DATA_DIR"] = str(tmp_path / "data")
    _write_live_snapshot(tmp_path / "data")
    (prices_file,) = snapshot_root(tmp_path / "data").glob("*/prices.csv")
    prices_file.write_text(prices_file.read_text(encoding="utf-8").replace(",CNY,", ",RMB,"), encoding="utf-8")
    warned = {}
    for flags in ([], ["-v"]):
        code = f"import sys\nsys.argv = ['gpu-advisor', *{[*flags, *PLAN]!r}]\nfrom ui.cli import run\nrun()\n"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        warned[" ".join(flags)] = [line for line in done.stderr.splitlines() if "ignoring live price snapshot" in line]
    assert len(warned[""]) == 1 and warned[""][0].startswith("ignoring live price snapshot ")
    assert warned["-v"] == ["WARNING:tools.price_snapshot:" + warned[""][0]]


def test_a_computing_command_runs_no_garbage_collection_once_started(tmp_path: Path) -> None:
    # main turns the collector off; turned back on before the exit, its first pass walks every object made.
    code = (
        "import atexit, gc, sys\n"
        "sys.argv = ['gpu-advisor', 'plan', '--model', 'qwen2.5-7b']\n"
        "from ui.cli import run\n"
        "passes = []\n"
        "gc.callbacks.append(lambda phase, info: phase == 'start' and passes.append(info['generation']))\n"
        "atexit.register(lambda: print('collections', len(passes), 'enabled', gc.isenabled(), 'json' in sys.modules))\n"
        "run()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("collections 0 enabled False False\n")  # nor json, for a table


@pytest.mark.parametrize(("given", "kept"), [(None, "__all__"), ("", ""), ("logfire", "logfire")])
def test_a_computing_command_skips_pydantic_plugins_unless_the_user_says(
    given: str | None, kept: str, tmp_path: Path
) -> None:
    # Looking for plugins reads every installed distribution's entry points before the first model is built.
    code = (
        "import atexit, os, sys\n"
        "sys.argv = ['gpu-advisor', 'plan', '--model', 'qwen2.5-7b']\n"
        "from ui.cli import run\n"
        "from pydantic.plugin import _loader\n"
        "atexit.register(lambda: print('plugins', repr(os.environ.get('PYDANTIC_DISABLE_PLUGINS')),"
        " _loader._plugins is not None))\n"
        "run()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    if given is not None:
        env["PYDANTIC_DISABLE_PLUGINS"] = given
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    looked = given is not None and given not in ("__all__", "1", "true")
    assert done.stdout.endswith(f"plugins {kept!r} {looked}\n")


def test_other_commands_end_with_the_interpreter_s_teardown(tmp_path: Path) -> None:
    done = _script_run("run", ["--help"], tmp_path)
    assert done.returncode == 0 and "plan" in done.stdout and done.stderr.endswith("torn down\n")


def test_no_tools_model_field_has_a_builtin_default_factory() -> None:
    # pydantic reads each default factory's signature when a class is created. For a builtin (list, dict)
    # that means parsing its text signature with tokenize, whose first use compiles a large regex: about
    # 13 M instructions, 1.3% of a cold `plan`. `lambda: []` gives the same default and schema.
    import importlib
    import inspect
    import pkgutil

    from pydantic import BaseModel

    import tools

    for module in pkgutil.iter_modules(tools.__path__):
        importlib.import_module(f"tools.{module.name}")
    classes, seen = [BaseModel], []
    while classes:
        cls = classes.pop()
        classes.extend(cls.__subclasses__())
        if cls.__module__.startswith("tools."):
            seen.append(cls)
    assert len(seen) > 30
    builtin = [
        f"{cls.__module__}.{cls.__qualname__}.{name}"
        for cls in seen
        for name, field in cls.model_fields.items()
        if inspect.isbuiltin(field.default_factory) or isinstance(field.default_factory, type)
    ]
    assert builtin == [], "use default_factory=lambda: [] (or {}): see this test's comment"
