#!/bin/bash
# The README's pWCET example, regenerated: a short hunt of the bundled
# kernel `artificial` on the sim keeping its 3 hardest inputs, a campaign
# of 1000 runs of each with 2 % emulated measurement noise (--sim-noise:
# the sim itself is exact), and the pWCET report of the hardest input.
# The noise is Gaussian by construction, so the example shows the method
# and its outputs, not the tail of a real GPU's times.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/pwcet
rm -rf "$out/run" "$out/campaign"
./warphunt hunt artificial --backend sim --evals 300 --keep 3 --drop-state --no-explain --quiet -o "$out/run"
rm -f "$out/run/paths.json"   # the explore cache's, large and not needed here
./warphunt campaign "$out/run" --backend sim --sim-noise 0.02 --runs 1000 --quiet -o "$out/campaign"
./warphunt pwcet "$out/campaign" --quiet
