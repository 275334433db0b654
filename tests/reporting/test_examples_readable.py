"""Every bundled example's report, read as a user would: no nan, no escapes, no identifiers.

``bayesjudge report --example judge|gate|channel|systems|panel`` with the command's defaults
(the user's first run). Each fit takes from one to five minutes on a shared two-core machine,
so these are marked ``slow`` (``pytest -m slow tests/reporting/test_examples_readable.py``);
the default run checks the same with each family's short report fixture (``readable_report``
in the report tests of tests/channels, tests/gates, tests/panels, tests/prevalence and
tests/systems).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bayesjudge.cli.app import main
from bayesjudge.examples import load_example

pytestmark = pytest.mark.slow

# names from the bundled data that contain an underscore (a judge called a_copy)
NAMES = {"panel": ("a_copy",)}


@pytest.fixture(scope="module", params=["judge", "gate", "channel", "systems", "panel"])
def example_report(request: pytest.FixtureRequest, tmp_path_factory) -> tuple[str, Path]:
    """One report per bundled example, written once for the module."""
    out = tmp_path_factory.mktemp(request.param) / "report"
    code = main(["report", "--example", request.param, "--out", str(out), "--no-progress"])
    assert code == 0
    return request.param, out


def test_the_example_report_reads_as_prose(example_report, readable_report) -> None:
    example, out = example_report
    readable_report(out, names=NAMES.get(example, ()))


def test_the_examples_are_what_the_names_allowance_assumes() -> None:
    # the allowance above must follow the bundled data: a judge renamed without an
    # underscore would make it dead, one added with an underscore would fail above
    columns = set(load_example("panel").columns)
    assert {"a_copy"} <= columns
