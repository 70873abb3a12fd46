# agate's build. `make run` and `make test` are the two commands a person
# needs; both install the system packages they need when those are missing.

GO       ?= go
BIN      := bin
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X github.com/agatehq/agate/app.Version=$(VERSION)
GOFLAGS  += -buildvcs=false
export GOFLAGS

.PHONY: all build cli desktop run test test-go test-keychain vet bench fuzz deps clean

all: build

deps:
	@./.ci/deps.sh build test

## build: the desktop app (bin/agate, links Fyne), the command-line build
## (bin/agate-cli, no GUI, no cgo) and the lean hook agents run per tool
## call (bin/agate-hook).
build: cli desktop

cli:
	CGO_ENABLED=0 $(GO) build -trimpath -tags nogui -ldflags '$(LDFLAGS)' -o $(BIN)/agate-cli .
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/agate-hook ./app/hookcmd/agate-hook

desktop: deps
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/agate .

## run: start agate: the tray app where there is a display, the headless
## daemon where there is none.
run: build
	./$(BIN)/agate

vet:
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) vet -tags nogui ./...

## test: vet, every test with -race, the keychain tests under a real
## Secret Service, the UI tests under Xvfb.
test: deps vet test-go test-keychain

test-go:
	$(GO) test -race -timeout 20m ./...

## test-keychain: the keystore against a real Secret Service (gnome-keyring
## in a private D-Bus session), then the passphrase fallback with none.
test-keychain:
	./.ci/keyring-test.sh

## bench: the decision, daemon and keystore benchmarks, then whole-process
## timings of a hook call and of a sandboxed command.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./policy/
	$(GO) test -run '^$$' -bench . -count 3 ./app/
	./.ci/keyring-test.sh -bench
	./bench/hook.sh
	./bench/sandbox.sh

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
