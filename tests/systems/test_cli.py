"""``bayesjudge rank``: JSON schema, plain output, report, exit codes, bad input.

The fit itself is replaced by a synthetic posterior (the analysis of it is the real one), so
these tests check what the command reads, renders and writes in seconds; real fits are tested
in test_fits.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bayesjudge.cli.app import main
from bayesjudge.systems import analysis as analysis_module


@pytest.fixture
def csv_path(tmp_path: Path, answers) -> Path:
    path = tmp_path / "answers.csv"
    frame = {
        "model": [answers.systems[s] for s in answers.system_index],
        "prompt": [answers.items[i] for i in answers.item_index],
        "gold": ["" if label != label else ("yes" if label else "no") for label in answers.label],
        "judge": ["pass" if v else "fail" for v in answers.verdict],
    }
    import pandas as pd

    pd.DataFrame(frame).to_csv(path, index=False)
    return path


@pytest.fixture
def fake_fit(monkeypatch, make_tree):
    """Replace the sampler: analyze_systems summarises a synthetic posterior of the data."""
    calls = []

    def analyze(data, **options):
        calls.append(options)
        tree = make_tree(data, centres=(0.7, 0.6, 0.5))
        return analysis_module.summarize_systems(
            tree,
            data,
            prob=options["prob"],
            random_seed=options["random_seed"],
            priors=options["priors"],
        )

    monkeypatch.setattr(analysis_module, "analyze_systems", analyze)
    return calls


MAP = [
    "--map",
    "system=model",
    "--map",
    "item=prompt",
    "--map",
    "label=gold",
    "--map",
    "verdict=judge",
]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_is_one_object_with_the_documented_keys(capsys, csv_path, fake_fit):
    code, out, _ = run(capsys, "rank", str(csv_path), *MAP, "--json", "--random-seed", "4")
    assert code == 0
    payload = json.loads(out)
    assert set(payload) == {
        "systems",
        "differences",
        "judge",
        "paired",
        "reversals",
        "diagnostics",
        "estimates",
        "provenance",
    }
    assert payload["provenance"]["seed"] == 4
    assert "pymc" in payload["provenance"]["versions"]
    assert list(payload["systems"]) == ["a", "b", "c"]
    assert payload["paired"] is True
    # the judge passes c most and a least; the synthetic truth is the reverse
    assert {(r["a"], r["b"]) for r in payload["reversals"]} == {("c", "b"), ("c", "a"), ("b", "a")}
    assert fake_fit[0]["random_seed"] == 4
    assert fake_fit[0]["judge"] == "auto"


def test_plain_output_reads_as_sentences_and_tables(capsys, csv_path, fake_fit):
    code, out, _ = run(capsys, "rank", str(csv_path), *MAP, "--judge", "shared")
    assert code == 0
    assert "Best system: a, with probability" in out
    assert "Corrected ranking: a > b > c" in out
    assert "Naive ranking (judge's pass rates): c > b > a" in out
    assert "The correction reverses c > b" in out
    header = next(line for line in out.splitlines() if line.startswith("system "))
    assert header.split() == [
        "system",
        "pi",
        "low",
        "high",
        "P(best)",
        "rank",
        "naive",
        "naive",
        "rank",
        "se",
        "sp",
    ]
    assert "b - a" in out
    assert "c - a: rogan_gladen_difference" in out
    assert "a: ppi_plus_plus" in out
    assert fake_fit[0]["judge"] == "shared"


def test_out_writes_the_report(capsys, csv_path, fake_fit, tmp_path, answers, readable_report):
    out_dir = tmp_path / "report"
    code, out, _ = run(capsys, "rank", str(csv_path), *MAP, "--out", str(out_dir))
    assert code == 0
    assert f"report written to {out_dir}" in out
    assert out.splitlines()[-1] == f"report written to {out_dir}: open {out_dir / 'report.html'}"
    assert "\nAnswer\n  a is best, P(best) " in out
    names = {p.name for p in out_dir.iterdir()}
    assert {"report.html", "summary.md", "posterior.nc", "systems.csv", "differences.csv"} <= names
    page = (out_dir / "report.html").read_text()
    # the shared one-screen summary first (badge, reading, definitions), the footer last
    assert 'id="summary"' in page
    assert "badge-pass" in page
    assert page.index('id="summary"') < page.index("Corrected ranking beside the naive one")
    assert page.index("<footer") > page.index("Diagnostics")
    assert page.count("data:image/png;base64") == 3
    assert "Reversals" in page
    readable_report(out_dir, names=tuple(answers.systems))


def test_failed_diagnostics_exit_3(capsys, csv_path, monkeypatch, make_tree):
    def analyze(data, **options):
        tree = make_tree(data, centres=(0.7, 0.6, 0.5), diverging=2)
        return analysis_module.summarize_systems(tree, data)

    monkeypatch.setattr(analysis_module, "analyze_systems", analyze)
    code, _, err = run(capsys, "rank", str(csv_path), *MAP, "--json")
    assert code == 3
    assert "FAILED its diagnostics" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--prior", "nope=beta:1,1"], "--prior: the systems model has no prior 'nope'"),
        (["--prior", "judge_sigma=beta:1,1"], "must be a halfnormal distribution"),
        (["--labels-map", "item=id"], "--labels-map maps the columns of --labels FILE"),
    ],
)
def test_bad_options_exit_2_with_one_line(capsys, csv_path, fake_fit, argv, message):
    code, _, err = run(capsys, "rank", str(csv_path), *MAP, *argv)
    assert code == 2
    assert message in err
    assert "Traceback" not in err
    assert not fake_fit


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("system,item,verdict,label\na,1,1,1\na,2,0,0\na,3,1,\n", "needs at least two"),
        ("system,item,verdict,label\na,1,1,1\nb,1,0,0\na,2,1,\n", "system 'b' has no unlabelled"),
        ("system,item,verdict,label\na,1,1,\na,1,0,\nb,1,0,0\nb,2,0,\n", "appears twice"),
    ],
)
def test_bad_data_exit_2_naming_the_problem(capsys, tmp_path, fake_fit, text, message):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    code, _, err = run(capsys, "rank", str(path))
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_without_data_the_bundled_example_is_ranked(capsys, fake_fit):
    code, out, _ = run(capsys, "rank")
    assert code == 0
    assert "bundled example: 3 systems, 400 items" in out


def test_unknown_judge_is_a_usage_error(capsys, csv_path):
    with pytest.raises(SystemExit) as exit_info:
        main(["rank", str(csv_path), "--judge", "both"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'both'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("pooling", "words", "footer"),
    [
        ("none", "each with its own prior", "per system (no pooling)"),
        ("partial", "pooled", "per system (partially pooled)"),
    ],
)
def test_pooling_reaches_the_fit_the_output_and_the_report(
    capsys, csv_path, monkeypatch, make_tree, tmp_path, pooling, words, footer
):
    calls = []

    def analyze(data, **options):
        calls.append(options)
        tree = make_tree(data, centres=(0.7, 0.6, 0.5), judge="system")
        tree.attrs["pooling"] = options["pooling"]
        return analysis_module.summarize_systems(
            tree, data, prob=options["prob"], random_seed=1, priors=options["priors"]
        )

    monkeypatch.setattr(analysis_module, "analyze_systems", analyze)
    out_dir = tmp_path / "report"
    code, out, _ = run(
        capsys, "rank", str(csv_path), *MAP, "--pooling", pooling, "--out", str(out_dir)
    )
    assert code == 0
    assert calls[0]["pooling"] == pooling
    assert f"Judge: Se and Sp per system, {words} (spread between systems" in out
    assert f"judge {footer}, calibration" in (out_dir / "report.html").read_text()


def test_help_lists_the_options(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["rank", "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    options = ("--labels", "--map", "--judge", "--pooling", "--calibration", "--json", "--out")
    for option in (*options, "--prior"):
        assert option in text


PROMPTFOO = Path(__file__).resolve().parents[1] / "data" / "logs" / "promptfoo" / "results.json"


def test_eval_logs_with_labels_are_ranked(capsys, tmp_path, fake_fit, monkeypatch, make_tree):
    def analyze(data, **options):
        tree = make_tree(data, centres=(0.6, 0.5))
        return analysis_module.summarize_systems(tree, data)

    monkeypatch.setattr(analysis_module, "analyze_systems", analyze)
    gold = tmp_path / "gold.csv"
    gold.write_text("item,system,label\n007,echo,1\n007,shell,0\nrome,echo,0\nrome,shell,1\n")
    code, out, _ = run(
        capsys, "rank", str(PROMPTFOO), "--labels", str(gold), "--epochs", "first", "--json"
    )
    assert code == 0
    assert list(json.loads(out)["systems"]) == ["echo", "shell"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "an eval log holds no gold labels"),
        (["--labels", "GOLD", "--map", "item=x"], "--map maps the columns of a table"),
        (["TABLE", "--labels", "GOLD"], "DATA mixes evaluation logs and tables"),
    ],
)
def test_eval_log_misuse_exits_2(capsys, tmp_path, csv_path, fake_fit, extra, message):
    gold = tmp_path / "gold.csv"
    gold.write_text("item,system,label\n007,echo,1\n")
    argv = [str(gold) if a == "GOLD" else str(csv_path) if a == "TABLE" else a for a in extra]
    code, _, err = run(capsys, "rank", str(PROMPTFOO), *argv)
    assert code == 2
    assert message in err


def test_table_options_for_logs_only_are_refused(capsys, csv_path, fake_fit):
    code, _, err = run(capsys, "rank", str(csv_path), *MAP, "--epochs", "first")
    assert code == 2
    assert "--epochs: for eval logs only" in err
    code, _, err = run(capsys, "rank", str(csv_path), str(csv_path), *MAP)
    assert code == 2
    assert "several files are read only as eval logs" in err
