package daemon

import "io/fs"

// fileOwner is unknown on Windows: the tokens' socket is refused there.
func fileOwner(fs.FileInfo) int { return -1 }
