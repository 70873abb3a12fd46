//go:build unix

package machine

import "syscall"

// openNoFollow opens a file without following a link at its end and
// without blocking on a fifo.
const openNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
