#!/usr/bin/env bash
# The release half of CI: users build tests in debug and ship in release, and `-c release` changes
# what the walk reads (specialisation, thunks, inlining, merged functions). This builds the tests
# optimised (`-c release -Xswiftc -enable-testing`, in .build-release) and runs the suites whose
# expectations are release expectations (`#if DEBUG … #else`) or whose answers depend on the code
# the compiler made (closures, tasks and frames, captures, samples, random graphs against the
# runtime), then checks every sample's report from the release command line against the debug
# goldens (Scripts/check-release-advice.sh). Exits non-zero when any of them fails.
#
# The census's leak count runs here by its suites' names (LeakSamples, LeakRandomGraphs, LeakCount):
# both of its release-only bugs (a buffer freed early, an array's elements past its recorded size)
# showed only in an optimised build.
#
# RELEASE_SUITES (a swift test --filter regular expression) overrides the list.
set -uo pipefail
SWIFT=${SWIFT:-swift}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
suites=${RELEASE_SUITES:-'SourceLocationTests|CodeLocationCLITests|DiagnosticsTests|TaskTests|TaskRemoteMirrorTests|RemoteMirrorCrossCheckTests|ClosureTests|SelfCaptureTests|GenericOwnerCaptureTests|ActorIsolationTests|SampleTests|RandomGraphTests|FrameLivenessTests|ChildTaskCensusTests|QueuedWorkTests|HiddenState|KeyPath|ClosureNaming|RetainGraphImagesTests|RetainGraphMachineCodeTests|RetainGraphRuntimeTests|LeakSamples|LeakRandomGraphs|LeakCount|LeakScopes|LeaksAtExit|LeakedCyclesXCTests|PluginLocationTests|RetainGraphStorageTests|LeakWordReading'}
start=$(date +%s)
mkdir -p .build-release
echo "Building the tests in release (.build-release)"
if ! "$SWIFT" build -c release -Xswiftc -enable-testing --build-tests --scratch-path .build-release \
  > .build-release/build.log 2>&1; then
  tail -n 40 .build-release/build.log
  echo "error: the release build of the tests failed (whole log: .build-release/build.log)" >&2
  exit 1
fi
echo "Built in $(( $(date +%s) - start )) s; running the release suites: $suites"
RETAIN_GRAPH_TEST_START=$start SWIFT="$SWIFT" \
  RUN_TESTS_LOG=.build-release/test-output.txt \
  bash Scripts/run-tests.sh -c release --scratch-path .build-release --filter "$suites"
status=$?
echo "Checking every sample's report from the release command line against the debug goldens"
RELEASE_BUILD_FLAGS="-Xswiftc -enable-testing --scratch-path .build-release" SWIFT="$SWIFT" \
  bash Scripts/check-release-advice.sh || status=1
exit $status
