package codexrules

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agatehq/agate/app/osutil"
)

// The daemon keeps every rules file the person installed in step with the
// config, also one installed under another CODEX_HOME than the daemon's
// own environment names: `agate hooks install codex` records where it
// wrote the file in the state folder (codex-rules.txt, one absolute path
// a line), and uninstall takes it out.

// recordName is the record's file in the state folder.
const recordName = "codex-rules.txt"

// maxRecorded bounds how many places the record keeps.
const maxRecorded = 64

// Recorded returns the rules files recorded in the state folder, in the
// order they were installed. A missing record is none.
func Recorded(stateDir string) ([]string, error) {
	data, err := osutil.ReadPrivate(filepath.Join(stateDir, recordName), 64<<10)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("codex rules record: %w", err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); filepath.IsAbs(l) && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out, nil
}

// Record adds path to the record in the state folder.
func Record(stateDir, path string) error {
	return edit(stateDir, func(ps []string) []string {
		if slices.Contains(ps, path) {
			return ps
		}
		ps = append(ps, path)
		if len(ps) > maxRecorded {
			ps = ps[len(ps)-maxRecorded:]
		}
		return ps
	})
}

// Forget takes path out of the record in the state folder.
func Forget(stateDir, path string) error {
	return edit(stateDir, func(ps []string) []string {
		return slices.DeleteFunc(ps, func(p string) bool { return p == path })
	})
}

func edit(stateDir string, change func([]string) []string) error {
	ps, err := Recorded(stateDir)
	if err != nil {
		return err
	}
	ps = change(slices.Clone(ps))
	data := strings.Join(ps, "\n")
	if data != "" {
		data += "\n"
	}
	if err := osutil.WriteFile(filepath.Join(stateDir, recordName), []byte(data), 0o600); err != nil {
		return fmt.Errorf("codex rules record: %w", err)
	}
	return nil
}
