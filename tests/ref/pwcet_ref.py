#!/usr/bin/python3
"""
pwcet_ref.py -- reference values for tests/test_pwcet.c (core/iid.c,
core/evt.c, core/pwcet.c), computed by established packages.

Run from the repository root:

    /usr/bin/python3 tests/ref/pwcet_ref.py

It writes tests/ref/pwcet_samples.csv (the samples, which the C test reads,
so both sides use the same doubles) and prints the reference values as a C
block to paste into tests/test_pwcet.c.  Deterministic: numpy's PCG64
generator with a fixed seed, and the CSV is committed anyway.

Sources of the values:
  - Ljung-Box: statsmodels.stats.diagnostic.acorr_ljungbox(x, lags=[20]);
  - runs test: statsmodels.sandbox.stats.runs.runstest_1samp(cutoff=median,
    correction=False) on the sample with the values equal to the median
    dropped (statsmodels itself counts them as "above");
  - two-sample KS: D from scipy.stats.ks_2samp; p from the asymptotic
    Kolmogorov distribution with Stephens' correction (Numerical Recipes'
    kstwo), lambda = (sqrt(ne) + 0.12 + 0.11 / sqrt(ne)) D, evaluated with
    scipy.special.kolmogorov (ks_2samp's own asymptotic p uses another
    correction);
  - MLE: scipy.stats.genextreme.fit (xi = -c), scipy.stats.gumbel_r.fit,
    scipy.stats.genpareto.fit(floc=0) (xi = c), the first and last with
    Nelder-Mead tolerances tightened so that the reference is the optimum
    rather than wherever the default tolerances stop; log-likelihoods from
    the distributions' logpdf;
  - PWM: there is no scipy function; computed here with numpy from the
    published formulas: GEV per Hosking, Wallis & Wood (1985), Gumbel per
    Hosking (1990, sigma = l2 / ln 2), GPD per Hosking & Wallis (1987), with
    the unbiased sample PWMs b_r (GEV/Gumbel) and
    a_1 = 1/n sum_j (n - j) / (n - 1) x_(j) (GPD, ascending order);
  - pWCET: the distributions' isf (scipy) at the per-run probability mapped
    to the block (1 - (1 - p)^block) or the excess (p / rate).
"""
import csv
import math
import os
import sys

import numpy as np
import scipy
import statsmodels
from scipy import optimize, special, stats
from statsmodels.sandbox.stats.runs import runstest_1samp
from statsmodels.stats.diagnostic import acorr_ljungbox

HERE = os.path.dirname(os.path.abspath(__file__))
N = 200
SEED = 20240501
LAGS = 20
PROBS = [10.0 ** -e for e in range(3, 16)]
EULER = 0.5772156649015329


def samples():
    rng = np.random.default_rng(SEED)
    r = lambda v: np.round(v, 6)   # short decimals: the CSV is exact
    gumbel = r(stats.gumbel_r.rvs(loc=1000, scale=50, size=N, random_state=rng))
    gev = r(stats.genextreme.rvs(-0.2, loc=1000, scale=50, size=N, random_state=rng))
    gpd = r(stats.genpareto.rvs(0.2, loc=0, scale=30, size=N, random_state=rng))
    e = rng.normal(0, 20 * math.sqrt(1 - 0.8 ** 2), size=N)
    ar = np.empty(N)
    ar[0] = rng.normal(0, 20)
    for t in range(1, N):
        ar[t] = 0.8 * ar[t - 1] + e[t]
    ar1 = r(1000 + ar)
    ties = 10 * np.round(gumbel / 10)   # many ties, some at the median
    return {"gumbel": gumbel, "gev": gev, "gpd": gpd, "ar1": ar1, "ties": ties}


def write_csv(s, path):
    names = list(s)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(names)
        for i in range(N):
            w.writerow([repr(float(s[k][i])) for k in names])
    # Read back: the numbers the C test sees.
    with open(path) as f:
        rows = list(csv.reader(f))[1:]
    return {k: np.array([float(r[j]) for r in rows]) for j, k in enumerate(names)}


def tight(func, x0, args=(), disp=0):
    """Nelder-Mead run to the optimum, restarted until it stops moving."""
    x = np.asarray(x0, dtype=float)
    for _ in range(20):
        y = optimize.fmin(func, x, args=args, xtol=1e-12, ftol=1e-14, maxiter=200000, maxfun=200000, disp=0)
        if np.allclose(y, x, rtol=1e-13, atol=0):
            break
        x = y
    return x


def ljung_box(x):
    r = acorr_ljungbox(x, lags=[LAGS], return_df=True)
    return float(r["lb_stat"].iloc[0]), float(r["lb_pvalue"].iloc[0])


def runs(x):
    m = np.median(x)
    return runstest_1samp(x[x != m], cutoff=m, correction=False)


def ks_halves(x):
    a, b = x[: len(x) // 2], x[len(x) // 2:]
    d = stats.ks_2samp(a, b).statistic
    ne = len(a) * len(b) / (len(a) + len(b))
    lam = (math.sqrt(ne) + 0.12 + 0.11 / math.sqrt(ne)) * d
    return d, float(special.kolmogorov(lam))


def pwm_b(x):
    """Unbiased b_0, b_1, b_2 (ascending order statistics)."""
    x = np.sort(x)
    n = len(x)
    j = np.arange(1, n + 1)
    b0 = x.mean()
    b1 = np.sum((j - 1) / (n - 1) * x) / n
    b2 = np.sum((j - 1) * (j - 2) / ((n - 1) * (n - 2)) * x) / n
    return b0, b1, b2


def gev_pwm(x):
    b0, b1, b2 = pwm_b(x)
    l1, l2, l3 = b0, 2 * b1 - b0, 6 * b2 - 6 * b1 + b0
    t3 = l3 / l2
    c = 2 / (3 + t3) - math.log(2) / math.log(3)
    k = 7.8590 * c + 2.9554 * c * c
    g = math.gamma(1 + k)
    sigma = l2 * k / ((1 - 2 ** -k) * g)
    mu = l1 + sigma * (g - 1) / k
    return mu, sigma, -k


def gumbel_pwm(x):
    b0, b1, _ = pwm_b(x)
    l2 = 2 * b1 - b0
    sigma = l2 / math.log(2)
    return b0 - EULER * sigma, sigma


def gpd_pwm(y):
    y = np.sort(y)
    n = len(y)
    j = np.arange(1, n + 1)
    a0 = y.mean()
    a1 = np.sum((n - j) / (n - 1) * y) / n
    k = a0 / (a0 - 2 * a1) - 2
    sigma = 2 * a0 * a1 / (a0 - 2 * a1)
    return sigma, -k


def gev_ll(x, mu, sigma, xi):
    return float(stats.genextreme.logpdf(x, -xi, loc=mu, scale=sigma).sum())


def gpd_ll(y, sigma, xi):
    return float(stats.genpareto.logpdf(y, xi, loc=0, scale=sigma).sum())


def block_q(p, block):
    return -math.expm1(block * math.log1p(-p))


def cv_choice(x, alpha):
    """MBPTA-CV as core/pwcet.c states it: k = max(10, ceil(sqrt n)) .. n/2, accepted when
    |CV - 1| <= z_{1-alpha/2} / sqrt(k), the accepted k whose exponential
    tail gives the largest pWCET at 1e-12."""
    s = np.sort(x)[::-1]
    n = len(s)
    z = stats.norm.isf(alpha / 2)
    best = None
    for k in range(max(10, math.ceil(math.sqrt(n))), n // 2 + 1):
        u = s[k]
        e = s[:k] - u
        m = e.mean()
        if m <= 0:
            continue
        cv = e.std(ddof=1) / m
        if abs(cv - 1) <= z / math.sqrt(k):
            w = u + m * math.log((k / n) / 1e-12)
            if best is None or w > best[3]:
                best = (k, u, m, w)
    return best


def c(v):
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    return "%.17g" % v


def emit(name, values):
    print("static const double %s[] = { %s };" % (name, ", ".join(c(v) for v in values)))


def main():
    s = write_csv(samples(), os.path.join(HERE, "pwcet_samples.csv"))
    print("/* Generated by tests/ref/pwcet_ref.py: python %s, numpy %s, scipy %s, statsmodels %s. */"
          % (sys.version.split()[0], np.__version__, scipy.__version__, statsmodels.__version__))

    # i.i.d. checks: { LB Q, LB p, runs z, runs p, KS D, KS p } per sample.
    for k in ("gumbel", "gev", "ar1", "ties"):
        q, qp = ljung_box(s[k])
        z, zp = runs(s[k])
        d, dp = ks_halves(s[k])
        emit("IID_" + k.upper(), [q, qp, z, zp, d, dp])

    # MLE: { mu, sigma, xi, loglik }.
    c_, loc, scale = stats.genextreme.fit(s["gev"], optimizer=tight)
    emit("GEV_MLE", [loc, scale, -c_, gev_ll(s["gev"], loc, scale, -c_)])
    loc, scale = stats.gumbel_r.fit(s["gumbel"])
    emit("GUMBEL_MLE", [loc, scale, float(stats.gumbel_r.logpdf(s["gumbel"], loc, scale).sum())])
    c_, _, scale = stats.genpareto.fit(s["gpd"], floc=0, optimizer=tight)
    emit("GPD_MLE", [scale, c_, gpd_ll(s["gpd"], scale, c_)])

    # PWM: { mu, sigma, xi, loglik } / { sigma, xi, loglik }.
    mu, sigma, xi = gev_pwm(s["gev"])
    emit("GEV_PWM", [mu, sigma, xi, gev_ll(s["gev"], mu, sigma, xi)])
    mu, sigma = gumbel_pwm(s["gumbel"])
    emit("GUMBEL_PWM", [mu, sigma, gev_ll(s["gumbel"], mu, sigma, 0.0)])
    sigma, xi = gpd_pwm(s["gpd"])
    emit("GPD_PWM", [sigma, xi, gpd_ll(s["gpd"], sigma, xi)])

    # The whole analysis of the Gumbel sample with the defaults: block 10
    # (200 / 50 clamped to [10, 20]), threshold the 0.9 quantile (numpy's
    # linear interpolation = GSL's), alpha 0.05.
    x = s["gumbel"]
    block = 10
    m = len(x) // block
    maxima = x[: m * block].reshape(m, block).max(axis=1)
    u = float(np.quantile(x, 0.9))
    exc = x[x > u] - u
    rate = len(exc) / len(x)
    mu, sigma, xi = gev_pwm(maxima)
    emit("ANA_GEV_PWM", [mu, sigma, xi] +
         [stats.genextreme.isf(block_q(p, block), -xi, loc=mu, scale=sigma) for p in PROBS])
    mu, sigma = gumbel_pwm(maxima)
    emit("ANA_GUMBEL_PWM", [mu, sigma] + [stats.gumbel_r.isf(block_q(p, block), loc=mu, scale=sigma) for p in PROBS])
    sigma, xi = gpd_pwm(exc)
    emit("ANA_GPD_PWM", [u, rate, sigma, xi] + [u + stats.genpareto.isf(p / rate, xi, scale=sigma) for p in PROBS])
    k, cu, cm, _ = cv_choice(x, 0.05)
    emit("ANA_EXP_CV", [k, cu, cm] + [cu + cm * math.log((k / len(x)) / p) for p in PROBS])
    c_, loc, scale = stats.genextreme.fit(maxima, optimizer=tight)
    emit("ANA_GEV_MLE", [loc, scale, -c_])
    loc, scale = stats.gumbel_r.fit(maxima)
    emit("ANA_GUMBEL_MLE", [loc, scale])
    c_, _, scale = stats.genpareto.fit(exc, floc=0, optimizer=tight)
    emit("ANA_GPD_MLE", [scale, c_])


if __name__ == "__main__":
    main()
