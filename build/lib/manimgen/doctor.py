"""Checks of the machine a render or a run depends on, each with the command that fixes it."""

from __future__ import annotations

import importlib
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from manimgen.data.manimbench import ENV_DIR, default_dir
from manimgen.extras import PURPOSES, missing_module
from manimgen.manim_import import PINNED_MANIM, manim_version
from manimgen.paths import cache_root
from manimgen.render.sandbox import protections

APT_LATEX = "apt-get install -y texlive-latex-base texlive-latex-recommended texlive-latex-extra preview-latex-style dvisvgm"


@dataclass(frozen=True)
class Check:
    """One thing checked; an `optional` one (a part of manimgen not everyone installs) never makes the machine unhealthy."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    optional: bool = False


def _module(name: str) -> bool:
    try:
        importlib.import_module(name)
        return True
    except ImportError:
        return False


def run_checks() -> list[Check]:
    version = manim_version()
    data_dir = default_dir()
    checks = [
        Check(
            "manim",
            version == PINNED_MANIM,
            version,
            f"pip install manim=={PINNED_MANIM}" if version != PINNED_MANIM else "",
        ),
        Check("latex", shutil.which("latex") is not None, shutil.which("latex") or "missing", APT_LATEX),
        Check("dvisvgm", shutil.which("dvisvgm") is not None, shutil.which("dvisvgm") or "missing", "apt-get install -y dvisvgm"),
        Check("cairo", _module("cairo"), "pycairo", "apt-get install -y libcairo2-dev pkg-config && pip install pycairo"),
        Check("pango", _module("manimpango"), "manimpango", "apt-get install -y libpango1.0-dev && pip install manimpango"),
        *(Check(f"sandbox: {name}", active, detail, fix) for name, active, detail, fix in protections()),
        Check("cache", True, str(cache_root()), "set MANIMGEN_CACHE to move it"),
        Check(
            "manimbench",
            data_dir is not None and data_dir.is_dir(),
            str(data_dir) if data_dir else "not found locally (the hub copy is used when online)",
            f"set {ENV_DIR} to the folder holding manimbench_v2.jsonl",
        ),
        Check(
            "environment",
            not Path(sys.prefix).resolve().is_relative_to("/tmp"),
            sys.prefix,
            "make the virtual environment outside /tmp: each render gets a private /tmp, where its files cannot be seen",
        ),
        *(Check(f"part: {part}", missing_module(part) is None, PURPOSES[part], f"pip install -e '.[{part}]'", optional=True) for part in PURPOSES),
        Check("voice: espeak-ng", shutil.which("espeak-ng") is not None, shutil.which("espeak-ng") or "missing: lessons come out silent, with subtitles", "apt-get install -y espeak-ng", optional=True),
    ]
    return checks


RENDER_CHECKS = ("manim", "latex", "dvisvgm", "cairo", "pango", "sandbox")
# A node starts a worker and imports the render stack in seconds; minutes mean it cannot start one.
NODE_CHECK_TIMEOUT_S = 120.0


def render_stack_checks() -> list[Check]:
    """The checks a render node must pass: Manim, LaTeX, cairo/pango and the sandbox."""
    return [check for check in run_checks() if check.name.split(":")[0] in RENDER_CHECKS]


@dataclass(frozen=True)
class NodeReport:
    """One Ray node: where it is, how many renders it offers at a time, and its render stack."""

    node: str
    manim_units: float
    checks: list[Check]


def ray_node_checks(address: str) -> list[NodeReport]:
    """The render stack of every live node of the cluster at ADDRESS, checked on the node itself."""
    from manimgen.render.ray_backend import RESOURCE, RayBackendError, connect

    ray = connect(address)  # first: it sets what Ray reads when imported
    from ray.exceptions import RayError
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    remote_checks = ray.remote(num_cpus=0)(render_stack_checks)
    nodes = [node for node in ray.nodes() if node.get("Alive")]
    pending = [
        remote_checks.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)).remote()
        for node in nodes
    ]
    _, late = ray.wait(pending, num_returns=len(pending), timeout=NODE_CHECK_TIMEOUT_S)
    names = [f"{node['NodeManagerAddress']} {node['NodeID'][:8]}" for node in nodes]
    if late:
        silent = ", ".join(name for name, ref in zip(names, pending) if ref in late)
        raise RayBackendError(
            f"no answer from node {silent} of the Ray cluster at {address} within {NODE_CHECK_TIMEOUT_S:.0f} s; "
            "see `ray status` and that node's logs (/tmp/ray/session_latest/logs)"
        )
    try:
        answers = ray.get(pending)
    except RayError as error:
        raise RayBackendError(
            f"a node of the Ray cluster at {address} could not run the check ({type(error).__name__}); "
            f"see `ray status`, then rerun `manimgen doctor --ray {address}`"
        ) from None
    return [NodeReport(name, node["Resources"].get(RESOURCE, 0.0), checks) for name, node, checks in zip(names, nodes, answers)]
