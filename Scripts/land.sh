#!/usr/bin/env bash
# Lands the current branch of a git worktree on main, the way CONTRIBUTING.md's "Landing work on
# main" says: merge main in, build the tests warning-free, run the whole suite, lint, then
# fast-forward main. One landing at a time (a lock in the common git directory), so two worktrees
# never fast-forward main past each other's untested state.
#
#   Scripts/land.sh            from a worktree whose branch is ready (everything committed)
#   SKIP_TESTS=1 Scripts/land.sh   for a change of documentation only (still builds and lints)
#
# Exits non-zero, with main untouched, at the first step that fails; the suite's whole output is in
# .build/test-output.txt of the worktree.
set -euo pipefail
SWIFT=${SWIFT:-swift}
worktree=$(git rev-parse --show-toplevel)
branch=$(git rev-parse --abbrev-ref HEAD)
common=$(cd "$(git rev-parse --git-common-dir)" && pwd)
cd "$worktree"

if [ "$branch" = "main" ]; then
  echo "land: run this from a worktree branch, not main" >&2
  exit 2
fi
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "land: commit or stash your changes first" >&2
  exit 2
fi

exec 9>"$common/retain-graph-land.lock"
echo "land: waiting for the landing lock"
flock 9
echo "land: $branch onto main ($(git rev-parse --short main))"

git merge --no-edit main

log=$(mktemp)
if ! "$SWIFT" build --build-tests 2>&1 | tee "$log" | grep -E "error:|warning:" ; then :; fi
if grep -E "^/.*(Sources|Tests|Samples)/.*(warning|error):" "$log" >/dev/null; then
  echo "land: the build has warnings or errors (above); main is untouched" >&2
  exit 1
fi
if ! grep -qE "Build complete|Compiling|Linking" "$log" || grep -q "error:" "$log"; then
  echo "land: the build failed; main is untouched" >&2
  tail -n 30 "$log" >&2
  exit 1
fi
rm -f "$log"

if [ "${SKIP_TESTS:-0}" != "1" ]; then
  if ! SWIFT="$SWIFT" bash Scripts/run-tests.sh; then
    echo "land: the suite failed; main is untouched" >&2
    exit 1
  fi
fi
if ! "$SWIFT" format lint --strict -r Sources Tests Samples Benchmarks/Sources Package.swift; then
  echo "land: lint failed; main is untouched" >&2
  exit 1
fi

# main's worktree (if any) follows the fast-forward only when it is clean.
main_tree=$(git worktree list --porcelain | awk '/^worktree /{w=$2} /^branch refs\/heads\/main$/{print w}')
if [ -n "$main_tree" ]; then
  if [ -n "$(git -C "$main_tree" status --porcelain --untracked-files=no)" ]; then
    echo "land: main's worktree ($main_tree) has uncommitted changes; not moving it" >&2
    exit 1
  fi
  git -C "$main_tree" merge --ff-only "$branch"
else
  git update-ref refs/heads/main "$(git rev-parse HEAD)" "$(git rev-parse main)"
fi
echo "land: main is now $(git rev-parse --short main)"
