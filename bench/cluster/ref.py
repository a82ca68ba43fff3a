#!/usr/bin/python3
"""The scikit-learn half of bench/cluster/run.sh: HiRAG's search for the number of Gaussian
mixture components on each file (GaussianMixture(n_components=k, covariance_type=COV,
random_state=0) for k = 1, 2, ... up to --max, stopping when the BIC changes by less than 1e-3
relatively, keeping the lowest BIC). Only the search is timed, not parsing. Prints one JSON
object per file, like `cluster run`."""

import argparse
import json
import os
import time

import numpy as np
from sklearn.mixture import GaussianMixture


def select(x, cov, max_k, rel_tol=1e-3):
    bics = []
    for k in range(1, min(max_k, len(x)) + 1):
        gm = GaussianMixture(n_components=k, covariance_type=cov, random_state=0).fit(x)
        bics.append(float(gm.bic(x)))
        if k > 1 and abs(bics[-1] - bics[-2]) < rel_tol * abs(bics[-2]):
            break
    return bics


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cov", default="full")
    ap.add_argument("--max", type=int, default=50)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    for path in args.files:
        x = np.loadtxt(path, ndmin=2)
        start = time.perf_counter()
        bics = select(x, args.cov, args.max)
        secs = time.perf_counter() - start
        best = int(np.argmin(bics))
        print(json.dumps({
            "file": os.path.basename(path), "n": x.shape[0], "d": x.shape[1], "cov": args.cov,
            "k": best + 1, "fits": len(bics), "bic": bics[best], "bics": bics, "seconds": secs,
        }), flush=True)


if __name__ == "__main__":
    main()
