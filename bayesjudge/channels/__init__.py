"""Model family 3: correction and corruption rates of pipeline steps, and their composition.

Where to find each piece:

* :mod:`~bayesjudge.channels.data`: :class:`PairedOutcomes` (the contract);
* :mod:`~bayesjudge.channels.kernels`: counts, Jeffreys rates, kernel algebra, the one-step
  law, break-even, surplus, gain rule, composition gap, mixture shift, transfer, headroom;
* :mod:`~bayesjudge.channels.fit`: the PyMC fits (the models are :mod:`bayesjudge.models.channel`);
* :mod:`~bayesjudge.channels.analysis`: :func:`analyze_channel`, the family's whole answer;
* :mod:`~bayesjudge.channels.report`, :mod:`~bayesjudge.channels.cli`: its rendering;
* :mod:`~bayesjudge.channels.simulate`: seeded simulators.
"""

from bayesjudge._lazy import by_module, lazy_exports

#: Public names of the family by module, each loaded from its module on first access.
_NAMES = by_module(
    {
        ".analysis": "ChannelAnalysis Composition SliceAnalysis analyze_channel",
        ".checks": "Headroom Transfer oracle_headroom transfer_test",
        ".counts": (
            "check_binary check_counts check_probability history_counts markov_counts "
            "paired_counts slice_counts stack_counts"
        ),
        ".data": "PairedOutcomes",
        ".fit": "fit_markov fit_slices fit_stack fit_steps",
        ".kernels": (
            "CompositionGap break_even composition_gap gap_of_kernels gate kernel "
            "kernel_rates kernels_from_joint one_step predicted_gain propagate surplus "
            "surplus_from_rates"
        ),
        ".mixture": "MixturePrediction mixture_prediction",
        ".posterior": (
            "MarkovCheck SliceSummary StepSummary composition_posterior exact_draws_tree "
            "markov_check markov_statistic mixture_summary outcome_array slice_summaries "
            "step_summaries"
        ),
        ".rates": "RatePosterior channel_posterior jeffreys_kernel jeffreys_rates",
        ".simulate": "DEPTH_SLICES SliceChannels simulate_slices simulate_stack simulate_step",
    }
)

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
