#!/usr/bin/env bash
# Lands BRANCH through Scripts/land.sh from a worktree kept for landing (beside this checkout:
# ../wt-land, on the branch `landing`, reset to BRANCH first), so that BRANCH's own worktree stays
# free to edit while the landing builds, runs the whole suite and lints (land.sh lints the working
# tree it runs in, and a change made there meanwhile would be linted or built half-done).
#   Scripts/land-branch.sh lead [LOG]      # LOG: where the landing's output goes (default: stdout)
set -euo pipefail
branch=${1:?usage: Scripts/land-branch.sh BRANCH [LOG]}
log=${2:-/dev/stdout}
top=$(git rev-parse --show-toplevel)
landing="$(dirname "$top")/wt-land"
git rev-parse --verify --quiet "$branch" > /dev/null || { echo "land-branch: no branch $branch" >&2; exit 2; }
if [ ! -d "$landing" ]; then
  git worktree add "$landing" -B landing "$branch"
fi
git -C "$landing" reset --quiet --hard "$branch"
cd "$landing"
bash Scripts/land.sh > "$log" 2>&1
