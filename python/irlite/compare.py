"""python3 -m irlite.compare A.xml [B.xml] [--vs WHAT] [-i NAME=FILE.npy]... [--plot FILE.png]

irlite.compare from the command line: runs A and B (or A run another way) on the same inputs and
prints, per matched layer output, the cosine similarity and the errors, and the first divergent
layer (or, with --json, the document of `irlite compare --json`). --plot draws the cosine and the
relative error of every matched tensor along the network's depth, the first divergent one marked
(needs matplotlib: Debian's python3-matplotlib). Exit codes as `irlite compare`: 0 no layer
diverges, 3 one does, 1 an error, 2 a usage error.
"""
import argparse
import json
import sys

import numpy as np

import irlite


def plot(report, path):
    """Cosine (top) and max |B - A| / max |A| (bottom, log scale) per matched tensor, in A's
    topological order, the first divergent tensor marked."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tensors = report["tensors"]
    depth = list(range(len(tensors)))
    cosine = [t["cosine"] if t["cosine"] is not None else float("nan") for t in tensors]
    rel = [t["max_rel"] if t["max_rel"] is not None else float("nan") for t in tensors]
    positive = [r for r in rel if r == r and r > 0]
    floor = min(positive) / 10 if positive else 1e-12  # exact matches, drawn on the axis' floor
    rel_drawn = [max(r, floor) if r == r else float("nan") for r in rel]
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(10, 6), constrained_layout=True)
    top.plot(depth, cosine, marker=".", color="tab:blue")
    top.axhline(report["threshold"], color="tab:gray", linestyle="--", linewidth=1,
                label=f"threshold {report['threshold']}")
    top.set_ylabel("cosine similarity")
    bottom.semilogy(depth, rel_drawn, marker=".", color="tab:orange")
    bottom.set_ylabel("max |B - A| / max |A|")
    bottom.set_xlabel("layer output, in A's topological order")
    first = report["first_divergent"]
    if first is not None:
        for ax in (top, bottom):
            ax.axvline(first["index"], color="tab:red", linewidth=1)
        top.annotate(f"first divergent: {first['layer_a']}", (first["index"], cosine[first["index"]]),
                     xytext=(8, -14), textcoords="offset points", color="tab:red",
                     bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8})
    top.legend(loc="lower left")
    b = report["b"] + (f" ({report['vs']})" if report.get("vs") else "")
    top.set_title(f"A: {report['a']}\nB: {b}", fontsize=9)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def text(report):
    lines = [f"A: {report['a']}", f"B: {report['b']}" + (f" ({report['vs']})" if report.get("vs") else "")]
    for i in report["inputs"]:
        lines.append(f"input {i['name']}: {i['element_type']} {i['shape']} ({i['source']})")
    lines.append(f"{'#':>4}  {'tensor':<40} {'cosine':>9} {'max_abs':>9} {'max_rel':>9}")
    fmt = lambda v, f: "nan" if v is None else format(v, f)  # noqa: E731
    first = report["first_divergent"]
    for n, t in enumerate(report["tensors"]):
        mark = ">" if first is not None and first["index"] == n else " "
        lines.append(f"{mark}{n + 1:>3}  {t['name'][:40]:<40} {fmt(t['cosine'], '.6f'):>9} "
                     f"{fmt(t['max_abs'], '.3g'):>9} {fmt(t['max_rel'], '.3g'):>9}"
                     + ("  nan/inf differ" if t["nonfinite_differs"] else ""))
    for side in ("a", "b"):
        if report[f"unmatched_{side}"]:
            lines.append(f"unmatched in {side.upper()} ({len(report[f'unmatched_{side}'])}): "
                         + ", ".join(report[f"unmatched_{side}"]))
    if first is not None:
        lines.append(f"first divergent layer: '{first['layer_a']}' (tensor '{first['name']}'): cosine "
                     f"{fmt(first['cosine'], '.6f')}" + (", NaN/Inf elements differ" if first["nonfinite_differs"] else ""))
    else:
        lines.append(f"no divergence: {len(report['tensors'])} tensors matched, every cosine >= {report['threshold']}")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m irlite.compare", description=__doc__.split("\n\n")[1])
    parser.add_argument("a", metavar="A.xml")
    parser.add_argument("b", metavar="B.xml", nargs="?")
    parser.add_argument("--vs", help="no-fusion, no-int8, threads=N or isa=sse|avx2|avx512: A against itself run so")
    parser.add_argument("-i", "--input", action="append", default=[], metavar="NAME=FILE.npy")
    parser.add_argument("--fill", default="random", choices=["random", "zeros", "ones"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threshold", type=float, default=0.999)
    parser.add_argument("--atol", type=float, default=0.0)
    parser.add_argument("--fused", action="store_true")
    parser.add_argument("-t", "--threads", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--plot", metavar="FILE.png")
    args = parser.parse_args(argv)
    if (args.b is None) == (args.vs is None):
        parser.error("give a second model B.xml, or --vs WHAT (not both)")
    inputs = {}
    for spec in args.input:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            parser.error(f"-i expects NAME=FILE.npy, got '{spec}'")
        inputs[name] = np.ascontiguousarray(np.load(path))
    try:
        report = irlite.compare(args.a, args.b, inputs=inputs or None, fill=args.fill, seed=args.seed,
                                threshold=args.threshold, fused=args.fused, vs=args.vs, threads=args.threads,
                                atol=args.atol)
    except irlite.Error as e:
        print(f"irlite.compare: error: {e}", file=sys.stderr)
        return 2 if e.kind == "usage" else 1
    print(json.dumps(report, indent=2) if args.json else text(report))
    if args.plot:
        try:
            plot(report, args.plot)
        except ImportError:
            print("irlite.compare: --plot needs matplotlib (apt-get install python3-matplotlib)", file=sys.stderr)
            return 1
        if not args.json:
            print(f"wrote {args.plot}")
    return 3 if report["first_divergent"] is not None else 0


if __name__ == "__main__":
    sys.exit(main())
