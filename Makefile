# RetainGraph: `make demo` and `make test` work on a fresh machine with Swift installed.
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = "0" ] || echo sudo)

.PHONY: deps build test test-fast snippet record-golden demo docs-image lint bench clean

# Graphviz (libgvc) is the only C dependency; install it when pkg-config cannot find it.
deps:
	@if pkg-config --exists libgvc 2>/dev/null; then \
	  echo "libgvc $$(pkg-config --modversion libgvc) found"; \
	elif command -v apt-get >/dev/null 2>&1; then \
	  echo "installing libgraphviz-dev with apt-get"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq pkg-config libgraphviz-dev </dev/null; \
	elif command -v brew >/dev/null 2>&1; then \
	  echo "installing graphviz with brew"; brew install pkg-config graphviz; \
	else \
	  echo "error: Graphviz development files (pkg-config libgvc) are missing and neither apt-get nor brew is available; install Graphviz 2.43 or later with its headers" >&2; \
	  exit 1; \
	fi
	@pkg-config --exists libgvc || { echo "error: pkg-config still cannot find libgvc after installing" >&2; exit 1; }

build: deps
	$(SWIFT) build

# The whole check CI runs: the build, the package made from the README's snippet, every test. Quiet:
# a passing test prints no line and known issues (expected failures) are counted, not shown; every
# other line (a failure, a crash, what a test prints) shows, and a summary ends the run. The whole
# test output is in .build/test-output.txt; VERBOSE=1 shows it as it comes.
test: export RETAIN_GRAPH_TEST_START := $(shell date +%s)
test: deps
	$(SWIFT) build --build-tests
	$(MAKE) --no-print-directory snippet
	SWIFT="$(SWIFT)" bash Scripts/run-tests.sh

# The contributor's quick loop: the build and every test, without the snippet package (nor any
# release build). Pass swift test arguments with ARGS, e.g. make test-fast ARGS="--filter ForkedWalkTests".
test-fast: export RETAIN_GRAPH_TEST_START := $(shell date +%s)
test-fast: deps
	$(SWIFT) build --build-tests
	SWIFT="$(SWIFT)" bash Scripts/run-tests.sh $(ARGS)

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

bench:
	# Manifest caching misses new files in the parent package: turn it off here.
	$(SWIFT) run -c release --disable-build-manifest-caching --package-path Benchmarks retain-graph-bench
	$(SWIFT) run -c release --disable-build-manifest-caching --package-path Benchmarks retain-graph-bench --allocations
	$(SWIFT) run -c release --disable-build-manifest-caching --package-path Benchmarks retain-graph-census-bench

clean:
	rm -rf .build .build-snippet
