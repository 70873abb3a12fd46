package undo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Target is one path to keep (policy.KeepTarget).
type Target struct {
	Path    string // absolute: a file, a link, or a folder and all it holds
	Root    string // the project or trusted dir it lies in
	InPlace bool   // the call may write it in place: no hard link
}

// Meta is what an entry says of the call it was kept for.
type Meta struct {
	Agent, Session, Tool, Subject string
}

// Measure walks what keeping path (in root) would hold, following no
// link, and returns its entries (files, folders and links: each is a
// record to keep) and bytes (each file at full size, each link's
// target). It stops with an error wrapping ErrLimit past the limits of
// one keep, ErrSecret at a file or folder Secret names, ErrSpecial at
// anything that is not a file, a folder or a link, and ctx's error when
// it is done.
func (s *Store) Measure(ctx context.Context, path, root string) (entries int, bytes int64, err error) {
	return s.measure(ctx, path, root, nil)
}

// measure is Measure, handing each thing walked to saw.
func (s *Store) measure(ctx context.Context, path, root string, saw func(walked)) (entries int, bytes int64, err error) {
	lim := s.Limits()
	err = s.walk(path, root, func(p, rel string, info fs.FileInfo) error {
		if entries%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if saw != nil {
			saw(walked{p: p, rel: rel, info: info})
		}
		entries++
		if entries > lim.MaxFiles {
			return fmt.Errorf("it holds more than %d files, folders and links, [undo] max_files: %w", lim.MaxFiles, ErrLimit)
		}
		if info.Mode().IsRegular() || info.Mode()&fs.ModeSymlink != 0 {
			bytes += info.Size() // (a link's size is its target's length)
			if bytes > lim.MaxCall {
				return fmt.Errorf("it holds more than %s, [undo] max_call_mb: %w", Size(lim.MaxCall), ErrLimit)
			}
		}
		return nil
	})
	return entries, bytes, err
}

// Fits reports whether one keep of entries (files, folders and links)
// and bytes fits the limits: of one keep, of the whole store, and of the
// disk's free space.
func (s *Store) Fits(files int, bytes int64) error {
	lim := s.Limits()
	switch {
	case !supported:
		return ErrUnsupported
	case files > lim.MaxFiles:
		return fmt.Errorf("it would lose %d files, folders and links, more than [undo] max_files (%d): %w", files, lim.MaxFiles, ErrLimit)
	case bytes > lim.MaxCall:
		return fmt.Errorf("it would lose %s, more than [undo] max_call_mb (%s): %w", Size(bytes), Size(lim.MaxCall), ErrLimit)
	}
	if used := s.Used(); used+bytes > lim.MaxTotal {
		return fmt.Errorf("agate's kept copies hold %s, and %s more would pass [undo] max_total_mb (%s); `agate undo --drop ID` frees room: %w",
			Size(used), Size(bytes), Size(lim.MaxTotal), ErrLimit)
	}
	if free, err := freeSpace(s.dir); err == nil && free-bytes < lim.MinFree {
		return fmt.Errorf("the disk has %s free, and keeping %s would leave less than [undo] min_free_mb (%s): %w",
			Size(free), Size(bytes), Size(lim.MinFree), ErrLimit)
	}
	return nil
}

// Budget measures what one call's keeps hold against the limits
// together: each path is walked once, and one below another already
// taken is counted with it.
type Budget struct {
	s     *Store
	ctx   context.Context
	files int
	bytes int64
	taken []string
	walks map[string][]walked // what Take saw of each path, for Keep
}

// walked is one file, folder or link a walk saw.
type walked struct {
	p, rel string
	info   fs.FileInfo
}

// Budget returns an empty budget for one call's keeps; its walks stop
// when ctx is done.
func (s *Store) Budget(ctx context.Context) *Budget { return &Budget{s: s, ctx: ctx} }

// Take measures what path (in root) holds and reports whether it can be
// kept along with what the budget holds already (Measure, then Fits); on
// nil it is added.
func (b *Budget) Take(path, root string) error {
	for _, t := range b.taken {
		if path == t || strings.HasPrefix(path, t+"/") {
			return nil
		}
	}
	var seen []walked
	n, size, err := b.s.measure(b.ctx, path, root, func(w walked) { seen = append(seen, w) })
	if err == nil {
		err = b.s.Fits(b.files+n, b.bytes+size)
	}
	if err != nil {
		return err
	}
	b.files, b.bytes = b.files+n, b.bytes+size
	b.taken = append(b.taken, path)
	if b.walks == nil {
		b.walks = map[string][]walked{}
	}
	b.walks[path] = seen
	return nil
}

// Keep keeps targets as Store.Keep does, taking what Take saw of a path
// rather than walking it again: the decision's walk is the keep's.
func (b *Budget) Keep(ctx context.Context, meta Meta, targets []Target) (*Entry, error) {
	return b.s.keep(ctx, meta, targets, b.walks)
}

// walk calls fn for path and, for a folder, everything below it, parents
// first, following no link; rel is the path below path with slashes ("" for
// path itself). It applies the checks every keep makes: secrets, special
// files.
func (s *Store) walk(path, root string, fn func(p, rel string, info fs.FileInfo) error) error {
	var below string
	if r, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(r) {
		below = filepath.ToSlash(r)
	} else if path != root {
		return fmt.Errorf("%s is not in %s", path, root)
	}
	// A path beyond a link is not in root, whatever its name says: it is
	// neither kept (its secrets would be judged by the wrong name) nor
	// put back (restore opens every folder following no link).
	if parent := filepath.Dir(path); parent != path {
		if real, err := filepath.EvalSymlinks(parent); err != nil || real != parent {
			return fmt.Errorf("%s lies beyond a link, and agate keeps only what is where its path says", path)
		}
	}
	return filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel := ""
		if p != path {
			rel = filepath.ToSlash(p[len(path)+1:])
		}
		switch {
		case info.Mode().IsRegular(), info.IsDir(), info.Mode()&fs.ModeSymlink != 0:
		default:
			return fmt.Errorf("%s: %w", p, ErrSpecial)
		}
		if s.Secret != nil {
			inRoot := below
			if rel != "" {
				inRoot = strings.TrimPrefix(below+"/"+rel, "/")
			}
			if inRoot != "" && s.Secret(inRoot, info.IsDir()) {
				return fmt.Errorf("%s: %w", p, ErrSecret)
			}
		}
		return fn(p, rel, info)
	})
}

// Keep keeps what each target holds now, as one entry, and returns it once
// it is synced and offered. Any failure keeps nothing: the call must not
// then run on the promise of a copy.
func (s *Store) Keep(ctx context.Context, meta Meta, targets []Target) (*Entry, error) {
	return s.keep(ctx, meta, targets, nil)
}

// keep is Keep, with what a budget's walks saw of some targets.
func (s *Store) keep(ctx context.Context, meta Meta, targets []Target, walks map[string][]walked) (*Entry, error) {
	if !supported {
		return nil, ErrUnsupported
	}
	if len(targets) == 0 {
		return nil, errors.New("keep: nothing to keep")
	}
	dev, err := deviceOf(s.dir)
	if err != nil {
		return nil, fmt.Errorf("undo store: %w", err)
	}
	id := newID()
	tmp := filepath.Join(s.dir, ".keep-"+id)
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return nil, fmt.Errorf("keep: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			removeAll(tmp)
		}
	}()
	e := &Entry{ID: id, Agent: meta.Agent, Session: meta.Session, Tool: meta.Tool, Subject: meta.Subject}
	lim := s.Limits()
	k := keeper{dir: tmp, dev: dev, lim: lim}
	nodes := 0 // files, folders and links: each a record of the entry
	for _, t := range targets {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		item := Item{Path: t.Path, Root: t.Root}
		each := func(p, rel string, info fs.FileInfo) error {
			if nodes%256 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			n := Node{Rel: rel, Mode: info.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky), MTime: info.ModTime()}
			switch {
			case info.IsDir():
				n.Type = TypeDir
			case info.Mode()&fs.ModeSymlink != 0:
				n.Type = TypeLink
				target, err := os.Readlink(p)
				if err != nil {
					return err
				}
				n.Target = target
				e.Bytes += int64(len(target))
			default:
				n.Type = TypeFile
				if err := k.file(p, info, t.InPlace, &n); err != nil {
					return err
				}
				e.Files++
				e.Bytes += n.Size
			}
			if nodes++; nodes > lim.MaxFiles || e.Bytes > lim.MaxCall {
				return fmt.Errorf("%s: %w", p, ErrLimit)
			}
			item.Nodes = append(item.Nodes, n)
			return nil
		}
		var err error
		if seen, ok := walks[t.Path]; ok {
			for _, w := range seen {
				if err = each(w.p, w.rel, w.info); err != nil {
					break
				}
			}
		} else {
			err = s.walk(t.Path, t.Root, each)
		}
		if errors.Is(err, fs.ErrNotExist) && len(item.Nodes) == 0 {
			continue // gone already: nothing to lose
		}
		if err != nil {
			return nil, fmt.Errorf("keep %s: %w", t.Path, err)
		}
		e.Items = append(e.Items, item)
	}
	if len(e.Items) == 0 {
		return nil, errors.New("keep: none of the paths is there")
	}
	if err := s.Fits(nodes, e.Bytes); err != nil {
		return nil, fmt.Errorf("keep: %w", err)
	}
	e.Time = s.now()
	syncDir(tmp)
	if err := writeEntry(tmp, e); err != nil {
		return nil, fmt.Errorf("keep: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(s.dir, id)); err != nil {
		return nil, fmt.Errorf("keep: %w", err)
	}
	ok = true
	syncDir(s.dir)
	s.mu.Lock()
	if s.used >= 0 {
		s.used += e.Bytes
	}
	s.mu.Unlock()
	s.seal.Add(1)
	go func() {
		defer s.seal.Done()
		s.sealEntry(id)
	}()
	return e, nil
}

// keeper makes the kept files of one entry.
type keeper struct {
	dir string
	dev uint64
	lim Limits
	n   int
}

// file keeps the regular file p (as info, an lstat, saw it) and fills
// n's blob, how and size.
func (k *keeper) file(p string, info fs.FileInfo, inPlace bool, n *Node) error {
	k.n++
	n.Blob = fmt.Sprintf("%06d", k.n)
	blob := filepath.Join(k.dir, n.Blob)
	n.Size = info.Size()
	if !inPlace && soleLink(info, k.dev) {
		if err := hardLink(p, blob, info); err == nil {
			n.How = "link"
			return nil
		}
	}
	how, size, err := cloneOrCopy(p, blob, info, k.lim.MaxCall)
	if err != nil {
		return err
	}
	n.How, n.Size = how, size
	return nil
}

// Why says in a popup's words why no copy can be kept: the store's own
// errors as they are, a file that could not be read named.
func Why(err error) string {
	var pe *fs.PathError
	if !errors.Is(err, ErrSecret) && !errors.Is(err, ErrSpecial) && !errors.Is(err, ErrLimit) && !errors.Is(err, ErrUnsupported) && errors.As(err, &pe) {
		return fmt.Sprintf("agate could not read %s (%v)", pe.Path, pe.Err)
	}
	return err.Error()
}
