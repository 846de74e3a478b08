#!/usr/bin/env bash
# Starts a private single-node Slurm (slurmctld + slurmd) on this machine, for the tests of examples/slurm/
# (test/e2e/slurm-array.e2e.test.ts). Everything lives in DIR: the configuration, state, spool, logs and pid files;
# nothing under /etc or /var is read or written, so several can run side by side and stopping one
# (scripts/slurm/stop-local.sh DIR) leaves nothing behind.
#
#   scripts/slurm/start-local.sh DIR [CPUS]    then: export SLURM_CONF=DIR/slurm.conf
#
# CPUS (default 4) is how many CPUs the node declares, whatever the machine has (SlurmdParameters=
# config_overrides): the tests run 4 array tasks at once on a 2-core machine, as the shard tests run 3 processes.
#
# Built for a sandbox without systemd or cgroups, as root: auth/none and cred/none (Debian's Slurm 22.05 still
# ships them; no munged to run), proctrack/linuxproc, task/none, jobacct_gather/none, no accounting database.
# Never use this configuration on a real cluster: auth/none trusts whoever connects to the ports.
set -euo pipefail

dir="${1:?usage: start-local.sh DIR [CPUS]}"
cpus="${2:-4}"
node=mlrb-node
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
mkdir -p "$dir/state" "$dir/spool"

for command in slurmctld slurmd sinfo scontrol; do
  command -v "$command" >/dev/null || { echo "start-local.sh: $command is not installed (scripts/slurm/install.sh)" >&2; exit 3; }
done
[ "$(id -u)" = 0 ] || { echo "start-local.sh: slurmd must run as root to start jobs" >&2; exit 3; }

# A TCP port nobody listens on (state 0A in /proc/net/tcp*), with the next one free too.
listening_ports() {
  local _ address state
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | while read -r _ address _ state _; do
    [ "$state" = 0A ] && echo "$((16#${address##*:}))"
  done
}
free_port_pair() {
  local used port
  used=" $(listening_ports | tr '\n' ' ') "
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 40000))
    if [[ "$used" != *" $port "* && "$used" != *" $((port + 1)) "* ]]; then echo "$port"; return 0; fi
  done
  return 1
}

write_config() {
  local port="$1"
  cat >"$dir/slurm.conf" <<EOF
ClusterName=mlrb-test
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
# Pending jobs are looked at every second (default 60), and a requeued job may start again after 5 s (default
# 120, the credential lifetime): the tests wait for both.
SchedulerParameters=sched_interval=1
AuthInfo=cred_expire=5
SlurmdParameters=config_overrides
ReturnToService=2
# Seconds between a cancelled job's SIGTERM and its SIGKILL.
KillWait=5
NodeName=$node NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1024 State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
}

pid_alive() { [ -s "$1" ] && kill -0 "$(cat "$1" 2>/dev/null)" 2>/dev/null; }

# Up to three port pairs: another program may take a port between the check and slurmctld's bind.
export SLURM_CONF="$dir/slurm.conf"
started=false
for _ in 1 2 3; do
  port="$(free_port_pair)" || { echo "start-local.sh: no free port pair found" >&2; exit 1; }
  write_config "$port"
  rm -f "$dir"/*.pid
  slurmctld -f "$SLURM_CONF" -i
  # The controller answers (sinfo succeeds) within a few seconds, or it failed to bind and has exited.
  for _ in $(seq 1 50); do
    if sinfo -h >/dev/null 2>&1; then started=true; break; fi
    pid_alive "$dir/slurmctld.pid" || sleep 0.2
    sleep 0.2
  done
  "$started" && break
  pid_alive "$dir/slurmctld.pid" && kill "$(cat "$dir/slurmctld.pid")"
  echo "start-local.sh: slurmctld did not answer on port $port; trying another" >&2
done
"$started" || { tail -n 20 "$dir/slurmctld.log" >&2 || true; exit 1; }

slurmd -f "$SLURM_CONF" -N "$node"
# The node registers and turns idle within seconds; give up after 30.
for _ in $(seq 1 150); do
  state="$(sinfo -h -n "$node" -o %t 2>/dev/null || true)"
  if [ "$state" = idle ]; then
    echo "slurm up in $dir: controller port $port, node $node idle with $cpus CPUs (export SLURM_CONF=$SLURM_CONF)"
    exit 0
  fi
  sleep 0.2
done
echo "start-local.sh: node $node is '${state:-unknown}', not idle, after 30 s" >&2
tail -n 20 "$dir/slurmd.log" "$dir/slurmctld.log" >&2 || true
"$(dirname "$0")/stop-local.sh" "$dir" >&2 || true
exit 1
