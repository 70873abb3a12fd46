# agate's build. `make run` and `make test` are the two commands a person
# needs; both install the system packages they need when those are missing.

GO       ?= go
BIN      := bin
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X github.com/agatehq/agate/app/version.Version=$(VERSION)
GOFLAGS  += -buildvcs=false
export GOFLAGS

.PHONY: all build cli cross desktop run test test-go test-keychain test-ui test-soak test-agents test-harm vet bench fuzz deps clean screenshots package install

all: build

deps:
	@./.ci/deps.sh build test

## build: the desktop app (bin/agate, links Fyne), the command-line build
## (bin/agate-cli, no GUI, no cgo) and the lean hook agents run per tool
## call (bin/agate-hook).
build: cli desktop

cli:
	CGO_ENABLED=0 $(GO) build -trimpath -tags nogui -ldflags '$(LDFLAGS)' -o $(BIN)/agate-cli .
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/agate-hook ./app/hooks/agate-hook

# no_emoji: Fyne would otherwise parse its 4 MB emoji font once per text
# style, which keeps the tray app's memory above 60 MB.
desktop: deps
	$(GO) build -trimpath -tags no_emoji -ldflags '$(LDFLAGS)' -o $(BIN)/agate .

## run: start agate: the tray app where there is a display, the headless
## daemon where there is none.
run: build
	./$(BIN)/agate

STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

vet:
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) vet -tags nogui ./...
	$(GO) run $(STATICCHECK) ./...

## test: vet, every test with -race, the keychain tests under a real
## Secret Service, the UI tests under Xvfb, the daemon under hostile
## clients, the real agents' tests.
test: deps vet cross test-go test-keychain test-ui test-soak test-agents test-harm

test-go:
	$(GO) test -race -timeout 20m ./...

## cross: agate-cli and agate-hook build for macOS (amd64, arm64) and
## Windows, so the platform files keep compiling (they are not run here).
CROSS := darwin/amd64 darwin/arm64 windows/amd64
cross:
	@for t in $(CROSS); do \
	  echo "cross: $$t"; \
	  GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) build -trimpath -tags nogui -o /dev/null . || exit 1; \
	  GOOS=$${t%/*} GOARCH=$${t#*/} CGO_ENABLED=0 $(GO) build -trimpath -o /dev/null ./app/hooks/agate-hook || exit 1; \
	done

## test-soak: the real daemon under slow, huge, malformed and concurrent
## clients for a minute, while hook calls go on; then a hook call, its
## memory and the audit chain are checked.
test-soak:
	CGO_ENABLED=0 AGATE_SOAK=$${AGATE_SOAK:-1m} $(GO) test -tags nogui -count=1 -timeout 10m -run '^TestSoak$$' -v ./app/daemon/ | grep -E '^(---|ok|FAIL|PASS)|soak_test'

## test-keychain: the keystore against a real Secret Service (gnome-keyring
## in a private D-Bus session), then the passphrase fallback with none.
test-keychain:
	./.ci/keyring-test.sh

## test-ui: the desktop app: its widget tests (headless), then the real
## binaries with a real window in a throwaway desktop session (Xvfb, a
## private D-Bus, a temp HOME): a hook call that asks, answered in the
## popup with a click on Allow once, then with Escape.
test-ui: build
	@./.ci/deps.sh desktop
	$(GO) test -count=1 -timeout 5m ./ui/
	AGATE_E2E_BIN=$(CURDIR)/$(BIN) ./ui/testdata/with-desktop.sh \
	  $(GO) test -count=1 -timeout 5m -run '^TestDesktopEndToEnd$$' -v ./ui/

## test-agents: the real agent programs (Claude Code, Gemini CLI, Codex,
## the reference MCP filesystem server through agate mcp run, at the
## versions app/internal/agenttest pins, installed from the npm registry
## into the user cache when missing) against a fake model server, with
## agate's hooks installed by agate, a real daemon and the real
## agate-hook. Skipped, with the reason, where npm or the registry cannot
## be reached.
AGENT_TESTS := ^Test(Gemini|Claude|Codex|Qwen|Copilot|OpenCode|AgateHook|MCPRunFilesystemServer|MCPRunNpxConfined|RealFilesystemServer|RealRemoteEverything|ClaudeRemoteMCP)
test-agents: cli
	@./.ci/deps.sh agents
	@log=$$(mktemp); status=0; \
	AGATE_AGENT_TESTS=1 AGATE_E2E_BIN=$(CURDIR)/$(BIN) CGO_ENABLED=0 \
	  $(GO) test -tags nogui -count=1 -timeout 30m -run '$(AGENT_TESTS)' -v ./app/daemon/ ./app/internal/agenttest/ ./app/cli/ ./app/mcp/ >$$log 2>&1 || status=$$?; \
	grep -E '^ *--- |^(ok|FAIL|PASS|panic)|_test\.go:[0-9]+: |testing\.go:[0-9]+: ' $$log | grep -v ': screen:$$'; \
	[ $$status = 0 ] || cat $$log; rm -f $$log; exit $$status

## test-harm: the harm corpus (testdata/harm/attacks.toml, written by an
## adversary who had read agate's catalog) run for real as an unprivileged
## user against a honeypot home: each attack first with agate off, where it
## must do its harm, then behind agate's Claude Code hook and a headless
## daemon with the default config, running what the hook answers. It fails
## when an attack does harm behind agate (a loss inside the project that
## agate undo does not give back is harm). Needs root, to run the attacks
## as nobody.
test-harm: cli
	@if [ "$$(id -u)" != 0 ]; then echo "test-harm: skipped: the attacks run as nobody, which needs root"; exit 0; fi; \
	./.ci/deps.sh harm || exit 1; log=$$(mktemp); status=0; \
	./testdata/harm/run.sh --gate $(BIN) >$$log 2>&1 || status=$$?; \
	grep -vE ' harm=(no|kept)$$' $$log; rm -f $$log; exit $$status

## screenshots: docs/screenshot-popup.png (the real popup under Xvfb) and
## docs/screenshot-settings.png (the settings panel, drawn by Fyne).
screenshots: build
	@./.ci/deps.sh desktop
	./ui/testdata/with-desktop.sh ./ui/testdata/screenshots.sh $(CURDIR)/$(BIN) $(CURDIR)/docs

## package: a .deb of both binaries (and the hook), the icon, the desktop
## entry and the systemd user unit, built with dpkg-deb into dist/.
DEB_VERSION ?= $(shell echo '$(VERSION)' | sed -e 's/^v//' -e 's/^\([^0-9]\)/0~\1/' -e 's/-/~/g')
DEB_ARCH    ?= $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
package: build
	./packaging/deb.sh '$(DEB_VERSION)' '$(DEB_ARCH)' $(BIN) dist

## install: a local install under PREFIX (default /usr/local), staged in
## DESTDIR when set: the binaries, the icon, the desktop entry, the
## autostart entry's template and the systemd user unit.
PREFIX  ?= /usr/local
DESTDIR ?=
install: build
	./packaging/install.sh '$(DESTDIR)' '$(PREFIX)' $(BIN)

## bench: the decision, daemon and keystore benchmarks, then whole-process
## timings of a hook call and of a sandboxed command.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./policy/
	$(GO) test -run '^$$' -bench . -count 3 ./app/daemon/ ./app/cli/ ./app/hooks/runner/
	./.ci/keyring-test.sh -bench
	./bench/hook.sh
	./bench/sandbox.sh
	./bench/desktop.sh

## fuzz: each fuzz target for FUZZTIME (default one minute).
FUZZTIME ?= 1m
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

clean:
	rm -rf $(BIN) dist
