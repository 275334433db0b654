"""Sphinx configuration of the bayesjudge documentation.

Build with ``make docs`` (or ``sphinx-build -W --keep-going -b html docs docs/_build/html``);
warnings are errors.
"""

from __future__ import annotations

import bayesjudge

# -- project -------------------------------------------------------------------------------------
project = "bayesjudge"
author = "bayesjudge developers"
copyright = "bayesjudge developers"
release = bayesjudge.__version__
version = ".".join(release.split(".")[:2])

# -- extensions ----------------------------------------------------------------------------------
extensions = [
    "myst_nb",  # Markdown pages and Jupyter notebooks (brings myst_parser with it)
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # copies MathJax into _static: formulas render offline
    "numpydoc",
]

exclude_patterns = ["_build", "jupyter_execute", "**/.ipynb_checkpoints", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]

# -- MyST and notebooks --------------------------------------------------------------------------
myst_enable_extensions = ["amsmath", "colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3
# Notebooks are committed with their outputs and executed by the test suite, not by the docs build.
nb_execution_mode = "off"
# Notebooks live in ../notebooks (outside this source directory). To render them, add a symlink
# docs/notebooks -> ../notebooks (Sphinx follows it) and list e.g. ``notebooks/prevalence`` in
# the toctree of index.md; keep ``nb_execution_mode = "off"``.

# -- API reference -------------------------------------------------------------------------------
autosummary_generate = True  # writes stubs to docs/api/generated (ignored by git)
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "signature"
numpydoc_show_class_members = False  # the class template lists members through autodoc
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True

# No network at build time: no intersphinx inventories are fetched. Add mappings here, e.g.
# {"numpy": ("https://numpy.org/doc/stable/", None)}, where the build machine is online.
intersphinx_mapping: dict[str, tuple[str, str | None]] = {}

# -- HTML ----------------------------------------------------------------------------------------
# MathJax is served from the built site (sphinx-mathjax-offline), never from a CDN: the pages
# work offline. scripts/check_docs_offline.py (run by `make docs`) fails the build if a page
# asks for a remote script, stylesheet or font.
html_theme = "pydata_sphinx_theme"
html_static_path = ["_static"]
html_css_files = ["bayesjudge.css"]
html_title = f"bayesjudge {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}


def _drop_module_docstrings(app, what, name, obj, options, lines):
    """Leave module narratives (and their reference lists) to the topic pages.

    Several module docstrings carry their own "References" section; shown together on the API
    page they would collide (duplicate section ids, unreferenced citations).
    """
    if what == "module":
        lines.clear()


def setup(app):
    app.connect("autodoc-process-docstring", _drop_module_docstrings)
