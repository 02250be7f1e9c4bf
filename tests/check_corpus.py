#!/usr/bin/env python3
"""Runs `irlite check --json` on every case of the shared corpora.

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


def check_case(irlite, case, meta, runtime_only):
    """Returns None when the case behaves, else the reason it does not."""
    negative = "expect_error" in meta
    proc = subprocess.run([irlite, "check", "--json", os.path.join(case, "model.xml")],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode not in (0, 1):
        return f"exit code {proc.returncode}; stderr: {proc.stderr.strip()[:300]}"
    try:
        report = json.loads(proc.stdout)
    except ValueError as e:
        return f"stdout is not one JSON document ({e}): {proc.stdout[:200]!r}"
    errors = [e for e in report.get("errors", []) if e.get("severity") == "error"]
    if report.get("valid") != (proc.returncode == 0) or report["summary"]["errors"] != len(errors):
        return "'valid', the summary and the exit code disagree"
    if not negative:
        if proc.returncode != 0:
            return "a valid model has errors: " + "; ".join(f"[{e['code']}] {e['message']}" for e in errors[:3])
        return None
    if os.path.basename(case) in runtime_only and proc.returncode == 0:
        return None
    if proc.returncode != 1 or not errors:
        return f"not reported (expected: {meta['expect_error']})"
    for e in errors:
        located = e.get("code") and isinstance(e.get("line"), int) and e["line"] > 0
        if located and (e.get("layer_id") is not None or e["code"] in DOCUMENT_LEVEL_CODES):
            return None
    return "reported, but no error carries a code, a line and a layer: " + json.dumps(errors[0])


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
    for corpus in corpora:
        for case in cases_under(os.path.join(shared, corpus)):
            with open(os.path.join(case, "case.json")) as f:
                meta = json.load(f)
            negatives += "expect_error" in meta
            reason = check_case(irlite, case, meta, runtime_only)
            if reason:
                failed += 1
                print(f"FAIL {case}: {reason}")
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed ({negatives} negative cases)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
