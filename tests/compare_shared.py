#!/usr/bin/env python3
"""`irlite compare` over the shared models.

usage: compare_shared.py IRLITE SHARED_DIR int8|vs

    int8  every model of models-int8 against its FP32 twin in models-real (the case name without
          _int8 / _fp16_int8), on the case's inputs: compare runs (exit 0 or 3), matches most of
          the FP32 model's layers, and the final output stays close (cosine >= 0.99).
    vs    every model of models-real against itself with --vs no-fusion, --vs threads=2 and
          --vs isa=sse: no layer diverges (exit 0; for isa=sse with --atol 1e-6, since the
          transformer's final LayerNorm mean is rounding noise, 4e-8, whose cosine means nothing),
          and with threads=2 every tensor matches bit for bit.

Exits 77 (skipped, with a message) when SHARED_DIR has no models.
"""
import json
import pathlib
import subprocess
import sys


def input_args(case):
    args = []
    for npy in sorted((case / "inputs").glob("*.npy")):
        args += ["-i", f"{npy.stem}={npy}"]
    return args


def compare(cli, args):
    r = subprocess.run([cli, "compare", *args, "--json"], capture_output=True, text=True, timeout=600)
    if r.returncode not in (0, 3):
        raise AssertionError(f"irlite compare {' '.join(args)}: exit {r.returncode}\n{r.stderr}")
    return r.returncode, json.loads(r.stdout)


def int8(cli, shared):
    cases = sorted(p.parent for p in (shared / "models-int8").glob("*/model.xml"))
    if not cases:
        return None
    problems = []
    for case in cases:
        twin = shared / "models-real" / case.name.replace("_fp16_int8", "").replace("_int8", "")
        code, report = compare(cli, [str(case / "model.xml"), str(twin / "model.xml"), *input_args(case)])
        tensors = report["tensors"]
        first = report["first_divergent"]
        last = tensors[-1] if tensors else None
        print(f"{case.name} vs {twin.name}: exit {code}, {len(tensors)} tensors matched, "
              f"{len(report['unmatched_a'])} unmatched in A, {len(report['unmatched_b'])} in B; first divergent: "
              f"{first['layer_a'] + ' (cosine %.4f)' % first['cosine'] if first else 'none'}; "
              f"output cosine {last['cosine'] if last else None}")
        if (code == 3) != (first is not None):
            problems.append(f"{case.name}: exit {code} but first_divergent {first}")
        if len(tensors) < 10 or len(report["unmatched_b"]) > len(tensors):
            problems.append(f"{case.name}: only {len(tensors)} tensors matched, unmatched in B: {report['unmatched_b']}")
        if not last or last["cosine"] is None or last["cosine"] < 0.99:
            problems.append(f"{case.name}: the last matched tensor is far from FP32: {last}")
    return problems


def vs(cli, shared):
    cases = sorted(p.parent for p in (shared / "models-real").glob("*/model.xml"))
    if not cases:
        return None
    problems = []
    for case in cases:
        for way in ("no-fusion", "threads=2", "isa=sse"):
            atol = ["--atol", "1e-6"] if way.startswith("isa") else []
            code, report = compare(cli, [str(case / "model.xml"), "--vs", way, *atol, *input_args(case)])
            tensors = report["tensors"]
            lowest = min((t["cosine"] for t in tensors if t["cosine"] is not None), default=1.0)
            print(f"{case.name} --vs {way}: exit {code}, {len(tensors)} tensors, lowest cosine {lowest:.6f}")
            if code != 0 or report["first_divergent"] is not None:
                problems.append(f"{case.name} --vs {way}: diverges at {report['first_divergent']}")
            if not tensors:
                problems.append(f"{case.name} --vs {way}: nothing matched")
            if way.startswith("threads"):
                if report["unmatched_a"] or report["unmatched_b"]:
                    problems.append(f"{case.name} --vs {way}: unmatched {report['unmatched_a']} {report['unmatched_b']}")
                moved = [t["name"] for t in tensors if t["max_abs"] != 0]
                if moved:
                    problems.append(f"{case.name} --vs {way}: not bit-identical: {moved}")
    return problems


def main():
    cli, shared, mode = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
    problems = (int8 if mode == "int8" else vs)(cli, shared)
    if problems is None:
        print(f"skipped: no models under {shared} (the shared test data is not there)")
        return 77
    for p in problems:
        print("FAIL:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
