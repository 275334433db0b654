"""The options every command shares, declared once; the sampler's carried as one object.

:func:`add_sampler_options` adds ``--draws``, ``--tune``, ``--chains``, ``--target-accept``,
``--prior`` and ``--no-progress`` to a command that fits a model; ``--prob`` and
``--random-seed`` come from :func:`add_prob_and_seed` (the commands that only bootstrap have
them too), ``--json`` and ``--out`` from :func:`add_json_option` and :func:`add_report_options`.
:meth:`SamplerOptions.from_args` collects the sampler's from the parsed command line, and
:meth:`SamplerOptions.fit_kwargs` hands them to a family's analysis function in one piece.

Each default is written once: ``draws``, ``tune`` and ``chains`` in :class:`SamplerOptions`,
the seed in :data:`bayesjudge.validation.DEFAULT_SEED`, and a model's target acceptance (and
channels' draws) in :mod:`bayesjudge.inference.defaults`, which imports nothing, so the help
shows them without importing a model; the family's fit module holds the same constant.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal

from bayesjudge.cli.common import (
    UserError,
    bounded_int,
    emit_json,
    named_paths,
    probability,
    seed,
)
from bayesjudge.validation import DEFAULT_SEED, MAX_CHAINS, MAX_DRAWS

if TYPE_CHECKING:
    from bayesjudge.priors import Priors

__all__ = [
    "REPORT_FOLDER",
    "SAMPLER_SETTINGS",
    "ModelDefault",
    "SamplerOptions",
    "add_json_option",
    "add_prior_option",
    "add_prob_and_seed",
    "add_report_options",
    "add_sampler_options",
    "draws_option",
    "emit_outputs",
    "parse_priors",
]

#: The options a user may pass on to another command (``report --example``): the sampler's.
SAMPLER_SETTINGS = ("draws", "tune", "chains", "target_accept")
#: What a report folder given to ``--out`` may be.
REPORT_FOLDER = "a new or empty folder, or a report bayesjudge wrote there and nobody changed"


def _number(value: Any) -> str:
    return f"{value:g}"


@dataclass(frozen=True, slots=True)
class ModelDefault:
    """A model's own default of an option (:mod:`bayesjudge.inference.defaults`), as parsed.

    It stands as the option's default on the command line: the help shows it (``str``), and
    :meth:`SamplerOptions.from_args` reads a target acceptance left at it as None, "the model's
    own", which the family's fit function resolves from the same constant, and any other option
    as its :attr:`value`.

    Attributes
    ----------
    value : object
        The default.
    describe : callable
        Turns the value into the text of the help (``format(value, "g")`` by default).

    Examples
    --------
    >>> from bayesjudge.inference import defaults
    >>> str(ModelDefault(defaults.GATE_TARGET_ACCEPT))
    '0.9'
    """

    value: Any
    describe: Callable[[Any], str] = field(default=_number, compare=False)

    def __str__(self) -> str:
        return self.describe(self.value)


@dataclass(frozen=True, slots=True)
class SamplerOptions:
    """The sampler settings of one command line, as one object.

    Attributes
    ----------
    draws : int or "auto"
        Posterior draws per chain; ``"auto"`` (``--draws auto``): draw until the diagnostics'
        targets are met, at most :data:`~bayesjudge.inference.defaults.AUTO_MAX_DRAWS` per
        chain (:class:`~bayesjudge.inference.fit.StoppingRule`).
    tune, chains : int
        Tuning steps per chain, and chains; the field defaults are the command line's
        defaults.
    target_accept : float or None
        NUTS target acceptance; None for the model's own (its fit module's ``TARGET_ACCEPT``).
    random_seed : int
        Seed of every random draw.
    progressbar : bool or None
        False to hide the progress display; None for the default (shown on a terminal).
    priors : tuple of str
        The ``--prior NAME=SPEC`` strings, in order (see :func:`parse_priors`).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_prob_and_seed(parser)
    >>> add_sampler_options(parser, target_accept=0.95, priors="pi (beta)")
    >>> options = SamplerOptions.from_args(parser.parse_args(["--draws", "500"]))
    >>> options.fit_kwargs()  # doctest: +NORMALIZE_WHITESPACE
    {'draws': 500, 'tune': 1000, 'chains': 4, 'target_accept': None,
     'random_seed': 20261123, 'progressbar': None}
    """

    draws: int | Literal["auto"] = 2000
    tune: int = 1000
    chains: int = 4
    target_accept: float | None = None
    random_seed: int = DEFAULT_SEED
    progressbar: bool | None = None
    priors: tuple[str, ...] = ()

    @classmethod
    def from_args(cls, args: argparse.Namespace, *, quiet: bool = False) -> SamplerOptions:
        """Collect the options of a parsed command line (see :func:`add_sampler_options`).

        ``quiet`` hides the progress display as ``--no-progress`` does (a command whose
        output is JSON).
        """
        target_accept, draws = args.target_accept, args.draws
        return cls(
            draws=int(draws.value) if isinstance(draws, ModelDefault) else draws,
            tune=args.tune,
            chains=args.chains,
            target_accept=None if isinstance(target_accept, ModelDefault) else target_accept,
            random_seed=args.random_seed,
            progressbar=False if quiet or args.no_progress else None,
            priors=tuple(args.prior),
        )

    def fit_kwargs(self) -> dict[str, Any]:
        """Return the settings as the keyword arguments of a family's analysis function."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "priors"}

    def priors_of[P: Priors](self, kind: type[P]) -> P:
        """Return ``kind``'s default priors with this command line's ``--prior`` replacements.

        See :func:`parse_priors`.
        """
        return parse_priors(kind, self.priors)


def parse_priors[P: Priors](kind: type[P], specs: Sequence[str]) -> P:
    """Return the family's default priors with ``--prior NAME=SPEC`` replacements.

    Raises
    ------
    UserError
        Naming ``--prior``, on a spec the priors refuse (an unknown name, a bad spec, a name
        given twice).

    Examples
    --------
    >>> from bayesjudge.priors import PrevalencePriors
    >>> parse_priors(PrevalencePriors, ["pi=beta:1,1"]).pi
    Beta(alpha=1.0, beta=1.0)
    """
    try:
        return kind().updated(list(specs))
    except ValueError as exc:
        raise UserError(f"--prior: {exc}") from None


def draws_option(text: str) -> int | Literal["auto"]:
    """Argument type of ``--draws``: a whole number from 1 to ``MAX_DRAWS``, or ``auto``.

    Examples
    --------
    >>> draws_option("500"), draws_option("auto")
    (500, 'auto')
    """
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return bounded_int(1, MAX_DRAWS)(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"must be a whole number from 1 to {MAX_DRAWS:,} or 'auto'; got {text!r}"
        ) from None


def add_prob_and_seed(parser: argparse.ArgumentParser) -> None:
    """Add ``--prob`` (the mass of every interval) and ``--random-seed``."""
    parser.add_argument(
        "--prob", type=probability, default=0.95, help="interval mass (default %(default)s)"
    )
    parser.add_argument(
        "--random-seed",
        type=seed,
        default=DEFAULT_SEED,
        metavar="N",
        help=f"seed of every random draw (default {DEFAULT_SEED}: results are reproducible)",
    )


def add_prior_option(parser: argparse.ArgumentParser, priors: str) -> None:
    """Add ``--prior NAME=SPEC`` (repeatable); ``priors`` names the model's priors for the help."""
    parser.add_argument(
        "--prior",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help=f"replace a prior, e.g. pi=beta:1,1 (repeatable; SPEC is beta:A,B, normal:MU,SIGMA, "
        f"jeffreys or uniform). Priors: {priors}",
    )


def add_json_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--json``: print one JSON object instead of text."""
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def add_report_options(
    parser: argparse.ArgumentParser, handler: Callable[[argparse.Namespace], int]
) -> None:
    """Add ``--json`` and ``--out DIR`` (also write a report), and set the command's handler.

    ``--out`` is declared a report folder, checked and locked before the handler runs
    (:func:`~bayesjudge.cli.common.claimed_outputs`).
    """
    add_json_option(parser)
    parser.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help=f"also write a report folder ({REPORT_FOLDER})",
    )
    parser.set_defaults(handler=handler, outputs={"out": "report"})


def emit_outputs(
    args: argparse.Namespace,
    analysis: Any,
    write_report: Callable[..., Any],
    *,
    source: str,
    origin: Any | None = None,
) -> bool:
    """Write the report folder ``--out`` asks for, and print the JSON ``--json`` asks for.

    The report (``write_report``: :func:`bayesjudge.reporting.write.write_report`, which the
    command imports, as this shared layer may not) records ``source`` and the paths the
    arguments name; the JSON is ``analysis.to_dict()`` with, when ``origin`` (what was read) is
    given, its ``to_dict()`` as the ``input`` block.

    Returns
    -------
    bool
        Whether the JSON was printed (the caller prints its text otherwise).

    Examples
    --------
    >>> class Analysis:
    ...     def to_dict(self):
    ...         return {"pi": 0.5}
    >>> emit_outputs(argparse.Namespace(out=None, json=True), Analysis(), print, source="x")
    {
      "pi": 0.5
    }
    True
    """
    if args.out is not None:
        write_report(args.out, analysis, source=source, inputs=named_paths(args, skip=["out"]))
    if args.json:
        payload = analysis.to_dict()
        if origin is not None:
            payload["input"] = origin.to_dict()
        emit_json(payload)
    return bool(args.json)


_DEFAULTS = SamplerOptions()


def add_sampler_options(
    parser: argparse.ArgumentParser,
    *,
    target_accept: float | ModelDefault,
    priors: str,
    draws: int | ModelDefault | None = None,
    auto_draws: bool = True,
) -> None:
    """Add the sampler options every fitting command has, and ``--prior``.

    Parameters
    ----------
    parser : ArgumentParser
        The subcommand's parser.
    target_accept : float or ModelDefault
        The model's default target acceptance (:mod:`bayesjudge.inference.defaults`), or a
        :class:`ModelDefault` that describes it.
    priors : str
        The names of the model's priors and their defaults, for the help of ``--prior``.
    draws : int or ModelDefault, optional
        The command's default draws per chain, where it differs from
        :class:`SamplerOptions`'s.
    auto_draws : bool, default True
        Whether ``--draws`` also takes ``auto`` (:func:`draws_option`); False for a command
        whose draws also set the size of draws made without a sampler.
    """
    from bayesjudge.inference import defaults

    default_draws = _DEFAULTS.draws if draws is None else draws
    if auto_draws:
        parser.add_argument(
            "--draws",
            type=draws_option,
            default=default_draws,
            metavar="N|auto",
            help="posterior draws per chain (default %(default)s), or auto: draw until the "
            "diagnostics' targets (R-hat, bulk and tail ESS, MCSE) are met, looking every "
            f"{defaults.AUTO_CHECKPOINT} draws per chain, at most {defaults.AUTO_MAX_DRAWS}",
        )
    else:
        parser.add_argument(
            "--draws",
            type=bounded_int(1, MAX_DRAWS),
            default=default_draws,
            metavar="N",
            help="posterior draws per chain (default %(default)s)",
        )
    for flag, low, high, default, what in (
        ("--tune", 0, MAX_DRAWS, _DEFAULTS.tune, "tuning steps per chain"),
        ("--chains", 1, MAX_CHAINS, _DEFAULTS.chains, "chains"),
    ):
        parser.add_argument(
            flag,
            type=bounded_int(low, high),
            default=default,
            metavar="N",
            help=f"{what} (default %(default)s)",
        )
    parser.add_argument(
        "--target-accept",
        type=probability,
        default=(
            target_accept
            if isinstance(target_accept, ModelDefault)
            else ModelDefault(target_accept)
        ),
        metavar="P",
        help="NUTS target acceptance in (0, 1) (default %(default)s); a fit that fails its "
        "diagnostics is retried once with a higher one",
    )
    add_prior_option(parser, priors)
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help="hide the progress bar (on a terminal) or the progress lines (otherwise)",
    )
