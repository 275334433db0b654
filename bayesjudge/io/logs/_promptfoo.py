"""Read promptfoo result files (``promptfoo eval --output results.json``)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from bayesjudge.io.logs._evallog import (
    NAN,
    EvalLog,
    Ruling,
    choose,
    epochs_in_order,
    fail,
    first_line,
    format_version,
    item_id,
    load_json,
    number,
    raw_text,
)

__all__ = ["OVERALL", "read_promptfoo_results"]

#: The judge name of a test result's overall pass/fail (every assertion passed).
OVERALL = "overall"

# promptfoo's ResultFailureReason: NONE = 0, ASSERT = 1, ERROR = 2.
_FAILURE_ERROR = 2

#: The versions of promptfoo's result format (``results.version``) this reader was tested on.
KNOWN_VERSIONS = (3,)


def read_promptfoo_results(
    path: str | os.PathLike[str],
    *,
    assertion: str | None = None,
    item_var: str | None = None,
) -> EvalLog:
    """Read a promptfoo result file into one ruling per test case, provider and repeat.

    Each entry of ``results.results`` is one ruling. ``system`` is the provider's label, or its
    id when it has no label (with the prompt's label appended when the file holds several
    prompts). ``judge`` is ``"overall"``, whose verdict is promptfoo's ``success`` (every
    assertion of the test passed) and whose score is promptfoo's weighted ``score``; with
    ``assertion=`` it is that one assertion, found by its ``metric`` name (or, for an assertion
    without one, its ``type``), with the assertion's ``pass`` and ``score``. A test without the
    assertion gives an ``"unscored"`` ruling; a provider error (``failureReason`` 2) an
    ``"error"`` one.

    The item id. promptfoo keeps no stable test id: ``testIdx`` counts every repeat and every
    expansion of the variables as a new row, so it cannot tie repeats together. The item is
    therefore the test's ``description`` when it has one, else its variables as canonical JSON
    (``{"answer": "Paris"}``), or the variable ``item_var`` when given (the usual choice when
    the tests carry an id column). Repeats (``--repeat N``) are the rulings of one item under
    one provider, numbered in ``testIdx`` order. One id must always mean the same test: two
    tests sharing a description but not their variables and assertions raise an error.

    Parameters
    ----------
    path : str or PathLike
        The JSON file ``promptfoo eval --output`` wrote.
    assertion : str, optional
        Read one named assertion instead of the overall result.
    item_var : str, optional
        A test variable to use as the item id.

    Returns
    -------
    EvalLog
        ``tool="promptfoo"``; ``version`` is ``metadata.promptfooVersion``.

    Raises
    ------
    DataError
        If the file is not valid JSON or not a promptfoo result file, the assertion is not in
        it, ``item_var`` is missing from a test, or one item id names two different tests (the
        message adds an unknown format version, see below).

    Warns
    -----
    UserWarning
        When ``results.version`` is not one of :data:`KNOWN_VERSIONS` but the fields read are
        there (:func:`~bayesjudge.io.logs._evallog.format_version`).

    Examples
    --------
    >>> log = read_promptfoo_results("results.json", item_var="id")  # doctest: +SKIP
    >>> log.judges  # doctest: +SKIP
    ('overall',)
    """
    name = os.fspath(path)
    document = load_json(name)
    block = document.get("results") if isinstance(document, Mapping) else None
    with format_version(
        name,
        tool="promptfoo",
        field="results.version",
        found=block.get("version") if isinstance(block, Mapping) else None,
        known=KNOWN_VERSIONS,
    ):
        return _read(document, name, assertion=assertion, item_var=item_var)


def _read(document: Any, name: str, *, assertion: str | None, item_var: str | None) -> EvalLog:
    results = _results(document, name)
    judge = OVERALL
    if assertion is not None:
        judge = choose(
            name,
            field="results.results[].gradingResult.componentResults[].assertion",
            what="assertion",
            option="assertion",
            name=assertion,
            names=_assertions(results),
        )
    several_prompts = len({_prompt_key(r) for r in results}) > 1
    tests: dict[str, tuple[str, int]] = {}
    keyed = []
    for index, result in enumerate(results):
        field = f"results.results[{index}]"
        if not isinstance(result, Mapping):
            raise fail(name, field, "a result must be a JSON object")
        item = _item(result, item_var, path=name, field=field)
        signature = _signature(result)
        known = tests.setdefault(item, (signature, index))
        if known[0] != signature:
            raise fail(
                name,
                field,
                f"item id {item!r} names two different tests (results[{known[1]}] and "
                f"results[{index}] differ in variables or assertions); give each test its own "
                "description, or name an id variable with item_var=...",
                sample=repr(item),
            )
        system = _system(result, several_prompts)
        order = result.get("testIdx", index)
        keyed.append((order, index, item, system, result))
    keyed.sort(key=lambda entry: (entry[0] if isinstance(entry[0], int) else entry[1], entry[1]))
    epochs = epochs_in_order([(item, system) for _, _, item, system, _ in keyed])
    rulings = [
        _ruling(result, item, epoch, system, judge, assertion, path=name, index=index)
        for (_, index, item, system, result), epoch in zip(keyed, epochs, strict=True)
    ]
    metadata = document.get("metadata") or {}
    version = metadata.get("promptfooVersion") if isinstance(metadata, Mapping) else None
    return EvalLog.from_rulings(rulings, path=name, tool="promptfoo", version=str(version or ""))


def _results(document: Any, path: str) -> list[Any]:
    block = document.get("results") if isinstance(document, Mapping) else None
    results = block.get("results") if isinstance(block, Mapping) else None
    if not isinstance(results, list):
        raise fail(
            path,
            "results.results",
            "missing: not a promptfoo result file (write one with promptfoo eval --output "
            "results.json)",
        )
    if not results:
        raise fail(path, "results.results", "the file holds no test results")
    return results


def _components(result: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    grading = result.get("gradingResult")
    if not isinstance(grading, Mapping):
        return []
    parts = grading.get("componentResults") or []
    return [part for part in parts if isinstance(part, Mapping)]


def _assertion_name(component: Mapping[str, Any]) -> str | None:
    spec = component.get("assertion")
    if not isinstance(spec, Mapping):
        return None
    name = spec.get("metric") or spec.get("type")
    return str(name) if name else None


def _assertions(results: list[Any]) -> list[str]:
    names: dict[str, None] = {}
    for result in results:
        if isinstance(result, Mapping):
            for component in _components(result):
                name = _assertion_name(component)
                if name is not None:
                    names.setdefault(name, None)
    return list(names)


def _test_case(result: Mapping[str, Any]) -> Mapping[str, Any]:
    case = result.get("testCase")
    return case if isinstance(case, Mapping) else {}


def _variables(result: Mapping[str, Any]) -> Mapping[str, Any]:
    variables = result.get("vars")
    if not isinstance(variables, Mapping):
        variables = _test_case(result).get("vars")
    return variables if isinstance(variables, Mapping) else {}


def _item(result: Mapping[str, Any], item_var: str | None, *, path: str, field: str) -> str:
    variables = _variables(result)
    if item_var is not None:
        if item_var not in variables:
            raise fail(
                path,
                f"{field}.vars",
                f"no variable {item_var!r} (the test has {sorted(variables)})",
            )
        return item_id(variables[item_var], path=path, field=f"{field}.vars.{item_var}")
    description = _test_case(result).get("description")
    if isinstance(description, str) and description:
        return description
    return json.dumps(dict(variables), sort_keys=True, ensure_ascii=False)


def _signature(result: Mapping[str, Any]) -> str:
    """Return what makes a test itself: its variables and its assertions."""
    case = _test_case(result)
    return json.dumps(
        {"vars": _variables(result), "assert": case.get("assert")}, sort_keys=True, default=str
    )


def _provider(result: Mapping[str, Any]) -> str:
    provider = result.get("provider")
    if isinstance(provider, Mapping):
        return str(provider.get("label") or provider.get("id") or "")
    return str(provider or "")


def _prompt_key(result: Any) -> str:
    if not isinstance(result, Mapping):
        return ""
    prompt = result.get("prompt")
    label = prompt.get("label") if isinstance(prompt, Mapping) else None
    return str(result.get("promptId") or label or "")


def _system(result: Mapping[str, Any], several_prompts: bool) -> str:
    provider = _provider(result)
    if not several_prompts:
        return provider
    prompt = result.get("prompt")
    label = prompt.get("label") if isinstance(prompt, Mapping) else None
    return f"{provider} | {label or _prompt_key(result)}"


def _ruling(
    result: Mapping[str, Any],
    item: str,
    epoch: int,
    system: str,
    judge: str,
    assertion: str | None,
    *,
    path: str,
    index: int,
) -> Ruling:
    field = f"results.results[{index}]"
    errored = result.get("failureReason") == _FAILURE_ERROR or (
        "failureReason" not in result
        and result.get("error")
        and not isinstance(result.get("gradingResult"), Mapping)
    )
    if errored:
        message = first_line(result.get("error"))
        return Ruling(item, epoch, system, judge, NAN, NAN, message, "error")
    if assertion is None:
        passed, score, where = result.get("success"), result.get("score"), f"{field}.success"
    else:
        matches = [c for c in _components(result) if _assertion_name(c) == judge]
        if not matches:
            return Ruling(item, epoch, system, judge, NAN, NAN, "", "unscored")
        if len(matches) > 1:
            raise fail(
                path,
                f"{field}.gradingResult.componentResults",
                f"{len(matches)} assertions named {judge!r} in one test; name them apart "
                "with metric: ...",
                sample=repr(item),
            )
        passed, score = matches[0].get("pass"), matches[0].get("score")
        where = f"{field}.gradingResult.componentResults[{judge!r}].pass"
    if not isinstance(passed, bool):
        raise fail(path, where, f"expected true or false; got {passed!r}", sample=repr(item))
    value = number(score)
    return Ruling(
        item,
        epoch,
        system,
        judge,
        float(passed),
        NAN if value is None else value,
        raw_text(passed),
        "ok",
    )
