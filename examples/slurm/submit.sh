#!/usr/bin/env bash
# Scores one mlrb-eval run on Slurm: a job array of N shards, then a merge job that starts once every shard
# has succeeded (afterok). Run it where sbatch works, with mlrb-eval and node on the PATH the jobs inherit.
#
#   examples/slurm/submit.sh RUN_DIR N MODEL --tasks … [other mlrb-eval flags]
#
# RUN_DIR must be on a filesystem every node sees. It receives shards/ (shard-I-of-N.json), cache/ (one
# --use-cache folder per shard), logs/, jobs.env (the job ids, for requeue-shard.sh) and, from the merge,
# results.json and samples.jsonl. Submitting again with the same RUN_DIR and N keeps every finished shard
# and resumes the others from their caches. Slurm's own options (partition, account, time limit) come from
# the SBATCH_* environment variables, or from the #SBATCH lines of shard.sbatch and merge.sbatch.
set -euo pipefail

if [ "$#" -lt 3 ]; then
  echo "usage: submit.sh RUN_DIR N MODEL --tasks … [mlrb-eval flags]" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
run="$1"
shards="$2"
shift 2
[[ "$shards" =~ ^[1-9][0-9]{0,4}$ ]] || { echo "submit.sh: N must be a whole number from 1, got '$shards'" >&2; exit 2; }

mkdir -p "$run/shards" "$run/cache" "$run/logs"
run="$(cd "$run" && pwd)"

# The jobs get the run folder and N as arguments, not through the environment, which a cluster may not pass on.
# --parsable prints "id" or "id;cluster".
array="$(sbatch --parsable --array="0-$((shards - 1))" --output="$run/logs/shard-%a-of-$shards.log" \
  "$here/shard.sbatch" "$run" "$shards" "$@")"
array="${array%%;*}"
merge="$(sbatch --parsable --dependency="afterok:$array" --output="$run/logs/merge.log" \
  "$here/merge.sbatch" "$run" "$shards")"
merge="${merge%%;*}"

printf 'array_job=%s\nmerge_job=%s\nshards=%s\n' "$array" "$merge" "$shards" >"$run/jobs.env"
echo "array job $array ($shards shards) and merge job $merge submitted; results: $run/results.json"
