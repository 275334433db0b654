r"""The one-screen summary every report opens with, and the folded diagnostics beneath it.

A family's report builds one :class:`ReportSummary` from plain values (the headline estimate
and its interval, the naive estimate, the :class:`~bayesjudge.inference.diagnostics.Diagnostics`
of the fit, definitions, warnings, which estimator to trust, the reading) and places
:meth:`ReportSummary.to_html` (or :meth:`ReportSummary.to_markdown`) before any table or
figure. The summary shows, in this order:

* the corrected answer in large type beside the naive one; when its interval is wider than
  :data:`WIDE_INTERVAL` (the limit past which the reading refuses a point value), the interval
  takes the large type instead of a point value, and a headline that answers in words
  (:attr:`Headline.answer`, e.g. a ranking's "No clear winner") shows those words;
* a traffic-light badge: green when every diagnostic passed, red when one failed, naming the
  failed checks in words and what to do next (:data:`ESCALATION`);
* the warnings, each with its evidence (:func:`small_calibration_warning`,
  :func:`weak_judge_warning`, :func:`label_shift_warning`,
  :func:`random_sample_baselines_warning`, :func:`wide_interval_warning`);
* the reading: a plain-language paragraph, left out when the diagnostics failed (a failed fit
  must not read as a confident answer) and replaced by a sentence saying the interval is too
  wide when :func:`wide_interval_warning` fired;
* which estimator to trust here and why;
* plain definitions of the quantities shown (:data:`DEFINITIONS`).

:func:`diagnostics_section_html` gives one line per reported quantity (R-hat, bulk and tail ESS,
MCSE relative to the posterior sd) with the full table folded in a ``<details>`` element, and
:func:`footer_html` the seed, package versions and date every report ends with.
"""

from __future__ import annotations

import datetime as _dt
import html
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import pandas as pd

from bayesjudge.reporting.output import escape_markdown_prose

if TYPE_CHECKING:
    from bayesjudge.estimators.design import RandomCalibrationCheck
    from bayesjudge.inference.diagnostics import Check, Diagnostics

__all__ = [
    "CHECK_NAMES",
    "DEFINITIONS",
    "ESCALATION",
    "METHOD_NAMES",
    "SUMMARY_CSS",
    "WIDE_INTERVAL",
    "Headline",
    "ReportSummary",
    "ReportWarning",
    "diagnostics_lines",
    "diagnostics_section_html",
    "diagnostics_section_markdown",
    "diagnostics_table",
    "failure_sentences",
    "footer_html",
    "footer_markdown",
    "footer_values",
    "label_shift_warning",
    "method_name",
    "quantity_name",
    "random_sample_baselines_warning",
    "small_calibration_warning",
    "weak_judge_warning",
    "wide_interval_warning",
]

#: The summary's style, every rule scoped to ``.summary`` (so it can sit in a Jupyter page).
SUMMARY_CSS = """
.summary { border: 1px solid #ccd; border-radius: 6px; padding: 0.8em 1.2em; }
.summary .headline { display: flex; gap: 3em; align-items: flex-end; flex-wrap: wrap; }
.summary .big { font-size: 3em; font-weight: bold; color: #1f3b73; }
.summary .big-interval { font-size: 2em; }
.summary .big-answer { font-size: 1.8em; }
.summary .big-naive { font-size: 2em; color: #777; }
.summary .naive { color: #666; }
.summary .fail { color: #c62828; font-weight: bold; }
.summary .badge { margin: 0.8em 0; padding: 0.5em 0.9em; border-radius: 6px; }
.summary .badge-pass { background: #e6f4ea; border-left: 6px solid #1a7f37; }
.summary .badge-fail { background: #fdecea; border-left: 6px solid #c62828; }
.summary .warnings { background: #fff8e1; border-left: 6px solid #e0a800; padding: 0.2em 0.9em; }
.summary .warnings h3 { margin: 0.4em 0; }
.summary .reading { background: #f4f6fa; padding: 0.8em 1em; border-left: 4px solid #4c72b0; }
.summary dl.definitions { display: grid; grid-template-columns: max-content 1fr;
  gap: 0.15em 1em; }
.summary dl.definitions dt { font-weight: bold; }
.summary dl.definitions dd { margin: 0; }
"""

#: Plain definitions of the quantities every family reports, keyed by symbol.
DEFINITIONS: dict[str, str] = {
    "pi": "the true success rate: the share of items that truly pass (gold label PASS).",
    "Se": "sensitivity: the chance the judge says PASS when the item truly passes.",
    "Sp": "specificity: the chance the judge says FAIL when the item truly fails.",
    "J": (
        "Youden's J = Se + Sp - 1: how much the judge's verdict tells about the truth "
        "(1 = a perfect judge, 0 = a coin flip)."
    ),
}

#: What to try when the sampler checks fail, as command-line options and Python arguments.
ESCALATION = (
    "rerun with smaller steps and longer chains: --target-accept 0.995 --tune 5000 --draws 5000 "
    "on the command line (target_accept=0.995, tune=5000, draws=5000 in Python); bayesjudge "
    "already retried once"
)

#: Interval width (in units of the quantity, e.g. 0.25 = 25 percentage points) above which the
#: reading does not state a point value as if it were known, and the headline shows the interval
#: in large type instead of a point value.
WIDE_INTERVAL = 0.25

#: Readable names of the diagnostic checks (:class:`~bayesjudge.inference.diagnostics.Check`).
CHECK_NAMES: dict[str, str] = {
    "r_hat": "R-hat",
    "ess_bulk": "bulk ESS",
    "ess_tail": "tail ESS",
    "mcse_mean": "MCSE of the mean / posterior sd",
    "mcse_low": "MCSE of the lower bound / posterior sd",
    "mcse_high": "MCSE of the upper bound / posterior sd",
    "divergences": "divergent transitions",
    "ppc_tail_prob": "posterior predictive tail probability",
}

#: Readable names of the estimators, for prose (tables and JSON keep the method identifiers).
METHOD_NAMES: dict[str, str] = {
    "naive": "the judged pass rate",
    "calibration_only": "the gold labels alone",
    "ppi": "PPI",
    "ppi_plus_plus": "PPI++",
    "rogan_gladen_delta": "Rogan-Gladen (delta method)",
    "rogan_gladen_lang_reiczigel": "Rogan-Gladen (Lang-Reiczigel interval)",
    "rogan_gladen_bootstrap": "Rogan-Gladen (bootstrap)",
    "majority_rogan_gladen": "Rogan-Gladen of the majority vote",
    "dawid_skene": "Dawid-Skene",
}


def method_name(method: str) -> str:
    """Return an estimator's name for prose: ``METHOD_NAMES``, else with spaces for ``_``.

    Examples
    --------
    >>> method_name("ppi_plus_plus"), method_name("ppi_plus_plus@2")
    ('PPI++', 'PPI++ at cap 2')
    """
    base, _, cap = method.partition("@")
    name = METHOD_NAMES.get(base, base.replace("_", " "))
    return f"{name} at cap {cap}" if cap else name


#: Readable names of quantities shared by the families (a report adds its own).
_COMMON_NAMES: dict[str, str] = {
    "pi": "true success rate pi",
    "se": "sensitivity Se",
    "sp": "specificity Sp",
    "j": "Youden's J",
    "j_inf": "reliability floor J(inf)",
    "judged_rate": "judged pass rate",
    "sampler": "sampler",
}


@dataclass(frozen=True, slots=True)
class ReportWarning:
    """One automatic warning: what is wrong, the numbers that show it, and what to do.

    Examples
    --------
    >>> ReportWarning("Small calibration set", "8 gold-PASS items").text()
    'Small calibration set: 8 gold-PASS items.'
    """

    title: str
    evidence: str
    advice: str = ""

    def text(self) -> str:
        """Return the warning as one sentence-like line."""
        tail = f" {self.advice}" if self.advice else ""
        return f"{self.title}: {self.evidence}.{tail}"


@dataclass(frozen=True, slots=True)
class Headline:
    """The corrected answer and the naive one it replaces.

    Attributes
    ----------
    name : str
        What is estimated, e.g. ``"true success rate pi"``.
    estimate, low, high : float
        The corrected point estimate and its interval.
    prob : float
        The interval's mass.
    naive : float or None
        The naive estimate (e.g. the judge's raw pass rate), shown beside it.
    naive_name : str
        What the naive estimate is.
    unit : {"percent", "points", "number"}
        Show values as percentages (rates), signed percentage points (differences of rates),
        or numbers with three decimals.
    answer : str
        The answer in words, shown in large type instead of a value when the question is not
        "how much" (e.g. ``"No clear winner; most likely c, P(best) 0.42"``); the value and its
        interval follow in small type. Empty (the default): the value is the answer.
    """

    name: str
    estimate: float
    low: float
    high: float
    prob: float
    naive: float | None = None
    naive_name: str = "judged pass rate (naive)"
    unit: Literal["percent", "points", "number"] = "percent"
    answer: str = ""

    def value(self, x: float) -> str:
        """Format one value of the headline quantity."""
        if self.unit == "percent":
            return f"{100 * x:.1f}%"
        if self.unit == "points":
            return f"{100 * x:+.1f} pts"
        return f"{x:.3f}"

    @property
    def width(self) -> float:
        """Width of the interval."""
        return self.high - self.low

    @property
    def agrees(self) -> bool:
        """Whether the naive estimate shows the same value as the corrected one.

        The summary then says so in words instead of printing the same number twice.

        Examples
        --------
        >>> Headline("gain", 0.0749, 0.05, 0.09, 0.95, naive=0.0751, unit="points").agrees
        True
        """
        return self.naive is not None and self.value(self.naive) == self.value(self.estimate)

    def naive_text(self) -> str:
        """Return how the naive estimate compares, e.g. ``the same as the observed change``."""
        if self.naive is None:
            return ""
        if self.agrees:
            return f"the same as the {self.naive_name}"
        return f"against {self.value(self.naive)} {self.naive_name}"

    def interval_text(self) -> str:
        """Return e.g. ``95% interval 61.5% to 72.1%``."""
        return f"{100 * self.prob:g}% interval {self.value(self.low)} to {self.value(self.high)}"

    @property
    def too_wide(self) -> bool:
        """Whether the interval is wider than :data:`WIDE_INTERVAL`: no point value to show.

        Examples
        --------
        >>> Headline("true success rate pi", 0.646, 0.021, 0.994, 0.95).too_wide
        True
        """
        return self.width > WIDE_INTERVAL

    def big_text(self) -> str:
        """Return what the headline shows in large type.

        The answer in words when there is one; else the interval (e.g. ``2.1% to 99.4%``) when
        it is :attr:`too_wide` for a point value; else the point value.

        Examples
        --------
        >>> Headline("true success rate pi", 0.646, 0.021, 0.994, 0.95).big_text()
        '2.1% to 99.4%'
        >>> Headline("true success rate pi", 0.66, 0.61, 0.72, 0.95).big_text()
        '66.0%'
        """
        if self.answer:
            return self.answer
        if self.too_wide:
            return f"{self.value(self.low)} to {self.value(self.high)}"
        return self.value(self.estimate)

    def detail_text(self) -> str:
        """Return what follows the large type: the interval, or why no point value is shown.

        Examples
        --------
        >>> Headline("true success rate pi", 0.646, 0.021, 0.994, 0.95).detail_text()
        '95% interval, wider than 25 points: too wide for a point value'
        """
        if self.answer:
            return f"{self.name} {self.value(self.estimate)}, {self.interval_text()}"
        if self.too_wide:
            limit = (
                f"{WIDE_INTERVAL:g}" if self.unit == "number" else f"{100 * WIDE_INTERVAL:g} points"
            )
            return f"{100 * self.prob:g}% interval, wider than {limit}: too wide for a point value"
        return self.interval_text()


@dataclass(frozen=True, slots=True)
class ReportSummary:
    """The one-screen summary a report opens with (see the module docstring).

    Attributes
    ----------
    headline : Headline
        The corrected answer beside the naive one.
    diagnostics : Diagnostics or None
        The fit's checks; None for an exact posterior (no sampling, nothing to check).
    definitions : sequence of (symbol, meaning)
        Plain definitions, e.g. ``DEFINITIONS.items()``.
    warnings : sequence of ReportWarning
        Warnings with their evidence (the ``*_warning`` functions return None when quiet;
        Nones are dropped).
    trust : str
        Which estimator to trust here and why.
    reading : str
        The plain-language reading, shown only when the diagnostics passed and the interval is
        narrow enough to support it.
    names : mapping of str to str
        Readable names of posterior variables, for the failed checks.
    exact_note : str
        Shown in the badge when ``diagnostics`` is None.
    quantities : sequence of str
        The reported variables, whose failed checks the badge names first.
    max_failures : int
        Failed checks written out in the badge (the rest are counted).
    hedge_wide : bool
        Replace the reading by a sentence saying the data cannot pin the headline down when
        its interval is wider than :data:`WIDE_INTERVAL` (off for a reading that already
        weighs the uncertainty, such as a ranking's P(best)).

    Examples
    --------
    >>> s = ReportSummary(Headline("true success rate pi", 0.66, 0.61, 0.72, 0.95, naive=0.7),
    ...                   diagnostics=None, definitions=DEFINITIONS.items(), trust="Bayesian",
    ...                   reading="Fine.")
    >>> s.status
    'passed'
    >>> "66.0%" in s.to_html() and "Fine." in s.to_markdown()
    True
    """

    headline: Headline
    diagnostics: Diagnostics | None
    definitions: Iterable[tuple[str, str]]
    trust: str
    reading: str
    warnings: Sequence[ReportWarning | None] = ()
    names: Mapping[str, str] = field(default_factory=dict)
    exact_note: str = "exact posterior by numerical integration: no sampling, nothing to check"
    quantities: Sequence[str] = ()
    max_failures: int = 6
    hedge_wide: bool = True

    @property
    def status(self) -> str:
        """``"passed"`` or ``"failed"``: the diagnostics' verdict (passed when there are none)."""
        return "passed" if self.diagnostics is None or self.diagnostics.passed else "failed"

    @property
    def active_warnings(self) -> list[ReportWarning]:
        """The warnings that fired."""
        return [w for w in self.warnings if w is not None]

    @property
    def shown_reading(self) -> str:
        """The reading as printed: withheld when the fit failed, hedged when too wide."""
        if self.status == "failed":
            return (
                "No reading is given: the fit failed its diagnostics, so its numbers may be "
                "wrong. Follow the advice above and rerun."
            )
        h = self.headline
        if self.hedge_wide and h.width > WIDE_INTERVAL:
            return (
                f"The data cannot pin the {h.name} down: it lies anywhere from "
                f"{h.value(h.low)} to {h.value(h.high)} ({100 * h.prob:g}% interval), too wide "
                "to say how far the naive number is off. More gold labels narrow it."
            )
        return self.reading

    def badge_lines(self) -> list[str]:
        """Return the badge text: a verdict line, then each failure and the advice."""
        if self.diagnostics is None:
            return [f"Diagnostics passed ({self.exact_note})."]
        n = len(self.diagnostics.checks)
        if self.diagnostics.passed:
            return [
                f"Diagnostics passed: all {n} checks (R-hat, effective sample sizes, Monte "
                "Carlo error, divergences, posterior predictive checks)."
            ]
        failed = self.diagnostics.failures
        return [
            f"Diagnostics FAILED: {len(failed)} of {n} checks.",
            *failure_sentences(
                self.diagnostics,
                names=self.names,
                quantities=self.quantities,
                limit=self.max_failures,
            ),
        ]

    def _definitions(self) -> list[tuple[str, str]]:
        return [(str(k), str(v)) for k, v in self.definitions]

    def _repr_html_(self) -> str:
        return self.to_html(style=True)

    def to_html(self, *, style: bool = False) -> str:
        """Return the summary as an HTML ``<section class="summary">``.

        With ``style``, a ``<style>`` element (:data:`SUMMARY_CSS`) comes first, for pages
        that do not carry the report's style sheet (Jupyter).
        """
        h = self.headline
        naive = ""
        if h.agrees:
            naive = f'<div class="naive">{html.escape(h.naive_text())}</div>'
        elif h.naive is not None:
            naive = (
                f'<div class="naive"><span class="big-naive">{h.value(h.naive)}</span>'
                f"<br>{html.escape(h.naive_name)}</div>"
            )
        badge_class = "badge-pass" if self.status == "passed" else "badge-fail"
        unreliable = (
            ""
            if self.status == "passed"
            else ' <strong class="fail">(unreliable: the fit failed)</strong>'
        )
        lines = self.badge_lines()
        badge = f'<div class="badge {badge_class}"><strong>{html.escape(lines[0])}</strong>'
        if len(lines) > 1:
            badge += "<ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in lines[1:]) + "</ul>"
        badge += "</div>"
        warnings = ""
        if self.active_warnings:
            items = "".join(
                f"<li><strong>{html.escape(w.title)}</strong>: {html.escape(w.evidence)}."
                + (f" {html.escape(w.advice)}" if w.advice else "")
                + "</li>"
                for w in self.active_warnings
            )
            warnings = f'<div class="warnings"><h3>Warnings</h3><ul>{items}</ul></div>'
        definitions = "".join(
            f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in self._definitions()
        )
        css = f"<style>{SUMMARY_CSS}</style>\n" if style else ""
        big = "big big-answer" if h.answer else "big big-interval" if h.too_wide else "big"
        what = "" if h.answer else f"<br>{html.escape(h.name)}, corrected"
        return f"""{css}<section class="summary" id="summary">
<div class="headline"><div class="corrected"><span class="{big}">{html.escape(h.big_text())}</span>
{what}{unreliable}<br>
<small>{html.escape(h.detail_text())}</small></div>
{naive}</div>
{badge}
{warnings}
<h3>Reading</h3><p class="reading">{html.escape(self.shown_reading)}</p>
<h3>Which estimate to trust</h3><p>{html.escape(self.trust)}</p>
<h3>Definitions</h3><dl class="definitions">{definitions}</dl>
</section>"""

    def to_text(self, *, width: int = 88) -> str:
        """Return the summary as plain text for a terminal (definitions left out)."""
        import textwrap

        h = self.headline
        if h.answer:
            head = f"{h.answer} ({h.detail_text()})"
        else:
            head = f"{h.name}: {h.big_text()} ({h.detail_text()})"
        if h.agrees:
            head += f"; {h.naive_text()}"
        elif h.naive is not None:
            head += f"; {h.naive_name}: {h.value(h.naive)}"
        parts = [textwrap.fill(head, width)]
        parts += [textwrap.fill(line, width, subsequent_indent="  ") for line in self.badge_lines()]
        parts += [
            textwrap.fill(f"warning: {w.text()}", width, subsequent_indent="  ")
            for w in self.active_warnings
        ]
        parts.append(textwrap.fill(self.shown_reading, width))
        parts.append(textwrap.fill(f"Which estimate to trust: {self.trust}", width))
        return "\n".join(parts)

    def to_markdown(self) -> str:
        """Return the summary as Markdown (the same content as :meth:`to_html`).

        Every sentence goes through
        :func:`~bayesjudge.reporting.output.escape_markdown_prose`: names from the data that
        it quotes stay inert, and the file reads as plain text.
        """
        h = self.headline
        prose = escape_markdown_prose
        # the bold marks around the values are Markdown; everything else is escaped prose
        if h.answer:
            head = f"**{prose(h.answer)}** ({prose(h.detail_text())})"
        else:
            head = (
                f"**{prose(h.big_text())}** {prose(h.name)}, corrected ({prose(h.detail_text())})"
            )
        if h.agrees:
            head += f", {prose(h.naive_text())}"
        elif h.naive is not None:
            head += f" against **{prose(h.value(h.naive))}** {prose(h.naive_name)}"
        lines = self.badge_lines()
        badge = f"**{prose(lines[0])}**"
        if len(lines) > 1:
            badge += " " + prose(" ".join(lines[1:]))
        parts = ["## Summary", head + ".", badge]
        if self.active_warnings:
            parts.append(
                "**Warnings**\n\n" + "\n".join(f"- {prose(w.text())}" for w in self.active_warnings)
            )
        parts += [
            "**Reading.** " + prose(self.shown_reading),
            "**Which estimate to trust.** " + prose(self.trust),
            "**Definitions**\n\n"
            + "\n".join(f"- **{prose(k)}**: {prose(v)}" for k, v in self._definitions()),
        ]
        return "\n\n".join(parts)


# --------------------------------------------------------------------------- names
def quantity_name(variable: str, names: Mapping[str, str] | None = None) -> str:
    """Return a readable name of a posterior scalar such as ``log_kappa[violation]``.

    ``names`` (the report's own) is looked up first, with and without the ``[...]`` index;
    then the names shared by every family; otherwise underscores become spaces.

    Examples
    --------
    >>> quantity_name("log_kappa[violation]", {"log_kappa": "log concentration"})
    'log concentration (violation)'
    >>> quantity_name("pi")
    'true success rate pi'
    """
    table = {**_COMMON_NAMES, **(names or {})}
    if variable in table:
        return table[variable]
    match = re.fullmatch(r"([^\[]+)\[(.*)\]", variable)
    base, index = (match.group(1), match.group(2)) if match else (variable, "")
    readable = table.get(base, base.replace("_", " "))
    return f"{readable} ({index})" if index else readable


def _verdict_words(check: Check) -> str:
    needs = "at most" if check.rule == "<=" else "at least"
    value = f"{check.value:.0f}" if check.name.startswith("ess") else f"{check.value:.3g}"
    return f"{value} (needs {needs} {check.threshold:g})"


def failure_sentences(
    diagnostics: Diagnostics,
    *,
    names: Mapping[str, str] | None = None,
    quantities: Sequence[str] = (),
    limit: int | None = None,
) -> list[str]:
    """Return the failed checks in words, then what to do next.

    Failures of the ``quantities`` (variable names, the part before ``[``) come first, in that
    order; with ``limit``, at most that many are written out and the rest counted in one
    sentence.

    Examples
    --------
    >>> from bayesjudge.inference.diagnostics import Check, Diagnostics
    >>> d = Diagnostics((Check("r_hat", "pi", 1.05, 1.01, "<=", False),), 0.95)
    >>> failure_sentences(d)[0]
    'R-hat of true success rate pi is 1.05 (needs at most 1.01).'
    """
    sentences = []
    sampler = predictive = False
    order = list(quantities)

    def rank(check: Check) -> int:
        base = check.variable.split("[", 1)[0]
        return order.index(base) if base in order else len(order)

    failures = sorted(diagnostics.failures, key=rank)  # stable: the checks' order otherwise
    shown = failures if limit is None else failures[:limit]
    sampler = any(c.name != "ppc_tail_prob" for c in failures)
    predictive = any(c.name == "ppc_tail_prob" for c in failures)
    for check in shown:
        what = CHECK_NAMES.get(check.name, check.name)
        if check.name == "divergences":
            sentences.append(f"The sampler had {_verdict_words(check)} divergent transitions.")
        elif check.name == "ppc_tail_prob":
            sentences.append(
                f"The model cannot reproduce the observed count "
                f"{quantity_name(check.variable, names)}: its "
                f"{what} is {_verdict_words(check)}."
            )
        else:
            sentences.append(
                f"{what} of {quantity_name(check.variable, names)} is {_verdict_words(check)}."
            )
    if len(failures) > len(shown):
        sentences.append(
            f"... and {len(failures) - len(shown)} more failed checks (see Diagnostics below)."
        )
    if sampler:
        sentences.append(f"What to do: {ESCALATION}.")
    if predictive:
        sentences.append(
            "What to do: check the data (is the judge worse than chance on the gold set? do the "
            "gold and test items come from the same population?) before trusting any estimate."
        )
    return sentences


# --------------------------------------------------------------------------- diagnostics
def diagnostics_table(
    diagnostics: Diagnostics, *, names: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Return every check with readable names: quantity, check, value, needs, result.

    Examples
    --------
    >>> from bayesjudge.inference.diagnostics import Check, Diagnostics
    >>> d = Diagnostics((Check("ess_bulk", "se_gap", 900.0, 400.0, ">=", True),), 0.95)
    >>> diagnostics_table(d, names={"se_gap": "share of the sensitivity gap"}).iloc[0].tolist()
    ['share of the sensitivity gap', 'bulk ESS', '900', '>= 400', 'pass']
    """
    rows = []
    for c in diagnostics.checks:
        value = f"{c.value:.0f}" if c.name.startswith("ess") or c.name == "divergences" else None
        rows.append(
            {
                "quantity": quantity_name(c.variable, names),
                "check": CHECK_NAMES.get(c.name, c.name),
                "value": value if value is not None else f"{c.value:.4g}",
                "needs": f"{c.rule} {c.threshold:g}",
                "result": "pass" if c.passed else "FAIL",
            }
        )
    return pd.DataFrame(rows, columns=["quantity", "check", "value", "needs", "result"])


def diagnostics_lines(
    diagnostics: Diagnostics,
    *,
    quantities: Sequence[str],
    names: Mapping[str, str] | None = None,
) -> list[tuple[str, bool]]:
    """Return one line per reported quantity, then one for everything else, with its verdict.

    Each line reads e.g. ``true success rate pi: R-hat 1.001, bulk ESS 3200, tail ESS 2900,
    MCSE at most 0.02 posterior sd``; a variable with several scalars (``se[1]``, ``se[2]``)
    gets one line with the worst of each check; scalars whose variable (the part before ``[``)
    is not in ``quantities`` are summarised in one line ("other parameters"), and the sampler
    and posterior predictive checks get a line each.

    Examples
    --------
    >>> from bayesjudge.inference.diagnostics import Check, Diagnostics
    >>> d = Diagnostics((Check("r_hat", "pi", 1.002, 1.01, "<=", True),
    ...                  Check("ess_bulk", "pi", 3200.0, 400, ">=", True)), 0.95)
    >>> diagnostics_lines(d, quantities=["pi"])
    [('true success rate pi: R-hat 1.002, bulk ESS 3200', True)]
    """
    groups: dict[str, list[Check]] = {}
    order: list[str] = []
    for c in diagnostics.checks:
        if c.name == "divergences":
            key = "__sampler__"
        elif c.name == "ppc_tail_prob":
            key = "__ppc__"
        else:
            base = c.variable.split("[", 1)[0]
            key = base if base in quantities else "__other__"
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(c)

    def rank(key: str) -> tuple[int, int, int]:
        if key.startswith("__"):
            return (1, ["__other__", "__sampler__", "__ppc__"].index(key), 0)
        base = key.split("[", 1)[0]
        return (0, list(quantities).index(base), order.index(key))

    lines = []
    for key in sorted(order, key=rank):
        checks = groups[key]
        ok = all(c.passed for c in checks)
        if key == "__sampler__":
            lines.append((f"sampler: {checks[0].value:.0f} divergent transitions", ok))
            continue
        if key == "__ppc__":
            worst = min(checks, key=lambda c: c.value)
            lines.append(
                (
                    f"posterior predictive check of {len(checks)} observed counts: smallest tail "
                    f"probability {worst.value:.3g} ({quantity_name(worst.variable, names)}; "
                    "needs at least "
                    f"{worst.threshold:g})",
                    ok,
                )
            )
            continue
        scalars = len({c.variable for c in checks})
        if key == "__other__":
            label = f"other parameters ({scalars} scalars, worst values)"
        elif scalars > 1:
            label = f"{quantity_name(key, names)} ({scalars} values, worst)"
        else:
            label = quantity_name(key, names)
        lines.append((f"{label}: {_line(checks)}", ok))
    return lines


def _line(checks: list[Check]) -> str:
    parts = []
    r_hat = [c.value for c in checks if c.name == "r_hat"]
    if r_hat:
        parts.append(f"R-hat {max(r_hat):.3f}")
    for name, label in (("ess_bulk", "bulk ESS"), ("ess_tail", "tail ESS")):
        values = [c.value for c in checks if c.name == name]
        if values:
            parts.append(f"{label} {min(values):.0f}")
    mcse = [c.value for c in checks if c.name.startswith("mcse")]
    if mcse:
        parts.append(f"MCSE at most {max(mcse):.3f} posterior sd")
    return ", ".join(parts)


def _thresholds_text(diagnostics: Diagnostics) -> str:
    limits: dict[str, str] = {}
    for c in diagnostics.checks:
        limits.setdefault(c.name, f"{c.rule} {c.threshold:g}")
    parts = "; ".join(f"{CHECK_NAMES.get(k, k)} {v}" for k, v in limits.items())
    return (
        f"Thresholds: {parts}. MCSE is the Monte Carlo standard error, relative to the "
        "posterior standard deviation (Vehtari, Gelman, Simpson, Carpenter and Bürkner 2021, "
        "Rank-normalization, folding, and localization: an improved R-hat for assessing "
        "convergence of MCMC)."
    )


def diagnostics_section_html(
    diagnostics: Diagnostics,
    *,
    quantities: Sequence[str],
    names: Mapping[str, str] | None = None,
) -> str:
    """Return the diagnostics section: one line per quantity, the full table folded below."""
    items = "".join(
        f'<li class="{"pass" if ok else "fail"}-line">{"pass" if ok else "FAIL"}: '
        f"{html.escape(text)}</li>"
        for text, ok in diagnostics_lines(diagnostics, quantities=quantities, names=names)
    )
    table = (
        diagnostics_table(diagnostics, names=names)
        .to_html(index=False, classes="table", border=0)
        .replace("<td>pass</td>", '<td class="pass">pass</td>')
        .replace("<td>FAIL</td>", '<td class="fail">FAIL</td>')
    )
    verdict = "passed" if diagnostics.passed else "FAILED"
    return f"""<h2>Diagnostics: {verdict}</h2>
<ul class="diag-lines">{items}</ul>
<p class="note">{html.escape(_thresholds_text(diagnostics))}</p>
<details><summary>All {len(diagnostics.checks)} checks</summary>
{table}
</details>"""


def diagnostics_section_markdown(
    diagnostics: Diagnostics,
    *,
    quantities: Sequence[str],
    names: Mapping[str, str] | None = None,
) -> str:
    """Return the diagnostics section in Markdown (the full table is in diagnostics.csv)."""
    verdict = "passed" if diagnostics.passed else "FAILED"
    lines = [
        f"- {'pass' if ok else 'FAIL'}: {escape_markdown_prose(text)}"
        for text, ok in diagnostics_lines(diagnostics, quantities=quantities, names=names)
    ]
    return "\n\n".join(
        [
            f"## Diagnostics: {verdict}",
            "\n".join(lines),
            escape_markdown_prose(_thresholds_text(diagnostics), line_start=True),
        ]
    )


# --------------------------------------------------------------------------- footer
def footer_values(seed: int | str) -> dict[str, str]:
    """Return the footer's values: seed, versions of bayesjudge, pymc, arviz, numpy, date.

    Versions are read from the installed distributions' metadata (nothing is imported);
    the date is today's UTC date.

    Examples
    --------
    >>> sorted(footer_values(7))
    ['arviz', 'bayesjudge', 'date', 'numpy', 'pymc', 'seed']
    """
    from bayesjudge._version import __version__, installed_version

    out = {"seed": str(seed), "bayesjudge": __version__}
    for name in ("pymc", "arviz", "numpy"):
        out[name] = installed_version(name) or "not installed"
    out["date"] = _dt.datetime.now(_dt.UTC).date().isoformat()
    return out


def _footer_text(seed: int | str) -> str:
    v = footer_values(seed)
    return (
        f"seed {v['seed']}; bayesjudge {v['bayesjudge']}, pymc {v['pymc']}, arviz {v['arviz']}, "
        f"numpy {v['numpy']}; written {v['date']}"
    )


def footer_html(seed: int | str) -> str:
    """Return the report footer: seed, package versions and date."""
    return f'<footer class="footer">{html.escape(_footer_text(seed))}</footer>'


def footer_markdown(seed: int | str) -> str:
    """Return the report footer in Markdown."""
    return "---\n\n" + escape_markdown_prose(_footer_text(seed), line_start=True)


# --------------------------------------------------------------------------- warnings
def small_calibration_warning(
    *, n_pass: int, n_fail: int, minimum: int = 30
) -> ReportWarning | None:
    """Warn when either class of the gold set has fewer than ``minimum`` items.

    With few gold items per class, Se and Sp (and so the corrected rate) are estimated from a
    handful of verdicts; the interval is honest but wide, and the normal-approximation
    baselines (delta method, PPI) are unreliable.

    Examples
    --------
    >>> small_calibration_warning(n_pass=2, n_fail=1).title
    'Small calibration set'
    >>> small_calibration_warning(n_pass=150, n_fail=150) is None
    True
    """
    if min(n_pass, n_fail) >= minimum:
        return None
    return ReportWarning(
        "Small calibration set",
        f"only {n_pass} gold-PASS and {n_fail} gold-FAIL items (fewer than {minimum} in a class)",
        "Se and Sp rest on a handful of verdicts: the interval is wide and the "
        "normal-approximation baselines are unreliable. Label more items of the smaller class "
        "(bayesjudge plan says how many).",
    )


def weak_judge_warning(
    *,
    j: float,
    low: float | None = None,
    high: float | None = None,
    prob: float = 0.95,
    threshold: float = 0.2,
) -> ReportWarning | None:
    """Warn when Youden's J is near 0 (posterior mean below ``threshold``, default 0.2).

    ``low`` and ``high`` (the interval of mass ``prob``) are quoted as evidence when given.

    The correction divides by J (Rogan-Gladen: :math:`(R - (1 - Sp))/J`), so a judge near
    chance makes every corrected estimate fragile.

    Examples
    --------
    >>> weak_judge_warning(j=0.05, low=0.0, high=0.2, prob=0.95).title
    'Judge close to chance'
    """
    if j >= threshold:
        return None
    interval = (
        "posterior mean"
        if low is None or high is None
        else f"{100 * prob:g}% interval {low:.2f} to {high:.2f}"
    )
    return ReportWarning(
        "Judge close to chance",
        f"Youden's J = {j:.2f} ({interval}), below {threshold:g}",
        "The correction divides by J, so its verdicts say little about the truth and the "
        "corrected rate is fragile; a better judge (or prompt) helps more than more labels.",
    )


def label_shift_warning(check: RandomCalibrationCheck) -> ReportWarning | None:
    """Warn when the judge passes gold and test items at different rates (p below its level).

    Parameters
    ----------
    check : RandomCalibrationCheck
        The two-proportion test of :class:`bayesjudge.estimators.design.RandomCalibrationCheck`.

    Examples
    --------
    >>> from bayesjudge.estimators.design import RandomCalibrationCheck
    >>> check = RandomCalibrationCheck(labelled_rate=0.5, unlabelled_rate=0.7, n_labelled=300,
    ...     n_unlabelled=2000, p_value=1e-9, consistent=False, level=0.01)
    >>> label_shift_warning(check).title
    'Label shift between calibration and test items'
    """
    if check.p_value >= check.level:
        return None
    return ReportWarning(
        "Label shift between calibration and test items",
        f"the judge passes {100 * check.labelled_rate:.1f}% of the {check.n_labelled} gold "
        f"items and {100 * check.unlabelled_rate:.1f}% of the {check.n_unlabelled} test items "
        f"(two-proportion test p = {check.p_value:.2g})",
        "The gold set is not a random sample of the test items (drawn by class, or from "
        "another mix). The Bayesian model and Rogan-Gladen only assume the judge's error "
        "rates transfer, which still holds if the judge treats both sets alike.",
    )


def random_sample_baselines_warning(
    *,
    consistent: bool,
    baselines: Mapping[str, float | None],
    reference: float,
    reference_name: str = "the Bayesian estimate",
) -> ReportWarning | None:
    """Warn that baselines assuming a random gold sample are biased when it was not one.

    Parameters
    ----------
    consistent : bool
        Whether the gold set looks like a random sample
        (:attr:`~bayesjudge.estimators.design.RandomCalibrationCheck.consistent`).
    baselines : mapping of str to float or None
        The estimates of the methods that assume a random sample (e.g. PPI, PPI++).
    reference : float
        The estimate to trust instead, for comparison.

    Examples
    --------
    >>> w = random_sample_baselines_warning(consistent=False, baselines={"ppi_plus_plus": 0.595},
    ...                                     reference=0.667)
    >>> "PPI++ 0.595" in w.evidence
    True
    """
    shown = {k: v for k, v in baselines.items() if v is not None}
    if consistent or not shown:
        return None
    values = ", ".join(f"{method_name(k)} {v:.3f}" for k, v in shown.items())
    return ReportWarning(
        "Baselines that assume a random gold sample",
        f"{values} against {reference_name} {reference:.3f}; these methods assume the gold "
        "items are a random sample of the test items, which the pass rates above contradict",
        "Read them as biased here; trust the estimators that only transfer the judge's error "
        "rates (the Bayesian posterior, Rogan-Gladen).",
    )


def wide_interval_warning(
    *, low: float, high: float, prob: float, name: str, limit: float = WIDE_INTERVAL
) -> ReportWarning | None:
    """Warn when an interval is wider than ``limit``: too wide to support a point reading.

    Examples
    --------
    >>> wide_interval_warning(low=0.009, high=0.999, prob=0.95, name="pi").title
    'Interval too wide for a reading'
    """
    if high - low <= limit:
        return None
    return ReportWarning(
        "Interval too wide for a reading",
        f"the {100 * prob:g}% interval of {name} runs from {low:.3f} to {high:.3f} (width "
        f"{high - low:.2f}, above {limit:g})",
        "The reading below says so instead of quoting a point value; more gold labels narrow it.",
    )
