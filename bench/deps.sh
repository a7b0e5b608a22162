#!/bin/bash
# Install, idempotently, the Debian packages the benchmark needs beyond
# scripts/deps.sh's: gnuplot (no X) for the plot. One line per step; apt's
# output in build/logs/deps.log.
set -euo pipefail

tag=bench-deps
. "$(dirname "$0")/../scripts/lib/apt.sh"
apt_install "the benchmark's plot" -- gnuplot-nox python3
