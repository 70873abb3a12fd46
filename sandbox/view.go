package sandbox

import (
	"fmt"
	"os"
)

// View is a file shown inside the sandbox with other content, read-only.
type View struct {
	Path string // the file, absolute
	Data []byte // what reading it gives
}

// MaxView is the most a view may hold: the Landlock launcher passes it in
// its child's arguments.
const MaxView = 32 << 10

// addViews lays the views over the mounts, last: each existing regular
// file outside the hidden paths and the private /tmp (but where a bound
// path shows through it), under a writable root as elsewhere.
func (p *plan) addViews(views []View, hidden []string) error {
	for _, v := range views {
		if len(v.Data) > MaxView {
			return fmt.Errorf("view of %s: %d bytes, over the %d a view may hold", v.Path, len(v.Data), MaxView)
		}
		r, err := realPath(v.Path)
		if err != nil {
			continue
		}
		fi, err := os.Stat(r)
		if err != nil || !fi.Mode().IsRegular() || under(r, hidden) || within(r, "/tmp") && !under(r, p.bound()) {
			continue // out of sight anyway: hidden, or in the private /tmp
		}
		// Under a writable root too: a view is a read-only mount point,
		// which the command can neither write, remove nor rename.
		if p.views == nil {
			p.views = map[string][]byte{}
		}
		if _, dup := p.views[r]; dup {
			continue
		}
		p.views[r] = v.Data
		p.mounts = append(p.mounts, mount{mountView, r})
	}
	return nil
}
