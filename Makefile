# RetainGraph: `make demo` and `make test` work on a fresh machine with Swift installed.
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)

.PHONY: deps build install test test-fast test-release test-portable build-release-tests build-portable-tests snippet record-golden demo docs docs-image lint api-check count-api bench storm clean

# Graphviz (libgvc) is the only C dependency; Chromium (headless) is what the html page's browser
# test loads the page in. Both are installed when missing.
deps:
	@missing=""; \
	if pkg-config --exists libgvc 2>/dev/null; then \
	  echo "libgvc $$(pkg-config --modversion libgvc) found"; \
	else missing="graphviz"; fi; \
	if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then \
	  echo "chromium found"; \
	else missing="$$missing chromium"; fi; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if command -v apt-get >/dev/null 2>&1; then \
	  packages=""; \
	  case "$$missing" in *graphviz*) packages="pkg-config libgraphviz-dev";; esac; \
	  case "$$missing" in *chromium*) packages="$$packages chromium";; esac; \
	  echo "installing$$(printf ' %s' $$packages) with apt-get"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$packages </dev/null; \
	elif command -v brew >/dev/null 2>&1; then \
	  case "$$missing" in *graphviz*) echo "installing graphviz with brew"; brew install pkg-config graphviz;; esac; \
	  case "$$missing" in *chromium*) echo "installing chromium with brew"; brew install --cask chromium;; esac; \
	else \
	  echo "error: missing:$$missing, and neither apt-get nor brew is available; install Graphviz 2.43 or later with its headers (pkg-config libgvc) and Chromium" >&2; \
	  exit 1; \
	fi
	@pkg-config --exists libgvc || { echo "error: pkg-config still cannot find libgvc after installing" >&2; exit 1; }
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { echo "error: chromium is still missing after installing" >&2; exit 1; }

build: deps
	$(SWIFT) build

# The whole check CI runs: the build, the package made from the README's snippet, every test. Quiet:
# a passing test prints no line and known issues (expected failures) are counted, not shown; every
# other line (a failure, a crash, what a test prints) shows, and a summary ends the run. The whole
# test output is in .build/test-output.txt; VERBOSE=1 shows it as it comes.
# Installs the retain-graph command line (release build) as $(PREFIX)/bin/retain-graph, e.g.
# make install PREFIX=$$HOME/.local. It uses the Swift toolchain's runtime libraries where they are.
PREFIX ?= /usr/local
install: deps
	$(SWIFT) build -c release --product retain-graph
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 755 "$$($(SWIFT) build -c release --show-bin-path)/retain-graph" "$(DESTDIR)$(PREFIX)/bin/retain-graph"
	@echo "installed $(DESTDIR)$(PREFIX)/bin/retain-graph"

# When the run began, for the summary's total time. Given to the test script only: a variable in
# swift build's environment that changes on every run makes it rebuild (a no-op build took 21-25 s).
TEST_START := $(shell date +%s)

test: deps
	$(SWIFT) build --build-tests
	$(MAKE) --no-print-directory snippet
	RETAIN_GRAPH_TEST_START=$(TEST_START) SWIFT="$(SWIFT)" bash Scripts/run-tests.sh

# The contributor's quick loop: the build and every test, without the snippet package (nor any
# release build). Pass swift test arguments with ARGS, e.g. make test-fast ARGS="--filter ForkedWalkTests".
test-fast: deps
	$(SWIFT) build --build-tests
	RETAIN_GRAPH_TEST_START=$(TEST_START) SWIFT="$(SWIFT)" bash Scripts/run-tests.sh $(ARGS)

# The release half of CI (.ci/run runs it after make test): builds the tests with -c release and runs
# the suites whose answers depend on the code the optimiser made (closures, thunks, tasks, frames,
# samples; the `#else` expectations of `#if DEBUG`), then checks every sample's report and fix lines
# from the release command line against the debug goldens.
test-release: deps
	SWIFT="$(SWIFT)" bash Scripts/run-release-tests.sh

# The two other trees' builds alone: .ci/run starts them behind `make test` at low priority.
build-release-tests: deps
	$(SWIFT) build -c release -Xswiftc -enable-testing --build-tests --scratch-path .build-release
build-portable-tests: deps
	$(SWIFT) build --build-tests $(PORTABLE) --explicit-target-dependency-import-check error

# The build without the binary readers (the package trait BinaryReaders off, as a platform without
# readers of its own gets: no ELF or DWARF, no x86_64 machine code, no frame liveness), in its own
# scratch path (.build-portable): the build (every target only importing what it declares) and the
# core suites, RetainGraphTests and RetainGraphRuntimeTests (their tests of the readers are left out
# there, their tests of the notes the build makes instead are in). .ci/run runs it after make test.
PORTABLE := --traits CommandLine --scratch-path .build-portable
test-portable: build-portable-tests
	RETAIN_GRAPH_TEST_START=$(TEST_START) RUN_TESTS_LOG=.build-portable/test-output.txt SWIFT="$(SWIFT)" \
	  bash Scripts/run-tests.sh $(PORTABLE) --filter 'RetainGraphTests|RetainGraphRuntimeTests'

# Builds a new package made from the README's Package.swift snippet as written (in .build-snippet/,
# nothing reused from .build) and runs one test in it.
snippet:
	SWIFT="$(SWIFT)" bash Scripts/check-snippet.sh

# Re-records every golden file (Tests/*/__Snapshots__) from the actual texts. Each recorded file is
# reported as an issue, so this run fails on purpose: review `git diff Tests`, then run `make test`.
record-golden: deps
	$(SWIFT) build --build-tests
	-RETAIN_GRAPH_RECORD=1 $(SWIFT) test --skip-build
	@echo "recorded the golden files: review them with git diff Tests, then run make test"

# Renders the viper-module sample (its retain cycle in red) to viper-module.svg, then prints its leak trace.
demo: deps
	$(SWIFT) build --product retain-graph
	$$($(SWIFT) build --show-bin-path)/retain-graph sample viper-module --format svg --output viper-module.svg
	@echo "wrote viper-module.svg (open it in a browser)"
	$$($(SWIFT) build --show-bin-path)/retain-graph sample viper-module

# Regenerates the picture the README shows.
docs-image: deps
	$(SWIFT) build --product retain-graph
	$$($(SWIFT) build --show-bin-path)/retain-graph sample viper-module --format svg --output Docs/viper-module.svg
	cp Docs/viper-module.svg Sources/RetainGraph/Documentation.docc/Resources/viper-module.svg

lint:
	$(SWIFT) format lint --strict -r Sources Tests Samples Benchmarks/Sources Package.swift

# The API-breakage check: the four library products' public API against the commit in
# .ci/api-baseline (swift package diagnose-api-breaking-changes); fails on a removed or changed public
# declaration. The baseline's API is committed in .ci/api/ (remade by `Scripts/check-api.sh --record`
# when .ci/api-baseline moves), so the check builds only this tree: about 30 s after `make test`.
api-check:
	SWIFT="$(SWIFT)" bash Scripts/check-api.sh

# The documentation of the four library products (their DocC catalogs and symbol comments), built as
# CI builds it: every warning (a link to nothing, an ambiguous symbol) is an error. The archives are in
# .build/plugins/Swift-DocC/outputs.
DOC_TARGETS := --target RetainGraph --target RetainGraphRendering --target RetainGraphTesting --target RetainGraphCensus
docs: deps
	$(SWIFT) package --disable-sandbox generate-documentation --warnings-as-errors $(DOC_TARGETS)

# The public declarations of the four library products, per module and in all (from symbol graphs).
count-api:
	SWIFT="$(SWIFT)" bash Scripts/count-public-api.sh

bench:
	# Manifest caching misses new files in the parent package: turn it off here.
	$(SWIFT) run -c release --disable-build-manifest-caching --package-path Benchmarks retain-graph-bench
	$(SWIFT) run -c release --disable-build-manifest-caching --package-path Benchmarks retain-graph-bench --allocations
	$(SWIFT) run -c release --disable-build-manifest-caching --package-path Benchmarks retain-graph-census-bench
	# At size (issue 39): the heap-wide count against CPython's gc.collect(), a service's dump, a stop.
	$(SWIFT) run -c release --disable-build-manifest-caching --package-path Benchmarks retain-graph-census-bench --leaks-at-scale
	$(SWIFT) run -c release --disable-build-manifest-caching --package-path Benchmarks retain-graph-census-bench --dump-at-scale
	$(SWIFT) run -c release --disable-build-manifest-caching --package-path Benchmarks retain-graph-census-bench --sweeps
	$(MAKE) --no-print-directory storm

# 1,000 forked snapshots beside 2 threads that keep replacing the graph's objects, then 100 from 4
# threads at once: how many return a graph, fresh forks, errors, times, open descriptors before/after.
storm:
	$(SWIFT) run -c release --disable-build-manifest-caching --package-path Benchmarks retain-graph-bench --storm

clean:
	rm -rf .build .build-snippet .build-portable
