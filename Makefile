# zkspeaker: the commands a newcomer needs. `make demo` and `make test` set
# up everything else themselves.
SHELL := /bin/bash
GO ?= go
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps tools build vet shellcheck test test-short clean

all: build

## deps: install ZooKeeper (and Java) if missing, and shellcheck for the lint step
deps: tools
	bash ensemble-scripts/install-zookeeper.sh

tools:
	@command -v shellcheck >/dev/null 2>&1 || { \
	  if command -v apt-get >/dev/null 2>&1; then \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q shellcheck >/dev/null || \
	    { $(SUDO) apt-get update -q >/dev/null && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q shellcheck >/dev/null; }; \
	  elif command -v brew >/dev/null 2>&1; then brew install shellcheck; \
	  else echo "shellcheck not found: install it with your package manager" >&2; exit 1; fi; }

## build: build bin/speaker
build:
	$(GO) build -o bin/speaker ./cmd/speaker

vet:
	$(GO) vet ./...

shellcheck:
	shellcheck ensemble-scripts/*.sh .ci/run

## test: everything, against real ZooKeeper servers
test: deps vet shellcheck
	$(GO) test -race -count=1 -timeout 20m ./...

## test-short: unit tests only, no ZooKeeper needed
test-short:
	$(GO) test -short -count=1 ./...

clean:
	rm -rf bin
