// Package watcher applies edits of configuration files live.
//
// [Watch] watches a folder, not the files in it: editors and agate itself
// save by writing a temp file and renaming it over the old one, which
// replaces the file a per-file watch would follow. Events for the named
// files are debounced; then the watcher calls the caller's Load, which
// reads, parses and validates the whole file set. Only a successful Load
// reaches Apply. A failed Load reaches Fail, and the caller keeps its last
// good value, so a half-written or broken file is never applied.
//
// The package knows nothing about what it loads: the caller supplies Load,
// Apply and Fail, typically swapping an atomic.Pointer in Apply and
// recording the error for its status report in Fail.
//
// Contract:
//   - Load, Apply and Fail are called from the goroutine running Watch, one
//     at a time, never after Watch returns.
//   - Watch calls Load once when the watch is in place, so an edit made
//     between the caller's own first load and the call to Watch is not
//     missed. The caller may see an Apply of the value it already has.
//   - A burst made only of chmod events (a chmod, a touch) calls Load only
//     if the named files' bytes or readability differ from what they were
//     at the previous Load: a touch does nothing, and a chmod of a broken
//     file does not repeat its Fail. A write, create, rename or remove
//     always calls Load, even when it leaves the same bytes: the watcher
//     cannot know which bytes Load read if the file changed again during
//     Load, and an Apply of an equal value is harmless, whereas skipping a
//     Load could leave a half-written file's value in place. After a watch
//     error (the folder gone, an fsnotify error) the next reload calls Load
//     too, so the caller hears that things are well again.
//   - A burst of events is one reload, run once the events have paused for
//     Debounce, and at most 2×Debounce after the first event of the burst.
//   - When the folder is removed or moved away, Fail receives an error
//     wrapping [ErrDirGone] and the watcher tries again to watch it, every
//     100 ms at first, backing off to every 2 s. When the folder is back,
//     the watcher reloads.
//
// Limits: a named file that is a symlink is followed when read, but the
// watcher only sees events in Dir, so an edit of the link's target in
// another folder is not noticed until something in Dir changes. Likewise,
// if Dir is a symlink that is pointed elsewhere, the watcher notices at
// its next reload. Watch cannot return while Load runs, so Load must
// honour its ctx.
package watcher

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is the quiet period used when [Config.Debounce] is zero.
// It is long enough to join an editor's save into one reload, and short
// enough that a reload takes effect within 100 ms of the write.
const DefaultDebounce = 50 * time.Millisecond

const (
	// maxWaitFactor bounds a burst that never pauses: the reload runs at
	// most maxWaitFactor×Debounce after the burst's first event.
	maxWaitFactor = 2
	// retryMin and retryMax bound the interval between attempts to watch
	// the folder again after it was lost.
	retryMin = 100 * time.Millisecond
	retryMax = 2 * time.Second
)

// ErrDirGone is wrapped by the error passed to [Config.Fail] when the
// watched folder is removed, moved away or replaced. The watcher keeps
// trying to watch it again; the caller keeps its last good value.
var ErrDirGone = errors.New("config folder is gone")

// Config says what [Watch] watches and what it calls.
type Config[T any] struct {
	// Dir is the folder to watch. It must exist when Watch is called.
	Dir string
	// Files are the base names of the files in Dir that matter, such as
	// "config.toml" and "grants.toml". Events for other files in Dir
	// (editors' temp and backup files included) are ignored.
	Files []string
	// Debounce is how long events must pause before a reload; zero means
	// DefaultDebounce.
	Debounce time.Duration
	// Load reads, parses and validates the whole file set and returns the
	// value to apply. It must honour ctx, which ends when Watch's does.
	Load func(ctx context.Context) (T, error)
	// Apply receives the value of each successful Load.
	Apply func(T)
	// Fail receives the error of a failed Load, unchanged, and errors of
	// the watch itself (which wrap ErrDirGone or an fsnotify error). The
	// watcher does not call Apply then; the caller keeps its last good
	// value and shows the error.
	Fail func(error)
}

// check reports a Config that Watch cannot use.
func (c *Config[T]) check() error {
	switch {
	case c.Dir == "":
		return errors.New("watcher: no folder given")
	case len(c.Files) == 0:
		return errors.New("watcher: no files given")
	case c.Debounce < 0:
		return fmt.Errorf("watcher: negative debounce %v", c.Debounce)
	case c.Load == nil || c.Apply == nil || c.Fail == nil:
		return errors.New("watcher: Load, Apply and Fail are all required")
	}
	for _, f := range c.Files {
		if f == "" || filepath.Base(f) != f || !filepath.IsLocal(f) {
			return fmt.Errorf("watcher: file %q is not a base name", f)
		}
	}
	return nil
}

// Watch watches c.Dir and reloads when any of c.Files changes, as the
// package documentation describes. It blocks until ctx ends, then closes
// the watch and returns nil. It returns an error when the watch cannot be
// set up (an invalid Config, a missing folder: Watch does not create it,
// an fsnotify failure), or if fsnotify closes its streams, which it does
// only when closed.
func Watch[T any](ctx context.Context, c Config[T]) error {
	return watch(ctx, c, nil)
}

// watch is Watch with a hook that tests use to see each debounced reload
// once it has decided whether to call Load, and before it does.
func watch[T any](ctx context.Context, c Config[T], onReload func(load bool)) error {
	l, err := newLoop(c)
	if err != nil {
		return err
	}
	defer l.w.Close()
	l.onReload = onReload
	l.reload(ctx)
	return l.run(ctx)
}

// loop is the state of one Watch call. Only the goroutine running Watch
// touches it.
type loop[T any] struct {
	c     Config[T]
	dir   string          // c.Dir, absolute and clean
	names map[string]bool // the full paths of c.Files
	w     *fsnotify.Watcher

	dirInfo os.FileInfo // the folder being watched; nil while it is lost
	fp      []byte      // fingerprint of the files at the last Load; nil: Load next time
	changed bool        // an event since the last reload may have changed the bytes

	debounce *time.Timer
	fire     <-chan time.Time // debounce.C while a reload is due, else nil
	burst    time.Time        // when the pending burst began

	retry     *time.Timer
	retryC    <-chan time.Time // retry.C while the folder is lost, else nil
	retryWait time.Duration
	retryErr  string // the last re-watch error reported, so it is reported once

	onReload func(load bool) // test hook, may be nil
}

// newLoop checks c and puts the folder under watch.
func newLoop[T any](c Config[T]) (*loop[T], error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	if c.Debounce == 0 {
		c.Debounce = DefaultDebounce
	}
	dir, err := filepath.Abs(c.Dir)
	if err != nil {
		return nil, fmt.Errorf("watcher: %w", err)
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("watcher: config folder: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("watcher: config folder %s is not a folder", dir)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watcher: %w", err)
	}
	l := &loop[T]{
		c:        c,
		dir:      dir,
		names:    make(map[string]bool, len(c.Files)),
		w:        w,
		debounce: stoppedTimer(),
		retry:    stoppedTimer(),
	}
	for _, f := range c.Files {
		l.names[filepath.Join(dir, f)] = true
	}
	if err := l.add(); err != nil {
		w.Close()
		return nil, fmt.Errorf("watcher: watch %s: %w", dir, err)
	}
	return l, nil
}

func stoppedTimer() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}

// run handles events until ctx ends.
func (l *loop[T]) run(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-l.w.Events:
			if !ok {
				return errors.New("watcher: fsnotify closed its event stream")
			}
			l.event(ctx, ev)
		case err, ok := <-l.w.Errors:
			if !ok {
				return errors.New("watcher: fsnotify closed its error stream")
			}
			l.watchError(ctx, err)
		case <-l.fire:
			l.fire = nil
			l.reload(ctx)
		case <-l.retryC:
			l.retryC = nil
			l.rewatch(ctx)
		}
	}
}

// event schedules a reload for an event on a named file or on the folder,
// and notices the folder going away.
func (l *loop[T]) event(ctx context.Context, ev fsnotify.Event) {
	if l.dirInfo == nil {
		return // lost: stale events of the old folder
	}
	name := filepath.Clean(ev.Name)
	switch {
	case name == l.dir && ev.Has(fsnotify.Remove|fsnotify.Rename):
		l.lose(ctx, nil)
	case name == l.dir:
		// A chmod of the folder can make the files unreadable.
		l.schedule()
	case l.names[name]:
		if ev.Op&^fsnotify.Chmod != 0 {
			l.changed = true
		}
		l.schedule()
	}
}

// watchError handles an error from fsnotify. After an overflow, events
// were lost and the watcher cannot know what changed, so it loads again.
// Other errors are also reported to Fail.
func (l *loop[T]) watchError(ctx context.Context, err error) {
	l.changed = true
	if !errors.Is(err, fsnotify.ErrEventOverflow) {
		l.fp = nil
		l.fail(ctx, fmt.Errorf("watcher: watch %s: %w", l.dir, err))
	}
	if l.dirInfo != nil {
		l.schedule()
	}
}

// schedule arms the debounce timer: Debounce from now, but no later than
// maxWaitFactor×Debounce after the burst's first event.
func (l *loop[T]) schedule() {
	now := time.Now()
	if l.fire == nil {
		l.burst = now
	}
	wait := l.c.Debounce
	if last := l.burst.Add(maxWaitFactor * l.c.Debounce); now.Add(wait).After(last) {
		wait = max(last.Sub(now), 0)
	}
	l.debounce.Reset(wait)
	l.fire = l.debounce.C
}

// reload calls Load if the files changed, then Apply or Fail.
func (l *loop[T]) reload(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	if err := l.checkDir(); err != nil {
		l.hook(false)
		l.lose(ctx, err)
		return
	}
	fp := fingerprint(l.dir, l.c.Files)
	changed := l.changed
	l.changed = false
	if !changed && fp != nil && bytes.Equal(fp, l.fp) {
		l.hook(false)
		return
	}
	l.hook(true)
	v, err := l.c.Load(ctx)
	if ctx.Err() != nil {
		return // shutting down: a Load cut short is no config error
	}
	l.fp = fp
	if err != nil {
		l.c.Fail(err)
		return
	}
	l.c.Apply(v)
}

func (l *loop[T]) hook(load bool) {
	if l.onReload != nil {
		l.onReload(load)
	}
}

// checkDir reports whether the watched folder is still the one at Dir. It
// catches a loss whose events were dropped in an overflow.
func (l *loop[T]) checkDir() error {
	fi, err := os.Stat(l.dir)
	if err != nil {
		return err
	}
	if !os.SameFile(fi, l.dirInfo) {
		return errors.New("replaced by another folder")
	}
	return nil
}

// add watches the folder and records which folder it is.
func (l *loop[T]) add() error {
	if err := l.w.Add(l.dir); err != nil {
		return err
	}
	fi, err := os.Stat(l.dir)
	if err != nil {
		l.w.Remove(l.dir)
		return err
	}
	if !fi.IsDir() {
		l.w.Remove(l.dir)
		return errors.New("not a folder")
	}
	l.dirInfo = fi
	return nil
}

// lose drops the watch of a folder that went away, tells the caller, and
// starts trying to watch it again.
func (l *loop[T]) lose(ctx context.Context, cause error) {
	l.dirInfo = nil
	l.w.Remove(l.dir) // the kernel may have dropped it already
	l.debounce.Stop()
	l.fire = nil
	l.fp = nil // it may come back with the same bytes: Load then anyway
	l.retryWait = retryMin
	l.retry.Reset(l.retryWait)
	l.retryC = l.retry.C
	err := fmt.Errorf("watcher: %s: %w", l.dir, ErrDirGone)
	if cause != nil {
		err = fmt.Errorf("watcher: %s: %w: %w", l.dir, ErrDirGone, cause)
	}
	l.retryErr = ""
	l.fail(ctx, err)
}

// rewatch tries to watch the lost folder again, and reloads once it does.
// A missing folder is already reported; any other reason is reported once.
func (l *loop[T]) rewatch(ctx context.Context) {
	err := l.add()
	if err == nil {
		l.retryErr = ""
		l.reload(ctx)
		return
	}
	if !errors.Is(err, os.ErrNotExist) && err.Error() != l.retryErr {
		l.retryErr = err.Error()
		l.fail(ctx, fmt.Errorf("watcher: watch %s again: %w: %w", l.dir, ErrDirGone, err))
	}
	l.retryWait = min(2*l.retryWait, retryMax)
	l.retry.Reset(l.retryWait)
	l.retryC = l.retry.C
}

// fail calls Fail unless Watch is ending.
func (l *loop[T]) fail(ctx context.Context, err error) {
	if ctx.Err() == nil {
		l.c.Fail(err)
	}
}
