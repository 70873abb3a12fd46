package keystore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/agatehq/agate/app/osutil"
)

// LeakFile is the name of the leak record in agate's state folder.
const LeakFile = "leaked-keys.jsonl"

// maxLeakFile bounds how much of the leak record is read.
const maxLeakFile = 8 << 20

// leakRecord is one line of the leak record: a secret, by label, seen in
// an agent's arguments ("leaked") or replaced since ("rotated"). It never
// holds a value.
type leakRecord struct {
	At    time.Time `json:"at"`
	Event string    `json:"event"` // "leaked" or "rotated"
	Name  string    `json:"name"`
}

// Leak is a secret that appeared in an agent's arguments and has not been
// rotated since: `agate doctor` lists these until they are.
type Leak struct {
	Name  string    // the label the Index gave it, e.g. "keystore:openai"
	First time.Time // first sighting since the last rotation
	Last  time.Time // latest sighting
	Count int       // sightings since the last rotation
}

// RecordLeak notes that the secret labelled name appeared in an agent's
// arguments at at. The record is append-only JSON lines in stateDir,
// mode 0600, holding names and times only.
func RecordLeak(stateDir, name string, at time.Time) error {
	return appendLeak(stateDir, leakRecord{At: at.UTC(), Event: "leaked", Name: name})
}

// RecordRotated notes that the secret labelled name was replaced at at, so
// that its earlier sightings no longer ask for rotation. `agate keys set`
// calls it for "keystore:NAME".
func RecordRotated(stateDir, name string, at time.Time) error {
	return appendLeak(stateDir, leakRecord{At: at.UTC(), Event: "rotated", Name: name})
}

func appendLeak(stateDir string, r leakRecord) error {
	if r.Name == "" {
		return errors.New("record leak: empty name")
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("record leak: %w", err)
	}
	if err := osutil.MakeDir(stateDir, false); err != nil {
		return fmt.Errorf("record leak: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(stateDir, LeakFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("record leak: %w", err)
	}
	_, err = f.Write(append(line, '\n')) // one write: appends from two processes do not interleave
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("record leak: %w", err)
	}
	return nil
}

// PendingLeaks reads the leak record in stateDir and returns the secrets
// seen in an agent's arguments and not rotated since, sorted by name. No
// record is no leak. A torn last line (a crash mid-write) is ignored; other
// malformed lines are skipped and reported in the error, with the leaks
// found still returned.
func PendingLeaks(stateDir string) ([]Leak, error) {
	if err := osutil.CheckDir(stateDir, false); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read leaks: %w", err)
	}
	data, err := os.ReadFile(filepath.Join(stateDir, LeakFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read leaks: %w", err)
	}
	if len(data) > maxLeakFile {
		data = data[len(data)-maxLeakFile:] // the latest records
		data = data[bytes.IndexByte(data, '\n')+1:]
	}
	byName := map[string]*Leak{}
	var bad []int
	lines := bytes.Split(data, []byte("\n"))
	for i, line := range lines {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var r leakRecord
		if err := json.Unmarshal(line, &r); err != nil || r.Name == "" || (r.Event != "leaked" && r.Event != "rotated") {
			if i < len(lines)-1 { // the last line, with no newline after it, is a torn write
				bad = append(bad, i+1)
			}
			continue
		}
		switch r.Event {
		case "rotated":
			delete(byName, r.Name)
		case "leaked":
			l := byName[r.Name]
			if l == nil {
				l = &Leak{Name: r.Name, First: r.At, Last: r.At}
				byName[r.Name] = l
			}
			l.Count++
			if r.At.After(l.Last) {
				l.Last = r.At
			}
			if r.At.Before(l.First) {
				l.First = r.At
			}
		}
	}
	out := make([]Leak, 0, len(byName))
	for _, l := range byName {
		out = append(out, *l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if len(bad) > 0 {
		return out, fmt.Errorf("read leaks: %s: malformed lines skipped: %v", LeakFile, bad)
	}
	return out, nil
}
