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

from bayesjudge._lazy import lazy_exports

#: Public names of the family, each loaded from its module on first access.
_NAMES = {
    "ChannelAnalysis": ".analysis",
    "Composition": ".analysis",
    "CompositionGap": ".kernels",
    "DEPTH_SLICES": ".simulate",
    "Headroom": ".checks",
    "MarkovCheck": ".posterior",
    "MixturePrediction": ".mixture",
    "PairedOutcomes": ".data",
    "RatePosterior": ".rates",
    "SliceAnalysis": ".analysis",
    "SliceChannels": ".simulate",
    "SliceSummary": ".posterior",
    "StepSummary": ".posterior",
    "Transfer": ".checks",
    "analyze_channel": ".analysis",
    "break_even": ".kernels",
    "channel_posterior": ".rates",
    "check_binary": ".counts",
    "check_counts": ".counts",
    "check_probability": ".counts",
    "composition_gap": ".kernels",
    "composition_posterior": ".posterior",
    "exact_draws_tree": ".posterior",
    "fit_markov": ".fit",
    "fit_slices": ".fit",
    "fit_stack": ".fit",
    "fit_steps": ".fit",
    "gap_of_kernels": ".kernels",
    "gate": ".kernels",
    "history_counts": ".counts",
    "jeffreys_kernel": ".rates",
    "jeffreys_rates": ".rates",
    "kernel": ".kernels",
    "kernel_rates": ".kernels",
    "kernels_from_joint": ".kernels",
    "markov_check": ".posterior",
    "markov_counts": ".counts",
    "markov_statistic": ".posterior",
    "mixture_prediction": ".mixture",
    "mixture_summary": ".posterior",
    "one_step": ".kernels",
    "oracle_headroom": ".checks",
    "outcome_array": ".posterior",
    "paired_counts": ".counts",
    "predicted_gain": ".kernels",
    "propagate": ".kernels",
    "simulate_slices": ".simulate",
    "simulate_stack": ".simulate",
    "simulate_step": ".simulate",
    "slice_counts": ".counts",
    "slice_summaries": ".posterior",
    "stack_counts": ".counts",
    "step_summaries": ".posterior",
    "surplus": ".kernels",
    "surplus_from_rates": ".kernels",
    "transfer_test": ".checks",
}

__all__ = sorted(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
