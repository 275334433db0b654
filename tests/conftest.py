"""Shared pytest configuration for the bayesjudge test suite.

Hypothesis profiles
-------------------
``ci`` (the default): deterministic (``derandomize=True``), no per-example deadline (the first call
of a numerical routine may compile or warm caches), and a modest number of examples so the
default run stays fast on a small machine. ``dev``: more examples, random, for local bug hunting.
Select one with the ``HYPOTHESIS_PROFILE`` environment variable, e.g.
``HYPOTHESIS_PROFILE=dev python -m pytest tests``.

The on-disk model cache
-----------------------
Tests leave the user's cache folder alone: unless ``BAYESJUDGE_CACHE_DIR`` is already set, it
points at a temporary folder made for the session and removed at its end, shared by the
subprocesses and notebook kernels the tests start and by the workers of ``pytest -n`` (the
variable is set before they start). A model compiled by one test is then loaded by the next
process that needs it, as on a user's machine; the path without a cache (``off``) and the cache
itself are tested on their own folders in ``tests/inference/test_compile.py``.

The live Inspect AI log
-----------------------
``inspect_run`` (session scope) runs the small task described by
``tests/data/logs/inspect_task.json`` through Inspect itself, offline (its ``mockllm``
provider), once per test session, and gives the ``.eval`` log and the same log as JSON.
"""

from __future__ import annotations

import csv
import itertools
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    deadline=None,
    derandomize=True,
    max_examples=40,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=300, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# scripts that made the bundled eval logs (they need the tools themselves), not tests
collect_ignore = ["data"]


#: The session's model cache folder, when this process made it (removed at the session's end).
_SESSION_CACHE: list[Path] = []


def pytest_configure(config: pytest.Config) -> None:
    if "BAYESJUDGE_CACHE_DIR" not in os.environ:
        folder = Path(tempfile.mkdtemp(prefix="bayesjudge-test-cache-"))
        _SESSION_CACHE.append(folder)
        os.environ["BAYESJUDGE_CACHE_DIR"] = str(folder)


def pytest_unconfigure(config: pytest.Config) -> None:
    for folder in _SESSION_CACHE:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop("BAYESJUDGE_CACHE_DIR", None)
    _SESSION_CACHE.clear()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the tests in reverse order when ``BAYESJUDGE_TEST_ORDER=reverse`` (CI's second pass).

    A test that passes only after (or before) another one is a defect; running the suite in
    both orders finds it.
    """
    order = os.environ.get("BAYESJUDGE_TEST_ORDER", "")
    if order not in ("", "reverse"):
        raise pytest.UsageError(f"BAYESJUDGE_TEST_ORDER must be 'reverse' or unset; got {order!r}")
    if order == "reverse":
        items.reverse()


@pytest.fixture
def no_disk_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Turn the session's on-disk model cache off, for tests that count builds and compiles.

    With the cache on, a model compiled by an earlier test (or another worker) is loaded
    instead of built, and the counts would depend on the order the tests ran in.
    """
    monkeypatch.setenv("BAYESJUDGE_CACHE_DIR", "off")


INSPECT_TASK = Path(__file__).parent / "data" / "logs" / "inspect_task.json"


@dataclass(frozen=True)
class InspectRun:
    """The live Inspect run: its logs and the task that made them (inspect_task.json)."""

    eval: Path
    json: Path
    spec: dict[str, Any]


def _write_inspect_log(log_dir: Path, spec: dict[str, Any]) -> Path:
    """Run a tiny task through Inspect with its mockllm provider; return the .eval log."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import Score, Target, accuracy, mean, scorer
    from inspect_ai.solver import Generate, TaskState, solver

    grades = {(i, e): g for i, e, g in spec["grades"]}

    @solver
    def fail_on_err():  # type: ignore[no-untyped-def]
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            if state.sample_id == "err":
                raise RuntimeError("solver crashed on purpose")
            return await generate(state)

        return solve

    @scorer(metrics=[accuracy()])
    def grade():  # type: ignore[no-untyped-def]
        async def score(state: TaskState, target: Target) -> Score:
            value = grades[(str(state.sample_id), state.epoch)]
            return Score.unscored(reason="grader_failed") if value is None else Score(value=value)

        return score

    @scorer(metrics=[mean()])
    def length():  # type: ignore[no-untyped-def]
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=0.25 * state.epoch)

        return score

    @scorer(metrics=[mean()])
    def binary():  # type: ignore[no-untyped-def]
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=spec["binary"][str(state.sample_id)])

        return score

    def canned(*_: object) -> ModelOutput:
        # A usage given up front keeps mockllm from counting tokens (which downloads a tokenizer).
        output = ModelOutput.from_content(model="mockllm/model", content="an answer")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    task = Task(
        dataset=MemoryDataset(
            [Sample(id=i, input=f"question {i}", target="x") for i in spec["ids"]]
        ),
        solver=[fail_on_err()],
        scorer=[grade(), length(), binary()],
        epochs=spec["epochs"],
    )
    [log] = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=canned),
        log_dir=str(log_dir),
        log_format="eval",
        display="none",
        fail_on_error=False,
    )
    return Path(log.location)


@pytest.fixture(scope="session")
def inspect_run(tmp_path_factory: pytest.TempPathFactory) -> InspectRun:
    """The same run as an .eval log (from eval) and a .json log (Inspect's write_eval_log)."""
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log as inspect_read
    from inspect_ai.log import write_eval_log

    spec = json.loads(INSPECT_TASK.read_text(encoding="utf-8"))
    folder = tmp_path_factory.mktemp("inspect")
    with pytest.MonkeyPatch.context() as patch:  # Inspect's traces and caches go here, not ~
        patch.setenv("XDG_DATA_HOME", str(folder / "data"))
        patch.setenv("XDG_CACHE_HOME", str(folder / "cache"))
        eval_path = _write_inspect_log(folder / "logs", spec)
    json_path = folder / "run.json"
    write_eval_log(inspect_read(str(eval_path)), str(json_path), format="json")
    return InspectRun(eval=eval_path, json=json_path, spec=spec)


# --------------------------------------------------------------------------- readable reports
# What a reader must never see in a report: a missing value printed as nan, a character
# reference or a backslash escape in summary.md prose, an identifier in a sentence.
_DATA_URI = re.compile(r"data:image/png;base64,[A-Za-z0-9+/=]+")
_NAN = re.compile(r"(?<![\w.])nan(?![\w.])", re.IGNORECASE)
_REFERENCE = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|[A-Za-z]+);")
_BACKSLASH = re.compile(r"\\[^\w\s]")
_IDENTIFIER = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
_CODE_SPAN = re.compile(r"`[^`]*`")
_PATH = re.compile(r"\S*/\S*")  # a file's path is the user's, whatever its words


def _prose_lines(markdown: str) -> list[str]:
    """The lines of a Markdown file that are sentences: not table rows, code spans removed."""
    return [
        _CODE_SPAN.sub("", line)
        for line in markdown.splitlines()
        if line.strip() and not line.lstrip().startswith("|")
    ]


def _columns(markdown: str, page: str) -> set[str]:
    """Every column name shown in a table (identifiers there name the column)."""
    names = set(re.findall(r"<th[^>]*>(.*?)</th>", page, flags=re.DOTALL))
    names = {re.sub(r"<[^>]+>", "", n) for n in names}
    lines = markdown.splitlines()
    for header, rule in itertools.pairwise(lines):
        if header.startswith("|") and rule.startswith("|---"):
            names.update(cell.strip().replace("\\_", "_") for cell in header.strip("|").split("|"))
    return names


def check_readable_report(folder: Path, *, names: tuple[str, ...] = ()) -> None:
    """Fail on what a reader should not see in ``report.html`` or ``summary.md``.

    No ``nan`` anywhere; in the sentences of ``summary.md`` no character reference
    (``&#x27;``, ``&gt;``) and no backslash escape (``66\\.7%``); in the sentences of both
    files no identifier (``at_least_2_of_4``) unless it names a table column or is one of
    ``names`` (names from the data, such as a judge called ``a_copy``) or part of a path.
    Every family's folder also holds ``analysis.json``: strict JSON (no NaN) whose
    ``provenance`` gives the seed and the versions, as issue 25 asks of every report.
    """
    record = json.loads(
        (folder / "analysis.json").read_text(encoding="utf-8"),
        parse_constant=lambda name: pytest.fail(f"analysis.json holds {name}"),
    )
    assert {"seed", "versions"} <= set(record["provenance"]), sorted(record["provenance"])
    assert "bayesjudge" in record["provenance"]["versions"]
    markdown = (folder / "summary.md").read_text(encoding="utf-8")
    page = _DATA_URI.sub("", (folder / "report.html").read_text(encoding="utf-8"))
    for label, text in (("summary.md", markdown), ("report.html", page)):
        assert not _NAN.search(text), f"{label} shows nan: {_NAN.search(text)}"
    allowed = _columns(markdown, page) | set(names)
    prose = _prose_lines(markdown)
    for line in prose:
        assert not _REFERENCE.search(line), f"summary.md prose holds a reference: {line}"
        assert not _BACKSLASH.search(line), f"summary.md prose holds an escape: {line}"
    body = re.sub(r"<(table|style|details|code)\b.*?</\1>", "", page, flags=re.DOTALL)
    sentences = [re.sub(r"<[^>]+>", " ", body), *prose]
    for text in sentences:
        codes = set(_IDENTIFIER.findall(_PATH.sub(" ", text))) - allowed
        assert not codes, f"identifiers in prose: {sorted(codes)}"


@pytest.fixture(scope="session")
def readable_report() -> Callable[..., None]:
    """:func:`check_readable_report`, for the report tests of every family."""
    return check_readable_report


#: What a spreadsheet reads as the start of a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def check_inert_csv(folder: Path) -> dict[str, list[str]]:
    """Fail on a CSV cell of a report that a spreadsheet would read as a formula.

    Every cell of every ``*.csv`` in ``folder`` that starts like a formula must be a number
    (``-0.5``); names from the data are written quoted (``'=HYPERLINK(...)``). Returns the
    cells of each file, by file name, for the test's own checks.
    """
    cells = {}
    for path in sorted(folder.glob("*.csv")):
        with open(path, newline="", encoding="utf-8") as stream:
            cells[path.name] = [cell for row in csv.reader(stream) for cell in row]
    for name, found in cells.items():
        formulas = [c for c in found if c.startswith(FORMULA_STARTS) and not _is_number(c)]
        assert formulas == [], name
    return cells


@pytest.fixture(scope="session")
def inert_csv() -> Callable[[Path], dict[str, list[str]]]:
    """:func:`check_inert_csv`, for the report tests that write names from the data."""
    return check_inert_csv
