#!/usr/bin/env bash
# Regenerates the committed generated docs: the dialect, attribute and pass
# references (from TableGen), docs/supported-ops.md (from the
# decomposition registry) and docs/generated/SfpFunctions.md (SfpOps.def).
# test/Docs fails when they are out of date.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh spyre-docs spyre-opt
build="${SPYRE_BUILD_DIR:-build}"
mkdir -p docs/generated
cp "$build/docs/Dialect/SpyreOps.md" "$build/docs/Dialect/SpyreAttrs.md" \
   "$build/docs/Transforms/SpyrePasses.md" docs/generated/
"$build/bin/spyre-opt" --spyre-list-decompositions > docs/supported-ops.md
"$build/bin/spyre-opt" --spyre-list-sfp-functions > docs/generated/SfpFunctions.md
echo "updated docs/generated/ and docs/supported-ops.md"
