package audit

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/agatehq/agate/app/osutil"
)

// Follow prints lines appended to the current log file, following it
// across rotations, until ctx ends.
func Follow(ctx context.Context, path string, fn func(*Record) error) error {
	if err := checkFolder(path); err != nil {
		return err
	}
	st, err := os.Stat(path)
	var offset int64
	var ino any
	if err == nil {
		offset, ino = st.Size(), osutil.FileID(st)
	}
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		st, err := os.Stat(path)
		if err != nil {
			continue
		}
		if id := osutil.FileID(st); id != ino || st.Size() < offset {
			ino, offset = id, 0 // rotated: start the new file from the top
		}
		if st.Size() == offset {
			continue
		}
		n, err := readFrom(path, offset, fn)
		if err != nil && err != io.EOF {
			return err
		}
		offset = n
	}
}
