package sandbox

import (
	"fmt"
	"regexp"
	"strings"
)

// sbplWritableDevices are the device files a confined command may write on
// macOS: the bit bucket, the terminal, its own descriptors.
var sbplWritableDevices = []string{
	`(literal "/dev/null")`,
	`(literal "/dev/zero")`,
	`(literal "/dev/tty")`,
	`(literal "/dev/dtracehelper")`,
	`(regex #"^/dev/fd/[0-9]+$")`,
	`(regex #"^/dev/ttys[0-9]+$")`,
}

// sbplTempDirs are macOS's temp dirs: /tmp is a link to /private/tmp, and
// $TMPDIR lives under /private/var/folders. Seatbelt matches real paths.
var sbplTempDirs = []string{"/private/tmp", "/private/var/folders"}

// sbplProfile generates the sandbox-exec (Seatbelt) profile for p. Later
// rules win over earlier ones, so the profile allows by default (as eVi's
// does), then denies every write, allows writes to the work dir, the
// writable paths and the temp dirs, denies them again for protected paths
// and for renaming the dirs that hold protected paths, hides the hidden
// paths, denies Apple events (which would let a command drive an
// unconfined app), and denies the network unless p.net.
func sbplProfile(p *plan) (string, error) {
	for _, m := range p.mounts {
		if err := sbplSafe(m.path); err != nil {
			return "", err
		}
	}
	for _, path := range p.roots() {
		if err := sbplSafe(path); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	b.WriteString("(version 1)\n")
	b.WriteString("(allow default)\n")
	b.WriteString("(deny file-write*)\n")
	b.WriteString("(allow file-write*")
	for _, d := range sbplTempDirs {
		fmt.Fprintf(&b, "\n    (subpath %s)", sbplString(d))
	}
	for _, r := range p.roots() {
		fmt.Fprintf(&b, "\n    (subpath %s)", sbplString(r))
	}
	for _, d := range sbplWritableDevices {
		b.WriteString("\n    " + d)
	}
	b.WriteString(")\n")
	for _, m := range p.mounts {
		switch m.kind {
		case mountProtect:
			fmt.Fprintf(&b, "(deny file-write* (subpath %s))\n", sbplString(m.path))
		case mountPin:
			fmt.Fprintf(&b, "(deny file-write-unlink (literal %s))\n", sbplString(m.path))
		case mountHideDir, mountHideFile, mountEmptyDir, mountView:
			// sandbox-exec cannot show a view: the file is hidden instead.
			fmt.Fprintf(&b, "(deny file-read* file-write* (subpath %s))\n", sbplString(m.path))
			fmt.Fprintf(&b, "(deny network-outbound (remote unix-socket (path-regex #\"^%s(/|$)\")))\n",
				regexp.QuoteMeta(m.path))
		}
	}
	b.WriteString("(deny appleevent-send)\n")
	if !p.net {
		b.WriteString("(deny network*)\n")
	}
	return b.String(), nil
}

// sbplSafe refuses paths that the profile could not quote faithfully.
func sbplSafe(path string) error {
	if strings.ContainsAny(path, "\"\\\n\r\x00") {
		return fmt.Errorf("sandbox-exec cannot confine around %q: the path has a quote, backslash or newline", path)
	}
	return nil
}

// sbplString quotes s as an SBPL string. Paths reaching here were checked
// by sbplSafe.
func sbplString(s string) string { return `"` + s + `"` }
