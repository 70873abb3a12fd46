//go:build windows

package machine

// openNoFollow is empty on Windows, which has no O_NOFOLLOW: ReadPatch
// still refuses anything but a regular file once opened.
const openNoFollow = 0
