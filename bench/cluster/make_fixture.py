#!/usr/bin/python3
"""Writes internal/cluster/testdata/sklearn.json, the scikit-learn reference that the tests of
internal/cluster compare against, so that the tests themselves need no Python.

Run once from the repository root (Debian: apt-get install python3-sklearn python3-numpy):

    /usr/bin/python3 bench/cluster/make_fixture.py

The file holds:
  * "blobs" and "blobs_axis": well-separated Gaussian blobs, rotated at random or aligned with the
    axes (data, true labels), and for each covariance type the BIC of every k scikit-learn tried
    with HiRAG's search (GaussianMixture(random_state=0) for k = 1, 2, ... until the relative BIC
    change is < 1e-3) and the k it chose.
  * "scores": mixtures with fixed parameters (some fitted by scikit-learn, some arbitrary) and
    scikit-learn's score_samples, score and bic for them on the blob data. The Go tests build the
    same mixtures with NewGMM, so they check the formulas, not the luck of EM.
  * "mstep": responsibilities and the weights, means and covariances scikit-learn's M-step
    (_estimate_gaussian_parameters with reg_covar 1e-6) derives from them.
  * "pca": a small matrix and scikit-learn's PCA projection and explained variances.
"""

import json
import os
import sys

import numpy as np
import sklearn
from sklearn.decomposition import PCA
from sklearn.mixture import GaussianMixture
from sklearn.mixture._gaussian_mixture import (
    _compute_precision_cholesky,
    _estimate_gaussian_parameters,
)


def blobs(rng, aligned=False):
    """Five blobs in 4 dimensions with unequal sizes and anisotropic covariances, rotated at
    random or (aligned) with the axes."""
    d = 4
    sizes = [60, 140, 100, 80, 120]
    centers = rng.uniform(-20, 20, size=(len(sizes), d))
    xs, labels = [], []
    for j, (size, c) in enumerate(zip(sizes, centers)):
        if aligned:
            a = np.diag(rng.uniform(0.4, 1.6, size=d))
        else:
            a = rng.normal(size=(d, d)) * 0.6 + np.eye(d) * 0.4
        xs.append(c + rng.normal(size=(size, d)) @ a.T)
        labels += [j] * size
    order = rng.permutation(sum(sizes))
    return np.vstack(xs)[order], np.array(labels)[order]


def hirag_select(x, cov, max_k=50, rel_tol=1e-3):
    bics = []
    for k in range(1, min(max_k, len(x)) + 1):
        gm = GaussianMixture(n_components=k, covariance_type=cov, random_state=0).fit(x)
        bics.append(gm.bic(x))
        if k > 1 and abs(bics[-1] - bics[-2]) < rel_tol * abs(bics[-2]):
            break
    return bics, int(np.argmin(bics)) + 1


def with_params(cov, weights, means, covariances):
    """A GaussianMixture scoring with exactly the given parameters."""
    gm = GaussianMixture(n_components=len(weights), covariance_type=cov)
    gm.weights_ = np.asarray(weights, dtype=float)
    gm.means_ = np.asarray(means, dtype=float)
    gm.covariances_ = np.asarray(covariances, dtype=float)
    gm.precisions_cholesky_ = _compute_precision_cholesky(gm.covariances_, cov)
    return gm


def score_case(name, cov, gm, x):
    covs = gm.covariances_
    if cov == "full":
        covs = covs.reshape(len(covs), -1)
    return {
        "name": name,
        "covariance": cov,
        "weights": gm.weights_.tolist(),
        "means": gm.means_.tolist(),
        "covariances": covs.tolist(),
        "score_samples": gm.score_samples(x).tolist(),
        "score": float(gm.score(x)),
        "bic": float(gm.bic(x)),
        "n_parameters": int(gm._n_parameters()),
    }


def random_spd(rng, d, scale):
    a = rng.normal(size=(d, d))
    return scale * (a @ a.T / d + 0.1 * np.eye(d))


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = os.path.join(root, "internal", "cluster", "testdata", "sklearn.json")
    rng = np.random.RandomState(20240611)
    x, labels = blobs(rng)
    n, d = x.shape

    fixture = {
        "generator": "bench/cluster/make_fixture.py",
        "sklearn": sklearn.__version__,
        "numpy": np.__version__,
        "blobs": {"x": x.tolist(), "labels": labels.tolist(), "select": {}},
        "scores": [],
    }
    xa, la = blobs(np.random.RandomState(7), aligned=True)
    fixture["blobs_axis"] = {"x": xa.tolist(), "labels": la.tolist(), "select": {}}
    for cov in ("full", "diag"):
        for key, data in (("blobs", x), ("blobs_axis", xa)):
            bics, best = hirag_select(data, cov)
            fixture[key]["select"][cov] = {"bics": bics, "k": best}

    for cov in ("full", "diag"):
        for k in (1, 3, 5):
            gm = GaussianMixture(n_components=k, covariance_type=cov, random_state=1).fit(x)
            fixture["scores"].append(score_case("sklearn-fit-%s-k%d" % (cov, k), cov, gm, x))
        # Arbitrary parameters: components away from the data, so log-likelihoods are large
        # and negative and the log-sum-exp matters.
        k = 4
        w = rng.dirichlet(np.ones(k))
        mu = rng.uniform(-30, 30, size=(k, d))
        if cov == "full":
            c = np.array([random_spd(rng, d, s) for s in (0.5, 2.0, 8.0, 30.0)])
        else:
            c = rng.uniform(0.2, 20, size=(k, d))
        gm = with_params(cov, w, mu, c)
        fixture["scores"].append(score_case("arbitrary-%s-k%d" % (cov, k), cov, gm, x))

    # M-step from soft responsibilities.
    k = 3
    resp = rng.dirichlet(np.ones(k) * 0.5, size=n)
    fixture["mstep"] = {"resp": resp.tolist(), "cases": []}
    for cov in ("full", "diag"):
        nk, means, covs = _estimate_gaussian_parameters(x, resp, 1e-6, cov)
        if cov == "full":
            covs = covs.reshape(k, -1)
        fixture["mstep"]["cases"].append({
            "covariance": cov,
            "weights": (nk / nk.sum()).tolist(),
            "means": means.tolist(),
            "covariances": covs.tolist(),
        })

    # PCA of a small matrix with well-separated variances.
    m = rng.normal(size=(30, 6)) * np.array([9.0, 5.0, 3.0, 1.5, 0.7, 0.2])
    m = (m @ np.linalg.qr(rng.normal(size=(6, 6)))[0]).astype(np.float32)
    p = PCA(n_components=3).fit(m.astype(np.float64))
    fixture["pca"] = {
        "x": m.astype(np.float64).tolist(),
        "k": 3,
        "projection": p.transform(m.astype(np.float64)).tolist(),
        "explained_variance": p.explained_variance_.tolist(),
    }

    with open(out, "w") as f:
        json.dump(fixture, f, separators=(",", ":"))
        f.write("\n")
    for key in ("blobs", "blobs_axis"):
        sel = fixture[key]["select"]
        print("%s: %s %dx%d, sklearn chose k=%d (full), k=%d (diag)"
              % (out, key, n, d, sel["full"]["k"], sel["diag"]["k"]), file=sys.stderr)


if __name__ == "__main__":
    main()
