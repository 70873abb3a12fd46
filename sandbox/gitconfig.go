package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// gitKeep are the sections of a git config a command confined to agate's
// judgment sees: what local work needs (who commits, how diffs, merges
// and logs look, the filters a checkout runs, which folders are safe).
// Every other section is left out, and with it what can carry a
// credential or reach one: url (insteadOf with a token in it), http and
// its extraHeader, credential helpers, sendemail's password, the hosts'
// own sections (github, gitlab, hub, lfs), aliases (which can hold
// anything) and include and includeIf (which name other files).
var gitKeep = map[string]bool{
	"user": true, "core": true, "init": true, "color": true, "diff": true, "difftool": true,
	"merge": true, "mergetool": true, "pull": true, "push": true, "fetch": true, "branch": true,
	"rebase": true, "status": true, "log": true, "format": true, "commit": true, "tag": true,
	"advice": true, "help": true, "safe": true, "filter": true, "gpg": true, "interactive": true,
	"column": true, "rerere": true, "grep": true, "blame": true, "feature": true, "submodule": true,
	"transfer": true, "pager": true, "apply": true, "gc": true, "pack": true, "index": true, "am": true,
	"stash": true, "worktree": true, "clean": true, "checkout": true, "sequence": true, "i18n": true,
	"notes": true, "protocol": true, "pretty": true, "man": true, "rename": true,
}

// GitConfigView returns what a confined command is shown of a git config
// file (~/.gitconfig, ~/.config/git/config): its entries in the sections
// local work needs (gitKeep), written out anew, one per line, each value
// quoted, and nothing else: no comment, no other section, no entry whose
// value holds a URL with credentials in it. A file git itself would
// refuse, or one this reading is unsure of, is an error: the caller hides
// the file instead.
func GitConfigView(data []byte) ([]byte, error) {
	return configView(data, func(section string) bool { return gitKeep[section] })
}

// gitDropRepo are the sections a repository's own config (.git/config)
// loses in its view: what can carry a credential (http's extraHeader, as
// CI checkouts leave it, credential helpers, url rewrites, sendemail's
// password) or name another file (include, includeIf).
var gitDropRepo = map[string]bool{"http": true, "https": true, "credential": true, "url": true,
	"include": true, "includeif": true, "sendemail": true}

// RepoConfigView is GitConfigView for a repository's own config: all of
// it but the sections gitDropRepo names and the values that hold a URL
// with credentials, so that git works on the repository as before
// (remotes, branches, extensions, worktrees) and reads no token.
func RepoConfigView(data []byte) ([]byte, error) {
	return configView(data, func(section string) bool { return !gitDropRepo[section] })
}

// configView writes back the entries of the sections keep keeps.
func configView(data []byte, keep func(section string) bool) ([]byte, error) {
	entries, err := parseGitConfig(data)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("# agate's sandbox shows this file without the sections that can carry credentials\n")
	last := ""
	for _, e := range entries {
		if !keep(e.section) || urlWithCredentials(e.value) {
			continue
		}
		head := "[" + e.section
		if e.hasSub {
			head += ` "` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(e.sub) + `"`
		}
		head += "]"
		if head != last {
			b.WriteString(head + "\n")
			last = head
		}
		if e.noValue {
			fmt.Fprintf(&b, "\t%s\n", e.key)
			continue
		}
		fmt.Fprintf(&b, "\t%s = %s\n", e.key, quoteGitValue(e.value))
	}
	return b.Bytes(), nil
}

// gitEntry is one variable of a git config file.
type gitEntry struct {
	section string // lower case
	sub     string // as written
	hasSub  bool
	key     string // lower case
	value   string
	noValue bool // "key" alone: a boolean true
}

// errGitConfig is what parseGitConfig returns for a file it will not read.
var errGitConfig = errors.New("a git config agate cannot read")

// parseGitConfig reads a git config file as git's config.c does: section
// headers ([section], [section "sub"], the old [section.sub]), variables
// (key = value, or key alone), comments (# and ;), values with quotes,
// the escapes \\ \" \n \t \b and a backslash at the end of a line going
// on to the next. What git would call a bad config line is an error.
func parseGitConfig(data []byte) ([]gitEntry, error) {
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, fmt.Errorf("%w: a NUL byte", errGitConfig)
	}
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	s = strings.TrimPrefix(s, "\ufeff")
	var out []gitEntry
	section, sub, hasSub := "", "", false
	line := 1
	bad := func(what string) error { return fmt.Errorf("%w: line %d: %s", errGitConfig, line, what) }
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t':
			i++
		case c == '#' || c == ';':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '[':
			i++
			start := i
			for i < len(s) && (isAlnum(s[i]) || s[i] == '-' || s[i] == '.') {
				i++
			}
			name := strings.ToLower(s[start:i])
			if name == "" {
				return nil, bad("a section without a name")
			}
			sub, hasSub = "", false
			if i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
					i++
				}
				if i >= len(s) || s[i] != '"' || strings.Contains(name, ".") {
					return nil, bad("a section header git would not read")
				}
				i++
				var b strings.Builder
				for {
					if i >= len(s) || s[i] == '\n' {
						return nil, bad("a subsection without its closing quote")
					}
					if s[i] == '"' {
						i++
						break
					}
					if s[i] == '\\' {
						i++
						if i >= len(s) || s[i] == '\n' {
							return nil, bad("a subsection without its closing quote")
						}
					}
					b.WriteByte(s[i])
					i++
				}
				sub, hasSub = b.String(), true
			} else if dot := strings.IndexByte(name, '.'); dot >= 0 {
				// [section.sub]: the old way, the subsection in lower case.
				name, sub, hasSub = name[:dot], name[dot+1:], true
				if name == "" || sub == "" {
					return nil, bad("an empty section or subsection")
				}
			}
			if i >= len(s) || s[i] != ']' {
				return nil, bad("a section header without its ']'")
			}
			i++
			section = name
		case isAlpha(c):
			if section == "" {
				return nil, bad("a variable before any section")
			}
			start := i
			for i < len(s) && (isAlnum(s[i]) || s[i] == '-') {
				i++
			}
			e := gitEntry{section: section, sub: sub, hasSub: hasSub, key: strings.ToLower(s[start:i])}
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			switch {
			case i >= len(s) || s[i] == '\n': // (a comment there is a bad line to git)
				e.noValue = true
			case s[i] == '=':
				i++
				v, n, lines, err := gitValue(s[i:])
				if err != nil {
					return nil, bad(err.Error())
				}
				e.value = v
				i += n
				line += lines
			default:
				return nil, bad("a variable name git would not read")
			}
			out = append(out, e)
		default:
			return nil, bad(fmt.Sprintf("%q where a section, a variable or a comment goes", c))
		}
	}
	return out, nil
}

// gitValue reads a value from the start of s up to the end of its line (or
// of its last continued line), as git's parse_value does: leading and
// trailing blanks dropped, each blank between words kept as a space,
// quotes taken out, escapes undone, a comment ending it. It returns the
// value, how many bytes it took (not the newline) and how many newlines
// it went past.
func gitValue(s string) (value string, n, lines int, err error) {
	var b strings.Builder
	quote, spaces := false, 0
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if c == '\n' {
			if quote {
				return "", 0, 0, errors.New("a value without its closing quote")
			}
			break
		}
		if !quote && (c == ';' || c == '#') {
			for i < len(s) && s[i] != '\n' {
				i++
			}
			break
		}
		if !quote && (c == ' ' || c == '\t') {
			if b.Len() > 0 {
				spaces++
			}
			continue
		}
		for ; spaces > 0; spaces-- {
			b.WriteByte(' ')
		}
		switch c {
		case '"':
			quote = !quote
		case '\\':
			i++
			if i >= len(s) {
				return "", 0, 0, errors.New("a backslash at the end of the file")
			}
			switch s[i] {
			case '\n':
				lines++
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case 'n':
				b.WriteByte('\n')
			case '\\', '"':
				b.WriteByte(s[i])
			default:
				return "", 0, 0, fmt.Errorf("the escape \\%c git does not know", s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	if quote {
		return "", 0, 0, errors.New("a value without its closing quote")
	}
	return b.String(), i, lines, nil
}

// quoteGitValue writes v as a quoted git config value that reads back as v.
func quoteGitValue(v string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// urlWithCredentials reports whether v holds a URL with a user's password
// or token in it (scheme://user:secret@host, scheme://token@host).
func urlWithCredentials(v string) bool {
	for {
		i := strings.Index(v, "://")
		if i < 0 {
			return false
		}
		v = v[i+3:]
		end := strings.IndexAny(v, "/ \t\"'")
		if end < 0 {
			end = len(v)
		}
		if strings.Contains(v[:end], "@") {
			return true
		}
	}
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }

// GitConfigViews are the views of the person's git config files (in home,
// in ~/.config/git, and under XDG_CONFIG_HOME when it is set) for a command
// confined to agate's judgment, and the files to hide instead: one too
// large for a view, or one GitConfigView will not read.
func GitConfigViews(home string, getenv func(string) string) (views []View, hidden []string) {
	if home == "" || !filepath.IsAbs(home) {
		return nil, nil
	}
	files := []string{filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config")}
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		files = append(files, filepath.Join(d, "git", "config"))
	}
	for _, f := range slices.Compact(files) {
		data, err := readSmall(f, 4*MaxView)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err == nil:
			if v, verr := GitConfigView(data); verr == nil && len(v) <= MaxView {
				views = append(views, View{Path: f, Data: v})
				continue
			}
		}
		hidden = append(hidden, f)
	}
	return views, hidden
}

// readSmall reads the regular file at path, an error when it holds more
// than max bytes.
func readSmall(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s holds more than %d bytes", path, max)
	}
	return data, nil
}

// GitEnvView is env without the git config it carries that a view of a
// config file would leave out: of the GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n
// and GIT_CONFIG_VALUE_n pairs, those in the sections gitDropRepo names
// or whose value holds a URL with credentials go (the rest renumbered);
// GIT_CONFIG_PARAMETERS (what `git -c` passes on) goes whole when it
// names such a section or holds such a URL. A count agate cannot read
// drops every pair.
func GitEnvView(env []string) []string {
	vals := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "GIT_CONFIG_") {
			vals[k] = v
		}
	}
	if len(vals) == 0 {
		return env
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k == "GIT_CONFIG_COUNT" || strings.HasPrefix(k, "GIT_CONFIG_KEY_") || strings.HasPrefix(k, "GIT_CONFIG_VALUE_") {
			continue // written again below
		}
		if k == "GIT_CONFIG_PARAMETERS" && gitParamsCarry(vals[k]) {
			continue
		}
		out = append(out, kv)
	}
	n, err := strconv.Atoi(vals["GIT_CONFIG_COUNT"])
	if err != nil || n <= 0 || n > 1000 {
		return out
	}
	kept := 0
	for i := 0; i < n; i++ {
		key, ok := vals["GIT_CONFIG_KEY_"+strconv.Itoa(i)]
		value := vals["GIT_CONFIG_VALUE_"+strconv.Itoa(i)]
		section, _, _ := strings.Cut(strings.ToLower(key), ".")
		if !ok || gitDropRepo[section] || urlWithCredentials(value) {
			continue
		}
		out = append(out, "GIT_CONFIG_KEY_"+strconv.Itoa(kept)+"="+key, "GIT_CONFIG_VALUE_"+strconv.Itoa(kept)+"="+value)
		kept++
	}
	if kept > 0 {
		out = append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(kept))
	}
	return out
}

// gitParamsCarry reports whether GIT_CONFIG_PARAMETERS names a section
// whose values a view leaves out, or holds a URL with credentials.
func gitParamsCarry(params string) bool {
	p := strings.ToLower(params)
	for section := range gitDropRepo {
		if strings.Contains(p, "'"+section+".") {
			return true
		}
	}
	return urlWithCredentials(params)
}

// JudgedHome narrows o to what a command confined to agate's judgment
// sees of home: HomeDenied's entries hidden but those under shown (the
// folders a server serves, which it sees whole but for the stores), and
// git's config files shown as views (GitConfigViews), the repository's
// in work too (RepoConfigView); a config agate will not read is hidden.
// home "" hides nothing of home.
func (o *Options) JudgedHome(home, work string, shown []string, getenv func(string) string) {
	if home != "" {
		o.Hidden = append(o.Hidden, slices.DeleteFunc(HomeDenied(home), func(h string) bool {
			return slices.ContainsFunc(shown, func(s string) bool { return within(h, s) })
		})...)
		views, hide := GitConfigViews(home, getenv)
		o.Views, o.Hidden = append(o.Views, views...), append(o.Hidden, hide...)
	}
	if work == "" {
		return
	}
	f := filepath.Join(work, ".git", "config")
	if fi, err := os.Lstat(f); err != nil || !fi.Mode().IsRegular() {
		return // no repository, or a worktree's .git file
	}
	data, err := readSmall(f, 4*MaxView)
	if err == nil {
		if v, verr := RepoConfigView(data); verr == nil && len(v) <= MaxView {
			o.Views = append(o.Views, View{Path: f, Data: v})
			return
		}
	}
	o.Hidden = append(o.Hidden, f)
}
