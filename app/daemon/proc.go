package daemon

// ancestors returns pid and its parents, nearest first, at most n of
// them, up to (not including) process 1.
func ancestors(pid, n int) []int {
	var out []int
	for pid > 1 && len(out) < n {
		out = append(out, pid)
		pid = parentPID(pid)
	}
	return out
}
