"""Posteriors on disk: NetCDF that ``xarray.open_datatree`` reads, written atomically."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from bayesjudge.reporting.output import write_file_atomically

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


def write_posterior(tree: xr.DataTree, path: str | os.PathLike[str]) -> Path:
    """Write a posterior as NetCDF readable by ``xarray.open_datatree`` (h5netcdf engine).

    The file is written through :func:`~bayesjudge.reporting.output.write_file_atomically`:
    into a temporary file beside its destination, flushed to disk and renamed over it only
    when complete, so an interrupted write never leaves a truncated file in place of a good
    one. The file follows the umask.

    Parameters
    ----------
    tree : DataTree
        The posterior (any DataTree: booleans are stored as int8, objects as text, attrs that
        are not text or numbers as JSON).
    path : path
        The file to write; missing parent folders are created.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    OSError
        When the file cannot be written (a full disk, ...); the error names ``path`` and
        ``path`` is untouched.

    Examples
    --------
    >>> import tempfile
    >>> tree = xr.DataTree.from_dict({"posterior": xr.Dataset({"pi": ("draw", [0.2, 0.3])})})
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     written = write_posterior(tree, Path(tmp) / "posterior.nc")
    ...     xr.open_datatree(written, engine="h5netcdf")["posterior"]["pi"].values.tolist()
    [0.2, 0.3]
    """
    ready = netcdf_ready(tree)
    return write_file_atomically(
        path, lambda temporary: ready.to_netcdf(temporary, engine="h5netcdf")
    )
