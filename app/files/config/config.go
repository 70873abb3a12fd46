package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/osutil"
	"github.com/agatehq/agate/policy"
)

// Sentinel errors of reading the config; each keeps the last good policy
// in force in the daemon.
var (
	// ErrMissing means config.toml is gone. The daemon never writes
	// the defaults over a file the person removed: it keeps (or, at start,
	// runs) the last good config until the file is back or reset.
	ErrMissing = errors.New("the config file is missing")
	// ErrEmpty means config.toml holds nothing: a file emptied by
	// mistake (`: > config.toml`) is not read as "the defaults".
	ErrEmpty = errors.New("the config file is empty")
)

// Mode says what a missing config file reads as.
type Mode uint8

const (
	// ReadOnly: the last good copy when there is one, else the defaults;
	// nothing is written. Commands that only look (check, doctor, sandbox).
	ReadOnly Mode = iota
	// AtStart: the last good copy when there is one, else this is a true
	// first run and the commented defaults are written. The daemon at
	// start, and commands that set agate up.
	AtStart
	// Live: an error. A live reload never swaps in anything for a file
	// that went away.
	Live
)

// Text is the config's bytes and where they came from.
type Text struct {
	Data   []byte
	Source string // the file they were read from: the config, or its last good copy
	// Missing is set (to an error wrapping ErrMissing) when the
	// config file is gone and Data is its last good copy.
	Missing error
}

// LastGoodName is the file in the state folder that keeps a copy of the
// last config the daemon put in force.
const LastGoodName = "config.last-good.toml"

// lastGoodHeader starts the copy; it names the config it is a copy of.
const lastGoodHeader = "# agate: the last good copy of "

// ReadFile reads the config file p.Config names; see Mode for
// what a missing file gives. An empty file is ErrEmpty, whatever
// the mode.
func ReadFile(p api.Paths, mode Mode) (Text, error) {
	data, err := osutil.ReadLimited(p.Config, policy.MaxConfigSize)
	switch {
	case err == nil:
		if len(bytes.TrimSpace(data)) == 0 {
			return Text{}, fmt.Errorf("%s: %w (restore it, or run `agate config reset` for the defaults)", p.Config, ErrEmpty)
		}
		return Text{Data: data, Source: p.Config}, nil
	case !errors.Is(err, fs.ErrNotExist):
		return Text{}, fmt.Errorf("read config: %w", err)
	case mode == Live:
		return Text{}, fmt.Errorf("%s: %w: the last good policy stays in force (restore it, or run `agate config reset` for the defaults)", p.Config, ErrMissing)
	}
	good, saved, ok, err := readLastGood(p)
	if err != nil {
		return Text{}, fmt.Errorf("%s: %w, and its last good copy cannot be trusted: %w", p.Config, ErrMissing, err)
	}
	if ok {
		return Text{Data: good, Source: lastGoodPath(p),
			Missing: fmt.Errorf("%s: %w: running its last good copy, saved %s (restore it, or run `agate config reset` for the defaults)",
				p.Config, ErrMissing, saved)}, nil
	}
	if mode == AtStart {
		if err := osutil.WriteFile(p.Config, policy.DefaultConfigText, 0o600); err != nil {
			return Text{}, fmt.Errorf("write the default config: %w", err)
		}
	}
	return Text{Data: policy.DefaultConfigText, Source: p.Config}, nil
}

func lastGoodPath(p api.Paths) string { return filepath.Join(p.State, LastGoodName) }

// SaveLastGood keeps data, a config just put in force, as the last good
// copy of p.Config, unless the copy already holds it.
func SaveLastGood(p api.Paths, data []byte, at time.Time) error {
	if old, _, ok, _ := readLastGood(p); ok && bytes.Equal(old, data) {
		return nil
	}
	head := fmt.Sprintf("%s%s, saved %s: agate starts from it when that file is gone.\n",
		lastGoodHeader, strconv.Quote(p.Config), at.UTC().Format(time.RFC3339))
	if err := osutil.MakeDir(p.State, false); err != nil {
		return err
	}
	return osutil.WriteFile(lastGoodPath(p), append([]byte(head), data...), 0o600)
}

// readLastGood returns the last good copy of p.Config and when it was
// saved; ok is false when there is none (or it is of another config). The
// copy is read only from a state folder private to this user: err says
// when it is not.
func readLastGood(p api.Paths) (data []byte, saved string, ok bool, err error) {
	b, err := osutil.ReadPrivate(lastGoodPath(p), policy.MaxConfigSize+4096)
	if errors.Is(err, osutil.ErrNotPrivate) {
		return nil, "", false, err
	}
	if err != nil {
		return nil, "", false, nil
	}
	head, rest, found := bytes.Cut(b, []byte("\n"))
	h, isCopy := strings.CutPrefix(string(head), lastGoodHeader)
	if !found || !isCopy {
		return nil, "", false, nil
	}
	name, err := strconv.QuotedPrefix(h)
	if err != nil {
		return nil, "", false, nil
	}
	if path, _ := strconv.Unquote(name); path != p.Config {
		return nil, "", false, nil
	}
	saved, _, _ = strings.Cut(strings.TrimPrefix(h[len(name):], ", saved "), ":")
	return rest, saved, true, nil
}

// Read reads and parses the config file named by p, under the managed
// policy, without ever writing it (see ReadOnly). Commands that run per call (check, sandbox)
// and doctor use it.
func Read(p api.Paths) (*policy.Config, error) {
	ct, err := ReadFile(p, ReadOnly)
	if err != nil {
		return nil, err
	}
	return Parse(ct)
}

// Load reads and parses the config file named by p, under the managed
// policy, writing the
// defaults on a true first run (see AtStart).
func Load(p api.Paths) (*policy.Config, error) {
	ct, err := ReadFile(p, AtStart)
	if err != nil {
		return nil, err
	}
	return Parse(ct)
}
