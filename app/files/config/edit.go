package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/agatehq/agate/app/internal/tomledit"
	"github.com/agatehq/agate/app/osutil"
	"github.com/agatehq/agate/policy"
)

// Edit is one change to config.toml: set a key of a table to a value,
// or remove it. The desktop app's tray and settings panel change the config
// only through edits, so the person's comments, formatting and the keys the
// edit does not name stay as they were.
type Edit struct {
	// Table is the table holding the key: {"auto"}, {"agents",
	// "claude-code"}; empty for the top level of the file.
	Table []string
	// Key is the key within Table.
	Key string
	// Value is the new value: a string, bool, int, int64, []string or
	// time.Duration (written as a string such as "2m0s").
	Value any
	// Remove removes the key instead; a key that is not there is no change.
	Remove bool
}

// SetKey is the edit that sets key of the dotted table ("auto",
// "agents.claude-code") to value. A table name holding a dot needs an
// Edit with Table spelled out.
func SetKey(table, key string, value any) Edit {
	return Edit{Table: splitTable(table), Key: key, Value: value}
}

// RemoveKey is the edit that removes key from the dotted table.
func RemoveKey(table, key string) Edit {
	return Edit{Table: splitTable(table), Key: key, Remove: true}
}

func splitTable(table string) []string {
	if table == "" {
		return nil
	}
	return strings.Split(table, ".")
}

// String names the key the edit changes: "auto.mode".
func (e Edit) String() string {
	path := append(append([]string{}, e.Table...), e.Key)
	return strings.Join(path, ".")
}

// ErrBroken means the config file on disk does not parse: agate will
// not edit it (the edit would overwrite what the person is in the middle of
// fixing). The error wrapping it carries the file, line and key.
var ErrBroken = errors.New("the config file does not parse; fix it by hand first (agate will not overwrite it)")

// EditFile applies edits to the config file at path, in place: it reads
// the file again, refuses to touch it if it does not parse (ErrBroken,
// with the parse error), applies the edits keeping every comment and the
// keys it does not name, checks the whole result with policy.Parse
// (refusing to write a result that does not parse, with the file, line and
// key of the problem), and writes it atomically with the file's mode kept.
// A missing file starts from the commented defaults. A symlinked config is
// written through to its target.
func EditFile(path string, edits ...Edit) error {
	target := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		target = r
	}
	for attempt := 0; attempt < 3; attempt++ {
		data, mode, err := readForEdit(target)
		if err != nil {
			return err
		}
		out, err := editChecked(path, data, edits)
		if err != nil {
			return err
		}
		if bytes.Equal(out, data) {
			return nil
		}
		// A hand edit saved while this one was worked out wins: start over
		// from it rather than overwrite it.
		again, _, err := readForEdit(target)
		if err != nil {
			return err
		}
		if !bytes.Equal(again, data) {
			continue
		}
		if err := osutil.WriteFile(target, out, mode); err != nil {
			return fmt.Errorf("edit config: %w", err)
		}
		return nil
	}
	return fmt.Errorf("edit config %s: the file kept changing while agate edited it; try again", path)
}

// PreviewEdits returns what EditFile would write, and the config it
// parses to, without writing anything: the settings panel checks a rule as
// it is typed with it.
func PreviewEdits(path string, edits ...Edit) ([]byte, *policy.Config, error) {
	data, _, err := readForEdit(path)
	if err != nil {
		return nil, nil, err
	}
	out, err := editChecked(path, data, edits)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := policy.Parse(path, out)
	if err != nil {
		return nil, nil, err
	}
	return out, cfg, nil
}

// EditText applies edits to the text of a config file and checks the
// result with policy.Parse; name is used in errors. It does not check the
// text it is given.
func EditText(name string, data []byte, edits ...Edit) ([]byte, error) {
	out, err := applyEdits(data, edits)
	if err != nil {
		return nil, fmt.Errorf("edit %s: %w", name, err)
	}
	if _, err := policy.Parse(name, out); err != nil {
		return nil, fmt.Errorf("the edit was not saved: %w", err)
	}
	return out, nil
}

// editChecked refuses a broken file, then edits and checks.
func editChecked(name string, data []byte, edits []Edit) ([]byte, error) {
	if _, err := policy.Parse(name, data); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBroken, err)
	}
	return EditText(name, data, edits...)
}

// readForEdit reads the config file and its mode; a missing file reads as
// the commented defaults, mode 0600.
func readForEdit(path string) ([]byte, os.FileMode, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return policy.DefaultConfigText, 0o600, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read config: %w", err)
	}
	data, err := osutil.ReadLimited(path, policy.MaxConfigSize)
	if err != nil {
		return nil, 0, fmt.Errorf("read config: %w", err)
	}
	return data, st.Mode().Perm(), nil
}

// applyEdits applies edits to TOML text, one after the other,
// without checking the result against agate's schema.
func applyEdits(data []byte, edits []Edit) ([]byte, error) {
	s := string(data)
	if !utf8.ValidString(s) {
		return nil, errors.New("the file is not valid UTF-8")
	}
	for _, e := range edits {
		var err error
		if s, err = applyEdit(s, e); err != nil {
			return nil, fmt.Errorf("%s: %w", e, err)
		}
	}
	return []byte(s), nil
}

// applyEdit applies one edit to TOML text.
func applyEdit(s string, e Edit) (string, error) {
	if e.Key == "" {
		return "", errors.New("no key named")
	}
	if e.Remove {
		return tomledit.Remove(s, e.Table, e.Key)
	}
	return tomledit.Set(s, e.Table, e.Key, e.Value)
}
