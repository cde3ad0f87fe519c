# zkspeaker: the commands a newcomer needs. `make demo` and `make test` set
# up everything else themselves.
SHELL := /bin/bash
GO ?= go
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps tools build demo demo-tmux chaos vet staticcheck shellcheck test test-packages test-short clean

all: build

## deps: install ZooKeeper (and Java) if missing, and the tools below
deps: tools
	bash ensemble-scripts/install-zookeeper.sh

# tools: shellcheck for the lint step, tmux for make demo-tmux (and its test),
# chromium to render the timeline picture in a test, as a person would see it
tools:
	@missing=""; for t in shellcheck tmux chromium; do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	[ -z "$$missing" ] || { \
	  echo "installing$$missing"; \
	  if command -v apt-get >/dev/null 2>&1; then \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing >/dev/null || \
	    { $(SUDO) apt-get update -q >/dev/null && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing >/dev/null; }; \
	  elif command -v brew >/dev/null 2>&1; then brew install $$missing; \
	  else echo "not found:$$missing: install with your package manager" >&2; exit 1; fi; }

## build: build every command into bin/ (speaker, zklock, ...)
build:
	$(GO) build -o bin/ ./cmd/...

## demo: a 3-server ensemble, three speakers, SIGTERM and SIGKILL of the leader, a ZooKeeper server killed, the timeline
demo: deps build
	bash ensemble-scripts/demo.sh

## demo-tmux: the same ensemble and speakers in tmux panes, to kill by hand
demo-tmux: deps build
	bash ensemble-scripts/demo-tmux.sh

## chaos: a seeded 2-minute fault soak on a 3-server ensemble, then the exact check (CHAOS_FLAGS="--seed 7 --duration 10m ...")
chaos: deps build
	bin/speaker chaos $(CHAOS_FLAGS)

vet:
	$(GO) vet ./...

# staticcheck, pinned, fetched through the Go module proxy on first use
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
staticcheck:
	$(GO) run $(STATICCHECK) ./...

shellcheck:
	shellcheck ensemble-scripts/*.sh .ci/run

## test: everything, against real ZooKeeper servers (about 10 minutes on 2 cores)
test: deps vet staticcheck shellcheck
	@$(MAKE) --no-print-directory test-packages

# test-packages: one go test per package, JOBS at a time, each printing its
# result as it passes. A single `go test ./...` prints a package's result
# only after those listed before it, and cmd/speaker, listed first, takes
# minutes: nothing showed for all that time.
JOBS ?= $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
#
# internal/chaos runs alone, after the others: its soak keeps three JVMs
# and five speakers busy for half a minute, and beside cmd/speaker's fault
# tests, which hold real processes to bounds derived from the session
# timeout, it made a successor 63 ms late on a 2-core machine.
test-packages:
	@echo "go test: each package prints ok as it passes; all of them take about 10 minutes on 2 cores"
	set -o pipefail; $(GO) list ./... | grep -v '/internal/chaos$$' | xargs -n 1 -P $(JOBS) $(GO) test -race -count=1 -timeout 20m
	$(GO) test -race -count=1 -timeout 20m ./internal/chaos

## test-short: unit tests only, no ZooKeeper needed
test-short:
	$(GO) test -short -count=1 ./...

clean:
	rm -rf bin
