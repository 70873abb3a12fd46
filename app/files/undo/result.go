package undo

// Result is what a restore did, path by path.
type Result struct {
	// Put are the paths put back where they were.
	Put []string
	// Same are the paths already there as kept: nothing was written.
	Same []string
	// Beside are the paths where something else is now: the kept copy
	// was written next to it, at As.
	Beside []Moved
	// Failed are the paths not put back, and why.
	Failed []Failure
}

// Moved is a kept path written beside what is there now.
type Moved struct{ Path, As string }

// Failure is a kept path that was not put back.
type Failure struct{ Path, Why string }

// Lines says what the restore did, one line a path: put back, already
// there, written beside, not put back and why.
func (r *Result) Lines() []string {
	var out []string
	for _, p := range r.Put {
		out = append(out, "put back  "+p)
	}
	for _, p := range r.Same {
		out = append(out, "unchanged "+p+" (it is there as it was kept)")
	}
	for _, m := range r.Beside {
		out = append(out, "beside    "+m.Path+": something else is there now, so the kept copy is at "+m.As)
	}
	for _, f := range r.Failed {
		out = append(out, "not put back "+f.Path+": "+f.Why)
	}
	return out
}
