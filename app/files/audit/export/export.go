// Package export ships agate's audit log to a team's log stack over
// OpenTelemetry's log protocol (OTLP/HTTP, JSON encoding), the protocol
// agents export their own telemetry with and every log platform takes
// in.
//
// The audit log is the queue: a record is exported after its line is on
// disk, by a goroutine of its own, so a decision never waits for it. The
// export keeps a cursor in the state folder (export.json: the last seq a
// collector accepted, and the export chain's hash there), written
// atomically after each accepted batch: nothing is lost while the
// collector is down or the laptop offline (the records wait in the log),
// and a crash between a send and the cursor sends the batch again
// (delivered at least once). Each exported record carries its id
// (agate.record.id, the SHA-256 of its audit line) so a receiver drops
// duplicates, and a chain over what was exported (agate.export.prev,
// agate.export.hash: the SHA-256 of the previous hash and the record's
// attributes, canonical) so it checks nothing was changed or left out.
// The log's rotation bounds the queue: records rotated away before they
// were exported are named by one record of event export.gap (from, to).
//
// Nothing but the audit line's own redacted fields is exported, and
// those cut further: a command or a reason is cut at MaxText bytes, a
// heredoc's body and every quoted string longer than 64 bytes are
// replaced by their length and hash. Prompts, file contents and secret
// values are never in the audit line, so never exported.
package export

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agatehq/agate/app/files/audit"
	"github.com/agatehq/agate/app/osutil"
)

// MaxText bounds a command or a reason as exported.
const MaxText = 512

// maxBatch bounds the records of one request.
const maxBatch = 256

// Target is where records go, as the config says now.
type Target struct {
	// Endpoint is the collector's OTLP/HTTP URL; "" exports nothing.
	Endpoint string
	// Header is sent with each request (the secrets' values resolved).
	Header http.Header
	// Resource are the resource's attributes (service, user, host...).
	Resource map[string]string
}

// Options configure an Exporter.
type Options struct {
	// Log is the audit log's path (its current file).
	Log string
	// State is the cursor's file (export.json in the state folder).
	State string
	// Target says where to send, read at each round (a reload applies
	// at the next one); an error skips the round, saying why.
	Target func() (Target, error)
	// Changed wakes the exporter when lines are on disk (audit.Log's
	// Changed); it also looks every Poll.
	Changed <-chan struct{}
	Poll    time.Duration
	// Spacing is the least time between two rounds (1 s when zero): under
	// a burst of decisions the export sends one batch a second, not one
	// request and one cursor sync per decision.
	Spacing time.Duration
	HTTP    *http.Client
	Logger  *log.Logger
}

// Cursor is what the export has delivered.
type Cursor struct {
	Seq  uint64 `json:"seq"`  // the last seq a collector accepted
	Hash string `json:"hash"` // the export chain's hash after it
}

// Exporter sends the audit log's new records to the collector.
type Exporter struct {
	o Options
	// pos is where the last batch ended in the log's current file, so a
	// round reads only what is new (read again whole after a rotation).
	pos     position
	pending position  // pos once the batch read is accepted
	last    time.Time // when the last round began

	mu    sync.Mutex // guards stats
	stats Stats
}

// Stats say how the export stands, for `agate status` and doctor.
type Stats struct {
	// Delivered is the last seq a collector accepted (the cursor).
	Delivered uint64 `json:"delivered"`
	// Waiting counts the records read past the cursor and not yet
	// accepted, as far as the last round read (at most a batch): 0 when
	// the export is caught up.
	Waiting uint64 `json:"waiting"`
	// LastSent is when a collector last accepted a batch.
	LastSent time.Time `json:"last_sent,omitzero"`
	// LastError is why the last round failed, "" when it did not;
	// LastErrorAt is when.
	LastError   string    `json:"last_error,omitempty"`
	LastErrorAt time.Time `json:"last_error_at,omitzero"`
}

// Stats returns how the export stands now.
func (e *Exporter) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

// position is an offset in the current file, after the record seq.
type position struct {
	fi  os.FileInfo
	off int64
	seq uint64
}

// New makes an exporter.
func New(o Options) *Exporter {
	if o.Poll <= 0 {
		o.Poll = 5 * time.Second
	}
	if o.Spacing <= 0 {
		o.Spacing = time.Second
	}
	if o.HTTP == nil {
		o.HTTP = &http.Client{Timeout: 30 * time.Second}
	}
	c := *o.HTTP
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	o.HTTP = &c
	if o.Logger == nil {
		o.Logger = log.New(io.Discard, "", 0)
	}
	return &Exporter{o: o}
}

// Run exports until ctx ends: each round sends what is new, batch after
// batch; a failure waits (1 s, doubling to a minute) and tries again.
func (e *Exporter) Run(ctx context.Context) {
	wait := time.Second
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-e.o.Changed:
		}
		if wait := time.Until(e.last.Add(e.o.Spacing)); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		e.last = time.Now()
		err := e.Round(ctx)
		if ctx.Err() != nil {
			return
		}
		e.mu.Lock()
		if err != nil {
			e.stats.LastError, e.stats.LastErrorAt = err.Error(), time.Now()
		} else {
			e.stats.LastError = ""
		}
		e.mu.Unlock()
		next := e.o.Poll
		if err != nil {
			e.o.Logger.Printf("audit export: %v (trying again in %s; the records wait in the log)", err, wait)
			next, wait = wait, min(wait*2, time.Minute)
		} else {
			wait = time.Second
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(next)
	}
}

// errFull stops a read when a batch is full.
var errFull = errors.New("batch full")

// Round sends the records past the cursor, batch by batch while the
// batches are full, and returns the first error.
func (e *Exporter) Round(ctx context.Context) error {
	t, err := e.o.Target()
	if err != nil || t.Endpoint == "" {
		return err
	}
	cur, err := ReadCursor(e.o.State)
	if err != nil {
		return err
	}
	for {
		batch, next, err := e.collect(cur)
		if err != nil {
			return err
		}
		e.mu.Lock()
		e.stats.Delivered, e.stats.Waiting = cur.Seq, next.Seq-cur.Seq
		e.mu.Unlock()
		if len(batch) == 0 {
			e.pos = e.pending // (the cursor is where it was: read from here next time)
			return nil
		}
		if err := e.send(ctx, t, batch); err != nil {
			return err
		}
		if err := writeCursor(e.o.State, next); err != nil {
			return err
		}
		e.mu.Lock()
		e.stats.Delivered, e.stats.Waiting, e.stats.LastSent = next.Seq, 0, time.Now()
		e.mu.Unlock()
		cur, e.pos = next, e.pending
		if len(batch) < maxBatch {
			return nil // what came since waits for the next round
		}
	}
}

// item is one record to export.
type item struct {
	rec  *audit.Record
	line []byte
	gap  [2]uint64 // a gap record: the seqs rotated away
}

// exported is a record as exported: its attributes, and the chain.
type exported struct {
	time  time.Time
	sev   int
	body  string
	attrs [][2]any // key, value (string, int64 or bool), in order
}

// collect reads up to maxBatch records past cur, and what the cursor is
// after them.
func (e *Exporter) collect(cur Cursor) ([]exported, Cursor, error) {
	var items []item
	expect := cur.Seq + 1
	files := audit.Files(e.o.Log)
	start := int64(0)
	if fi, err := os.Stat(e.o.Log); err == nil && e.pos.fi != nil && e.pos.seq == cur.Seq && os.SameFile(fi, e.pos.fi) && fi.Size() >= e.pos.off {
		files, start = []string{e.o.Log}, e.pos.off // no rotation since: only what is new
	}
	var last position
	e.pending = position{}
	for _, f := range files {
		off, err := audit.ReadFrom(f, start, func(r *audit.Record, line []byte) error {
			if r.Seq <= cur.Seq {
				return nil
			}
			if len(items) >= maxBatch {
				return errFull
			}
			if r.Seq > expect {
				// Rotated away before they were exported.
				items = append(items, item{gap: [2]uint64{expect, r.Seq - 1}})
			}
			items = append(items, item{rec: r, line: append([]byte(nil), line...)})
			expect = r.Seq + 1
			return nil
		})
		if f == e.o.Log {
			if fi, serr := os.Stat(f); serr == nil {
				last = position{fi: fi, off: off}
			}
		}
		start = 0
		if errors.Is(err, errFull) {
			break
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, cur, fmt.Errorf("read the audit log: %w", err)
		}
	}
	out := make([]exported, 0, len(items))
	next := cur
	for _, it := range items {
		x := convert(it)
		x.attrs = append(x.attrs, [2]any{"agate.export.prev", next.Hash})
		next.Hash = chainHash(next.Hash, x)
		x.attrs = append(x.attrs, [2]any{"agate.export.hash", next.Hash})
		if it.rec != nil {
			next.Seq = it.rec.Seq
		}
		out = append(out, x)
	}
	if last.fi != nil {
		last.seq = next.Seq
		e.pending = last
	}
	return out, next, nil
}

// convert makes the exported form of one item.
func convert(it item) exported {
	if it.rec == nil {
		return exported{time: time.Now().UTC(), sev: 13, body: fmt.Sprintf("records %d to %d were rotated out of the audit log before they were exported", it.gap[0], it.gap[1]),
			attrs: [][2]any{{"agate.event", "export.gap"}, {"agate.gap.from", int64(it.gap[0])}, {"agate.gap.to", int64(it.gap[1])}}}
	}
	r := it.rec
	sum := sha256.Sum256(bytes.TrimRight(it.line, "\n"))
	subject := Cut(r.Subject)
	x := exported{time: r.Time, sev: 9}
	if r.Decision == "deny" || strings.HasPrefix(r.Event, "secret.") {
		x.sev = 13
	}
	x.body = strings.TrimSpace(fmt.Sprintf("%s %s %s %s", r.Event, r.Decision, r.Tool, subject))
	add := func(k string, v any) {
		switch v := v.(type) {
		case string:
			if v == "" {
				return
			}
		case bool:
			if !v {
				return
			}
		}
		x.attrs = append(x.attrs, [2]any{k, v})
	}
	add("agate.record.id", hex.EncodeToString(sum[:]))
	add("agate.seq", int64(r.Seq))
	add("agate.event", r.Event)
	add("agate.agent", r.Agent)
	add("agate.token", r.Token)
	add("agate.session", r.Session)
	add("agate.run", r.Run)
	add("agate.tool", r.Tool)
	add("agate.category", r.Category)
	add("agate.risks", strings.Join(r.Risks, ","))
	add("agate.subject", subject)
	add("agate.cwd", Cut(r.Cwd))
	add("agate.decision", r.Decision)
	add("agate.layer", r.Layer)
	add("agate.rule", Cut(r.Rule))
	add("agate.rule.source", r.Source)
	add("agate.reason", Cut(r.Reason))
	add("agate.by", string(r.By))
	add("agate.via", r.Via)
	add("agate.scope", string(r.Scope))
	add("agate.tainted", r.Tainted)
	add("agate.confined", r.Confined != "")
	if r.Kept != nil {
		add("agate.kept.id", r.Kept.ID)
		add("agate.kept.files", int64(len(r.Kept.Paths)))
		add("agate.kept.bytes", r.Kept.Bytes)
	}
	if r.Of != 0 {
		add("agate.of", int64(r.Of))
	}
	return x
}

// chainHash is the export chain's next hash: SHA-256 of the previous
// hash, a newline, and the record's attributes as canonical JSON (its
// attributes but the hash, in order, as [key, value] pairs) with its
// time and body.
func chainHash(prev string, x exported) string {
	b, _ := json.Marshal(struct {
		Time  int64    `json:"t"`
		Body  string   `json:"b"`
		Attrs [][2]any `json:"a"`
	}{x.time.UnixNano(), x.body, x.attrs})
	h := sha256.New()
	io.WriteString(h, prev)
	h.Write([]byte("\n"))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

var (
	heredocStart = regexp.MustCompile(`<<-?[ \t]*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?[^\n]*\n`)
	quoted       = regexp.MustCompile(`'[^']{65,}'|"(?:[^"\\]|\\.){65,}"`)
)

// cutHeredocs replaces each heredoc's body (from its << to the line
// that ends it, or the end) by its length and hash.
func cutHeredocs(s string) string {
	var b strings.Builder
	for {
		m := heredocStart.FindStringSubmatchIndex(s)
		if m == nil {
			b.WriteString(s)
			return b.String()
		}
		word := s[m[2]:m[3]]
		b.WriteString(s[:m[0]])
		rest := s[m[1]:]
		end := len(rest)
		for off := 0; off < len(rest); {
			nl := strings.IndexByte(rest[off:], '\n')
			line := rest[off:]
			if nl >= 0 {
				line = rest[off : off+nl]
			}
			if strings.TrimSpace(line) == word {
				end = off + len(line)
				break
			}
			if nl < 0 {
				break
			}
			off += nl + 1
		}
		b.WriteString("<<[heredoc: " + lenHash(s[m[0]:m[1]+end]) + "]")
		s = rest[end:]
	}
}

// Cut is s as exported: every heredoc's body and every quoted string of
// more than 64 bytes replaced by its length and hash, then cut at
// MaxText bytes, the rest named by its length and hash.
func Cut(s string) string {
	s = cutHeredocs(s)
	s = quoted.ReplaceAllStringFunc(s, func(m string) string { return "[string: " + lenHash(m) + "]" })
	if len(s) > MaxText {
		cut := MaxText
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "…[" + lenHash(s[cut:]) + " more]"
	}
	return s
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func lenHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return strconv.Itoa(len(s)) + " bytes, sha256:" + hex.EncodeToString(h[:8])
}

// The OTLP/HTTP JSON encoding of a logs request.
type (
	otlpRequest struct {
		ResourceLogs []resourceLogs `json:"resourceLogs"`
	}
	resourceLogs struct {
		Resource  resource    `json:"resource"`
		ScopeLogs []scopeLogs `json:"scopeLogs"`
	}
	resource struct {
		Attributes []keyValue `json:"attributes"`
	}
	scopeLogs struct {
		Scope      scope       `json:"scope"`
		LogRecords []logRecord `json:"logRecords"`
	}
	scope struct {
		Name string `json:"name"`
	}
	logRecord struct {
		TimeUnixNano         string     `json:"timeUnixNano"`
		ObservedTimeUnixNano string     `json:"observedTimeUnixNano"`
		SeverityNumber       int        `json:"severityNumber"`
		SeverityText         string     `json:"severityText"`
		Body                 anyValue   `json:"body"`
		Attributes           []keyValue `json:"attributes"`
	}
	keyValue struct {
		Key   string   `json:"key"`
		Value anyValue `json:"value"`
	}
	anyValue struct {
		StringValue *string `json:"stringValue,omitempty"`
		IntValue    *string `json:"intValue,omitempty"` // int64 as a string, as the JSON mapping has it
		BoolValue   *bool   `json:"boolValue,omitempty"`
	}
)

func value(v any) anyValue {
	switch v := v.(type) {
	case string:
		return anyValue{StringValue: &v}
	case int64:
		s := strconv.FormatInt(v, 10)
		return anyValue{IntValue: &s}
	case bool:
		return anyValue{BoolValue: &v}
	}
	s := fmt.Sprint(v)
	return anyValue{StringValue: &s}
}

// send posts one batch and returns nil when the collector took it.
func (e *Exporter) send(ctx context.Context, t Target, batch []exported) error {
	keys := make([]string, 0, len(t.Resource))
	for k := range t.Resource {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var res resource
	for _, k := range keys {
		res.Attributes = append(res.Attributes, keyValue{Key: k, Value: value(t.Resource[k])})
	}
	now := strconv.FormatInt(time.Now().UnixNano(), 10)
	recs := make([]logRecord, 0, len(batch))
	for _, x := range batch {
		lr := logRecord{TimeUnixNano: strconv.FormatInt(x.time.UnixNano(), 10), ObservedTimeUnixNano: now,
			SeverityNumber: x.sev, SeverityText: map[int]string{9: "INFO", 13: "WARN"}[x.sev], Body: value(x.body)}
		for _, kv := range x.attrs {
			lr.Attributes = append(lr.Attributes, keyValue{Key: kv[0].(string), Value: value(kv[1])})
		}
		recs = append(recs, lr)
	}
	body, err := json.Marshal(otlpRequest{ResourceLogs: []resourceLogs{{Resource: res, ScopeLogs: []scopeLogs{{Scope: scope{Name: "agate.audit"}, LogRecords: recs}}}}})
	if err != nil {
		return err
	}
	u, err := logsURL(t.Endpoint)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, vs := range t.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.o.HTTP.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // (the URL is the config's; the error is enough)
		}
		return fmt.Errorf("send %d records: %w", len(batch), err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("the collector answers %s to %d records", resp.Status, len(batch))
	}
	return nil
}

// logsURL is the endpoint with /v1/logs when its path is empty.
func logsURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", err
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/logs"
	}
	return u.String(), nil
}

// ReadCursor reads the export's cursor; none yet is the start.
func ReadCursor(path string) (Cursor, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Cursor{}, nil
	}
	if err != nil {
		return Cursor{}, fmt.Errorf("export cursor: %w", err)
	}
	var c Cursor
	if err := json.Unmarshal(b, &c); err != nil {
		return Cursor{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

func writeCursor(path string, c Cursor) error {
	b, _ := json.Marshal(c)
	if err := osutil.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("export cursor: %w", err)
	}
	return nil
}

// StatePath is the cursor's file in the state folder.
func StatePath(state string) string { return filepath.Join(state, "export.json") }
