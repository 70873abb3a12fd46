package undo

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
)

// sealEntry takes the hash of every kept file of entry id and writes it
// into the entry. A kept file that is no longer as it was kept (size,
// modification time: a hard link whose file was written in place) is
// marked Changed. It writes only into an entry still there.
func (s *Store) sealEntry(id string) {
	e, err := s.read(id)
	if err != nil || e.Sealed {
		return
	}
	dir := filepath.Join(s.dir, id)
	for i := range e.Items {
		for j := range e.Items[i].Nodes {
			n := &e.Items[i].Nodes[j]
			if n.Type != TypeFile || n.SHA256 != "" || n.Changed {
				continue
			}
			sum, ok := hashBlob(filepath.Join(dir, n.Blob), n)
			if !ok {
				n.Changed = true
				continue
			}
			n.SHA256 = sum
		}
	}
	e.Sealed = true
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return
	}
	// Into the entry's own folder, never one made anew: a drop may have
	// taken it away.
	f, err := os.CreateTemp(dir, "."+entryFile+".tmp*")
	if err != nil {
		return
	}
	tmp := f.Name()
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, entryFile))
	}
	if err != nil {
		os.Remove(tmp)
		return
	}
	syncDir(dir)
}

// hashBlob returns the SHA-256 of a kept file, and false when it is not
// as kept: another size or modification time, before or after reading.
func hashBlob(p string, n *Node) (string, bool) {
	f, err := openBlob(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	same := func() bool {
		st, err := f.Stat()
		return err == nil && st.Size() == n.Size && st.ModTime().Equal(n.MTime)
	}
	if !same() {
		return "", false
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil || !same() {
		return "", false
	}
	return hex.EncodeToString(h.Sum(nil)), true
}
