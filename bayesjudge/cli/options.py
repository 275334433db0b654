"""The sampler options of every fitting command, declared once and carried as one object.

:func:`add_sampler_options` adds ``--draws``, ``--tune``, ``--chains``, ``--target-accept``,
``--prior`` and ``--no-progress`` to a command (``--random-seed`` comes from
:func:`add_seed_option`, which the commands that only bootstrap have too);
:meth:`SamplerOptions.from_args` collects them from the parsed command line, and
:meth:`SamplerOptions.fit_kwargs` hands them to a family's analysis function in one piece.

Each default is written once: ``draws``, ``tune`` and ``chains`` in :class:`SamplerOptions`,
the seed in :data:`bayesjudge.validation.DEFAULT_SEED`, and a model's target acceptance in its
family's fit module (``TARGET_ACCEPT``), which the help reads through :class:`ModelDefault`
only when it is shown, so that building the parser imports no model.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from bayesjudge.cli.common import UserError, bounded_int, probability, seed
from bayesjudge.validation import DEFAULT_SEED, MAX_CHAINS, MAX_DRAWS

if TYPE_CHECKING:
    from bayesjudge.priors import Priors

__all__ = [
    "SAMPLER_SETTINGS",
    "ModelDefault",
    "SamplerOptions",
    "add_sampler_options",
    "add_seed_option",
    "parse_priors",
]

#: The options a user may pass on to another command (``report --example``): the sampler's.
SAMPLER_SETTINGS = ("draws", "tune", "chains", "target_accept")


def _number(value: Any) -> str:
    return f"{value:g}"


@dataclass(frozen=True, slots=True)
class ModelDefault:
    """The default of an option that a model's fit module holds, read only when it is shown.

    It stands as the option's default on the command line: the help shows it (``str``), and
    :meth:`SamplerOptions.from_args` reads a target acceptance as None, "the model's own",
    which the family's fit function resolves from the same constant (so a command that fits
    nothing never imports the fit module), and any other option as the constant's
    :meth:`value`.

    Attributes
    ----------
    module : str
        The module that holds the constant (a family's fit module).
    name : str
        The constant's name.
    describe : callable
        Turns the constant into the text of the help (``format(value, "g")`` by default).

    Examples
    --------
    >>> str(ModelDefault("bayesjudge.validation", "MAX_CHAINS"))
    '64'
    """

    module: str
    name: str = "TARGET_ACCEPT"
    describe: Callable[[Any], str] = field(default=_number, compare=False)

    def value(self) -> Any:
        """Return the constant (importing its module)."""
        return getattr(importlib.import_module(self.module), self.name)

    def __str__(self) -> str:
        return self.describe(self.value())


@dataclass(frozen=True, slots=True)
class SamplerOptions:
    """The sampler settings of one command line, as one object.

    Attributes
    ----------
    draws, tune, chains : int
        Posterior draws and tuning steps per chain, and chains; the field defaults are the
        command line's defaults.
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
    >>> add_seed_option(parser)
    >>> add_sampler_options(parser, target_accept=ModelDefault("bayesjudge.systems.fit"),
    ...                     priors="pi (beta)")
    >>> options = SamplerOptions.from_args(parser.parse_args(["--draws", "500"]))
    >>> options.fit_kwargs()  # doctest: +NORMALIZE_WHITESPACE
    {'draws': 500, 'tune': 1000, 'chains': 4, 'target_accept': None,
     'random_seed': 20261123, 'progressbar': None}
    """

    draws: int = 2000
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
            draws=int(draws.value()) if isinstance(draws, ModelDefault) else draws,
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


def add_seed_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--random-seed`` (default: the documented default seed)."""
    parser.add_argument(
        "--random-seed",
        type=seed,
        default=DEFAULT_SEED,
        metavar="N",
        help=f"seed of every random draw (default {DEFAULT_SEED}: results are reproducible)",
    )


_DEFAULTS = SamplerOptions()


def add_sampler_options(
    parser: argparse.ArgumentParser,
    *,
    target_accept: ModelDefault,
    priors: str,
    draws: int | ModelDefault | None = None,
) -> None:
    """Add the sampler options every fitting command has, and ``--prior``.

    Parameters
    ----------
    parser : ArgumentParser
        The subcommand's parser.
    target_accept : ModelDefault
        Where the model's target acceptance is kept (its fit module's ``TARGET_ACCEPT``).
    priors : str
        The names of the model's priors and their defaults, for the help of ``--prior``.
    draws : int or ModelDefault, optional
        The command's default draws per chain, where it differs from
        :class:`SamplerOptions`'s.
    """
    draws = _DEFAULTS.draws if draws is None else draws
    parser.add_argument(
        "--draws",
        type=bounded_int(1, MAX_DRAWS),
        default=draws,
        metavar="N",
        help="posterior draws per chain (default %(default)s)",
    )
    parser.add_argument(
        "--tune",
        type=bounded_int(0, MAX_DRAWS),
        default=_DEFAULTS.tune,
        metavar="N",
        help=f"tuning steps per chain (default {_DEFAULTS.tune})",
    )
    parser.add_argument(
        "--chains",
        type=bounded_int(1, MAX_CHAINS),
        default=_DEFAULTS.chains,
        metavar="N",
        help=f"chains (default {_DEFAULTS.chains})",
    )
    parser.add_argument(
        "--target-accept",
        type=probability,
        default=target_accept,
        metavar="P",
        help="NUTS target acceptance in (0, 1) (default %(default)s); a fit that fails its "
        "diagnostics is retried once with a higher one",
    )
    parser.add_argument(
        "--prior",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help=f"replace a prior, e.g. pi=beta:1,1 (repeatable; SPEC is beta:A,B, normal:MU,SIGMA, "
        f"jeffreys or uniform). Priors: {priors}",
    )
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help="hide the progress bar (on a terminal) or the progress lines (otherwise)",
    )
