package machine

import (
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/agatehq/agate/policy/stores"
)

// ProjectSecretLimit is how many entries ProjectSecrets looks at in one
// project before it stops.
const ProjectSecretLimit = 50000

// ProjectSecrets finds, below the top of the project work, the files and
// folders that patterns name wherever they are (the secret stores' names
// and globs: .env, .env.*, *.pem, .aws/credentials, .ssh/), for the
// sandbox to hide: a .env three folders down is as much a secret as one
// at the top, where the sandbox looks by itself. "~/" and absolute
// patterns are not for it, nor templates (.env.example). It follows no
// link, does not go into folders of fetched packages and build output
// (.git, node_modules, virtualenvs, caches), and stops after limit
// entries, saying it did not finish (complete false). The result is
// absolute; a folder ends in "/".
func ProjectSecrets(work string, patterns []string, limit int) (found []string, complete bool) {
	var names []string
	for _, p := range patterns {
		if p != "" && !strings.HasPrefix(p, "~") && !filepath.IsAbs(p) {
			names = append(names, p)
		}
	}
	if len(names) == 0 || work == "" {
		return nil, true
	}
	seen := 0
	complete = true
	_ = filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && p != work {
				return fs.SkipDir
			}
			return nil
		}
		if p == work {
			return nil
		}
		if seen++; seen > limit {
			complete = false
			return fs.SkipAll
		}
		rel := filepath.ToSlash(p[len(work)+1:])
		depth := strings.Count(rel, "/")
		if d.IsDir() && skipDirs[d.Name()] {
			return fs.SkipDir
		}
		if depth == 0 || stores.Template(d.Name()) || d.Type()&fs.ModeSymlink != 0 {
			return nil // the top is the sandbox's to look at; a link is where it leads
		}
		for _, pat := range names {
			if matchTail(pat, rel, d.IsDir()) {
				if d.IsDir() {
					found = append(found, p+"/")
					return fs.SkipDir
				}
				found = append(found, p)
				return nil
			}
		}
		return nil
	})
	return found, complete
}

// SecretMatcher returns whether a path below a project (or a trusted
// dir), relative to it with slashes, is named by one of patterns as
// ProjectSecrets reads them: their last components, wherever they are
// ("~/" and absolute patterns aside), templates (.env.example) not.
// It is what keeping a copy (app/files/undo) refuses to copy.
func SecretMatcher(patterns []string) func(rel string, isDir bool) bool {
	var names []string
	for _, p := range patterns {
		if p != "" && !strings.HasPrefix(p, "~") && !filepath.IsAbs(p) {
			names = append(names, p)
		}
	}
	return func(rel string, isDir bool) bool {
		if stores.Template(path.Base(rel)) {
			return false
		}
		for _, pat := range names {
			if matchTail(pat, rel, isDir) {
				return true
			}
		}
		return false
	}
}

// skipDirs are the folders ProjectSecrets does not go into: what package
// managers fetched, what builds wrote, git's own store.
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".venv": true, "venv": true, "__pycache__": true,
	"target": true, ".tox": true, ".mypy_cache": true, ".pytest_cache": true, ".gradle": true, ".next": true}

// matchTail reports whether the pattern (one or more slash-separated
// components, a trailing "/" naming a folder) matches the last components
// of rel.
func matchTail(pat, rel string, isDir bool) bool {
	dirOnly := strings.HasSuffix(pat, "/")
	if dirOnly {
		if !isDir {
			return false
		}
		pat = strings.TrimSuffix(pat, "/")
	}
	n := strings.Count(pat, "/") + 1
	parts := strings.Split(rel, "/")
	if len(parts) < n {
		return false
	}
	ok, err := path.Match(pat, strings.Join(parts[len(parts)-n:], "/"))
	return ok && err == nil
}
