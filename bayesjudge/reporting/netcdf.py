"""Posteriors on disk: NetCDF that ``xarray.open_datatree`` reads, written atomically."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from bayesjudge.reporting.output import write_bytes_atomically

__all__ = ["write_netcdf", "write_posterior"]


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


def write_netcdf(data: xr.Dataset | xr.DataTree, path: str | os.PathLike[str]) -> Path:
    """Write a Dataset or DataTree as NetCDF (h5netcdf engine), atomically.

    The file is rendered in memory, then written with plain file writes through
    :func:`~bayesjudge.reporting.output.write_bytes_atomically`: into a temporary file beside
    its destination, flushed to disk and renamed over it only when complete. (HDF5 writing a
    file itself ends the whole process with a segmentation fault when the disk fills up; a
    plain write raises ``OSError``.) The file follows the umask.

    Parameters
    ----------
    data : Dataset or DataTree
        What to write, as netCDF can store it (see :func:`write_posterior` for a posterior).
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
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     written = write_netcdf(xr.Dataset({"n": ("x", [1, 2])}), Path(tmp) / "d.nc")
    ...     xr.open_dataset(written, engine="h5netcdf")["n"].values.tolist()
    [1, 2]
    """
    buffer = io.BytesIO()
    data.to_netcdf(buffer, engine="h5netcdf")
    return write_bytes_atomically(path, buffer.getvalue())  # (getvalue shares, not copies)


def write_posterior(tree: xr.DataTree, path: str | os.PathLike[str]) -> Path:
    """Write a posterior as NetCDF readable by ``xarray.open_datatree`` (h5netcdf engine).

    Booleans are stored as int8, objects as text, attrs that are not text or numbers as
    JSON; the file is written atomically by :func:`write_netcdf` and follows the umask.

    Parameters
    ----------
    tree : DataTree
        The posterior.
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
    return write_netcdf(netcdf_ready(tree), path)
