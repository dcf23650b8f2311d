"""Packaging and installation (issue 16, items 16, 20 and 22's license warning).

* The wheel ships every policy file of ``models/`` and the package data, so that ``ppo`` and
  ``ppo_accuse`` play after a non-editable install (the wheel unpacked on ``sys.path``, the
  checkout out of reach).
* Building it gives no setuptools deprecation warning (``project.license`` is an SPDX string).
* ``make setup`` installs torch from PyTorch's CPU wheel index, with PyPI's build (the CUDA one,
  on Linux) a documented choice, and checks the build it got. Where the index it names can be
  reached, a dry run (pip's own configuration ignored: no local wheels) must resolve the CPU
  build and no CUDA, triton or nvidia wheel; elsewhere that test is skipped, saying why.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import zipfile
from urllib.parse import urlsplit

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


# ---------------------------------------------------------------------- the wheel
@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> tuple[str, str, str]:
    """(path of a wheel built from a copy of this checkout, the build's output, the copy)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(os.path.join(ROOT, name), src / name)
    for name in ("clue_env", "agents", "models"):
        shutil.copytree(os.path.join(ROOT, name), src / name, ignore=ignore)
    out = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp / "dist"), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    (path,) = glob.glob(str(tmp / "dist" / "*.whl"))
    return path, out.stdout + out.stderr, str(src)


def test_the_wheel_ships_every_policy_file_of_models(wheel):
    # the copy built from (models/ may change while the tests run), which holds every models/*.pt
    shipped = sorted(glob.glob(os.path.join(wheel[2], "models", "*.pt")))
    assert shipped, "no models/*.pt in this checkout"
    with zipfile.ZipFile(wheel[0]) as z:
        sizes = {i.filename: i.file_size for i in z.infolist()}
    for path in shipped:
        name = f"models/{os.path.basename(path)}"
        assert name in sizes, f"{name} is not in the wheel"
        assert sizes[name] == os.path.getsize(path), name


def test_the_wheel_ships_the_package_data(wheel):
    with zipfile.ZipFile(wheel[0]) as z:
        names = set(z.namelist())
    want = ["clue_env/py.typed", "clue_env/data/classic_board.json", "clue_env/presets/classic.yaml"]
    want += ["clue_env/presets/edition2023.yaml", "clue_env/play/web/static/index.html", "clue_env/play/web/static/app.js"]
    assert not [w for w in want if w not in names]
    assert "agents/ppo_agent.py" in names and not [n for n in names if n.startswith(("tests/", "configs/"))]


def test_building_the_wheel_gives_no_license_deprecation_warning(wheel):
    path, output, _src = wheel
    assert "project.license" not in output and "Deprecat" not in output, output
    with zipfile.ZipFile(path) as z:
        meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in meta.splitlines()


PLAY_FROM_THE_WHEEL = """
import os, sys
import agents, clue_env
from agents import make_agent
site = sys.argv[1]
for mod in (agents, clue_env):
    assert os.path.dirname(os.path.dirname(mod.__file__)) == site, mod.__file__
for n, rules in [(4, "classic"), (2, "edition2023"), (4, "edition2023")]:
    for spec in ("ppo", "ppo_accuse"):
        env = clue_env.raw_env(num_players=n, rules=rules)
        env.reset(seed=1)
        who = env.agent_selection
        agent = make_agent(spec, seat=env.possible_agents.index(who), num_players=n, rules=rules, seed=0)
        assert agent.path.startswith(site + os.sep), agent.path
        action = agent.act(env.observe(who), env.infos[who])
        print(spec, n, rules, os.path.basename(agent.path), env.action_to_text(action))
"""


def test_ppo_plays_after_a_non_editable_install(wheel, tmp_path):
    pytest.importorskip("torch")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel[0]) as z:
        z.extractall(site)
    run_dir = tmp_path / "elsewhere"  # not the checkout: its models/ must not be found
    run_dir.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = subprocess.run(
        [sys.executable, "-c", PLAY_FROM_THE_WHEEL, str(site)], cwd=run_dir, env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert len(out.stdout.splitlines()) == 6, out.stdout
    assert "clue_ppo_2p_accuse.pt" in out.stdout and "clue_ppo_2023_mixed.pt" in out.stdout
    assert "ppo 4 classic clue_ppo_4p_mixed.pt" in out.stdout  # ppo: the network with its bag of two heads


# ---------------------------------------------------------------------- make setup and torch
def make_setup_commands(*overrides: str) -> list[str]:
    """The commands ``make setup`` would run in a fresh checkout (``make -n -B``: nothing is run)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    # run outside any calling make (``make test`` passes its command-line variables, e.g. .ci/run's
    # TORCH_INDEX=, down through MAKEFLAGS): only the Makefile's defaults and ``overrides`` count
    drop = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "TORCH_INDEX", "TORCH_BUILD")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    out = subprocess.run(["make", "-n", "-B", "setup", *overrides], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def torch_install(commands: list[str]) -> list[str]:
    """The arguments after ``pip install`` of the one command that installs torch."""
    lines = [c for c in commands if re.search(r"/pip install .*\btorch\b", c)]
    assert len(lines) == 1, commands
    words = lines[0].split()
    return [w for w in words[words.index("install") + 1 :] if w != "-q"]


def test_make_setup_takes_torch_from_pytorchs_cpu_index_and_checks_the_build():
    commands = make_setup_commands()
    args = torch_install(commands)
    assert args[args.index("--index-url") + 1] == CPU_INDEX, args
    assert "-c" in args and "constraints.txt" in args  # the version pinned there
    project = [c for c in commands if "pip install" in c and "-e" in c.split()]
    assert len(project) == 1 and commands.index(project[0]) > commands.index(next(c for c in commands if "torch" in c))
    assert "--index-url" not in project[0] and "--extra-index-url" not in project[0]
    check = [c for c in commands if "torch.version.cuda" in c]
    assert len(check) == 1 and check[0].split()[-1] == "cpu", check  # the CPU index: a CUDA build is an error


def test_make_setup_offers_pypis_build_and_any_other_index():
    args = torch_install(make_setup_commands("TORCH_INDEX="))
    assert "--index-url" not in args and "--extra-index-url" not in args
    args = torch_install(make_setup_commands("TORCH_INDEX=https://download.pytorch.org/whl/cu130"))
    assert args[args.index("--index-url") + 1] == "https://download.pytorch.org/whl/cu130"
    check = [c for c in make_setup_commands("TORCH_INDEX=") if "torch.version.cuda" in c]
    assert check[0].split()[-1] == "any"
    check = [c for c in make_setup_commands("TORCH_INDEX=", "TORCH_BUILD=cpu") if "torch.version.cuda" in c]
    assert check[0].split()[-1] == "cpu"  # .ci/run's fallback to pip's own sources still requires the CPU build


def _reachable(url: str) -> bool:
    parts = urlsplit(url)
    try:
        socket.create_connection((parts.hostname, parts.port or 443), timeout=10).close()
    except OSError:
        return False
    return True


def test_the_default_torch_install_resolves_the_cpu_build_and_no_cuda_wheels(tmp_path):
    """A dry run of ``make setup``'s torch command on a machine with no pip configuration (no
    local wheels, no mirrors): the indexes it names, else PyPI."""
    args = torch_install(make_setup_commands())
    index = args[args.index("--index-url") + 1] if "--index-url" in args else "https://pypi.org/simple"
    if not _reachable(index):
        pytest.skip(f"{index} cannot be reached from here: the dry run needs it")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull  # no pip.conf: no find-links, no local index
    report = tmp_path / "report.json"
    cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--report", str(report), *args]
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    installs = {i["metadata"]["name"].lower(): i["metadata"]["version"] for i in json.loads(report.read_text())["install"]}
    assert installs["torch"].endswith("+cpu"), installs
    cuda = sorted(n for n in installs if n.startswith(("nvidia-", "triton", "cuda-")))
    assert not cuda, f"the default install would download {cuda}"
