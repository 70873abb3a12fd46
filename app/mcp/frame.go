package mcp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync"
)

// DefaultMaxLine is the longest message the proxy takes, from either
// side: 64 MiB. A longer line is dropped whole (see Options.MaxLine).
const DefaultMaxLine = 64 << 20

// readBufSize is the size of the buffered reader under a lineReader:
// a line that fits is handed out without a copy.
const readBufSize = 64 << 10

// keepBuf is the largest line buffer a lineReader keeps between lines;
// a bigger one, grown for one large message, is let go.
const keepBuf = 4 << 20

// TooLongError is a line longer than the bound. The reader has skipped
// it to its end and can go on with the next one.
type TooLongError struct {
	Max  int   // the bound
	Size int64 // how long the line was (to its end, or to EOF)
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("a message of %d bytes is longer than the %d bytes agate takes", e.Size, e.Max)
}

// lineReader splits a stream into lines ending with "\n", each at most
// max bytes long (not counting the "\n", or a "\r" before it, which it
// takes off). It never holds more than max+readBufSize bytes of a line.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
	eof bool // the stream has ended after the line last returned
}

func newLineReader(r io.Reader, max int) *lineReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &lineReader{r: bufio.NewReaderSize(r, readBufSize), max: max}
}

// next returns the next line. The slice is valid until the next call. A
// last line with no "\n" before the end of the stream is a line too. A
// line longer than max is a *TooLongError and is skipped; other errors,
// io.EOF among them, end the stream.
func (l *lineReader) next() ([]byte, error) {
	if l.eof {
		return nil, io.EOF
	}
	if cap(l.buf) > keepBuf {
		l.buf = nil
	}
	l.buf = l.buf[:0]
	var size int64
	tooLong := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		size += int64(len(chunk))
		if err == nil && len(l.buf) == 0 && !tooLong {
			// The whole line is in the reader's buffer: no copy.
			line := trimEOL(chunk)
			if len(line) > l.max {
				return nil, &TooLongError{Max: l.max, Size: int64(len(line))}
			}
			return line, nil
		}
		if !tooLong {
			if len(l.buf)+len(chunk) > l.max+2 { // room for "\r\n"
				tooLong = true
				l.buf = l.buf[:0]
			} else {
				l.buf = append(l.buf, chunk...)
			}
		}
		switch {
		case err == nil:
			if tooLong {
				return nil, &TooLongError{Max: l.max, Size: size - 1}
			}
			line := trimEOL(l.buf)
			if len(line) > l.max {
				return nil, &TooLongError{Max: l.max, Size: int64(len(line))}
			}
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && (size > 0):
			l.eof = true
			if tooLong || len(trimEOL(l.buf)) > l.max {
				return nil, &TooLongError{Max: l.max, Size: size}
			}
			return trimEOL(l.buf), nil
		default:
			return nil, err
		}
	}
}

// trimEOL takes a final "\n", and a "\r" before it, off b.
func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// lineWriter writes whole lines to one side, one at a time: lines from
// several goroutines never interleave. After the first error it writes
// nothing more and reports that error.
type lineWriter struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
	// failed is called once, with the first error.
	failed func(error)
}

func newLineWriter(w io.Writer, failed func(error)) *lineWriter {
	return &lineWriter{w: bufio.NewWriterSize(w, 32<<10), failed: failed}
}

// write writes line and a "\n", and flushes.
func (w *lineWriter) write(line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writeLocked(line)
}

func (w *lineWriter) writeLocked(line []byte) error {
	if w.err != nil {
		return w.err
	}
	w.w.Write(line)
	w.w.WriteByte('\n')
	if err := w.w.Flush(); err != nil {
		w.err = err
		if w.failed != nil {
			w.failed(err)
		}
		return err
	}
	return nil
}
