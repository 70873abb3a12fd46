package daemon

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/agatehq/agate/app/osutil"
	"github.com/agatehq/agate/policy"
)

// maxMade bounds the files one session is remembered to have made.
const maxMade = 4096

// madeFile is a file a session wrote into being (it was not there, or it
// was the session's own), as it was once written: the identity a later
// delete or overwrite must find for nothing of the person's to be lost.
// info is nil until the session's next call fixes it.
type madeFile struct {
	info fs.FileInfo
	at   time.Time
}

// wrote notes what an allowed call writes that is the session's own: a
// file that is not there now, one the session made and left as it was,
// or one a copy was just kept of (what it held is kept; what the agent
// writes is its own). Its identity is fixed once the write is done
// (fixMade); what it deletes is forgotten.
func (ss *sessions) wrote(agent, id string, effects []policy.Effect, kept []string, now time.Time) {
	if id == "" {
		return
	}
	var writes, deletes []string
	for _, e := range effects {
		if e.Path == "" || e.Create {
			continue
		}
		switch e.Kind {
		case policy.EffDelete:
			deletes = append(deletes, e.Path)
		case policy.EffWrite:
			writes = append(writes, e.Path)
		}
	}
	if len(writes)+len(deletes) == 0 {
		return
	}
	// The disk is looked at outside the lock.
	var mine []string
	for _, p := range writes {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) || ss.owns(agent, id, p) || within(kept, p) {
			mine = append(mine, p)
		}
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.get(agent, id, now)
	for p := range s.made {
		if within(deletes, p) {
			delete(s.made, p)
		}
	}
	for _, p := range mine {
		if s.made == nil {
			s.made = map[string]*madeFile{}
		}
		if len(s.made) >= maxMade {
			s.dropOldestMade()
		}
		s.made[p] = &madeFile{at: now}
	}
}

// dropOldestMade forgets the file noted longest ago: it is then kept, as
// the person's would be.
func (s *session) dropOldestMade() {
	var oldest string
	var at time.Time
	for p, m := range s.made {
		if oldest == "" || m.at.Before(at) {
			oldest, at = p, m.at
		}
	}
	delete(s.made, oldest)
}

// madeFixWindow bounds how long after a write its file's identity may be
// fixed: past it a person may have edited the file in between, so it is
// forgotten (then kept, as the person's would be).
const madeFixWindow = 2 * time.Minute

// fixMade records the identity of the files a session's earlier calls
// wrote into being: what is there now is what they wrote. It runs when
// the agent reports a call ran (its outcome) and at the session's next
// call, at most madeFixWindow after the write; a person's turn between
// (forgetUnfixed) and a path that is not a file of one name forget it.
func (ss *sessions) fixMade(agent, id string, now time.Time) {
	if id == "" {
		return
	}
	ss.mu.Lock()
	var open []string
	if s := ss.byID[sessionKey{agent, id}]; s != nil {
		for p, m := range s.made {
			switch {
			case m.info != nil:
			case now.Sub(m.at) > madeFixWindow:
				delete(s.made, p)
			default:
				open = append(open, p)
			}
		}
	}
	ss.mu.Unlock()
	if len(open) == 0 {
		return
	}
	infos := make(map[string]fs.FileInfo, len(open))
	for _, p := range open {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && osutil.Links(fi) == 1 {
			infos[p] = fi
		}
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.byID[sessionKey{agent, id}]
	if s == nil {
		return
	}
	for _, p := range open {
		m := s.made[p]
		if m == nil || m.info != nil {
			continue
		}
		if fi := infos[p]; fi != nil {
			m.info = fi
		} else {
			delete(s.made, p)
		}
	}
}

// forgetUnfixed forgets the files a session wrote whose identity is not
// fixed yet, at a person's turn (a new prompt): the person may have
// edited them since, so what is there is no longer only the session's.
func (s *session) forgetUnfixed() {
	for p, m := range s.made {
		if m.info == nil {
			delete(s.made, p)
		}
	}
}

// owns reports whether path is a file the session made itself and left
// as it was: the same file (inode), of one name, its size and mtime as
// agate recorded them. Deleting or rewriting it loses nothing of the
// person's.
func (ss *sessions) owns(agent, id, path string) bool {
	if id == "" {
		return false
	}
	ss.mu.Lock()
	var was fs.FileInfo
	if s := ss.byID[sessionKey{agent, id}]; s != nil && s.made != nil {
		if m := s.made[path]; m != nil {
			was = m.info
		}
	}
	ss.mu.Unlock()
	if was == nil {
		return false
	}
	now, err := os.Lstat(path)
	return err == nil && now.Mode().IsRegular() && osutil.Links(now) == 1 && os.SameFile(was, now) &&
		now.Size() == was.Size() && now.ModTime().Equal(was.ModTime())
}

// within reports whether p is one of dirs or lies below one.
func within(dirs []string, p string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}
