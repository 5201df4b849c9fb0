#!/usr/bin/env bash
# Counts the public declarations of the four library products (RetainGraph, RetainGraphRendering,
# RetainGraphTesting, RetainGraphCensus) from their symbol graphs: every symbol with public or open
# access that the module declares, its extensions of other modules' types included (such as
# `Trait.heapCensus`, in `RetainGraphTesting@Testing.symbols.json`); members a type only inherits
# or gets from a protocol's default implementation are not counted (--skip-synthesized-members).
# Prints one line per module and the total.
#   Scripts/count-public-api.sh              # builds (debug, .build) and counts
#   SYMBOL_GRAPHS=DIR Scripts/count-public-api.sh   # counts the symbol graphs already in DIR
set -euo pipefail
SWIFT=${SWIFT:-swift}
cd "$(git rev-parse --show-toplevel)"
modules=(RetainGraph RetainGraphRendering RetainGraphTesting RetainGraphCensus)
dir=${SYMBOL_GRAPHS:-}
if [ -z "$dir" ]; then
  output=$("$SWIFT" package dump-symbol-graph --skip-synthesized-members --minimum-access-level public 2>&1) || {
    echo "$output" >&2
    exit 1
  }
  # "Files written to /path/.build/<triple>/symbolgraph"
  dir=$(echo "$output" | sed -n 's/^Files written to //p' | tail -1)
  [ -d "$dir" ] || { echo "error: no symbol graph folder in the output of dump-symbol-graph:" >&2; echo "$output" >&2; exit 1; }
fi
total=0
for module in "${modules[@]}"; do
  files=("$dir/$module.symbols.json")
  for extension in "$dir/$module@"*.symbols.json; do
    [ -e "$extension" ] && files+=("$extension")
  done
  [ -e "${files[0]}" ] || { echo "error: no symbol graph for $module in $dir" >&2; exit 1; }
  count=$(jq -s '[.[].symbols[] | select(.accessLevel == "public" or .accessLevel == "open")] | length' "${files[@]}")
  printf '%-22s %5d\n' "$module" "$count"
  total=$((total + count))
done
printf '%-22s %5d\n' total "$total"
