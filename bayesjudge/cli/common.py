"""Command-line plumbing shared by every family's commands: argument types, options, output.

A family's command module (e.g. :mod:`bayesjudge.prevalence.cli`) registers its subcommand
with :func:`add_input_options` and the sampler options of :mod:`bayesjudge.cli.options`, calls
one analysis function, and prints what it returns with :func:`emit_json` or the table helpers
here. A command that writes declares its output options (``set_defaults(outputs={"out":
"report"})``); :func:`claimed_outputs` checks them before any work. Exit codes: 0 success, 2
bad input (one message naming the argument, column or row, never a traceback), 3 a posterior
that failed its diagnostics, 130 interrupted.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NoReturn, TextIO, TypedDict, cast

from bayesjudge._interrupt import EXIT_INTERRUPTED
from bayesjudge.reporting.output import escape_terminal

if TYPE_CHECKING:
    from bayesjudge.io.logs import EvalLog
    from bayesjudge.io.tables import TableFormat
    from bayesjudge.reporting.summary import ReportSummary

__all__ = [
    "EXIT_ALARM",
    "EXIT_BAD_INPUT",
    "EXIT_DIAGNOSTICS",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "InputOptions",
    "OutputOption",
    "Parser",
    "TableReading",
    "UserError",
    "add_input_options",
    "claimed_outputs",
    "clean",
    "echo",
    "emit_json",
    "fmt",
    "input_options",
    "is_named_fifo",
    "named_paths",
    "positive_int",
    "print_answer",
    "probability",
    "report_failures",
    "seed",
    "unit",
]

EXIT_OK = 0
EXIT_ALARM = 1  # a gate or monitor says no: below the bar, or an alarm (check, monitor)
EXIT_BAD_INPUT = 2
EXIT_DIAGNOSTICS = 3

#: What an output option names: a report folder (replaced as a whole), a study folder (filled
#: and resumed) or a folder that receives files beside others (``study --figures``).
OutputOption = Literal["report", "study", "files"]


class UserError(Exception):
    """An error in what the user asked for, reported in one line with exit code 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors exit with code 2 and one line of explanation."""

    def error(self, message: str) -> NoReturn:
        """Print the usage and the error, then exit with code 2."""
        self.print_usage(sys.stderr)
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


# --------------------------------------------------------------------------- argument types
def _parsed(text: str, cast: Callable[[str], Any], valid: Callable[[Any], bool], what: str) -> Any:
    """Return ``cast(text)`` when it is ``valid``, else raise argparse's error naming ``what``."""
    try:
        value = cast(text)
    except ValueError:
        value = None
    if value is None or not valid(value):
        raise argparse.ArgumentTypeError(f"must be {what}; got {text!r}")
    return value


def probability(text: str) -> float:
    """Argument type: a number in (0, 1)."""
    return float(_parsed(text, float, lambda v: 0.0 < v < 1.0, "a number in (0, 1)"))


def unit(text: str) -> float:
    """Argument type: a number in [0, 1]."""
    return float(_parsed(text, float, lambda v: 0.0 <= v <= 1.0, "a number in [0, 1]"))


def positive_int(text: str, *, maximum: int | None = None) -> int:
    """Argument type: a whole number >= 1 (and <= ``maximum``)."""
    what = "a positive whole number" + (f" up to {maximum:,}" if maximum else "")
    return int(_parsed(text, int, lambda v: v >= 1 and (maximum is None or v <= maximum), what))


def bounded_int(minimum: int, maximum: int) -> Callable[[str], int]:
    """Return an argument type for a whole number in ``[minimum, maximum]``."""

    def parse(text: str) -> int:
        return int(
            _parsed(
                text,
                int,
                lambda v: minimum <= v <= maximum,
                f"a whole number from {minimum} to {maximum:,}",
            )
        )

    return parse


def seed(text: str) -> int:
    """Argument type: a non-negative integer seed."""
    return int(_parsed(text, int, lambda v: 0 <= v < 2**63, "a non-negative integer"))


# --------------------------------------------------------------------------- input options
TABLE_FORMATS = ("auto", "csv", "tsv", "jsonl", "parquet")
LOG_FORMATS = ("inspect", "promptfoo", "lm_eval", "openai_evals")
EPOCH_RULES = ("first", "majority", "any", "all")
_LOG_OPTIONS = ("scorer", "partial", "system", "filter", "item_field")


def add_input_options(
    parser: argparse.ArgumentParser,
    *,
    logs: bool = True,
    labels: bool = True,
    threshold: bool = True,
    epochs: bool = True,
    scheduler: bool = False,
) -> None:
    """Add the options that say how to read DATA, the same for every command that reads data.

    ``--format``, ``--map NAME=COLUMN``, ``--positive``/``--negative`` and ``--strict`` always;
    ``--labels FILE`` and ``--labels-map`` (gold labels kept apart, joined by id), ``--threshold``
    (scores to verdicts), the eval-log options ``--scorer``, ``--system``, ``--partial``,
    ``--filter``, ``--item-field`` and ``--epochs``, and ``--scheduler`` (a Dask cluster) where
    the command reads them. :func:`input_options` collects what was given.
    """
    group = parser.add_argument_group(
        "reading the data",
        "DATA is a file or - (standard input): CSV, TSV, JSON Lines or Parquet, or, where noted, "
        "an evaluation tool's log; columns and values are mapped as below.",
    )
    formats = TABLE_FORMATS + (LOG_FORMATS if logs else ())
    group.add_argument(
        "--format",
        choices=formats,
        default="auto",
        help="format of DATA (default auto: by extension, then content"
        + ("; eval logs are recognised by their content)" if logs else ")"),
    )
    group.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="NAME=COLUMN",
        help="read column COLUMN of DATA as NAME (repeatable), e.g. --map label=human_label "
        "--map verdict=judge_verdict --map item=id",
    )
    group.add_argument(
        "--positive",
        action="append",
        default=[],
        metavar="VALUE",
        help="another spelling of PASS, e.g. --positive good (repeatable; 1/0, true/false, "
        "yes/no, pass/fail, correct/incorrect and others are built in)",
    )
    group.add_argument(
        "--negative",
        action="append",
        default=[],
        metavar="VALUE",
        help="another spelling of FAIL (repeatable)",
    )
    group.add_argument(
        "--strict", action="store_true", help="reject columns other than the documented ones"
    )
    if labels:
        group.add_argument(
            "--labels",
            metavar="FILE",
            default=None,
            help="gold labels in a separate table (columns item, label), joined by id to DATA's "
            "item column (name it with --map item=COLUMN); ids are compared exactly, as text",
        )
        group.add_argument(
            "--labels-map",
            action="append",
            default=[],
            metavar="NAME=COLUMN",
            help="read column COLUMN of the labels file as NAME (item or label; repeatable)",
        )
    if threshold:
        group.add_argument(
            "--threshold",
            type=unit,
            default=None,
            metavar="T",
            help="turn a score column into verdicts: score >= T is PASS",
        )
    if logs:
        group.add_argument(
            "--scorer",
            metavar="NAME",
            default=None,
            help="eval logs: the judge to read (Inspect scorer, promptfoo assertion metric, "
            "lm-eval metric, OpenAI evals metric); by default the log's only one",
        )
        group.add_argument(
            "--system",
            metavar="NAME",
            default=None,
            help="eval logs: the model or provider to read, when the log holds several",
        )
        group.add_argument(
            "--partial",
            choices=["fail", "pass", "drop"],
            default=None,
            help="Inspect logs: what a partial grade (P) counts as",
        )
        group.add_argument(
            "--filter",
            metavar="NAME",
            default=None,
            help="lm-eval logs: the filter whose scores are read",
        )
        group.add_argument(
            "--item-field",
            metavar="NAME",
            default=None,
            help="promptfoo: the test variable that is the item id; lm-eval: the document field",
        )
    if epochs:
        group.add_argument(
            "--epochs",
            choices=list(EPOCH_RULES),
            default=None,
            help="how several rulings of one item (epochs, repeats, rows that repeat an item "
            "id, with their own labels or joined to --labels) become one verdict: the first; "
            "PASS when more than half passed (a tie fails); when any passed; when all passed",
        )
    if scheduler:
        group.add_argument(
            "--scheduler",
            metavar="ADDRESS",
            default=None,
            help="reduce DATA (a file, folder or glob) to counts on this Dask scheduler "
            "(needs dask: pip install 'bayesjudge[studies]')",
        )


class TableReading(TypedDict):
    """The options of every table reader, from the command line (:meth:`InputOptions.reading`)."""

    format: TableFormat
    columns: dict[str, str]
    positive: tuple[str, ...]
    negative: tuple[str, ...]
    strict: bool


@dataclass(frozen=True, slots=True)
class InputOptions:
    """How to read DATA, as given on the command line (see :func:`add_input_options`)."""

    source: str | None
    format: str = "auto"
    columns: dict[str, str] = field(default_factory=dict)
    positive: tuple[str, ...] = ()
    negative: tuple[str, ...] = ()
    strict: bool = False
    labels: str | None = None
    label_columns: dict[str, str] = field(default_factory=dict)
    threshold: float | None = None
    epochs: str | None = None
    scorer: str | None = None
    system: str | None = None
    partial: str | None = None
    filter: str | None = None
    item_field: str | None = None
    scheduler: str | None = None

    def table(self) -> str:
        """Return DATA, a table: refuse the eval-log options, which do not apply to it.

        Raises
        ------
        UserError
            If ``--scorer``, ``--system``, ``--partial``, ``--filter`` or ``--item-field`` was
            given.
        """
        import glob
        import os

        if self.source is None:
            raise UserError("no DATA given")
        given = [name for name in _LOG_OPTIONS if getattr(self, name) is not None]
        exists = self.source == "-" or os.path.exists(self.source) or glob.glob(self.source)
        if given and exists:  # a missing file is the reader's to report
            flags = ", ".join("--" + name.replace("_", "-") for name in given)
            raise UserError(f"{flags}: for eval logs only, and {self.source} is a table")
        return self.source

    @property
    def table_format(self) -> str:
        """``--format`` if it names a table format, else ``"auto"``."""
        return self.format if self.format in TABLE_FORMATS else "auto"

    def reading(self, columns: dict[str, str] | None = None) -> TableReading:
        """Return the options every table reader takes, as keywords (``**options.reading()``).

        ``format`` is :attr:`table_format`; ``columns`` replaces ``--map``'s mapping when
        given (a command that adds its own column options to it).
        """
        return TableReading(
            format=cast("TableFormat", self.table_format),
            columns=self.columns if columns is None else columns,
            positive=self.positive,
            negative=self.negative,
            strict=self.strict,
        )

    def data(self) -> str | EvalLog:
        """Return what the contract reads: DATA as given, or the eval log it is, read.

        An eval log (by ``--format`` or recognised by content) is read with ``--scorer``,
        ``--partial``, ``--filter`` and ``--item-field`` and narrowed to ``--system``; a table is
        returned as its path, for the contract to read.

        Raises
        ------
        UserError
            If an eval-log option is given for a table, or does not apply to the log's tool.
        """
        from bayesjudge.io.logs import read_eval_log
        from bayesjudge.io.source import log_tool

        if self.source is None:
            raise UserError("no DATA given")
        tool = log_tool(self.source, format=self.format)  # type: ignore[arg-type]
        if tool is None:
            return self.table()
        try:
            log = read_eval_log(
                self.source,
                tool=tool,
                judge=self.scorer,
                partial=self.partial,  # type: ignore[arg-type]
                filter=self.filter,
                item_field=self.item_field,
            )
        except ValueError as exc:
            if type(exc) is not ValueError:
                raise
            raise UserError(str(exc).replace("item_field", "--item-field")) from None
        return log.select(system=self.system)


def input_options(args: argparse.Namespace, *, source: str = "data") -> InputOptions:
    """Collect the input options of a parsed command line (see :func:`add_input_options`).

    ``source`` names the attribute that holds DATA.

    Raises
    ------
    DataError
        On a ``--map`` or ``--labels-map`` that is not NAME=COLUMN, or names a name twice.
    UserError
        On ``--labels-map`` without ``--labels``, a mapping without DATA, or a value given to
        both ``--positive`` and ``--negative``.
    """
    from bayesjudge.io.mapping import Spellings, parse_map

    path = getattr(args, source, None)
    columns = parse_map(args.map, option="--map")
    label_columns = parse_map(getattr(args, "labels_map", []), option="--labels-map")
    labels = getattr(args, "labels", None)
    if label_columns and labels is None:
        raise UserError("--labels-map maps the columns of --labels FILE; give --labels too")
    if path is None and (columns or labels is not None):
        raise UserError("--map and --labels apply to DATA; give DATA too")
    try:
        Spellings(positive=tuple(args.positive), negative=tuple(args.negative))
    except ValueError as exc:
        text = str(exc).replace("positive and negative", "--positive and --negative")
        raise UserError(f"{text}: give it to one of them") from None
    for given in (path, labels):
        if given is not None and is_named_fifo(given) and sys.stderr.isatty():
            echo(f"waiting for input on FIFO {given}", file=sys.stderr)
    return InputOptions(
        source=path,
        format=args.format,
        columns=columns,
        positive=tuple(args.positive),
        negative=tuple(args.negative),
        strict=args.strict,
        labels=labels,
        label_columns=label_columns,
        threshold=getattr(args, "threshold", None),
        epochs=getattr(args, "epochs", None),
        scorer=getattr(args, "scorer", None),
        system=getattr(args, "system", None),
        partial=getattr(args, "partial", None),
        filter=getattr(args, "filter", None),
        item_field=getattr(args, "item_field", None),
        scheduler=getattr(args, "scheduler", None),
    )


def is_named_fifo(path: str) -> bool:
    """Whether ``path`` is a named FIFO, whose reader waits until something opens it to write.

    A FIFO made with ``mkfifo`` has a name in the file system; the anonymous pipes of standard
    input (``/dev/stdin``) and process substitution (``/dev/fd/63``) resolve to no file, and
    already have their writer, so opening them does not wait.

    Examples
    --------
    >>> is_named_fifo("README.md"), is_named_fifo("no/such/file")
    (False, False)
    """
    import stat

    try:
        if not stat.S_ISFIFO(os.stat(path).st_mode):
            return False
    except (OSError, ValueError):
        return False
    return os.path.exists(os.path.realpath(path))


# --------------------------------------------------------------------------- output helpers
def clean(value: Any) -> Any:
    """Make a value JSON-safe: NaN/inf -> None, numpy scalars -> Python scalars, tuples -> lists."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def echo(text: object = "", *, file: TextIO | None = None) -> None:
    r"""Print plain output, names from the data made inert on a terminal.

    Every line a command prints (but its JSON, which ``json.dumps`` already keeps to printable
    ASCII) goes through here: escape sequences, control characters and bidirectional overrides
    in a system, judge, slice or file name are shown escaped
    (:func:`~bayesjudge.reporting.output.escape_terminal`); line breaks are kept.

    Parameters
    ----------
    text : object
        What to print, converted with ``str``; may hold several lines.
    file : text stream, optional
        Where to print (standard output by default).

    Examples
    --------
    >>> echo("system \x1b[31mred")
    system \x1b[31mred
    """
    print(escape_terminal(text, keep="\n"), file=file)


def emit_json(payload: dict[str, Any]) -> None:
    """Print one JSON object (strict: no NaN) on stdout."""
    sys.stdout.write(json.dumps(clean(payload), indent=2, allow_nan=False) + "\n")


def fmt(value: float | None, width: int = 8, digits: int = 4) -> str:
    """Format a number right-aligned, or ``-`` when missing."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return f"{'-':>{width}}"
    return f"{value:>{width}.{digits}f}"


def estimates_table(estimates: Sequence[Any], prob: float) -> str:
    """Return estimates as an aligned text table, rounded, each distinct note once below it.

    The layout of :class:`bayesjudge.results.EstimatesFrame` (method, estimate, interval and
    standard error to three places; notes as ``[1]``, ``[2]``, ... under the table).
    """
    from bayesjudge.results import estimates_frame

    return f"{estimates_frame(list(estimates))!r}\n(intervals of mass {prob:g})"


def print_answer(summary: ReportSummary, *, report: str | os.PathLike[str] | None = None) -> None:
    """Print a command's one-screen answer, and the report to open when one was written.

    Every family's command prints its answer through here, the same way: the report summary's
    headline, diagnostics verdict, warnings, reading and which estimate to trust
    (:meth:`~bayesjudge.reporting.summary.ReportSummary.to_text`, the function that also lays
    out the top of the report, so the terminal and the report carry the same warnings), then,
    when ``report`` names the folder a report was written to, the page to open.

    Parameters
    ----------
    summary : ReportSummary
        The family's report summary of the analysis.
    report : path, optional
        The report folder as the user gave it (``--out``).

    Examples
    --------
    >>> from bayesjudge.reporting.summary import DEFINITIONS, Headline, ReportSummary
    >>> s = ReportSummary(Headline("true success rate pi", 0.66, 0.61, 0.72, 0.95),
    ...                   diagnostics=None, definitions=DEFINITIONS.items(), trust="Bayesian.",
    ...                   reading="Fine.")
    >>> print_answer(s, report="bayesjudge-report")
    <BLANKLINE>
    Answer
      true success rate pi: 66.0% (95% interval 61.0% to 72.0%)
      Diagnostics passed (exact posterior by numerical integration: no sampling, nothing to
        check).
      Fine.
      Which estimate to trust: Bayesian.
    report written to bayesjudge-report: open bayesjudge-report/report.html
    """
    import textwrap

    echo()
    echo("Answer")
    echo(textwrap.indent(summary.to_text(width=86), "  "))
    if report is not None:
        page = os.path.join(os.fspath(report), "report.html")
        echo(f"report written to {os.fspath(report)}: open {page}")


def report_failures(passed: bool, failures: Sequence[str]) -> int:
    """Print the failed diagnostic checks to stderr and return the exit code they imply."""
    if passed:
        return EXIT_OK
    print("bayesjudge: the posterior FAILED its diagnostics:", file=sys.stderr)
    for failure in failures:  # each names a parameter, which may carry a name from the data
        echo(f"  - {failure}", file=sys.stderr)
    print(
        "  (the fit was already retried once; try "
        "--target-accept 0.995 --tune 5000 --draws 5000, or check the data and priors)",
        file=sys.stderr,
    )
    return EXIT_DIAGNOSTICS


# --------------------------------------------------------------------------- output options
def named_paths(args: argparse.Namespace, *, skip: Sequence[str] = ()) -> list[str]:
    """Return every existing file or folder an argument names: what an output must not hold.

    Every text value of the parsed arguments (and every text item of a list value) that names
    an existing path counts, and so do the files a glob pattern (``'logs/*.json'``) matches; a
    new input option needs no registration. Standard input (``-``) is left out.

    Parameters
    ----------
    args : Namespace
        The parsed arguments.
    skip : sequence of str
        Destinations to leave out (the output options themselves).

    Returns
    -------
    list of str
        The paths, in the order the arguments hold them.

    Examples
    --------
    >>> import argparse, tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".csv") as data:
    ...     args = argparse.Namespace(data=data.name, prior=["pi=beta:1,1"], out="report")
    ...     named_paths(args, skip=["out"]) == [data.name]
    True
    """
    found: list[str] = []
    for dest, value in vars(args).items():
        if dest in skip:
            continue
        values = value if isinstance(value, list | tuple) else [value]
        for item in values:
            if not isinstance(item, str) or item in {"", "-"}:
                continue
            if os.path.lexists(item):
                found.append(item)
            elif glob.has_magic(item):
                found.extend(glob.glob(item))
    return found


@contextmanager
def claimed_outputs(args: argparse.Namespace) -> Iterator[None]:
    """Check a command's output options before any work, and hold their folders' locks.

    A command declares its output options with ``set_defaults(outputs={"out": "report"})``
    (each destination with an :data:`OutputOption`). Before the command runs, each given
    option is checked against the inputs (:func:`named_paths`): a report or study folder
    with :func:`~bayesjudge.reporting.output.claim_output_folder`, whose lock is held until
    the command ends, so that a second run into the same folder is refused at once; a folder
    receiving files with :func:`~bayesjudge.reporting.output.check_output_files`.

    Raises
    ------
    UserError
        Naming the option, the path and the reason, when an output is refused.

    Examples
    --------
    >>> import argparse, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     args = argparse.Namespace(out=tmp + "/report", outputs={"out": "report"})
    ...     with claimed_outputs(args):
    ...         pass
    >>> args = argparse.Namespace(out=".", outputs={"out": "report"})
    >>> with claimed_outputs(args):  # doctest: +ELLIPSIS
    ...     pass
    Traceback (most recent call last):
    ...
    bayesjudge.cli.common.UserError: --out: cannot write output folder ...: it is the current...
    """
    from bayesjudge.reporting.output import (
        OutputError,
        check_output_files,
        claim_output_folder,
    )

    outputs: Mapping[str, OutputOption] = getattr(args, "outputs", None) or {}
    inputs = named_paths(args, skip=[*outputs, "outputs"])
    with ExitStack() as held:
        for dest, kind in outputs.items():
            value = getattr(args, dest, None)
            if value is None:
                continue
            try:
                if kind == "files":
                    check_output_files(value, inputs=inputs)
                else:
                    held.enter_context(claim_output_folder(value, inputs=inputs, kind=kind))
            except OutputError as exc:
                raise UserError(f"--{dest.replace('_', '-')}: {exc}") from None
        yield
