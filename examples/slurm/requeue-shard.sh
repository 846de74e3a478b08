#!/usr/bin/env bash
# Requeues shard I of a run that examples/slurm/submit.sh submitted, whether its task is running, failed or was
# cancelled: it starts again from its score cache, and the merge waits for it.
#
#   examples/slurm/requeue-shard.sh RUN_DIR I
#
# Preemption and `scontrol requeue` of a running task need nothing more. But once a task has been cancelled
# (scancel) or failed, Slurm (22.05, checked) marks the merge's afterok dependency on the array failed for good,
# and a requeue does not revive it: the merge would stay pending as DependencyNeverSatisfied. So the merge is
# then told to wait for each task by its own id, which follows the task's latest run.
set -euo pipefail

if [ "$#" -ne 2 ]; then
  echo "usage: requeue-shard.sh RUN_DIR I" >&2
  exit 2
fi
run="$1"
index="$2"
# jobs.env is read as data, not sourced: only whole numbers are taken from it.
field() { sed -n "s/^$1=\([0-9][0-9]*\)$/\1/p" "$run/jobs.env"; }
array="$(field array_job)"
merge="$(field merge_job)"
shards="$(field shards)"
[ -n "$array" ] && [ -n "$merge" ] && [ -n "$shards" ] || { echo "requeue-shard.sh: $run/jobs.env does not name the jobs" >&2; exit 2; }
[[ "$index" =~ ^[0-9]+$ ]] && [ "$index" -lt "$shards" ] || { echo "requeue-shard.sh: I must be 0 … $((shards - 1)), got '$index'" >&2; exit 2; }

scontrol requeue "${array}_$index"
tasks="$(seq -s : -f "${array}_%g" 0 $((shards - 1)))"
scontrol update JobId="$merge" Dependency="afterok:$tasks"
echo "shard $index requeued (job ${array}_$index); merge job $merge waits for ${tasks//:/ }"
