"""A real two-node Ray cluster on this machine: train with env runners on both nodes, export, evaluate.

Starts a Ray head (``ray start --head``) and a second node (``ray start --address ...``) as separate
processes, each with its own CPU count, runs ``train.py --backend rllib --ray-address HEAD`` with one
env runner per node (it writes ``rllib_placement.json``: the node of every env runner, printed here),
evaluates the exported policy with ``evaluate.py``, and stops the two nodes it started (by their
process groups, never ``ray stop``) whatever happens. Needs the ``[ray]`` extra (``make ray-cluster``)::

    python benchmarks/ray_cluster.py [--config configs/train/rllib_smoke.yaml] [--timesteps 4096]
        [--head-cpus 1] [--node-cpus 1] [--games 100] [--out runs/ray_cluster] [--port 6390]

On a real cluster the same commands run on separate machines: docs/distributed.md.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)


def _ray_cmd() -> str:
    exe = os.path.join(BIN, "ray")
    return exe if os.path.exists(exe) else "ray"


def start_node(args: list[str], log: str) -> subprocess.Popen:
    """``ray start ... --block`` in a session of its own (so that its process group can be stopped)."""
    f = open(log, "w")  # noqa: SIM115 (kept open for the node's life)
    return subprocess.Popen([_ray_cmd(), "start", "--block", *args], stdout=f, stderr=subprocess.STDOUT, start_new_session=True)


def stop_node(proc: subprocess.Popen, name: str) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass
    try:  # anything of the group still alive
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    print(f"stopped {name} (process group {proc.pid})")


def wait_for_nodes(address: str, n: int, timeout: float = 120) -> list[dict]:
    code = (
        f"import json, ray; ray.init(address={address!r}, logging_level='ERROR'); "
        "print(json.dumps([{'ip': x['NodeManagerAddress'], 'id': x['NodeID'], 'cpus': x['Resources'].get('CPU')} "
        "for x in ray.nodes() if x['Alive']])); ray.shutdown()"
    )
    t0 = time.time()
    err = ""
    while time.time() - t0 < timeout:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        err = r.stderr.strip().splitlines()[-1:] if r.stderr.strip() else ""
        if r.returncode == 0:
            nodes = json.loads(r.stdout.strip().splitlines()[-1])
            if len(nodes) >= n:
                return nodes
        time.sleep(2)
    raise RuntimeError(f"the cluster at {address} did not show {n} nodes within {timeout:.0f} s: {err}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=os.path.join(ROOT, "configs", "train", "rllib_smoke.yaml"))
    ap.add_argument("--timesteps", type=int, default=4096)
    ap.add_argument("--head-cpus", type=int, default=1)
    ap.add_argument("--node-cpus", type=int, default=1)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--port", type=int, default=6390)
    ap.add_argument("--out", default=os.path.join(ROOT, "runs", "ray_cluster"))
    args = ap.parse_args(argv)
    if os.path.exists(os.path.join(args.out, "run.json")):
        print(f"error: {args.out} already holds a run; choose another --out", file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="clue-ray-cluster-")  # the head's temp dir: not Ray's default
    address = f"127.0.0.1:{args.port}"
    # token authentication (Ray's default for a cluster): a token of this cluster's own, in its temp dir,
    # handed to both nodes and to every driver (train.py, evaluate.py) through the environment
    token = os.path.join(tmp, "auth_token")
    fd = os.open(token, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(32))
    os.environ.update(RAY_USAGE_STATS_ENABLED="0", RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=token)
    common = ["--disable-usage-stats"]
    head = start_node(
        ["--head", f"--port={args.port}", f"--num-cpus={args.head_cpus}", "--num-gpus=0", f"--temp-dir={tmp}",
         "--include-dashboard=false", "--node-ip-address=127.0.0.1", *common],
        os.path.join(tmp, "head.log"),
    )  # fmt: skip
    nodes = [(head, "the head node")]
    rc = 1
    try:
        wait_for_nodes(address, 1)
        worker = start_node(
            [
                f"--address={address}",
                f"--num-cpus={args.node_cpus}",
                "--num-gpus=0",
                "--node-ip-address=127.0.0.1",
                f"--temp-dir={tmp}",
                *common,
            ],  # fmt: skip
            os.path.join(tmp, "node.log"),
        )
        nodes.append((worker, "the second node"))
        cluster = wait_for_nodes(address, 2)
        print(f"cluster at {address}: {len(cluster)} nodes")
        for n in cluster:
            print(f"  node {n['id'][:12]} {n['ip']} CPUs {n['cpus']}")
        runners = args.head_cpus + args.node_cpus
        t0 = time.time()
        cmd = [sys.executable, "train.py", "--config", args.config, "--backend", "rllib", "--ray-address", address,
               "--num-env-runners", str(runners), "--timesteps", str(args.timesteps), "--out", args.out, "--workers", "1",
               "--quiet"]  # fmt: skip
        print("$ " + " ".join(cmd[1:]))
        r = subprocess.run(cmd, cwd=ROOT)
        if r.returncode != 0:
            print(f"train.py failed ({r.returncode})", file=sys.stderr)
            return r.returncode
        print(f"trained in {time.time() - t0:.0f} s")
        with open(os.path.join(args.out, "rllib_placement.json"), encoding="utf-8") as f:
            placement = json.load(f)["env_runners"]
        print("env runner placement:")
        for p in placement:
            print(f"  runner {p['runner']}: node {p['node_id'][:12]} ({p['ip']}, {p['node_cpus']} CPUs), pid {p['pid']}")
        used = {p["node_id"] for p in placement}
        print(f"env runners on {len(used)} of {len(cluster)} nodes")
        policy = os.path.join(args.out, "policy.pt")
        cmd = [sys.executable, "evaluate.py", "--seats", f"ppo:{policy},random,random,random", "--games", str(args.games),
               "--json", os.path.join(args.out, "evaluate.json")]  # fmt: skip
        print("$ " + " ".join(cmd[1:]))
        r = subprocess.run(cmd, cwd=ROOT)
        rc = r.returncode
        if rc == 0 and len(used) < 2:
            print("error: the env runners did not use both nodes", file=sys.stderr)
            rc = 1
    finally:
        for proc, name in reversed(nodes):
            stop_node(proc, name)
        shutil.rmtree(tmp, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
