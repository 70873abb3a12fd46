package audit

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agatehq/agate/app/api"
	"github.com/agatehq/agate/app/osutil"
)

// Record is one line of the audit log: a decision, or an event in an
// approval's life (requested, granted, denied, expired).
type Record struct {
	Seq        uint64       `json:"seq"`
	Time       time.Time    `json:"time"`
	Event      string       `json:"event"` // "decision", "approval.requested", "approval.granted", "approval.denied", "approval.expired", "approval.agent_allowed", "approval.agent_denied", "config", "secret.leaked", "secret.rotated"
	Agent      string       `json:"agent,omitempty"`
	Token      string       `json:"token,omitempty"`     // the scoped token the call came with (agent "token:NAME")
	Container  string       `json:"container,omitempty"` // the dev container the call came from (agent "container:NAME")
	Session    string       `json:"session,omitempty"`
	Run        string       `json:"run,omitempty"`
	Tool       string       `json:"tool,omitempty"`
	Category   string       `json:"category,omitempty"`
	Risks      []string     `json:"risks,omitempty"`
	Subject    string       `json:"subject,omitempty"` // the command, path or URL, redacted
	Cwd        string       `json:"cwd,omitempty"`
	Decision   string       `json:"decision,omitempty"`
	Layer      string       `json:"layer,omitempty"`
	Rule       string       `json:"rule,omitempty"`
	Source     string       `json:"source,omitempty"`
	Reason     string       `json:"reason,omitempty"`
	By         api.Answerer `json:"by,omitempty"`
	Via        string       `json:"via,omitempty"`
	ApprovalID string       `json:"approval_id,omitempty"`
	Scope      api.Scope    `json:"scope,omitempty"`
	Note       string       `json:"note,omitempty"`
	Tainted    bool         `json:"tainted,omitempty"`
	// ToolUseID is the agent's id for the call, when it has one.
	ToolUseID string `json:"tool_use_id,omitempty"`
	// Confined, on an allow, says how the call ran confined ("in agate's
	// sandbox, read-only but a private /tmp, ..."); "" when it ran as is.
	Confined string `json:"confined,omitempty"`
	// Kept, on an allow, is what agate kept a copy of before the call
	// ran (agate undo ID).
	Kept *api.Kept `json:"kept,omitempty"`
	// Of is the seq of the decision an approval.agent_* event settles.
	Of uint64 `json:"of,omitempty"`
	// Shown, on an approval.requested line, is what the popup showed the
	// person: why it asks, what the call does, what it would reach, and
	// what an answer could remember.
	Shown *Shown `json:"shown,omitempty"`
	// Remembered, on an approval.granted line, is what the answer left
	// in force beyond the call: the grants, as grants.toml writes them.
	Remembered []string `json:"remembered,omitempty"`
	// Prev is the SHA-256 of the previous line, as hex: the chain that
	// `agate log --verify` checks. The first line ever has Prev "".
	Prev string `json:"prev"`
}

// Shown is what a person was shown when asked: the approval's words.
type Shown struct {
	Why      string            `json:"why,omitempty"`
	Commands []api.CommandInfo `json:"commands,omitempty"`
	Effects  []api.EffectInfo  `json:"effects,omitempty"`
	Impact   *api.Impact       `json:"impact,omitempty"`
	Remember []api.Remember    `json:"remember,omitempty"`
	Runs     []api.RunChoice   `json:"runs,omitempty"` // how it could run once allowed, the first the default
}

// Log is the durable, append-only log of every decision. Append
// returns only once its line is on disk (fsync'd); concurrent appends are
// written together and synced once (group commit). Each line carries the
// hash of the one before, across rotations.
type Log struct {
	path    string
	maxSize int64
	keep    int

	reqs    chan *auditReq
	done    chan struct{}
	changed chan struct{} // a token after each batch is on disk (Changed)

	mu     sync.Mutex // guards closed
	closed bool
}

type auditReq struct {
	rec *Record
	err chan error
}

// MaxSubject bounds how much of a call's subject the log keeps.
const MaxSubject = 4096

// Open opens (creating if needed) the audit log at path, rotating
// past maxSize bytes and keeping keep rotated files. A torn last line
// left by a crash (never acknowledged: acknowledgements follow the sync)
// is cut off.
func Open(path string, maxSize int64, keep int) (*Log, error) {
	// The state folder must be this user's alone: a log written into a
	// folder someone else controls could be rewritten or read by them.
	if err := osutil.MakeDir(filepath.Dir(path), false); err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	w := &auditWriter{path: path, maxSize: maxSize, keep: keep}
	if err := w.open(); err != nil {
		return nil, err
	}
	l := &Log{path: path, maxSize: maxSize, keep: keep, reqs: make(chan *auditReq, 1024), done: make(chan struct{}), changed: make(chan struct{}, 1)}
	go l.loop(w)
	return l, nil
}

// Path returns the current log file's path.
func (l *Log) Path() string { return l.path }

// Append writes rec and returns once it is synced to disk. It sets rec's
// Seq, Prev and (if zero) Time.
func (l *Log) Append(ctx context.Context, rec *Record) error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return errors.New("audit log: closed")
	}
	r := &auditReq{rec: rec, err: make(chan error, 1)}
	select {
	case l.reqs <- r:
	case <-ctx.Done():
		l.mu.Unlock()
		return ctx.Err()
	}
	l.mu.Unlock()
	// The write is queued: wait for it even if ctx ends, so a line is never
	// half-acknowledged.
	return <-r.err
}

// Close flushes and closes the log.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	close(l.reqs)
	l.mu.Unlock()
	<-l.done
	return nil
}

func (l *Log) loop(w *auditWriter) {
	defer close(l.done)
	defer w.close()
	batch := make([]*auditReq, 0, 64)
	for r := range l.reqs {
		batch = append(batch[:0], r)
		// Take whatever else is queued: one sync for all of them.
	more:
		for len(batch) < 512 {
			select {
			case r2, ok := <-l.reqs:
				if !ok {
					break more
				}
				batch = append(batch, r2)
			default:
				break more
			}
		}
		err := w.write(batch)
		for _, r := range batch {
			r.err <- err
		}
		if err == nil {
			select {
			case l.changed <- struct{}{}:
			default:
			}
		}
	}
}

// Changed receives a token after lines are on disk: a reader of the log
// (the export) looks again. It never holds a write up.
func (l *Log) Changed() <-chan struct{} { return l.changed }

// Files returns the log's files at path, oldest first: the rotated ones,
// then the current one.
func Files(path string) []string { return files(path) }

// ReadFrom calls fn for each whole record of file from offset, and
// returns the offset after the last one read (a line still being written
// is left for the next read).
func ReadFrom(file string, offset int64, fn func(*Record, []byte) error) (int64, error) {
	return readFromRaw(file, offset, fn)
}

// auditWriter owns the file; only the log's goroutine touches it.
type auditWriter struct {
	path    string
	maxSize int64
	keep    int
	f       *os.File
	size    int64
	seq     uint64
	prev    string
	buf     bytes.Buffer
}

func (w *auditWriter) open() error {
	f, err := os.OpenFile(w.path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	last, size, err := lastLine(f)
	if err != nil {
		f.Close()
		return fmt.Errorf("audit log %s: %w", w.path, err)
	}
	if last == nil {
		// An empty current file: the chain continues from the newest
		// rotated one.
		if rf, err := os.Open(rotatedName(w.path, 1)); err == nil {
			last, _, _ = lastLine(rf)
			rf.Close()
		}
	}
	if last != nil {
		var rec Record
		if err := json.Unmarshal(last, &rec); err != nil {
			f.Close()
			return fmt.Errorf("audit log %s: last line: %w", w.path, err)
		}
		w.seq = rec.Seq
		w.prev = lineHash(last)
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		f.Close()
		return err
	}
	w.f, w.size = f, size
	return nil
}

// lastLine returns the last complete line of f (without its newline) and
// the length of f up to and including it. A torn line after it is cut off.
func lastLine(f *os.File) ([]byte, int64, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	size := st.Size()
	if size == 0 {
		return nil, 0, nil
	}
	// Read backwards in chunks until two newlines (or the start) are found.
	const chunk = 64 << 10
	var tail []byte
	for off := size; off > 0; {
		n := int64(chunk)
		if off < n {
			n = off
		}
		off -= n
		b := make([]byte, n)
		if _, err := f.ReadAt(b, off); err != nil {
			return nil, 0, err
		}
		tail = append(b, tail...)
		end := bytes.LastIndexByte(tail, '\n')
		if end < 0 {
			if off == 0 {
				// One torn line and nothing else.
				if err := f.Truncate(0); err != nil {
					return nil, 0, err
				}
				return nil, 0, nil
			}
			continue
		}
		start := bytes.LastIndexByte(tail[:end], '\n')
		if start < 0 && off > 0 {
			continue
		}
		complete := off + int64(end) + 1
		if complete < size {
			if err := f.Truncate(complete); err != nil {
				return nil, 0, err
			}
		}
		return tail[start+1 : end], complete, nil
	}
	return nil, 0, nil
}

// lineHash is the hex SHA-256 of a line without its newline.
func lineHash(line []byte) string {
	h := sha256.Sum256(line)
	return hex.EncodeToString(h[:])
}

// write appends a batch and syncs it; rotation happens between lines. On
// a failure (a full disk) the file is cut back to where the batch began
// and the sequence and chain are rolled back, so a failed write leaves
// neither a torn line nor a gap: the calls it held are answered with the
// error, and denied.
func (w *auditWriter) write(batch []*auditReq) error {
	seq, prev, size, f := w.seq, w.prev, w.size, w.f
	err := w.writeBatch(batch)
	if err != nil && w.f == f {
		if terr := w.f.Truncate(size); terr == nil {
			w.f.Seek(size, io.SeekStart)
			w.seq, w.prev, w.size = seq, prev, size
		}
	}
	return err
}

func (w *auditWriter) writeBatch(batch []*auditReq) error {
	w.buf.Reset()
	for _, r := range batch {
		if w.size+int64(w.buf.Len()) > w.maxSize && w.maxSize > 0 {
			if err := w.flush(); err != nil {
				return err
			}
			if err := w.rotate(); err != nil {
				return err
			}
		}
		rec := r.rec
		w.seq++
		rec.Seq = w.seq
		rec.Prev = w.prev
		if rec.Time.IsZero() {
			rec.Time = time.Now().UTC()
		}
		line, err := json.Marshal(rec)
		if err != nil {
			w.seq--
			return fmt.Errorf("audit log: encode: %w", err)
		}
		w.prev = lineHash(line)
		w.buf.Write(line)
		w.buf.WriteByte('\n')
	}
	return w.flush()
}

func (w *auditWriter) flush() error {
	if w.buf.Len() == 0 {
		return nil
	}
	n, err := w.f.Write(w.buf.Bytes())
	w.size += int64(n)
	w.buf.Reset()
	if err != nil {
		return fmt.Errorf("audit log: write: %w", err)
	}
	if err := osutil.SyncData(w.f); err != nil {
		return fmt.Errorf("audit log: sync: %w", err)
	}
	return nil
}

func rotatedName(path string, i int) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "." + strconv.Itoa(i) + ext
}

// rotate moves audit.jsonl to audit.1.jsonl (shifting the older ones up
// and dropping those past keep) and starts a new file. The hash chain
// runs on across the files.
func (w *auditWriter) rotate() error {
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("audit log: rotate: %w", err)
	}
	os.Remove(rotatedName(w.path, w.keep))
	for i := w.keep - 1; i >= 1; i-- {
		os.Rename(rotatedName(w.path, i), rotatedName(w.path, i+1))
	}
	if err := os.Rename(w.path, rotatedName(w.path, 1)); err != nil {
		return fmt.Errorf("audit log: rotate: %w", err)
	}
	f, err := os.OpenFile(w.path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("audit log: rotate: %w", err)
	}
	osutil.SyncDir(filepath.Dir(w.path))
	w.f, w.size = f, 0
	return nil
}

func (w *auditWriter) close() {
	if w.f != nil {
		w.f.Close()
	}
}

// checkFolder refuses to read a log kept in a folder someone else could
// change (they could rewrite it, chain and all). A folder that is not
// there holds no log.
func checkFolder(path string) error {
	if err := osutil.CheckDir(filepath.Dir(path), false); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("audit log: %w", err)
	}
	return nil
}

// files returns the log's files, oldest first.
func files(path string) []string {
	var files []string
	for i := 1; ; i++ {
		f := rotatedName(path, i)
		if _, err := os.Stat(f); err != nil {
			break
		}
		files = append([]string{f}, files...)
	}
	if _, err := os.Stat(path); err == nil {
		files = append(files, path)
	}
	return files
}

// VerifyResult is what `agate log --verify` found.
type VerifyResult struct {
	Files    []string
	Lines    int
	FirstSeq uint64
	LastSeq  uint64
	// Problem is empty when the chain holds; else where it breaks and why.
	Problem string
}

// Verify checks the hash chain across every file of the log,
// oldest first: each line must carry the hash of the line before it, and
// sequence numbers must follow each other, so a removed or edited line
// shows. The oldest remaining line anchors the chain (older files are
// removed by rotation).
func Verify(path string) (*VerifyResult, error) {
	if err := checkFolder(path); err != nil {
		return nil, err
	}
	res := &VerifyResult{Files: files(path)}
	var prev string
	var lastSeq uint64
	first := true
	for _, file := range res.Files {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		r := bufio.NewReaderSize(f, 64<<10)
		for n := 1; ; n++ {
			line, err := r.ReadBytes('\n')
			if len(line) == 0 && err != nil {
				break
			}
			if !bytes.HasSuffix(line, []byte("\n")) {
				res.Problem = fmt.Sprintf("%s:%d: the last line is incomplete", file, n)
				f.Close()
				return res, nil
			}
			line = line[:len(line)-1]
			var rec Record
			if err := json.Unmarshal(line, &rec); err != nil {
				res.Problem = fmt.Sprintf("%s:%d: not a log record: %v", file, n, err)
				f.Close()
				return res, nil
			}
			switch {
			case first:
				res.FirstSeq = rec.Seq
				first = false
			case rec.Prev != prev:
				res.Problem = fmt.Sprintf("%s:%d: seq %d does not follow the line before it (a line was removed or edited)", file, n, rec.Seq)
				f.Close()
				return res, nil
			case rec.Seq != lastSeq+1:
				res.Problem = fmt.Sprintf("%s:%d: seq %d follows seq %d (lines are missing)", file, n, rec.Seq, lastSeq)
				f.Close()
				return res, nil
			}
			prev, lastSeq = lineHash(line), rec.Seq
			res.Lines++
		}
		f.Close()
	}
	res.LastSeq = lastSeq
	return res, nil
}

// Read calls fn for every record in the log, oldest first.
func Read(path string, fn func(*Record) error) error {
	if err := checkFolder(path); err != nil {
		return err
	}
	for _, file := range files(path) {
		if err := readFile(file, 0, fn); err != nil {
			return err
		}
	}
	return nil
}

// readFile reads records from offset and returns where it stopped.
func readFile(file string, offset int64, fn func(*Record) error) error {
	_, err := readFrom(file, offset, fn)
	return err
}

func readFrom(file string, offset int64, fn func(*Record) error) (int64, error) {
	return readFromRaw(file, offset, func(r *Record, _ []byte) error { return fn(r) })
}

func readFromRaw(file string, offset int64, fn func(*Record, []byte) error) (int64, error) {
	f, err := os.Open(file)
	if err != nil {
		return offset, err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return offset, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			var rec Record
			if jerr := json.Unmarshal(line, &rec); jerr != nil {
				return offset + int64(len(line)), fmt.Errorf("%s: %w", file, jerr)
			}
			if ferr := fn(&rec, line); ferr != nil {
				return offset, ferr // (the line fn refused is read again next time)
			}
			offset += int64(len(line))
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return offset, nil
			}
			return offset, err
		}
	}
}
