"""``--by COLUMN``: one answer per group of a table (estimate, baselines, plan, report)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from bayesjudge.cli.app import main
from bayesjudge.cli.common import EXIT_BAD_INPUT, EXIT_OK
from bayesjudge.errors import DataError
from bayesjudge.inference import cache as model_cache_module
from bayesjudge.io.split import MAX_GROUPS, split_table
from bayesjudge.io.stream import JUDGE_FIELDS
from bayesjudge.prevalence.simulate import judge_table
from bayesjudge.reporting.output import read_manifest

GROUPS = {"alpha": 0.6, "beta": 0.8, "gamma": 0.4}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _group(name: str, pi: float, seed: int, *, n: int = 150, m: int = 30) -> pd.DataFrame:
    table = judge_table(pi=pi, se=0.9, sp=0.8, n=n, m1=m, m0=m, random_seed=seed)
    table.insert(0, "model", name)
    return table


@pytest.fixture
def grouped(tmp_path: Path) -> Path:
    """Three models' verdicts in one table, and each model's rows in a file of its own."""
    parts = [_group(name, pi, seed) for seed, (name, pi) in enumerate(GROUPS.items())]
    for part in parts:
        part.drop(columns="model").to_csv(tmp_path / f"{part['model'].iloc[0]}.csv", index=False)
    path = tmp_path / "evals.csv"
    pd.concat(parts).to_csv(path, index=False)
    return path


def _comparable(payload: dict) -> dict:
    """A command's JSON without what names the file read and the command line."""
    payload = dict(payload)
    payload.pop("input", None)
    if "provenance" in payload:
        payload["provenance"] = {k: v for k, v in payload["provenance"].items() if k != "command"}
    return payload


@pytest.mark.parametrize(
    "command",
    [
        ["estimate", "--method", "exact"],
        ["baselines", "--n-boot", "200"],
        ["plan", "--target-width", "0.3", "--draws", "4", "--max-labels", "200"],
    ],
    ids=["estimate", "baselines", "plan"],
)
def test_by_json_equals_each_group_alone(capsys, grouped, command):
    name, *options = command
    code, out, err = run(capsys, name, str(grouped), "--by", "model", "--json", *options)
    assert code == EXIT_OK, err
    payload = json.loads(out)
    assert payload["by"] == "model"
    assert list(payload["groups"]) == list(GROUPS)
    for group in GROUPS:
        alone_path = grouped.parent / f"{group}.csv"
        code, alone, err = run(capsys, name, str(alone_path), "--json", *options)
        assert code == EXIT_OK, err
        assert _comparable(payload["groups"][group]) == _comparable(json.loads(alone))
        if name != "plan":  # plan's JSON has no input block
            source = payload["groups"][group]["input"]["source"]
            assert source == f"{grouped} (model='{group}')"
    # the groups differ: each was analysed on its own rows, not the pooled table
    if name == "estimate":
        means = [payload["groups"][g]["posterior"]["pi"]["mean"] for g in GROUPS]
        assert means[1] > means[0] > means[2]


def test_by_terminal_table_and_each_answer(capsys, grouped):
    code, out, err = run(capsys, "estimate", str(grouped), "--by", "model", "--method", "exact")
    assert code == EXIT_OK, err
    lines = out.splitlines()
    assert lines[0] == f"{grouped}: 3 groups by 'model', 3 answered"
    assert lines[1].split() == [
        "model",
        "items",
        "gold",
        "PASS",
        "gold",
        "FAIL",
        "unlabelled",
        "pi",
        "low",
        "high",
    ]
    for line, group in zip(lines[2:5], GROUPS, strict=True):
        assert line.split()[:5] == [group, "210", "30", "30", "150"]
    for group in GROUPS:  # each group's one-screen answer follows
        assert f"== model='{group}' ==" in out
    assert out.count("\nAnswer\n") == 3


def test_by_many_groups_points_to_json(capsys, tmp_path):
    count = 4
    parts = [_group(f"m{i}", 0.6, i, n=40, m=10) for i in range(count)]
    path = tmp_path / "four.csv"
    pd.concat(parts).to_csv(path, index=False)
    code, out, err = run(capsys, "baselines", str(path), "--by", "model", "--n-boot", "100")
    assert code == EXIT_OK, err
    assert f"{count} groups: each group's full answer is in --json" in out
    assert "==" not in out  # no group's full text
    assert [line.split()[0] for line in out.splitlines()[3:7]] == [f"m{i}" for i in range(count)]


# --------------------------------------------------------------------------- errors
def test_by_missing_column_suggests_the_near_spelling_and_the_hint_works(capsys, grouped):
    code, _, err = run(capsys, "baselines", str(grouped), "--by", "modle", "--n-boot", "100")
    assert code == EXIT_BAD_INPUT
    assert "--by 'modle': the table has no such column; did you mean 'model'?" in err
    assert "use --by model" in err
    assert "Traceback" not in err
    code, out, err = run(capsys, "baselines", str(grouped), "--by", "model", "--n-boot", "100")
    assert code == EXIT_OK, err
    assert "3 groups by 'model', 3 answered" in out
    assert "3 groups by 'model'" in out


def test_by_a_column_read_as_data_is_refused(capsys, grouped):
    code, _, err = run(capsys, "estimate", str(grouped), "--by", "label", "--method", "exact")
    assert code == EXIT_BAD_INPUT
    assert "--by 'label': the column is read as 'label'" in err


def test_by_too_many_groups_names_the_limit(capsys, tmp_path):
    table = _group("x", 0.6, 0, n=60, m=10)
    table["model"] = [f"m{i}" for i in range(len(table))]
    path = tmp_path / "many.csv"
    table.to_csv(path, index=False)
    code, _, err = run(capsys, "baselines", str(path), "--by", "model")
    assert code == EXIT_BAD_INPUT
    assert "the column has 80 distinct values" in err
    assert f"at most {MAX_GROUPS} groups are analysed" in err


def test_by_blank_group_value_names_its_line(capsys, grouped):
    table = pd.read_csv(grouped, dtype=str, keep_default_na=False)
    table.loc[4, "model"] = " "
    table.to_csv(grouped, index=False)
    code, _, err = run(capsys, "baselines", str(grouped), "--by", "model")
    assert code == EXIT_BAD_INPUT
    assert "column 'model' must name a group on every row; it is blank" in err
    assert "line 6" in err


def test_by_a_group_without_gold_fail_gets_its_own_line(capsys, grouped):
    table = pd.read_csv(grouped, dtype=str, keep_default_na=False)
    fails = (table["model"] == "gamma") & (table["label"] == "0")
    table.loc[fails, "label"] = ""
    table.to_csv(grouped, index=False)
    code, out, err = run(capsys, "estimate", str(grouped), "--by", "model", "--method", "exact")
    assert code == EXIT_OK, err  # the other groups are answered
    assert f"{grouped}: 3 groups by 'model', 2 answered" in out
    assert "model='gamma': no answer:" in out
    assert "no gold-FAIL (0) items" in out
    assert "warning: model='gamma': no answer:" in err
    code, out, _ = run(
        capsys, "estimate", str(grouped), "--by", "model", "--method", "exact", "--json"
    )
    assert code == EXIT_OK
    groups = json.loads(out)["groups"]
    assert set(groups["gamma"]) == {"error"}
    assert "no gold-FAIL (0) items" in groups["gamma"]["error"]
    assert "posterior" in groups["alpha"]


def test_by_every_group_failing_is_an_error(capsys, grouped):
    table = pd.read_csv(grouped, dtype=str, keep_default_na=False)
    table.loc[table["label"] == "0", "label"] = ""
    table.to_csv(grouped, index=False)
    code, out, err = run(capsys, "plan", str(grouped), "--by", "model", "--target-width", "0.3")
    assert code == EXIT_BAD_INPUT
    assert out == ""
    assert "--by model: every group failed:" in err
    assert "no gold-FAIL (0) items" in err


def test_by_with_scheduler_is_refused(capsys, grouped):
    code, _, err = run(
        capsys, "baselines", str(grouped), "--by", "model", "--scheduler", "tcp://x:1"
    )
    assert code == EXIT_BAD_INPUT
    assert "--by reads DATA as one table and splits it; drop --scheduler" in err


# --------------------------------------------------------------------------- labels
@pytest.fixture
def labels_apart(tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    """Two models judged on the same 120 question ids; gold labels for 60 of the questions."""
    rows = []
    for model, shift in (("small", 0), ("large", 1)):
        table = judge_table(pi=0.6, se=0.9, sp=0.8, n=60, m1=30, m0=30, random_seed=shift)
        table.insert(0, "id", [f"q{i:03d}" for i in range(len(table))])
        table.insert(0, "model", model)
        rows.append(table)
    data = pd.concat(rows)
    gold = data[data["model"] == "small"].dropna(subset=["label"])[["id", "label"]]
    path = tmp_path / "evals.csv"
    data.drop(columns="label").rename(columns={"verdict": "judge"}).to_csv(path, index=False)
    return path, gold


def test_by_labels_apply_to_an_item_in_every_group(capsys, tmp_path, labels_apart):
    path, gold = labels_apart
    labels = tmp_path / "gold.csv"
    gold.to_csv(labels, index=False)
    argv = ["--map", "verdict=judge", "--map", "item=id", "--labels", str(labels)]
    argv += ["--labels-map", "item=id", "--by", "model", "--json", "--n-boot", "100"]
    code, out, err = run(capsys, "baselines", str(path), *argv)
    assert code == EXIT_OK, err
    groups = json.loads(out)["groups"]
    for group in ("small", "large"):  # the same 60 questions labelled in both groups
        assert groups[group]["n_labelled"] == 60
        assert groups[group]["n_unlabelled"] == 60
        assert groups[group]["input"]["join"]["labelled"] == 60
        assert groups[group]["input"]["labels"] == str(labels)
    # the same as the group's rows alone, joined to the same labels file
    table = pd.read_csv(path, dtype=str)
    alone = tmp_path / "large.csv"
    table[table["model"] == "large"].drop(columns="model").to_csv(alone, index=False)
    code, out, err = run(capsys, "baselines", str(alone), *argv[:-5], "--json", "--n-boot", "100")
    assert code == EXIT_OK, err
    assert _comparable(json.loads(out)) == _comparable(groups["large"])


def test_by_labels_with_the_column_join_on_item_and_column(capsys, tmp_path, labels_apart):
    path, gold = labels_apart
    both = pd.concat([gold.assign(model="small"), gold.iloc[:40].assign(model="large")])
    both.loc[both["model"] == "large", "label"] = 1 - both.loc[both["model"] == "large", "label"]
    labels = tmp_path / "gold.csv"
    both.to_csv(labels, index=False)
    argv = ["--map", "verdict=judge", "--map", "item=id", "--labels", str(labels)]
    argv += ["--labels-map", "item=id", "--by", "model", "--json", "--n-boot", "100"]
    code, out, err = run(capsys, "baselines", str(path), *argv)
    assert code == EXIT_OK, err
    groups = json.loads(out)["groups"]
    assert groups["small"]["n_labelled"] == 60
    assert groups["large"]["n_labelled"] == 40  # only the label rows of model 'large'


def test_by_label_ids_in_no_group_are_warned_and_a_group_without_labels_has_its_line(
    capsys, tmp_path, labels_apart
):
    path, gold = labels_apart
    table = pd.read_csv(path, dtype=str)
    table.loc[table["model"] == "large", "id"] = "L" + table.loc[table["model"] == "large", "id"]
    table.to_csv(path, index=False)
    labels = tmp_path / "gold.csv"
    pd.concat([gold, pd.DataFrame({"id": ["zzz"], "label": [1]})]).to_csv(labels, index=False)
    argv = ["--map", "verdict=judge", "--map", "item=id", "--labels", str(labels)]
    argv += ["--labels-map", "item=id", "--by", "model", "--n-boot", "100"]
    code, out, err = run(capsys, "baselines", str(path), *argv)
    assert code == EXIT_OK, err
    assert "1 of 61 label id(s) are not among the results' ids: 'zzz'" in err
    assert "model='large': no answer: no gold labels" in out


# --------------------------------------------------------------------------- report
@pytest.mark.filterwarnings("ignore::bayesjudge.errors.FitWarning")
@pytest.mark.usefixtures("no_disk_cache")
def test_by_report_writes_every_group_and_compiles_once(capsys, grouped, tmp_path):
    table = pd.read_csv(grouped, dtype=str, keep_default_na=False)
    table.loc[(table["model"] == "gamma") & (table["label"] == "1"), "label"] = ""
    table.to_csv(grouped, index=False)
    out = tmp_path / "report"
    model_cache_module.clear_model_cache()
    code, text, err = run(
        capsys, "report", str(grouped), "--by", "model", "--out", str(out), "--no-progress"
    )
    assert code == EXIT_OK, err
    # two groups fitted, through one built and compiled model
    info = model_cache_module.model_cache_info()
    assert (info.builds, info.compiles, info.hits) == (1, 1, 1)
    assert f"report written to {out}: open {out}/report.html" in text
    manifest = read_manifest(out)
    assert manifest is not None
    for n, group in enumerate(("alpha", "beta"), start=1):
        for name in ("report.html", "summary.md", "posterior.nc", "diagnostics.csv"):
            assert f"groups/0{n}-{group}/{name}" in manifest.files
    assert not (out / "groups" / "03-gamma").exists()
    index = (out / "report.html").read_text()
    assert 'href="groups/01-alpha/report.html"' in index
    assert 'href="groups/02-beta/report.html"' in index
    assert "no answer:" in index
    assert "no gold-PASS (1) items" in index
    assert index.count('<section class="summary"') == 2
    markdown = (out / "summary.md").read_text()
    assert "## model = alpha" in markdown
    assert "## model = beta" in markdown
    sub = (out / "groups" / "02-beta" / "report.html").read_text()
    assert f"{grouped}, model = beta" in sub
    assert '<a href="../../report.html">All groups</a>' in sub


def test_by_with_an_example_is_refused_and_data_instead_gets_further(capsys, grouped):
    code, _, err = run(capsys, "report", "--example", "gate", "--by", "model")
    assert code == EXIT_BAD_INPUT
    assert "--by splits DATA by one of its columns; give DATA instead of --example" in err
    # with DATA (and a column it lacks, to stop before any fit) the --by option is read
    code, _, err = run(capsys, "report", str(grouped), "--by", "task")
    assert code == EXIT_BAD_INPUT
    assert "--by 'task': the table has no such column" in err


# --------------------------------------------------------------------------- split_table
def test_split_table_keeps_lines_and_drops_the_column():
    table = pd.DataFrame(
        {"model": ["b", " a", "b"], "label": ["1", "0", ""], "verdict": ["1", "0", "1"]},
        index=pd.Index([2, 3, 4], name="line"),
    )
    groups = split_table(table, "model", fields=JUDGE_FIELDS)
    assert groups.values == ("a", "b")
    assert groups.groups[1].data.index.tolist() == [2, 4]
    assert "model" not in groups.groups[0].data.columns


def test_split_table_refuses_more_groups_than_the_limit():
    table = pd.DataFrame({"model": list("abc"), "verdict": ["1", "0", "1"]})
    with pytest.raises(DataError, match=r"3 distinct values .*at most 2 groups"):
        split_table(table, "model", fields=JUDGE_FIELDS, limit=2)


def test_by_groups_answering_the_same_items_suggest_rank_and_the_hint_reads(capsys, tmp_path):
    import shlex

    from bayesjudge.cli.app import build_parser
    from bayesjudge.systems.cli import _load as load_systems

    base = judge_table(pi=0.6, se=0.9, sp=0.8, n=60, m1=30, m0=30, random_seed=0)
    rows = []
    for model, shift in (("small", 0), ("large", 7)):
        table = base.copy()
        flip = (pd.RangeIndex(len(table)) % 11) == shift  # each model errs on its own items
        table.loc[flip, "verdict"] = 1 - table.loc[flip, "verdict"]
        table.insert(0, "id", [f"q{i:03d}" for i in range(len(table))])
        table.insert(0, "model", model)
        rows.append(table)
    path = tmp_path / "pairs.csv"
    pd.concat(rows).rename(columns={"verdict": "judge"}).to_csv(path, index=False)
    argv = ["--map", "verdict=judge", "--map", "item=id", "--by", "model", "--n-boot", "100"]
    code, _, err = run(capsys, "baselines", str(path), *argv)
    assert code == EXIT_OK, err
    assert "the groups answer the same items (120 item id(s) in more than one group" in err
    suggestion = err.split("under one judge: ")[1].strip()
    words = shlex.split(suggestion)
    assert words[:3] == ["bayesjudge", "rank", str(path)]
    # following it, rank reads the two models as systems paired on the question ids
    data = load_systems(build_parser().parse_args(words[1:]))
    assert set(data.systems) == {"small", "large"}
    assert data.paired


def test_by_groups_on_distinct_items_do_not_suggest_rank(capsys, grouped):
    table = pd.read_csv(grouped, dtype=str, keep_default_na=False)
    table["id"] = table["model"] + "-" + pd.Series(range(len(table))).astype(str)
    table.to_csv(grouped, index=False)
    argv = ["--map", "item=id", "--by", "model", "--n-boot", "100"]
    code, out, err = run(capsys, "baselines", str(grouped), *argv)
    assert code == EXIT_OK, err
    assert "3 answered" in out
    assert "the groups answer the same items" not in err
    # one id of alpha's also in beta: now the groups share an item
    table.loc[(table["model"] == "beta").idxmax(), "id"] = table["id"].iloc[0]
    table.to_csv(grouped, index=False)
    code, _, err = run(capsys, "baselines", str(grouped), *argv)
    assert code == EXIT_OK, err
    assert "(1 item id(s) in more than one group, e.g. 'alpha-0')" in err


def test_by_refuses_an_eval_log_and_the_hint_reads_one_system(capsys, inspect_run, tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text("item,label\n007,1\n7,0\nerr,1\n", encoding="utf-8")
    argv = ["--labels", str(labels), "--scorer", "grade", "--partial", "fail"]
    argv += ["--epochs", "majority", "--method", "exact"]
    code, _, err = run(capsys, "estimate", str(inspect_run.eval), *argv, "--by", "model")
    assert code == EXIT_BAD_INPUT
    assert "is an eval log: read one system with --system NAME" in err
    code, out, err = run(
        capsys, "estimate", str(inspect_run.eval), *argv, "--system", "mockllm/model", "--json"
    )
    assert code == EXIT_OK, err
    assert json.loads(out)["input"]["system"] == "mockllm/model"


def test_by_refuses_a_folder(capsys, grouped):
    code, _, err = run(capsys, "baselines", str(grouped.parent), "--by", "model")
    assert code == EXIT_BAD_INPUT
    assert "stands for several files (a folder or a glob): give one file" in err
    code, out, err = run(capsys, "baselines", str(grouped), "--by", "model", "--n-boot", "100")
    assert code == EXIT_OK, err
    assert "3 groups by 'model', 3 answered" in out


def test_split_table_labels_with_the_column_warn_of_values_no_group_has():
    from bayesjudge.io.stream import JUDGE_FIELDS_LABELS_APART

    table = pd.DataFrame(
        {"model": ["a", "b", "a"], "item": ["1", "1", "2"], "verdict": ["1", "0", "1"]}
    )
    labels = pd.DataFrame(
        {"item": ["1", "1", "2"], "label": ["1", "0", "1"], "model": ["a", "b", "c"]}
    )
    with pytest.warns(UserWarning, match=r"1 label row\(s\) have a 'model' value that no data row"):
        groups = split_table(table, "model", fields=JUDGE_FIELDS_LABELS_APART, labels=labels)
    assert groups.labels_by
    assert groups.shared == 1
    assert groups.shared_example == "1"
    a, b = groups.groups
    assert a.labels is not None
    assert b.labels is not None
    assert a.labels["label"].tolist() == ["1"]
    assert b.labels["label"].tolist() == ["0"]
    assert "model" not in a.labels.columns
