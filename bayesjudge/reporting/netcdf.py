"""Posteriors on disk: NetCDF that ``xarray.open_datatree`` reads, written atomically."""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np
import xarray as xr

from bayesjudge.reporting.files import atomic_write_with

__all__ = ["write_posterior"]


def netcdf_ready(posterior: xr.DataTree) -> xr.DataTree:
    """Return a copy that netCDF can store: booleans as int8, objects as text, plain attrs."""

    def fix(dataset: xr.Dataset) -> xr.Dataset:
        dataset = dataset.copy()
        for name, variable in dataset.variables.items():
            if variable.dtype == object:
                dataset[name] = variable.astype(str)
            elif variable.dtype == bool:
                dataset[name] = variable.astype(np.int8)
        dataset.attrs = {k: _attr(v) for k, v in dataset.attrs.items()}
        return dataset

    fixed = xr.DataTree.from_dict(
        {node.path: fix(node.to_dataset(inherit=False)) for node in posterior.subtree}
    )
    fixed.attrs = {k: _attr(v) for k, v in posterior.attrs.items()}
    return fixed


def _attr(value: Any) -> Any:
    if isinstance(value, bool | np.bool_):
        return int(value)
    if isinstance(value, str | int | float | np.integer | np.floating):
        return value
    return json.dumps(value, default=str)


def write_posterior(tree: xr.DataTree, path: str | os.PathLike[str]) -> None:
    """Write a posterior as NetCDF readable by ``xarray.open_datatree`` (h5netcdf engine).

    The file is written beside its destination and renamed over it only when complete, so an
    interrupted write never leaves a truncated file in place of a good one.
    """
    ready = netcdf_ready(tree)
    atomic_write_with(path, lambda temporary: ready.to_netcdf(temporary, engine="h5netcdf"))
