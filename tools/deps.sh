#!/bin/sh
# Install the Debian packages warphunt builds and tests with.  Idempotent:
# packages already present are not reinstalled.  Uses sudo when not root.
set -e
PKGS="build-essential clang libz3-dev libjansson-dev libcriterion-dev libgsl-dev libopenmpi-dev openmpi-bin gnuplot-nox librsvg2-bin"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
  echo "deps: all present ($PKGS)"
else
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "deps: installing$missing"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
if ! command -v nvcc >/dev/null 2>&1 && [ -z "$CUDA_HOME" ] && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "deps: warning: nvcc (CUDA toolkit) not found; it is needed to compile kernels/*.cu to PTX." >&2
  echo "      Install the CUDA toolkit from NVIDIA and set CUDA_HOME or put nvcc on PATH." >&2
fi
