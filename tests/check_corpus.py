#!/usr/bin/env python3
"""Runs `irlite check --json` on every case of the shared corpora, 64 models per process.

- A valid case (no "expect_error" in its case.json) must check clean: exit 0, one JSON document,
  "valid": true and no finding of severity error.
- A negative case must be reported: exit 1 and at least one error with a code and a line (and a
  layer, unless the fault is in the document itself, like XML that is not well-formed). The
  exceptions are faults no static check can see, listed in tests/data/check/runtime_only_cases.txt:
  index values out of range in run-time inputs, and .npy inputs that do not match the model. A
  listed case that check does report is fine (the list says what may pass, not what must).

usage: check_corpus.py IRLITE SHARED_DIR CORPUS...   (exit 77 when SHARED_DIR is not there)
"""
import json
import os
import subprocess
import sys

BATCH = 64  # cases per `irlite check` process

DOCUMENT_LEVEL_CODES = {"xml-malformed", "xml-no-net", "ir-version", "xml-unreadable", "bin-unreadable"}


def load_runtime_only(path):
    names = set()
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                names.add(line)
    return names


def cases_under(top):
    for root, dirs, files in os.walk(top):
        dirs.sort()
        if "model.xml" in files and "case.json" in files:
            yield root


def judge(report, exit_ok, case, meta, runtime_only):
    """Returns None when the case's report behaves, else the reason it does not. `exit_ok` says
    whether the exit code agreed with the report's validity."""
    negative = "expect_error" in meta
    errors = [e for e in report.get("errors", []) if e.get("severity") == "error"]
    if not exit_ok or report["summary"]["errors"] != len(errors) or report.get("valid") != (not errors):
        return "'valid', the summary and the exit code disagree"
    if not negative:
        if errors:
            return "a valid model has errors: " + "; ".join(f"[{e['code']}] {e['message']}" for e in errors[:3])
        return None
    if os.path.basename(case) in runtime_only and not errors:
        return None
    if not errors:
        return f"not reported (expected: {meta['expect_error']})"
    for e in errors:
        located = e.get("code") and isinstance(e.get("line"), int) and e["line"] > 0
        if located and (e.get("layer_id") is not None or e["code"] in DOCUMENT_LEVEL_CODES):
            return None
    return "reported, but no error carries a code, a line and a layer: " + json.dumps(errors[0])


def run_check(irlite, cases):
    """`irlite check --json` over the cases' models in one process: (exit code, reports or None)."""
    proc = subprocess.run([irlite, "check", "--json"] + [os.path.join(c, "model.xml") for c in cases],
                          capture_output=True, text=True, timeout=60 + 30 * len(cases))
    if proc.returncode not in (0, 1):
        return proc, None
    try:
        reports = json.loads(proc.stdout)
    except ValueError:
        return proc, None
    if len(cases) == 1:
        reports = [reports]
    if not isinstance(reports, list) or len(reports) != len(cases):
        return proc, None
    return proc, reports


def check_cases(irlite, cases, metas, runtime_only):
    """Yields (case, reason or None). Cases are checked in batches, one process each (a process
    start costs more than a check under the sanitizers); a batch whose process fails is checked
    again case by case, so that the failure is pinned on its case."""
    for i in range(0, len(cases), BATCH):
        batch = cases[i:i + BATCH]
        proc, reports = run_check(irlite, batch)
        if reports is not None:
            any_error = any(not r.get("valid") for r in reports)
            exit_ok = proc.returncode == (1 if any_error else 0)
            for case, report in zip(batch, reports):
                yield case, judge(report, exit_ok, case, metas[case], runtime_only)
            continue
        for case in batch:
            proc, reports = run_check(irlite, [case])
            if reports is None:
                yield case, (f"exit code {proc.returncode}; stdout: {proc.stdout[:200]!r}; "
                             f"stderr: {proc.stderr.strip()[:300]}")
            else:
                exit_ok = proc.returncode == (0 if reports[0].get("valid") else 1)
                yield case, judge(reports[0], exit_ok, case, metas[case], runtime_only)


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    irlite, shared, corpora = sys.argv[1], sys.argv[2], sys.argv[3:]
    missing = [c for c in corpora if not os.path.isdir(os.path.join(shared, c))]
    if missing:
        print(f"SKIPPED: {', '.join(os.path.join(shared, c) for c in missing)} not found; "
              "the shared corpora are not beside this clone")
        return 77
    here = os.path.dirname(os.path.abspath(__file__))
    runtime_only = load_runtime_only(os.path.join(here, "data", "check", "runtime_only_cases.txt"))
    passed = failed = negatives = 0
    cases, metas = [], {}
    for corpus in corpora:
        for case in cases_under(os.path.join(shared, corpus)):
            with open(os.path.join(case, "case.json")) as f:
                metas[case] = json.load(f)
            negatives += "expect_error" in metas[case]
            cases.append(case)
    for case, reason in check_cases(irlite, cases, metas, runtime_only):
        if reason:
            failed += 1
            print(f"FAIL {case}: {reason}")
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed ({negatives} negative cases)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
