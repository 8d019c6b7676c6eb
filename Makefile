# Make targets of github.com/goredisson/redisson. `make` alone prints
# `make help`, the list of targets; `make test` runs every test (CI's
# .ci/run calls it by name) and `make demo` shows the lock at work.
#
# The tests start real redis-server processes on free loopback ports, so
# every target that needs Redis first runs scripts/ensure-redis.sh, which
# installs it on Debian/Ubuntu when it is missing.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO ?= go
GOFMT ?= gofmt
# ARGS are passed on to `make demo` and `make bench`, e.g.
# make demo ARGS="--procs 4 --workers 4 --ops 2000" (`go run ./cmd/redisson demo --help`
# lists the flags) or make bench ARGS="--rounds 1".
ARGS ?=
# GO_MIN is the Go version go.mod asks for, e.g. 1.26.
GO_MIN := $(shell sed -n 's/^go \([0-9]*\.[0-9]*\).*/\1/p' go.mod)
# GO_FILES lists the tracked and untracked (but not ignored) .go files,
# bench/ included; without git, every .go file below the repository root.
# MODULES are the Go modules inside the repository besides the main one
# (bench/, extra/..., browsertest/, internal/releasetest/): their tests,
# vet and staticcheck run with the main module's. They require the main
# module at its release version, and the go.work at the root resolves that
# to the working tree (RELEASING.md). A module that drives a browser gets
# Chromium first. tools/ is not one of them: it only pins the version of
# the tools the targets run (staticcheck), and has no code of its own.
MODULES := $(filter-out tools,$(shell find . -mindepth 2 -name go.mod -not -path './.git/*' -not -path '*/testdata/*' 2>/dev/null | sed 's|^\./||; s|/go.mod$$||' | sort))
GO_FILES := { git ls-files -co --exclude-standard -- '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*'; } | while IFS= read -r f; do if [[ -f "$$f" ]]; then printf '%s\n' "$$f"; fi; done

.PHONY: test help check-go check-race ensure-redis fmt-check fmt vet staticcheck demo bench install integration consumer

## test: install redis-server (and Chromium for the browser tests, promtool for the /metrics lint and the alert rules' tests) if missing, check gofmt, go vet, staticcheck, then go test -race in every module (the integration suite in full, as make integration runs it)
test: check-go check-race
	@bash scripts/ensure-redis.sh
	@$(MAKE) --no-print-directory fmt-check
	@$(MAKE) --no-print-directory vet
	@$(MAKE) --no-print-directory staticcheck
	PROMTOOL="$$(bash scripts/ensure-promtool.sh)" REDISSON_REQUIRE_PROMTOOL=1 REDISSON_INTEGRATION=full $(GO) test -race -count=1 -timeout 40m ./...
	@for m in $(MODULES); do \
		if [[ "$$m" == browsertest* ]]; then bash scripts/ensure-chromium.sh; fi; \
		echo "cd $$m && $(GO) test -race -count=1 -timeout 20m ./..."; \
		(cd "$$m" && $(GO) test -race -count=1 -timeout 20m ./...); \
	done

## integration: the cross-process and fault suite of integration/ in full (several minutes), then a Markdown table of what it measured
integration: check-go check-race
	@bash scripts/ensure-redis.sh
	@summary=$$(mktemp); trap 'rm -f "$$summary"' EXIT; status=0; \
	echo "REDISSON_INTEGRATION=full $(GO) test -race -count=1 -timeout 40m -v ./integration/"; \
	REDISSON_INTEGRATION=full REDISSON_INTEGRATION_SUMMARY="$$summary" \
		$(GO) test -race -count=1 -timeout 40m -v ./integration/ || status=$$?; \
	echo; echo "## What happens when things break (measured by make integration)"; echo; \
	cat "$$summary"; \
	exit $$status

## help: list the targets
help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

## fmt-check: fail listing the .go files gofmt would change
fmt-check: check-go
	@files=$$($(GO_FILES)); \
	unformatted=$$([[ -z "$$files" ]] || $(GOFMT) -l $$files); \
	if [[ -n "$$unformatted" ]]; then \
		echo "gofmt: these files are not formatted (run make fmt):" >&2; \
		echo "$$unformatted" >&2; \
		exit 1; \
	fi

## fmt: format all .go files with gofmt -w
fmt: check-go
	@files=$$($(GO_FILES)); [[ -z "$$files" ]] || $(GOFMT) -w $$files

## vet: go vet ./... in every module
vet: check-go
	$(GO) vet ./...
	@for m in $(MODULES); do \
		echo "cd $$m && $(GO) vet ./..."; \
		(cd "$$m" && $(GO) vet ./...); \
	done

## staticcheck: staticcheck ./... in every module, at the version tools/go.mod pins (built on first use; the main go.mod stays free of it)
staticcheck: check-go
	@sc=$$(cd tools && $(GO) tool -n staticcheck); status=0; \
	echo "staticcheck ./..."; \
	"$$sc" ./... || status=1; \
	for m in $(MODULES); do \
		echo "cd $$m && staticcheck ./..."; \
		(cd "$$m" && "$$sc" ./...) || status=1; \
	done; \
	exit $$status

## demo: run the CLI demo against a redis-server it starts: make demo ARGS="..."
demo: check-go
	@bash scripts/ensure-redis.sh
	@echo "make demo: building the CLI (go run ./cmd/redisson; the first run compiles for a minute or more)…"
	$(GO) run ./cmd/redisson demo $(ARGS)

## bench: run the benchmark runner in bench/: make bench ARGS="..."
bench: check-go
	@bash scripts/ensure-redis.sh
	cd bench && $(GO) run . $(ARGS)

## consumer: build a module outside the repository against the working tree's modules packed as a module proxy, as a user gets them (make test runs it with internal/releasetest)
consumer: check-go
	cd internal/releasetest && $(GO) test -count=1 -run TestConsumer -v .

## install: go install the redisson CLI
install: check-go
	$(GO) install ./cmd/redisson

## ensure-redis: install redis-server and redis-cli if missing
ensure-redis:
	@bash scripts/ensure-redis.sh

check-go:
	@command -v $(GO) >/dev/null 2>&1 || { echo "Go $(GO_MIN)+ is required: https://go.dev/dl" >&2; exit 1; }

check-race: check-go
	@if [[ "$$($(GO) env CGO_ENABLED)" != 1 ]]; then \
		echo "go test -race needs cgo and a C compiler: install gcc (sudo apt-get install -y gcc, or xcode-select --install on macOS) and make sure CGO_ENABLED is not 0" >&2; \
		exit 1; \
	fi
