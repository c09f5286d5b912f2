#!/usr/bin/env bash
# Set up manimgen on Debian 12 as root: system packages, a .venv, the Python packages, the embedded model.
#   bash scripts/setup.sh          everything, with the default 1.5B model
#   bash scripts/setup.sh --test   what the test suite needs (the 0.5B model only)
#   LOCK=requirements-manim-0.19.lock bash scripts/setup.sh   the same with the paper's Manim (0.19.0)
set -euo pipefail
cd "$(dirname "$0")/.."

extras="llamacpp,bench,train,serve,notebook,test,model-0-5b,model-1-5b"
test_packages=()
if [[ "${1:-}" == "--test" ]]; then
  extras="llamacpp,bench,train,serve,notebook,test,model-0-5b"
  test_packages=(chromium chromium-driver)  # the page's tests drive Debian's browser
fi

apt_packages=(
  pkg-config libcairo2-dev libpango1.0-dev fonts-dejavu-core
  texlive-latex-base texlive-latex-recommended texlive-latex-extra preview-latex-style dvisvgm
  bubblewrap
  espeak-ng  # the lessons' offline voice
  "${test_packages[@]}"
)
if ! dpkg -s "${apt_packages[@]}" >/dev/null 2>&1; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "missing system packages; run as root or: sudo apt-get install -y ${apt_packages[*]}" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${apt_packages[@]}" >/dev/null
fi

python=${PYTHON:-python3}
[[ -x .venv/bin/python ]] || "$python" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# llama-cpp-python compiles from source: a portable build, not one tied to this CPU.
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF}"
# Exact versions from requirements.lock (the newest Manim) or $LOCK (scripts/lock.sh writes it from pyproject.toml's ranges).
.venv/bin/python -m pip install -q -c "${LOCK:-requirements.lock}" -e ".[${extras}]"
.venv/bin/manimgen doctor || true
