"""Print the tables of docs/studies.md from a finished lee2025 run.

Usage: ``python benchmarks/study_doc_tables.py RUN_DIR`` where RUN_DIR was written by
``bayesjudge study lee2025 --out RUN_DIR --workers 2``.
"""

# ruff: noqa: E501  (the printed Markdown table rows are long by nature)

import sys

import numpy as np

from bayesjudge.studies.runner import exact_check, load_results, summarize

ds = load_results(sys.argv[1])
table = summarize(ds)
est = list(ds["estimator"].to_numpy())


def pooled(sel):
    cov = sel["covered"]
    n = int(cov.notnull().sum())
    c = float(cov.sum()) / n if n else float("nan")
    return c, np.sqrt(c * (1 - c) / n) if n else float("nan"), n


print("## per estimator, all 84 scenarios pooled\n")
print(
    "| estimator | replicates | coverage | MCSE | scenario min | scenario max | width | MAE | failed |"
)
print("|:--|--:|--:|--:|--:|--:|--:|--:|--:|")
for e in est:
    sub = ds.sel(estimator=e)
    c, se, n = pooled(sub)
    rows = table[table["estimator"] == e]
    print(
        f"| {e} | {n} | {c:.3f} | {se:.3f} | {rows['coverage'].min():.3f} | {rows['coverage'].max():.3f} | "
        f"{rows['width'].mean():.3f} | {rows['mae'].mean():.3f} | {int(rows['failed'].sum())} |"
    )

inner = ds.sel(theta=[t for t in ds["theta"].to_numpy() if 0.05 - 1e-9 <= t <= 0.95 + 1e-9])
print("\n## theta in [0.05, 0.95] (19 x 4 = 76 scenarios) pooled\n")
print("| estimator | replicates | coverage | MCSE |")
print("|:--|--:|--:|--:|")
for e in est:
    c, se, n = pooled(inner.sel(estimator=e))
    print(f"| {e} | {n} | {c:.4f} | {se:.4f} |")

print("\n## bayes_nuts by judge, theta in [0.05, 0.95]\n")
print("| judge | replicates | coverage | MCSE | passed-only coverage | failed |")
print("|:--|--:|--:|--:|--:|--:|")
for j in ds["judge"].to_numpy():
    sub = inner.sel(estimator="bayes_nuts", judge=j)
    c, se, n = pooled(sub)
    cp = float(sub["covered"].where(sub["passed"]).mean())
    failed = int((sub["defined"] & ~sub["passed"]).sum())
    print(f"| {j} | {n} | {c:.4f} | {se:.4f} | {cp:.4f} | {failed} |")

nuts_inner = table[
    (table["estimator"] == "bayes_nuts") & table["theta"].between(0.05 - 1e-9, 0.95 + 1e-9)
]
inside = nuts_inner["coverage"].between(0.93, 0.97).sum()
print(
    f"\nbayes_nuts scenarios (theta in [0.05,0.95]) with coverage in [0.93,0.97]: {inside} of {len(nuts_inner)};"
    f" min {nuts_inner['coverage'].min():.3f} max {nuts_inner['coverage'].max():.3f}"
)

print(
    "\n## coverage by theta (4 judges pooled, 800 replicates; bayes_exact 20); MCSE in parentheses\n"
)
show = [e for e in est]
print("| theta | " + " | ".join(show) + " |")
print("|--:|" + "--:|" * len(show))
for t in ds["theta"].to_numpy():
    cells = []
    for e in show:
        c, se, n = pooled(ds.sel(theta=t, estimator=e))
        cells.append(f"{c:.3f} ({se:.3f})")
    print(f"| {t:.2f} | " + " | ".join(cells) + " |")

nuts = ds.sel(estimator="bayes_nuts")
failed = nuts["defined"] & ~nuts["passed"]
print(f"\nNUTS failures: {int(failed.sum())} of {int(nuts['defined'].sum())}")
for name, bad in [
    ("r_hat > 1.01", nuts["r_hat"] > 1.01),
    ("ess_bulk < 400", nuts["ess_bulk"] < 400),
    ("ess_tail < 400", nuts["ess_tail"] < 400),
    ("divergences > 0", nuts["divergences"] > 0),
]:
    print(f"  {name}: {int(bad.sum())}")
print("failures by theta:", failed.sum(["judge", "replicate"]).to_series().to_dict())
chk = exact_check(ds)
print(
    f"\nexact_check: {len(chk)} replicates, mean |z| {chk['z'].abs().mean():.3f}, max |z| {chk['z'].abs().max():.3f}, "
    f"share |z|>3 {(chk['z'].abs() > 3).mean():.3f}, max |end diff| {chk[['low_diff_sd', 'high_diff_sd']].abs().max().max():.3f} sd"
)
print("\nfit_time mean per replicate by estimator (s):")
print(ds["fit_time"].mean(["theta", "judge", "replicate"]).to_series().round(4).to_dict())
