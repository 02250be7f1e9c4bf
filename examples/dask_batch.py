"""Runs one IR model over many input files on a Dask cluster: each worker compiles the model once
and reuses it; every output is written as OUT_DIR/<input file stem>.<output name>.npy.

    python3 examples/dask_batch.py model.xml OUT_DIR inputs/*.npy                # a local cluster
    python3 examples/dask_batch.py model.xml OUT_DIR inputs/*.npy --scheduler tcp://10.0.0.5:8786

Each .npy file feeds the model's first input (a model with several inputs takes a directory per
sample instead, holding <input name>.npy files). irlite itself stays one process per worker.
"""
import argparse
import os
import pathlib
import time

import numpy as np


def compiled_model(model_path, threads):
    """The model compiled once per worker process, kept on the Dask worker itself (a function's
    own cache would travel, empty, with every task)."""
    import irlite  # imported on the worker
    from dask.distributed import get_worker
    worker = get_worker()
    cache = getattr(worker, "_irlite_models", None)
    if cache is None:
        cache = {}
        setattr(worker, "_irlite_models", cache)
    key = (model_path, threads)
    if key not in cache:
        cache[key] = irlite.compile_model(model_path, threads=threads)
    return cache[key]


def run_one(model_path, sample, out_dir, threads=1):
    compiled = compiled_model(model_path, threads)
    sample = pathlib.Path(sample)
    if sample.is_dir():
        inputs = {p.name: np.load(sample / f"{p.name}.npy") for p in compiled.inputs}
    else:
        inputs = {compiled.inputs[0].name: np.load(sample)}
    written = []
    for name, value in compiled(inputs).items():
        safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)
        path = pathlib.Path(out_dir) / f"{sample.stem}.{safe}.npy"
        np.save(path, value)
        written.append(str(path))
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("out_dir")
    parser.add_argument("samples", nargs="+", help=".npy files (or directories of <input>.npy)")
    parser.add_argument("--scheduler", help="a Dask scheduler's address; default: a local cluster")
    parser.add_argument("--workers", type=int, default=2, help="local cluster only")
    parser.add_argument("--threads", type=int, default=1, help="irlite threads per worker")
    args = parser.parse_args(argv)

    from dask.distributed import Client, LocalCluster
    os.makedirs(args.out_dir, exist_ok=True)
    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, host="127.0.0.1",
                               dashboard_address=None, processes=True)
        client = Client(cluster)
    try:
        model = os.path.abspath(args.model)
        out_dir = os.path.abspath(args.out_dir)
        start = time.perf_counter()
        futures = client.map(run_one, [model] * len(args.samples), [os.path.abspath(s) for s in args.samples],
                             [out_dir] * len(args.samples), [args.threads] * len(args.samples), pure=False)
        written = client.gather(futures)
        seconds = time.perf_counter() - start
        print(f"{len(args.samples)} samples in {seconds:.3f} s: {len(args.samples) / seconds:.1f} samples/s "
              f"({sum(map(len, written))} outputs written to {out_dir})")
    finally:
        client.close()
        if cluster:
            cluster.close()


if __name__ == "__main__":
    main()
