#!/usr/bin/env bash
# Wall time of one mlrb-eval run submitted with examples/slurm/submit.sh as 1 array task and as N, on a private
# single-node Slurm (start-local.sh, stopped at the end): seconds from submission until the merge job has
# finished, and the merged run's own mlrb.wall_time_s (first shard start to last shard end). A measurement for
# docs/scale-out.md, not a test: the machine's other load moves it.
#
#   scripts/slurm/time-array.sh WORK_DIR "1 4" MODEL --tasks … [mlrb-eval flags]
set -euo pipefail

if [ "$#" -lt 4 ]; then
  echo 'usage: time-array.sh WORK_DIR "1 4" MODEL --tasks … [mlrb-eval flags]' >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$1"
counts="$2"
shift 2
mkdir -p "$work/bin"
work="$(cd "$work" && pwd)"
ln -sf "$root/bin/mlrb-eval.js" "$work/bin/mlrb-eval"
export PATH="$work/bin:$(dirname "$(command -v node)"):$PATH:/usr/sbin"

"$here/start-local.sh" "$work/cluster" 4 >&2
trap '"$here/stop-local.sh" "$work/cluster"' EXIT
export SLURM_CONF="$work/cluster/slurm.conf"

echo "| array tasks | submit to merged results | mlrb.wall_time_s | first result |"
echo "|---|---|---|---|"
for count in $counts; do
  run="$work/run-$count"
  started="$(date +%s.%N)"
  "$root/examples/slurm/submit.sh" "$run" "$count" "$@" >&2
  merge="$(sed -n 's/^merge_job=\([0-9]*\)$/\1/p' "$run/jobs.env")"
  while :; do
    state="$(scontrol show job -o "$merge" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')"
    case "$state" in
      COMPLETED) break ;;
      PENDING | RUNNING | COMPLETING | CONFIGURING) sleep 0.2 ;;
      *) echo "time-array.sh: merge job $merge ended $state; see $run/logs" >&2; exit 1 ;;
    esac
  done
  ended="$(date +%s.%N)"
  node -e '
    const [file, count, seconds] = process.argv.slice(1);
    const results = JSON.parse(require("node:fs").readFileSync(file, "utf8"));
    const [task, metrics] = Object.entries(results.results)[0];
    const [metric, value] = Object.entries(metrics).find(([key, v]) => typeof v === "number" && !key.includes("stderr"));
    console.log(`| ${count} | ${Number(seconds).toFixed(1)} s | ${results.mlrb.wall_time_s.toFixed(1)} s | ${task} ${metric} ${value} |`);
  ' "$run/results.json" "$count" "$(awk "BEGIN { print $ended - $started }")"
done
