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
