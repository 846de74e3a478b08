#!/usr/bin/env bash
# Installs Debian's Slurm (slurmctld, slurmd and the client commands; 22.05 on Debian 12) for
# test/e2e/slurm-array.e2e.test.ts, as root with apt-get. It starts no service: the test starts a private
# single-node cluster of its own (start-local.sh). Does nothing where Slurm is already installed.
set -euo pipefail

packages=(slurmctld slurmd slurm-client)
if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null; then
  echo "Slurm is installed: $(slurmctld -V)"
  exit 0
fi
[ "$(id -u)" = 0 ] || { echo "install.sh: apt-get needs root" >&2; exit 1; }

# The packages would start munged, slurmctld and slurmd at install through invoke-rc.d; policy-rc.d's 101 says
# no. Containers usually have one already; if not, one is put in place for the install and removed after.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod +x "$policy"
  trap 'rm -f "$policy"' EXIT
fi

export DEBIAN_FRONTEND=noninteractive
install() { apt-get install -y -q --no-install-recommends "${packages[@]}" >/dev/null; }
# The package lists may be missing or stale on a fresh machine: update them only then.
install || { apt-get update -q >/dev/null && install; }
echo "Slurm installed: $(slurmctld -V)"
