#!/usr/bin/env bash
# Write requirements.lock: the exact version of every package the set-up installs (all extras but gpu),
# resolved by uv from pyproject.toml's ranges. scripts/setup.sh installs with it as pip constraints.
#   bash scripts/lock.sh                      resolve afresh, within the ranges
#   bash scripts/lock.sh -c CONSTRAINTS.txt   keep the versions a tested environment has (`pip freeze`)
#   LOCK=requirements-manim-0.19.lock bash scripts/lock.sh -c <(echo manim==0.19.0; echo av==13.1.0)   the paper's Manim
set -euo pipefail
cd "$(dirname "$0")/.."

uv=${UV:-uv}
lock=${LOCK:-requirements.lock}
command -v "$uv" >/dev/null || { echo "uv is not installed: pip install uv (or set UV=/path/to/uv)" >&2; exit 1; }
extras=(llamacpp bench train serve notebook ray test model-0-5b model-1-5b)
{
  echo "# The exact versions scripts/setup.sh installs (pip constraints); written by scripts/lock.sh from pyproject.toml."
  echo "# torch is the CPU build where one is offered (the +cpu wheel satisfies torch==X)."
  "$uv" pip compile pyproject.toml --python-version "$(python3 -c 'import platform; print(platform.python_version())')" \
    "${extras[@]/#/--extra=}" --find-links /opt/wheels --native-tls --no-header --no-annotate "$@" | sed 's/+cpu$//'
} > "$lock.new"
mv "$lock.new" "$lock"
echo "$lock: $(grep -vc '^#' "$lock") packages"
