#!/usr/bin/env bash
# GPU check: what a maintainer runs on a GPU machine to prove the GPU path (< 5 minutes).
#
# Needs: an NVIDIA driver, Docker with the NVIDIA container toolkit (`docker run --gpus 1 ...`
# works), the repo's venv (.venv with the dev extras), and a CUDA torch wheelhouse in
# .cache/wheelhouse/engine-cuda (see sandbox/images/Dockerfile.cuda; fetched here with pip if
# the machine can reach the package index and the folder is empty).
#
#   sandbox/gpu_check.sh            # uses GPU 0 (or JUDGE_TEST_GPU_ID=<index|UUID>)
#
# Steps: (1) show the GPU and the toolkit, (2) build or reuse tensor-judge-sandbox:cuda via
# scripts/build_images (content-hash cached), (3) run the tests marked `gpu` (the Docker backend
# hands exactly one GPU, by id, with compute+utility; the runner's CUDA timing path), with
# CI=true so a missing piece fails instead of skipping, (4) judge the reference of problem 48
# on the GPU through the grader and the Docker backend and print the JSON result.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CI=true
GPU="${JUDGE_TEST_GPU_ID:-0}"
export JUDGE_TEST_GPU_ID="$GPU" JUDGE_SANDBOX_GPU_IMAGE="${JUDGE_SANDBOX_GPU_IMAGE:-tensor-judge-sandbox:cuda}"
step() { printf '\n== %s (%ds)\n' "$*" "$SECONDS"; }

step "1. GPU and container toolkit"
nvidia-smi -L
docker info --format '{{json .Runtimes}}' | grep -q nvidia \
    || echo "warning: no 'nvidia' runtime registered; --gpus may still work through CDI"

step "2. CUDA sandbox image"
WH=.cache/wheelhouse/engine-cuda
if ! compgen -G "$WH/torch-*.whl" >/dev/null; then
    mkdir -p "$WH"
    .venv/bin/python -m pip download --only-binary=:all: -d "$WH" \
        --index-url "${TORCH_CUDA_INDEX:-https://download.pytorch.org/whl/cu128}" \
        --extra-index-url https://pypi.org/simple torch==2.13.0 numpy
fi
scripts/build_images cuda

step "3. tests marked gpu"
.venv/bin/python -m pytest -q -m gpu -p no:cacheprovider tests/sandbox

step "4. one judged submission on GPU $GPU"
.venv/bin/python - "$GPU" <<'PY'
import json, sys
from pathlib import Path
from sandbox.host.backends.base import get_backend
from sandbox.grader.contracts import Mode, Verdict
from sandbox.grader.entry import judge
from sandbox.grader.package import load_package

# A GPU problem of the catalog if there is one (its tests then run on the device), else 48.
packages = [load_package(p.parent) for p in sorted(Path("problems").glob("*/problem.toml"))]
package = next((p for p in packages if p.device in ("gpu", "any")), None) or next(
    p for p in packages if p.number == 48)
source = (package.path / "solution.py").read_text()
backend = get_backend("docker", gpu_image="tensor-judge-sandbox:cuda", gpu_ids=[sys.argv[1]])
result = judge(package, source, mode=Mode.SUBMIT, backend=backend, gpu_id=sys.argv[1])
print(package.folder_name, json.dumps(result.to_json(), indent=1)[:4000])
assert result.verdict == Verdict.AC, result.verdict
assert "cuda" in json.dumps(result.environment).lower(), result.environment
PY
step "GPU check passed"
