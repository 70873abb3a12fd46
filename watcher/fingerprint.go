package watcher

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// maxHashSize bounds how much of a file the watcher reads to tell whether
// it changed. A bigger file has no fingerprint, so Load is always called
// (and is expected to refuse such a file).
const maxHashSize = 16 << 20

// fingerprint hashes the state of the named files in dir: for each, its
// bytes, or that it is missing, unreadable or not a regular file. After a
// burst of chmod events only, an equal fingerprint means Load would read
// what it read last time. It returns nil when it cannot tell, and the
// caller then calls Load.
func fingerprint(dir string, files []string) []byte {
	h := sha256.New()
	for _, name := range files {
		sum, ok := fileState(filepath.Join(dir, name))
		if !ok {
			return nil
		}
		fmt.Fprintf(h, "%q %x\n", name, sum)
	}
	return h.Sum(nil)
}

// fileState hashes one file's state; ok is false when the file is too big
// to hash.
func fileState(path string) (sum []byte, ok bool) {
	h := sha256.New()
	fi, err := os.Stat(path) // follows a symlink, as Load will
	switch {
	case errors.Is(err, fs.ErrNotExist):
		io.WriteString(h, "missing")
		return h.Sum(nil), true
	case err != nil:
		fmt.Fprintf(h, "error %v", err)
		return h.Sum(nil), true
	case !fi.Mode().IsRegular():
		// Never open a FIFO or a device here; Load decides what it means.
		fmt.Fprintf(h, "mode %v", fi.Mode().Type())
		return h.Sum(nil), true
	case fi.Size() > maxHashSize:
		return nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(h, "error %v", err)
		return h.Sum(nil), true
	}
	defer f.Close()
	io.WriteString(h, "file ")
	n, err := io.Copy(h, io.LimitReader(f, maxHashSize+1))
	if err != nil {
		fmt.Fprintf(h, " error %v", err)
	}
	if n > maxHashSize {
		return nil, false
	}
	return h.Sum(nil), true
}
