package ui

import "github.com/agatehq/agate/ui/internal/quietlocale"

// Fyne's packages, which ui imports, have run their init by now: put back
// the locale variable quietlocale quietened for theirs.
func init() { quietlocale.Restore() }
