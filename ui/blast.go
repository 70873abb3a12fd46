package ui

import (
	"fmt"
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/agatehq/agate/app/api"
)

// What a call would do and reach, in words, as the approval carries it: the
// popup shows these fields and nothing it works out itself, so that what
// the person saw is what the audit log records. The texts are the
// daemon's; only numbers are put into words here.

// commandMark is how a shell call's simple command stands: "asks" (with
// why, when the daemon says), "granted" (a grant of the person's covers
// it) or "free" (it would run unasked). A command that is neither free nor
// granted asks, said or not.
func commandMark(c api.CommandInfo) (string, color.Color) {
	switch {
	case c.Granted != "" && c.Why == "":
		return "granted", color.NRGBA{22, 128, 110, 255}
	case c.Free && c.Why == "":
		return "free", color.NRGBA{90, 110, 90, 255}
	}
	return "asks", color.NRGBA{190, 30, 30, 255}
}

// commandSegments are one simple command, then what it does, then why it
// asks or what covers it.
func commandSegments(c api.CommandInfo) []widget.RichTextSegment {
	segs := []widget.RichTextSegment{mono(c.Text), para()}
	for _, e := range c.Effects {
		segs = append(segs, effectSegments(e)...)
	}
	if c.Why != "" {
		segs = append(segs, bold("Asks: "), plain(c.Why), para())
	}
	if c.Granted != "" {
		segs = append(segs, plain("Covered by your grant "), mono(c.Granted), para())
	}
	if len(c.Effects) == 0 && c.Why == "" && c.Granted == "" && c.Free {
		segs = append(segs, plain("Runs unasked."), para())
	}
	return segs
}

// effectSegments are one effect: its text, and "outside the project" when
// its path is.
func effectSegments(e api.EffectInfo) []widget.RichTextSegment {
	segs := []widget.RichTextSegment{plain("· " + e.Text)}
	if e.Outside {
		segs = append(segs, colored(" (outside the project)", theme.ColorNameError))
	}
	return append(segs, para())
}

// effectsSegments are a call's effects when it is not a shell command.
func effectsSegments(es []api.EffectInfo) []widget.RichTextSegment {
	var segs []widget.RichTextSegment
	for _, e := range es {
		segs = append(segs, effectSegments(e)...)
	}
	return segs
}

// impactSegments are what is at the paths the call deletes or overwrites
// and the hosts it reaches, as the daemon looked at them.
func impactSegments(im *api.Impact) []widget.RichTextSegment {
	if im == nil {
		return nil
	}
	var segs []widget.RichTextSegment
	for _, p := range im.Paths {
		segs = append(segs, mono(p.Path), plain(": "+pathImpactText(p)))
		if p.Outside {
			segs = append(segs, colored(" (outside the project)", theme.ColorNameError))
		}
		segs = append(segs, para())
		if len(p.Names) > 0 {
			names := strings.Join(p.Names, ", ")
			if p.More || p.Files > len(p.Names) {
				names += ", …"
			}
			segs = append(segs, plain("    "), mono(names), para())
		}
	}
	for _, h := range im.Hosts {
		what := ": reached"
		if h.Sends {
			what = ": reached, and data is sent to it"
		}
		segs = append(segs, mono(h.Host), plain(what), para())
	}
	return segs
}

// pathImpactText says what is at a path: "a folder of 128 files, 4.2 MB".
func pathImpactText(p api.PathImpact) string {
	if !p.Exists {
		return "nothing there yet"
	}
	files := fmt.Sprintf("%d files", p.Files)
	switch {
	case p.More:
		files = fmt.Sprintf("more than %d files", p.Files)
	case p.Files == 1:
		files = "1 file"
	}
	s := "a file of " + humanBytes(p.Bytes)
	if p.Dir {
		s = "a folder of " + files + ", " + humanBytes(p.Bytes)
	}
	if p.Recoverable {
		s += "; git can give it back"
	}
	return s
}

// humanBytes is a size in words: "512 bytes", "4.2 MB".
func humanBytes(n int64) string {
	if n < 1000 {
		if n == 1 {
			return "1 byte"
		}
		return fmt.Sprintf("%d bytes", n)
	}
	f := float64(n)
	for _, u := range []string{"kB", "MB", "GB", "TB"} {
		f /= 1000
		if f < 1000 || u == "TB" {
			if f < 10 {
				return fmt.Sprintf("%.1f %s", f, u)
			}
			return fmt.Sprintf("%.0f %s", f, u)
		}
	}
	return fmt.Sprintf("%d bytes", n) // not reached
}

// whySentence is why the call asks, in one sentence: the daemon's Why, or
// its reason where an older daemon gives no Why.
func whySentence(a api.Approval) string {
	if a.Why != "" {
		return a.Why
	}
	return a.Reason
}

// detailsText is what decided the call to ask, for the Details expander:
// the layer, the rule and its file, the reason, the category and risks,
// and the grant a remembering answer records (Remember[chosen]; Grant for
// an older daemon's approval, which has no Remember).
func detailsText(a api.Approval, chosen int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Decided by the %s layer", a.Layer)
	if a.Rule != "" {
		fmt.Fprintf(&b, ", rule %q", a.Rule)
		if a.Source != "" {
			b.WriteString(" from " + a.Source)
		}
	}
	b.WriteString(".\nReason: " + a.Reason)
	fmt.Fprintf(&b, "\nCategory: %s; risks: %s", a.Category, strings.Join(a.Risks, ", "))
	if len(a.Risks) == 0 {
		b.WriteString("none")
	}
	if a.Tainted {
		b.WriteString("; the run took in outside content (tainted)")
	}
	switch {
	case chosen >= 0 && chosen < len(a.Remember):
		b.WriteString("\nA run, session or always answer records " + a.Remember[chosen].Grant + ".")
	case len(a.Remember) > 0:
		b.WriteString("\nChoose what a run, session or always answer remembers.")
	case a.Grant != "":
		b.WriteString("\nA session or always answer records " + a.Grant + ".")
	}
	return b.String()
}

// rememberOptions are the Remember select's options: each entry's text,
// the broad ones marked.
func rememberOptions(rs []api.Remember) []string {
	out := make([]string, len(rs))
	seen := map[string]bool{}
	for i, r := range rs {
		s := r.Text
		if s == "" || seen[s] {
			s = r.Grant // two alike: tell them apart by the grant
		}
		if r.Broad {
			s += " (broad)"
		}
		seen[r.Text] = true
		out[i] = s
	}
	return out
}

// defaultRemember is what an answer remembers unless the person widens it:
// the first entry (the narrowest) that is not broad; -1 when every entry
// is broad, and then the person must choose.
func defaultRemember(rs []api.Remember) int {
	for i, r := range rs {
		if !r.Broad {
			return i
		}
	}
	return -1
}

func plain(s string) widget.RichTextSegment {
	return &widget.TextSegment{Text: s, Style: widget.RichTextStyleInline}
}

func bold(s string) widget.RichTextSegment {
	st := widget.RichTextStyleInline
	st.TextStyle = fyne.TextStyle{Bold: true}
	return &widget.TextSegment{Text: s, Style: st}
}

func mono(s string) widget.RichTextSegment {
	st := widget.RichTextStyleInline
	st.TextStyle = fyne.TextStyle{Monospace: true}
	return &widget.TextSegment{Text: s, Style: st}
}

func colored(s string, c fyne.ThemeColorName) widget.RichTextSegment {
	st := widget.RichTextStyleInline
	st.ColorName = c
	return &widget.TextSegment{Text: s, Style: st}
}

// para ends a paragraph.
func para() widget.RichTextSegment {
	return &widget.TextSegment{Style: widget.RichTextStyleParagraph}
}
