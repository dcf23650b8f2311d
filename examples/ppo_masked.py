"""Masked PPO on clue_env/Clue-v0 in one file, in the style of CleanRL (torch and gymnasium only).

    python examples/ppo_masked.py                       # 3 random opponents, classic, 4 players
    python examples/ppo_masked.py --opponents deduction --total-timesteps 3000000
    python examples/ppo_masked.py --smoke               # a few seconds: CI runs this

The learner observes ``features=True`` (the env's vector plus the engine's policy features). On
top of the env's mask this script applies its own action shaping (``--no-shaping`` turns it off):
accusations stay masked until the seat's knowledge proves the solution, and then only the proven
triple may be accused; hallway squares are masked whenever a ``toward ROOM`` move is legal; a
seat that may suggest does. Everything else (where to go, what to suggest, which card to show,
when to accuse) is learned. An untrained policy under the same shaping is evaluated with
``--total-timesteps 0``. At the end the policy plays ``--eval-games`` fresh games and the script
prints the win rate with its 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import json
import math
import time

import gymnasium as gym
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import clue_env  # noqa: F401 - registers clue_env/Clue-v0
from clue_env.policy.features import POLICY_LAYOUT


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--opponents", default="random", help="agent spec for every other seat (default: random)")
    p.add_argument("--num-players", type=int, default=4)
    p.add_argument("--rules", default="classic")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--total-timesteps", type=int, default=2_000_000, help="learner steps (default: 2,000,000)")
    p.add_argument("--time-limit", type=float, default=480.0, help="stop training after this many seconds (default: 480)")
    p.add_argument("--num-envs", type=int, default=16)
    p.add_argument("--num-steps", type=int, default=128, help="steps per env per rollout")
    p.add_argument("--async-envs", action="store_true", help="AsyncVectorEnv (one process per env) instead of SyncVectorEnv")
    p.add_argument("--learning-rate", type=float, default=5e-4)
    p.add_argument("--gamma", type=float, default=0.995)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument(
        "--no-shaping", action="store_true", help="use the env's mask alone (an untrained policy then accuses at once)"
    )
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--threads", type=int, default=1, help="torch threads (default: 1)")
    p.add_argument("--save", default="", help="write the trained network's state_dict here")
    p.add_argument("--load", default="", help="start from a state_dict written by --save (with --total-timesteps 0: evaluate it)")
    p.add_argument("--smoke", action="store_true", help="a tiny run (seconds): CI runs every example this way")
    args = p.parse_args()
    if args.smoke:
        args.total_timesteps, args.num_envs, args.num_steps, args.eval_games, args.hidden = 256, 2, 64, 2, 32
    return args


class Shaper:
    """The script's own mask on top of the env's (see the module docstring), for a batch."""

    def __init__(self, env: gym.Env) -> None:
        texts = [env.unwrapped.action_to_text(i) for i in range(env.action_space.n)]
        kind = np.array([t.split()[0] for t in texts])
        self.accuse = int(np.flatnonzero(kind == "accuse")[0])  # accusations come last, suspect*54 + weapon*9 + room
        self.move, self.toward, self.suggest = (kind == "move", kind == "toward", kind == "suggest")
        self.end = texts.index("end")
        self.solution = POLICY_LAYOUT.slice("solution")

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = mask.astype(bool)
        sol = obs[:, self.solution]
        proved = sol[:, -1] > 0.5
        accusable = mask[:, self.accuse :].copy()
        mask[:, self.accuse :] = False
        for i in np.flatnonzero(proved & accusable.any(axis=1)):
            s, w, r = np.flatnonzero(sol[i, :-1] > 0.5)  # card indices: suspects, then weapons, then rooms
            mask[i, self.accuse + (s * 6 + (w - 6)) * 9 + (r - 12)] = True
        toward = mask[:, self.toward].any(axis=1)
        mask[np.ix_(toward, self.move)] = False
        suggest = mask[:, self.suggest].any(axis=1)
        mask[suggest, self.end] = False
        return mask


def layer(i: int, o: int, std: float = math.sqrt(2)) -> nn.Linear:
    lin = nn.Linear(i, o)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class Agent(nn.Module):
    def __init__(self, n_obs: int, n_act: int, hidden: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(layer(n_obs, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, 1, 1.0))
        self.actor = nn.Sequential(layer(n_obs, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, n_act, 0.01))

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)

    def act(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        logits = self.actor(x).masked_fill(~mask, -1e9)
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(x)


def make_env(args: argparse.Namespace):
    def thunk() -> gym.Env:
        return gym.make(
            "clue_env/Clue-v0", opponents=args.opponents, num_players=args.num_players, rules=args.rules, features=True
        )

    return thunk


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    mid, half = (p + z * z / (2 * n)) / (1 + z * z / n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, mid - half), min(1.0, mid + half)


def evaluate(agent: Agent, args: argparse.Namespace, shaper: Shaper | None, games: int, seed: int) -> dict:
    env = make_env(args)()
    wins = wrong = truncated = 0
    for g in range(games):
        obs, info = env.reset(seed=seed + g)
        done = False
        while not done:
            mask = obs["action_mask"][None].astype(bool)
            if shaper is not None:
                mask = shaper(obs["observation"][None], mask)
            with torch.no_grad():
                action, *_ = agent.act(torch.as_tensor(obs["observation"][None]), torch.as_tensor(mask))
            obs, _r, term, trunc, info = env.step(int(action[0]))
            done = term or trunc
        wins += bool(info["won"])
        wrong += bool(info["wrong_accusation"])
        truncated += bool(trunc)
    lo, hi = wilson(wins, games)
    return {
        "games": games,
        "wins": wins,
        "win_rate": wins / max(games, 1),
        "ci95": [lo, hi],
        "wrong_accusations": wrong,
        "truncated": truncated,
    }


def main() -> None:
    args = parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    vec = gym.vector.AsyncVectorEnv if args.async_envs else gym.vector.SyncVectorEnv
    envs = vec([make_env(args) for _ in range(args.num_envs)], autoreset_mode=gym.vector.AutoresetMode.SAME_STEP)
    shaper = None if args.no_shaping else Shaper(make_env(args)())
    n_obs = envs.single_observation_space["observation"].shape[0]
    n_act = int(envs.single_action_space.n)
    agent = Agent(n_obs, n_act, args.hidden)
    if args.load:
        agent.load_state_dict(torch.load(args.load, weights_only=True))
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    T, N = args.num_steps, args.num_envs
    obs_buf = torch.zeros((T, N, n_obs))
    mask_buf = torch.zeros((T, N, n_act), dtype=torch.bool)
    act_buf = torch.zeros((T, N), dtype=torch.long)
    logp_buf, rew_buf, done_buf, val_buf = (torch.zeros((T, N)) for _ in range(4))
    batch = T * N
    minibatch = batch // args.num_minibatches
    iterations = args.total_timesteps // batch

    start = time.time()
    steps = 0
    finished: list[tuple[bool, bool]] = []
    obs, _ = envs.reset(seed=args.seed)

    def view(o: dict) -> tuple[torch.Tensor, torch.Tensor]:
        m = o["action_mask"].astype(bool)
        if shaper is not None:
            m = shaper(o["observation"], m)
        return torch.as_tensor(o["observation"]), torch.as_tensor(m)

    next_obs, next_mask = view(obs)
    next_done = torch.zeros(N)
    for it in range(1, iterations + 1):
        if time.time() - start > args.time_limit:
            break
        for frac_group in optimizer.param_groups:
            frac_group["lr"] = args.learning_rate * (1.0 - (it - 1) / iterations)
        for t in range(T):
            obs_buf[t], mask_buf[t], done_buf[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logp, _, value = agent.act(next_obs, next_mask)
            act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
            obs, reward, term, trunc, info = envs.step(action.numpy())
            rew_buf[t] = torch.as_tensor(reward, dtype=torch.float32)
            done = np.logical_or(term, trunc)
            next_done = torch.as_tensor(done, dtype=torch.float32)
            next_obs, next_mask = view(obs)
            for i in np.flatnonzero(done):  # SAME_STEP autoreset: the ended episode's info is under final_info
                final = info["final_info"]
                finished.append((bool(final["won"][i]), bool(final["wrong_accusation"][i])))
            steps += N
        with torch.no_grad():  # GAE; truncation is treated as an end, as CleanRL does
            next_value = agent.value(next_obs)
            adv = torch.zeros((T, N))
            last = torch.zeros(N)
            for t in reversed(range(T)):
                nonterminal = 1.0 - (next_done if t == T - 1 else done_buf[t + 1])
                nv = next_value if t == T - 1 else val_buf[t + 1]
                delta = rew_buf[t] + args.gamma * nv * nonterminal - val_buf[t]
                last = delta + args.gamma * args.gae_lambda * nonterminal * last
                adv[t] = last
            ret = adv + val_buf
        b_obs, b_mask = obs_buf.reshape(batch, n_obs), mask_buf.reshape(batch, n_act)
        b_act, b_logp, b_adv, b_ret = act_buf.reshape(-1), logp_buf.reshape(-1), adv.reshape(-1), ret.reshape(-1)
        for _ in range(args.update_epochs):
            for mb in torch.randperm(batch).split(minibatch):
                _, logp, entropy, value = agent.act(b_obs[mb], b_mask[mb], b_act[mb])
                ratio = (logp - b_logp[mb]).exp()
                a = b_adv[mb]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((value - b_ret[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        recent = finished[-200:]
        if recent and (it % 10 == 0 or it == iterations):
            rate = sum(w for w, _ in recent) / len(recent)
            wrong = sum(x for _, x in recent) / len(recent)
            elapsed = time.time() - start
            print(f"step {steps:>9,}  {elapsed:6.0f}s  episodes {len(finished):>6,}  last 200: won {rate:.2f}  wrong {wrong:.2f}")
    train_s = time.time() - start
    envs.close()
    if args.save:
        torch.save(agent.state_dict(), args.save)
    result = evaluate(agent, args, shaper, args.eval_games, seed=10_000_000 + args.seed)
    result.update(train_seconds=round(train_s, 1), learner_steps=steps, episodes=len(finished), opponents=args.opponents)
    lo, hi = result["ci95"]
    won = f"{result['wins']}/{result['games']} = {result['win_rate']:.3f} (95% CI {lo:.3f}-{hi:.3f})"
    print(f"evaluation: won {won} after {train_s:.0f}s of training")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
