"""nutpie's raw arrow trace -> the posterior DataTree, without ArviZ's generic converter.

``nutpie.sample`` converts its draws with ``arviz_base.from_dict``, which builds one
DataArray per variable through ArviZ's naming conventions (copying every model coordinate for
every variable) and assembles four groups, two of them (the warm-up) then dropped: for the
small models of bayesjudge that costs about as much as sampling. :func:`tree_from_raw` builds
the same ``posterior`` and ``sample_stats`` groups directly from the arrays: the same
variables in the same order, dims (the ``dims`` field metadata nutpie writes, else ArviZ's
``<name>_dim_<i>``), coordinates (the compiled model's, else ``0 .. n-1``), dtypes, fill
values for missing stats (NaN, None or 0, as nutpie does), and attrs (ArviZ's ``make_attrs``,
plus nutpie's ``inference_library*`` on ``sample_stats``). The sample statistics nutpie leaves
out unless asked (gradients, mass matrices, divergence locations, transformed positions) are
left out the same way, and the ``chain`` and ``draw`` statistics become the group's integer
coordinates, as in nutpie's own conversion.

``tests/inference/test_nutpie_tree.py`` checks the result against nutpie's conversion of the
same run with :func:`xarray.testing.assert_identical` (attrs included, but for the
``created_at`` time stamps) for the prevalence, gate and channel models.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

__all__ = ["skipped_stats", "tree_from_raw"]

_SAMPLE_DIMS = ("chain", "draw")
#: Sample statistics nutpie keeps only when the named setting is on (its ``_extract``).
_OPTIONAL_STATS = {
    ("store_gradient",): ("gradient",),
    ("store_unconstrained",): ("unconstrained_draw",),
    ("adapt_options", "mass_matrix_options", "store_mass_matrix"): (
        "mass_matrix_inv",
        "mass_matrix_eigvals",
        "mass_matrix_stds",
    ),
    ("store_divergences",): (
        "divergence_start",
        "divergence_end",
        "divergence_momentum",
        "divergence_start_gradient",
    ),
    ("store_transformed",): (
        "transformed_position",
        "transformed_gradient",
        "transformation_mu",
    ),
}


def skipped_stats(settings: Mapping[str, Any]) -> frozenset[str]:
    """Return the sample statistics nutpie drops for these settings (``settings.as_dict()``).

    Examples
    --------
    >>> sorted(skipped_stats({"settings": {"store_gradient": True}}))[:2]
    ['divergence_end', 'divergence_momentum']
    """
    inner = settings.get("settings", {})
    out: set[str] = set()
    for path, names in _OPTIONAL_STATS.items():
        node: Any = inner
        for part in path:
            node = node.get(part, {}) if isinstance(node, Mapping) else {}
        if not node:
            out.update(names)
    return frozenset(out)


def _column(
    batch: Any, name: str, tune: int
) -> tuple[np.ndarray, Any, tuple[str, ...], tuple[int, ...]]:
    """One arrow column's rows from ``tune`` on: (values, null mask or None, dims, shape).

    Like nutpie's ``_add_arrow_data`` on the batch sliced at ``tune``: list columns are
    flattened (their missing rows hold no values), scalar columns keep one value per row.
    """
    column = batch.column(name)
    metadata = batch.schema.field(name).metadata or {}
    dims_text = metadata.get(b"dims", b"")
    shape_text = metadata.get(b"shape", b"")
    item_dims = tuple(dims_text.decode("utf-8").split(",")) if dims_text else ()
    item_shape = tuple(int(s) for s in shape_text.decode("utf-8").split(",")) if shape_text else ()
    nulls = column.is_null().to_numpy(zero_copy_only=False) if column.null_count else None
    nested = hasattr(column, "flatten")
    values = (column.flatten() if nested else column).to_numpy(zero_copy_only=False)
    if nested:
        size = int(np.prod(item_shape))
        skipped = tune if nulls is None else int((~nulls[:tune]).sum())
        values = values[skipped * size :]
    else:
        values = values[tune:]
    return values, None if nulls is None else nulls[tune:], item_dims, item_shape


def _group(
    batches: list[Any],
    tuning: list[int],
    *,
    skip: frozenset[str],
    coords: Mapping[str, Any],
    attrs: dict[str, Any],
) -> xr.Dataset:
    """Build one group from each chain's batch, keeping the rows after ``tuning[chain]``."""
    import pyarrow

    tables = [pyarrow.record_batch(batch) for batch in batches]
    n_chains = len(tables)
    kept = [table.num_rows - tune for table, tune in zip(tables, tuning, strict=True)]
    n_draws = max(kept) if kept else 0
    variables: dict[str, tuple[tuple[str, ...], np.ndarray]] = {}
    used: dict[str, Any] = {}
    for position, name in enumerate(tables[0].schema.names):
        if name in skip or name in _SAMPLE_DIMS:
            continue
        field_type = tables[0].schema.field(position).type
        if pyarrow.types.is_large_list(field_type) or pyarrow.types.is_list(field_type):
            field_type = field_type.value_type
        dtype = np.dtype(field_type.to_pandas_dtype())
        data: np.ndarray | None = None
        item_dims: tuple[str, ...] = ()
        for chain, table in enumerate(tables):
            values, nulls, item_dims, item_shape = _column(table, name, tuning[chain])
            if data is None:
                shape = (n_chains, n_draws, *item_shape)
                if dtype in (np.float64, np.float32):
                    data = np.full(shape, np.nan, dtype=dtype)
                elif dtype == np.dtype("O"):
                    data = np.full(shape, None, dtype=dtype)
                else:
                    data = np.zeros(shape, dtype=dtype)
            target = data[chain, : kept[chain]]
            if nulls is None:
                target[...] = values.reshape((kept[chain], *item_shape))
            else:
                present = ~nulls
                if values.shape[0] == kept[chain]:
                    values = values[present]
                target[present] = values.reshape((int(present.sum()), *item_shape))
        assert data is not None
        dims = list(item_dims) + [""] * (data.ndim - 2 - len(item_dims))
        missing = 0
        for axis, dim in enumerate(dims):
            if not dim:
                dims[axis] = f"{name}_dim_{missing}"
                missing += 1
            if dims[axis] not in used:
                size = data.shape[2 + axis]
                used[dims[axis]] = coords.get(dims[axis], np.arange(size))
        variables[name] = ((*_SAMPLE_DIMS, *dims), data)
    used = {"chain": np.arange(n_chains), "draw": np.arange(n_draws), **used}
    return xr.Dataset(variables, coords=used, attrs=attrs)


def tree_from_raw(
    raw: Any,
    *,
    coords: Mapping[str, Any],
    settings: Mapping[str, Any],
    nutpie_version: str,
    reparameterized: tuple[str, ...] | list[str] = (),
) -> xr.DataTree:
    """Return the ``posterior`` and ``sample_stats`` groups of a raw nutpie trace.

    Parameters
    ----------
    raw : nutpie's raw trace
        What ``nutpie.sample(..., return_raw_trace=True)`` returns (arrow storage).
    coords : mapping
        The compiled model's coordinates (``compiled.coords``).
    settings : mapping
        The sampler's settings, ``settings.as_dict()`` (recorded in ``sample_stats.attrs``
        and telling which optional statistics nutpie drops).
    nutpie_version : str
        ``nutpie.__version__``, recorded in ``sample_stats.attrs``.
    reparameterized : sequence of str
        The compiled model's ``reparameterized_names``: left out of the posterior, as nutpie
        does (it keeps them only with ``store_unconstrained``, which bayesjudge never sets).

    Returns
    -------
    DataTree
        Groups ``posterior`` and ``sample_stats`` (draws after tuning), identical to nutpie's
        own conversion but for the ``created_at`` time stamps.
    """
    import pandas as pd
    from arviz_base import make_attrs

    if not raw.is_arrow():
        raise ValueError("tree_from_raw reads nutpie's arrow storage; this trace is not arrow")
    draw_batches, stat_batches = raw.get_arrow_trace()
    tuning = [int(np.asarray(batch.column("tuning").to_numpy()).sum()) for batch in stat_batches]
    index = {name: pd.Index(values) for name, values in coords.items()}
    posterior = _group(
        draw_batches,
        tuning,
        skip=frozenset(reparameterized),
        coords=index,
        attrs=make_attrs(sample_dims=list(_SAMPLE_DIMS)),
    )
    stats_attrs = {
        "inference_library": "nutpie",
        "inference_library_version": nutpie_version,
        "inference_library_settings": json.dumps(settings),
    }
    sample_stats = _group(
        stat_batches,
        tuning,
        skip=skipped_stats(settings),
        coords=index,
        attrs=make_attrs(attrs=stats_attrs, sample_dims=list(_SAMPLE_DIMS)),
    )
    return xr.DataTree.from_dict({"posterior": posterior, "sample_stats": sample_stats})
