#!/bin/bash
# .ci/golden.sh CLI_JS OUTDIR: every document of the demo corpus and of every archive in ../shared/real-world,
# in every format (with --details), and of the synthesised corpora, wall-clock times masked. Run it
# before and after a refactor and `diff -r` the two folders: a step that moves code changes no byte.
set -u
# one run at a time: every run writes the demo corpus at the same path (the scan id derives from it)
exec 9>/tmp/assay-golden.lock; flock 9
CLI=$(realpath $1); OUT=$(realpath -m $2); rm -rf "$OUT"; mkdir -p "$OUT"
W=/tmp/assay-golden-W; rm -rf $W; mkdir -p $W; (cd "$W" && node "$CLI" demo --out demo >/dev/null 2>&1)
R="${ASSAY_SHARED_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/shared}/real-world"
declare -A ROOTS=(
  [demo]="$W/demo"
  [demo-runs]="$W/demo/runs"
  [demo-jobs]="$W/demo/jobs"
  [demo-logs]="$W/demo/logs"
  [demo-swe]="$W/demo/swe"
  [harbor-jobs]="$R/harbor-jobs"
  [inspect]="$R/inspect"
  [inspect-more]="$R/inspect-more"
  [tb]="$R/terminal-bench"
)
for k in "${!ROOTS[@]}"; do
  for f in json md html junit jsonl table; do
    node "$CLI" score "${ROOTS[$k]}" -f $f -q --details -o - > "$OUT/$k.$f" 2>"$OUT/$k.$f.err"; echo "exit $?" >> "$OUT/$k.$f.err"
  done
done
# synth corpora of every kind
for kind in native-game world harbor inspect swe-bench; do
  (cd "$W" && node "$CLI" synth --profile $kind --n 12 $([ $kind = native-game ] && echo --faults) --out "s-$kind" >/dev/null 2>&1; node "$CLI" score "s-$kind" -f json -q --details -o - > "$OUT/synth-$kind.json" 2>"$OUT/synth-$kind.err"; cp "s-$kind/synth-manifest.json" "$OUT/synth-$kind.manifest" 2>/dev/null)
done
# mask wall-clock and scratch paths
sed -i -E 's/'"$(date +%Y-%m-%d)"'T[0-9:.]+Z/NOW/g; s#'"$W"'#W#g' "$OUT"/* 
rm -rf "$W"
