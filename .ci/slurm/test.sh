#!/usr/bin/env bash
# The Slurm test (issue 24): a one-node cluster from nothing runs docs/scale.md's Slurm recipe
# (read from the page: the block marked `sh norun slurm`) over a synthesised corpus. The merged
# document must equal one run's, apart from `run`. Then the recipe again, with one shard requeued
# mid-run: it must resume from its store (bundles taken from it > 0) and the merge still equal one
# run. Needs dist/ (.ci/run calls it after npm test). Prints one line on success or on failure (with
# the daemons' log tails), and exits 0 or 1.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)

if [ -z "${ASSAY_SLURM_INSIDE:-}" ]; then
  need=()
  for p in slurmctld:slurmctld slurmd:slurmd sbatch:slurm-client munged:munge; do
    command -v "${p%%:*}" >/dev/null 2>&1 || need+=("${p#*:}")
  done
  if [ "${#need[@]}" -gt 0 ]; then
    echo "slurm test: installing ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt_log=$(mktemp)
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}"; } >"$apt_log" 2>&1 \
      || { echo "slurm test: FAILED: apt-get install ${need[*]} failed"; tail -n 15 "$apt_log"; rm -f "$apt_log"; exit 1; }
    rm -f "$apt_log"
  fi
  # A network namespace with only loopback (slurmctld binds every address), a pid namespace so
  # nothing started inside outlives the test, and a mount namespace for that pid namespace's /proc.
  exec env ASSAY_SLURM_INSIDE=1 unshare --net --pid --fork --mount --mount-proc bash "$0" "$@"
fi

started=$SECONDS
SLURM_TMP=$(mktemp -d "${TMPDIR:-/tmp}/assay-slurm.XXXXXX")
export SLURM_TMP
# A tmpfs of this mount namespace: the corpus and stores are written and removed in memory, and
# vanish with the namespace if the test is killed.
mount -t tmpfs -o size=2g,mode=700 assay-slurm "$SLURM_TMP" || { echo "slurm test: FAILED: cannot mount a tmpfs on $SLURM_TMP"; rmdir "$SLURM_TMP"; exit 1; }
. "$REPO/.ci/slurm/cluster.sh"
WORK=$SLURM_TMP/work
jobs_submitted=()

finish() {
  local status=$?
  [ "${#jobs_submitted[@]}" -gt 0 ] && scancel "${jobs_submitted[@]}" 2>/dev/null
  stop_cluster
  cd / && umount "$SLURM_TMP" && rmdir "$SLURM_TMP"
  exit "$status"
}
trap finish EXIT

fail() {
  echo "slurm test: FAILED: $*"
  log_tails "$WORK"/shards/*.log 2>/dev/null
  exit 1
}

# The jobs run assay from this checkout's dist/, by the name the recipe uses.
mkdir -p "$WORK/bin"
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$(command -v node)" "$REPO/dist/cli.js" >"$WORK/bin/assay"
chmod 755 "$WORK/bin/assay"
export PATH="$WORK/bin:$PATH"

# The recipe, as the page shows it.
recipe=$(awk '/^```sh norun slurm$/ { on = 1; next } on && /^```/ { exit } on' "$REPO/docs/scale.md")
[ -n "$recipe" ] || fail "docs/scale.md has no \`\`\`sh norun slurm block"

start_cluster || fail "the cluster did not start: $why"
echo "slurm test: cluster up in $((SECONDS - started)) s"

cd "$WORK" || fail "no work folder"
timeout 120 assay synth --out runs --n 4000 --seed slurm-ci >/dev/null 2>&1 || fail "assay synth failed"
timeout 120 assay score runs --format json --out single.json --quiet || fail "the single run failed (exit $?)"

# job_field JOB FIELD: one field of scontrol show job (JobState, Reason, Restarts, …).
job_field() { scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }

# submit: runs the recipe in $WORK; sets array, last (its last task), merge and results from the
# line the script prints.
submit() {
  local out
  out=$(timeout 60 bash -euo pipefail -c "$recipe" 2>&1) || fail "the recipe failed: $out"
  [[ $out =~ shards\ job\ ([0-9]+)\ \(array\ 0-([0-9]+)\).*merge\ job\ ([0-9]+)\;\ results\ in\ (.*)$ ]] || fail "the recipe printed no job ids: $out"
  array=${BASH_REMATCH[1]} last=${BASH_REMATCH[2]} merge=${BASH_REMATCH[3]} results=${BASH_REMATCH[4]}
  jobs_submitted+=("$array" "$merge")
}

merge_done() {
  local state reason
  state=$(job_field "$merge" JobState) reason=$(job_field "$merge" Reason)
  case "$state" in
    COMPLETED) return 0 ;;
    FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) fail "the merge job $merge ended $state" ;;
  esac
  [ "$reason" = DependencyNeverSatisfied ] && fail "the merge job $merge can never start (DependencyNeverSatisfied)"
  return 1
}

same_as_single() {
  node -e '
    const fs = require("fs");
    const read = (f) => { const d = JSON.parse(fs.readFileSync(f, "utf8")); delete d.run; return JSON.stringify(d); };
    process.exit(read(process.argv[1]) === read(process.argv[2]) ? 0 : 1);
  ' "$1" single.json
}

# 1. The recipe as it is: every shard, then the merge, equal to the single run.
t=$SECONDS
submit
wait_for "merge job $merge" 90 merge_done || fail "$waited (state $(job_field "$merge" JobState), reason $(job_field "$merge" Reason))"
same_as_single "$results" || fail "$results differs from the single run (apart from run)"
echo "slurm test: $((last + 1)) shards and the merge in $((SECONDS - t)) s, equal to the single run"

# 2. Again from nothing, with a shard requeued mid-run (its store holds results, its document is
# not written yet): it must resume from its store. A shard scores in seconds: when it finishes
# between being seen mid-run and the requeue taking effect, the case did not happen, and it is
# tried again (three times at most).
t=$SECONDS
rows() { node -e '
  const Database = require(process.argv[1]);
  try { const db = new Database(process.argv[2], { readonly: true, fileMustExist: true });
        console.log(db.prepare("SELECT count(*) AS n FROM results").get().n); } catch { console.log(0); }
' "$REPO/node_modules/better-sqlite3" "$1"; }
mid_run() {
  local i
  for ((i = 0; i <= last; i++)); do
    [ "$(job_field "${array}_$i" JobState)" = RUNNING ] || continue
    [ -e "shards/shard-$i.json" ] && continue
    [ "$(rows "shards/store-$i.sqlite")" -gt 0 ] && { victim=$i; return 0; }
  done
  return 1
}
for try in 1 2 3; do
  rm -rf shards
  submit
  victim=""
  wait_for "a shard running with results in its store" 60 mid_run || fail "no shard was caught mid-run: $waited"
  scontrol requeue "${array}_$victim" || fail "scontrol requeue ${array}_$victim failed"
  wait_for "merge job $merge after the requeue" 90 merge_done || fail "$waited (state $(job_field "$merge" JobState), reason $(job_field "$merge" Reason))"
  log=shards/shard-$victim.log
  restarts=$(job_field "${array}_$victim" Restarts)
  [ "$restarts" = 1 ] || fail "shard $victim was not restarted once (Restarts=$restarts)"
  # The killed run wrote no document; the requeued one did, once (the log is appended to).
  [ "$(grep -c '^assay: wrote ' "$log")" = 1 ] && break
  [ "$try" = 3 ] && fail "$log: the killed run finished before the requeue, three times"
  echo "slurm test: shard $victim finished before its requeue took effect (try $try): again"
done
taken=$(grep -o '([0-9]* from store)' "$log" | tail -n 1 | tr -dc 0-9)
[ "${taken:-0}" -gt 0 ] || fail "shard $victim did not resume from its store: $(tail -n 1 "$log")"
same_as_single "$results" || fail "$results after the requeue differs from the single run (apart from run)"
echo "slurm test: shard $victim requeued mid-run resumed with $taken bundles from its store; merge equal to the single run, in $((SECONDS - t)) s"

echo "slurm test: passed in $((SECONDS - started)) s"
