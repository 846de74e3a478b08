#!/usr/bin/env bash
# Stops a Slurm started by scripts/slurm/start-local.sh DIR: cancels its jobs, shuts the daemons down, and kills
# (by the pids in DIR, never by name) whichever has not exited within 20 s. Safe to run twice.
set -uo pipefail

dir="${1:?usage: stop-local.sh DIR}"
export SLURM_CONF="$dir/slurm.conf"
[ -f "$SLURM_CONF" ] || exit 0

pid_alive() { [ -s "$1" ] && kill -0 "$(cat "$1" 2>/dev/null)" 2>/dev/null; }

if pid_alive "$dir/slurmctld.pid"; then
  # Jobs first: slurmstepd outlives slurmd, and a job left running would outlive the test.
  scancel --full --quiet --state=PENDING,RUNNING,SUSPENDED --user=root 2>/dev/null
  for _ in $(seq 1 100); do
    [ -z "$(squeue -h -t RUNNING,COMPLETING -o %i 2>/dev/null)" ] && break
    sleep 0.2
  done
  scontrol shutdown >/dev/null 2>&1
fi
for _ in $(seq 1 100); do
  pid_alive "$dir/slurmd.pid" || pid_alive "$dir/slurmctld.pid" || exit 0
  sleep 0.2
done
for daemon in slurmd slurmctld; do
  pid_alive "$dir/$daemon.pid" && kill -9 "$(cat "$dir/$daemon.pid")" && echo "stop-local.sh: $daemon killed" >&2
done
exit 0
