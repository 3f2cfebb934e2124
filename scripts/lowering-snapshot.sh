#!/usr/bin/env bash
# Snapshots what gp-opt makes of every example and test input, for
# refactors that must not change behaviour: run it with the build before
# and after the change and compare the two folders (diff -r).
#
#   bash scripts/lowering-snapshot.sh GP_OPT OUT_DIR
#
# For each .mlir under examples/ and test/: gp-pipeline with target=host,
# target=cuda and without a target, and convert-gp-to-runtime alone on each
# split of the input (host and cuda); stdout, stderr and the exit status of
# each are kept.
set -uo pipefail
gp_opt="$1"; out="$2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$out"
cd "$root"
for f in $(find examples test -name '*.mlir' | sort); do
  name=$(echo "$f" | tr '/' '_')
  for t in host cuda; do
    timeout 120 "$gp_opt" "$f" --gp-pipeline="target=$t" -o "$out/$name.$t.mlir" 2> "$out/$name.$t.err"
    echo $? > "$out/$name.$t.rc"
    timeout 120 "$gp_opt" "$f" --split-input-file --convert-gp-to-runtime="target=$t" \
      -o "$out/$name.$t.rt.mlir" 2> "$out/$name.$t.rt.err"
    echo $? > "$out/$name.$t.rt.rc"
  done
  timeout 120 "$gp_opt" "$f" --split-input-file --gp-pipeline -o "$out/$name.none.mlir" 2> "$out/$name.none.err"
  echo $? > "$out/$name.none.rc"
done
