"""Deduction engine: time per update and the Markov-chain estimate's error against exact counts.

    python benchmarks/deduction_engine.py [--games 20] [--players 4,6] [--samples 400]

Plays all-``deduction`` games; at every change of seat 0's evidence it times
(a) the update: feeding the new events and propagating certain facts;
(b) the agent's sampling step (64 deals from the Markov chain, one sweep apart);
(c) the full posterior (exact counting when it fits a 300,000-step budget, else importance
sampling with 400 draws).
Where exact counting succeeds with a large budget it compares with the exact marginals
the importance-sampling estimate, the Markov chain alone, the sampler as the agent uses it
(exact draws when counting fits 20,000 steps, else the chain), and the fast approximate marginals
(``clue_env.engine.marginals``, what ``belief_features=True`` and the learned policy use): RMS and
worst absolute error, positions with an error over 0.2, and the mean signed error (bias) of the
importance estimate; and the fast marginals' time per update.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

_EXACT: list[np.ndarray] = []


def _mid_bias(errs: list[np.ndarray]) -> float | None:
    """Mean signed error over the entries whose exact probability is not near 0 or 1."""
    vals = [e[(x > 0.05) & (x < 0.95)] for e, x in zip(errs, _EXACT)]
    vals = [v for v in vals if v.size]
    return float(np.mean(np.concatenate(vals))) if vals else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--players", default="4,6")
    ap.add_argument("--samples", type=int, default=400)
    ap.add_argument("--json")
    args = ap.parse_args(argv)

    import clue_env
    from agents import make_agent
    from clue_env.engine.marginals import approx_marginals
    from clue_env.engine.witness import Witness

    report = {}
    for p in [int(x) for x in args.players.split(",")]:
        t_update, t_sample, t_post, exact_hits = [], [], [], 0
        errs_signed, errs_abs, errs_is, errs_fast, t_fast = [], [], [], [], []
        _EXACT.clear()
        for g in range(args.games):
            env = clue_env.raw_env(num_players=p)
            env.reset(seed=g)
            agents = [make_agent("deduction", seat=i, num_players=p, seed=g * 10 + i) for i in range(p)]
            game = env.game
            w = Witness(0, game.hands[0], [len(h) for h in game.hands])
            rng = np.random.default_rng(g)
            while not game.over:
                seat = game.acting
                name = env.possible_agents[seat]
                env.step(agents[seat].act(env.observe(name), env.infos[name]))
                view = env.infos["player_0"]["seat_view"].events
                t0 = time.perf_counter()
                changed_before = w.knowledge._version
                w.feed(view)
                if w.knowledge._version == changed_before:
                    continue
                w.knowledge.propagate()
                t_update.append(time.perf_counter() - t0)
                k = w.knowledge
                t0 = time.perf_counter()
                fast = approx_marginals(k)
                t_fast.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                k.sample_deals(64, rng, sweeps=1, burn_in=20)
                t_sample.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                post = k.posterior(rng, budget=300_000, samples=args.samples)
                t_post.append(time.perf_counter() - t0)
                exact_hits += int(post.exact)
                exact = post if post.exact else k.exact_posterior(budget=3_000_000)
                if exact is not None:
                    chain = k.estimate_posterior(rng, samples=args.samples, exact_budget=0)
                    used = k.estimate_posterior(rng, samples=args.samples, exact_budget=20_000)
                    imp = k.importance_posterior(rng, samples=args.samples)
                    errs_signed.append(chain.marginals - exact.marginals)
                    errs_abs.append(np.abs(used.marginals - exact.marginals))
                    errs_is.append(imp.marginals - exact.marginals)
                    errs_fast.append(fast - exact.marginals)
                    _EXACT.append(exact.marginals)

        def stats(xs):
            a = np.array(xs) * 1000
            return {
                "n": len(a),
                "median_ms": float(np.median(a)),
                "p95_ms": float(np.percentile(a, 95)),
                "worst_ms": float(a.max()),
            }

        chain_err = np.concatenate([np.abs(e).ravel() for e in errs_signed]) if errs_signed else np.zeros(1)
        chain_bias = float(np.mean([e.mean() for e in errs_signed])) if errs_signed else 0.0
        allabs = np.concatenate([e.ravel() for e in errs_abs]) if errs_abs else np.zeros(1)
        per_pos = [float(np.abs(e).max()) for e in errs_signed]
        report[f"{p}p"] = {
            "update": stats(t_update),
            "agent_sampling_64": stats(t_sample),
            "posterior": stats(t_post),
            "posterior_exact_share": exact_hits / max(len(t_post), 1),
            "chain_only_vs_exact": {
                "positions": len(errs_signed),
                "samples": args.samples,
                "rms_error": float(np.sqrt((chain_err**2).mean())),
                "median_worst_per_position": float(np.median(per_pos)) if per_pos else None,
                "positions_with_error_over_0.2": int(sum(1 for x in per_pos if x > 0.2)),
                "worst_abs_error": float(chain_err.max()),
                "mean_signed_error": chain_bias,
            },
            "importance_vs_exact": {
                "note": "the estimator posterior() uses when exact counting does not fit its budget",
                "rms_error": float(np.sqrt(np.mean([np.mean(e**2) for e in errs_is]))) if errs_is else None,
                "median_worst_per_position": float(np.median([np.abs(e).max() for e in errs_is])) if errs_is else None,
                "positions_with_error_over_0.2": int(sum(1 for e in errs_is if np.abs(e).max() > 0.2)),
                "worst_abs_error": float(max(np.abs(e).max() for e in errs_is)) if errs_is else None,
                "mean_signed_error_of_entries_with_p_in_0.05_0.95": _mid_bias(errs_is),
            },
            "fast_marginals": {
                "note": "clue_env.engine.marginals.approx_marginals (belief_features=True, the learned policy)",
                "time": stats(t_fast),
                "rms_error": float(np.sqrt(np.mean([np.mean(e**2) for e in errs_fast]))) if errs_fast else None,
                "mean_abs_error_of_entries_with_p_in_0.05_0.95": float(
                    np.mean(np.concatenate([np.abs(e)[(x > 0.05) & (x < 0.95)] for e, x in zip(errs_fast, _EXACT)]))
                )
                if errs_fast
                else None,
                "worst_abs_error": float(max(np.abs(e).max() for e in errs_fast)) if errs_fast else None,
            },
            "as_used_vs_exact": {
                "note": "the agent's sampler: exact draws when counting fits 20k steps, else the chain",
                "rms_error": float(np.sqrt((allabs**2).mean())),
                "worst_abs_error": float(allabs.max()),
            },
        }
        print(json.dumps({f"{p}p": report[f"{p}p"]}, indent=2), flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
