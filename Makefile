# zkspeaker: the commands a newcomer needs. `make demo` and `make test` set
# up everything else themselves.
SHELL := /bin/bash
GO ?= go
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all deps test-tools zk-cds tmux build demo demo-tmux clean-demo screenshots chaos peers lint vet staticcheck shellcheck sizecheck test test-clock compile-tests test-packages test-short clean

all: build

## deps: install ZooKeeper (and Java) if missing: all that the programs need
deps:
	bash ensemble-scripts/install-zookeeper.sh

# Tools some targets need besides, each installed by the target that uses
# it, so that `make demo` waits for nothing it does not run:
# test-tools: shellcheck for the lint step, tmux for the demo-tmux test,
# chromium to render the timeline picture and drive zkview's page in tests,
# as a person would see them, and promtool (Debian's prometheus package) to
# check the commands' metrics, and kazoo (a Python module, Debian's
# python3-kazoo) for the peer the chaos tests run; tmux alone for make
# demo-tmux.
test-tools:
	@$(call install,shellcheck tmux chromium promtool:prometheus,kazoo:python3-kazoo)
tmux:
	@$(call install,tmux)

# install installs each of the commands in $(1) that is missing; a word
# COMMAND:PACKAGE names the package that brings a command of another name.
# $(2) are Python modules, each MODULE:PACKAGE, that $(PYTHON) must import.
PYTHON := /usr/bin/python3
define install
missing=""; for t in $(1); do command -v $${t%%:*} >/dev/null 2>&1 || missing="$$missing $${t#*:}"; done; \
for m in $(2); do $(PYTHON) -c "import $${m%%:*}" >/dev/null 2>&1 || missing="$$missing $${m#*:}"; done; \
[ -z "$$missing" ] || { \
  echo "installing$$missing"; \
  if command -v apt-get >/dev/null 2>&1; then \
    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing >/dev/null || \
    { $(SUDO) apt-get update -q >/dev/null && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing >/dev/null; }; \
  elif command -v brew >/dev/null 2>&1; then brew install $$missing; \
  else echo "not found:$$missing: install with your package manager" >&2; exit 1; fi; }
endef

## build: build every command into bin/ (speaker, zklock, ..., zkview)
COMMANDS := speaker zklock zkgroup zkconfig seqid zkview zkbarrier zkqueue
build:
	$(GO) build -o bin/ $(addprefix ./cmd/,$(COMMANDS))

## demo: a 3-server ensemble, three speakers, SIGTERM and SIGKILL of the leader, a ZooKeeper server killed, the timeline
demo: deps build
	bash ensemble-scripts/demo.sh

## demo-tmux: the same ensemble and speakers in tmux panes, to kill by hand
demo-tmux: deps tmux build
	bash ensemble-scripts/demo-tmux.sh

## clean-demo: stop and delete the ensemble in out/ensemble and everything in out/ (out.txt, logs): the clean start of each section of the course
clean-demo:
	@bash ensemble-scripts/clean-demo.sh

## screenshots: run the demo and save zkview's page at its steps in docs/img, whole and as a 1280x720 projector shows it (needs chromium)
screenshots: deps build
	@$(call install,chromium)
	$(GO) build -o bin/zkview-snapshot ./cmd/zkview/internal/snapshot
	DEMO_SHOTS=$(CURDIR)/docs/img bash ensemble-scripts/demo.sh

## chaos: a seeded 2-minute fault soak on a 3-server ensemble, then the exact check (CHAOS_FLAGS="--seed 7 --duration 10m ...")
chaos: deps build
	bin/speaker chaos $(CHAOS_FLAGS)

## peers: the same seeded soak on this project's speaker and on two peers, a zk.Lock speaker (Go) and a kazoo Election one (Python), then one table (PEERS_SEED=48 PEERS_DURATION=5m; files in out/peers)
PEERS_SEED ?= 48
PEERS_DURATION ?= 5m
peers: deps build
	@$(call install,,kazoo:python3-kazoo)
	$(GO) build -o bin/peer-zklock ./docs/peers/zklock
	rm -rf out/peers
	$(GO) run ./cmd/speaker/internal/chaos/program/peers -seed $(PEERS_SEED) -duration $(PEERS_DURATION) -dir out/peers

vet:
	$(GO) vet ./...

# staticcheck, pinned, fetched through the Go module proxy on first use.
# `go run pkg@version` asks the proxy about the version each time, even
# with the module in the cache, and a slow answer failed the lint; once
# cached, the cache itself serves as the proxy (it was checked against the
# checksum database when it was downloaded).
STATICCHECK_MOD := honnef.co/go/tools@v0.8.2
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
staticcheck:
	if GOPROXY=off $(GO) list -m $(STATICCHECK_MOD) >/dev/null 2>&1; then \
	  GOPROXY=file://$$($(GO) env GOMODCACHE)/cache/download GOSUMDB=off $(GO) run $(STATICCHECK) ./...; \
	else $(GO) run $(STATICCHECK) ./...; fi

shellcheck:
	shellcheck ensemble-scripts/*.sh .ci/run

# sizecheck: no file git holds or would take in over 1 MB (a binary built at
# the root), no Go file over 350 lines, no Go function over 80 (tests aside).
sizecheck:
	$(GO) run ./internal/testkit/sizecheck

## test: everything, against real ZooKeeper servers (about 3½ minutes on 2 cores)
# The linters run beside the tests at the lowest CPU priority: the tests
# mostly wait, and leave a core idle that the linters fill, while a test
# process that wakes takes the CPU from them at once.
LINTLOG := $(CURDIR)/bin/lint.log
test: test-clock deps test-tools zk-cds compile-tests
	@mkdir -p $(dir $(LINTLOG)); \
	( nice -n 19 $(MAKE) --no-print-directory lint >$(LINTLOG) 2>&1; echo $$? >$(LINTLOG).rc ) & \
	$(MAKE) --no-print-directory test-packages SKIP_COMPILE=1; tests=$$?; \
	wait; lint=$$(cat $(LINTLOG).rc); \
	if [ "$$lint" = 0 ]; then echo "vet, staticcheck, shellcheck and sizecheck: no findings"; \
	else echo "vet, staticcheck, shellcheck or sizecheck FAILED:"; cat $(LINTLOG); fi; \
	took=$$(( $$(date +%s) - $$(cat $(CURDIR)/bin/test.start 2>/dev/null || date +%s) )); \
	if [ "$$tests" = 0 ] && [ "$$lint" = 0 ]; then echo "make test: passed in $$took s"; \
	else echo "make test: FAILED in $$took s"; exit 1; fi

# zk-cds: a class-data-sharing archive of ZooKeeper's classes, which the
# test kit gives every server it starts: each starts on about 40% less CPU.
zk-cds: deps
	@bash ensemble-scripts/zk-cds.sh $(CURDIR)/bin/zk.jsa

test-clock:
	@mkdir -p $(CURDIR)/bin && date +%s >$(CURDIR)/bin/test.start

## lint: go vet, staticcheck, shellcheck and the size check
lint: vet staticcheck shellcheck sizecheck

# test-packages: `go test -json` per package through internal/testkit/testrun, JOBS
# packages at a time, each printed as it ends, then each package's time,
# the slowest tests and the total.
# - Everything is compiled first (compile-tests), the test packages and
#   the commands the tests build: compiling beside the fault tests would
#   starve the processes they hold to bounds. go list -export compiles
#   without linking: each go test links its binary anyway, and linking
#   every one beforehand too (go test -exec true) cost 17 to 20 s.
# - Most tests wait (for a session to expire, a server, a process), so more
#   run at once than there are cores: PARALLEL tests within a package,
#   JOBS packages. Three packages of eight tests kept both cores busy with
#   dozens of processes waiting to run, and bounds broke.
# - The long packages start first, in FIRST's order, so that the two jobs
#   end together on short ones; the script tests, whose demos load the
#   machine, come last of them, after cmd/speaker's timed fault tests.
# - The soaks of cmd/speaker/internal/chaos and its recipes' packages run
#   at the end, all at once, as soon as the last of the others has
#   started (the last ones are short unit tests; -alone-jobs:
#   one waiting for a slot ended the run 9 s late, and with eleven soak
#   packages the speaker's waited 20 s): their random faults load the
#   machine, and the fault tests hold real processes to bounds derived
#   from the session timeout. Packages that mostly wait, for sessions to
#   expire or a slow proxy (zkbarrier, the bench's counts, the group,
#   zkqueue, the barrier, queue and config recipes, the timeline), join
#   them there: in the main phase each held one of the two jobs for 5 to
#   21 s on a few seconds of CPU, with a core idle.
# - The short unit-test packages (LIGHT) are tested one at a time in a
#   lane of their own from the start, at nice 10: they take the CPU the
#   waiting tests leave idle. As the two jobs' last packages they held
#   both for 20 s, about a link each.
# - The soaks' broken builds and test programs (sabotage.Catalog) are
#   built at nice 10 while the others are tested (at 19, below the
#   linters, they took 123 to 186 s and the soaks waited), and the
#   soaks start once they are: built as the soaks started, a dozen builds
#   beside a dozen soaks took 40 s, and the broken builds' soaks waited.
#   Each chaos package runs its soaks one after another (NARROW): started
#   all at once, two dozen soaks loaded the machine past the bounds their
#   checkers allow a fault (a barrier's orphan member outliving its
#   session plus the slack), and the soaks failed now and then. The
#   program package's soaks are short and stay side by side.
#   Their test binaries are linked then too (-prelink): twenty links at
#   the turn made the last three soak packages start 10 to 27 s late.
# - make vet runs the whole of go vet, so go test's own subset is off; a
#   race-enabled binary waits a second at exit unless GORACE says not to.
# TESTLOG keeps each package's events: `go run ./internal/testkit/testrun -report
# DIR` prints the summary again.
JOBS ?= 2
PARALLEL ?= 6
ALONE := /cmd/speaker/internal/chaos(/.*)?$$|/cmd/zkbarrier$$|/cmd/speaker/internal/bench$$|/recipes/(group|barrier|queue|config)$$|/cmd/zk(group|queue)$$|/cmd/speaker/internal/timeline$$
FIRST := /cmd/speaker$$,/cmd/seqid$$,/cmd/zkview$$,/recoverable$$,/nodemonitor$$,/recipes/sequence$$,/znodemonitor$$,/internal/testkit/zktest$$,/internal/testkit/scripttest$$,/recipes/lock$$,^zkspeaker/speaker$$
NARROW := /cmd/speaker/internal/chaos/(speaker|lock|rwlock|semaphore|seqid|group|config|barrier|queue)$$
LIGHT := /docs/|/internal/(broadcast|cmdline|election|ensemble|faultproxy|metrics|monotonic|reason|usage)$$|/internal/testkit/(electiontest|leakcheck|metricstest|prebuilt|sabotage|sabotage/prebuild|sizecheck|testrun)$$|/cmd/zkview/internal/(browser|page|snapshot)$$|/cmd/seqid/internal/|/cmd/speaker/internal/status$$
TESTLOG ?=
MAKEFILE_DIR := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))
# The commands are built once for the run into TESTBIN, plain, and zkconfig
# with -race too (its tests race the command as well); the test kit takes
# them from there (internal/testkit/prebuilt) instead of each test binary
# linking its own: some forty links of 2.5 s of CPU each. A build of the
# whole module with -race linked every command again for no test (6 s).
TESTBIN := $(CURDIR)/bin/test-commands
compile-tests:
	$(GO) list -race -test -export -deps ./... >/dev/null
	@rm -rf $(TESTBIN) && mkdir -p $(TESTBIN)/race
	$(GO) build -o $(TESTBIN)/ $(addprefix ./cmd/,$(COMMANDS)) && $(GO) build -race -o $(TESTBIN)/race/ ./cmd/zkconfig

test-packages: $(if $(SKIP_COMPILE),,compile-tests)
	@echo "go test: each package prints ok as it passes; all of them take about 3½ minutes on 2 cores"
	ZKTEST_BIN=$(TESTBIN) GORACE=atexit_sleep_ms=0 $(GO) run -C $(MAKEFILE_DIR) ./internal/testkit/testrun -dir $(CURDIR) -jobs $(JOBS) -first '$(FIRST)' -light '$(LIGHT)' -alone '$(ALONE)' -alone-jobs 24 -alone-parallel 12 -narrow '$(NARROW)' -narrow-parallel 1 \
		-prepare 'nice -n 10 $(GO) run ./internal/testkit/sabotage/prebuild $(TESTBIN)/sabotage' -prelink $(TESTBIN)/alone \
		$(if $(TESTLOG),-log $(TESTLOG)) -- -race -vet=off -count=1 -timeout 20m -parallel $(PARALLEL)

## test-short: unit tests only, no ZooKeeper needed
test-short:
	$(GO) test -short -count=1 ./...

clean:
	rm -rf bin
