package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// FuzzRemoteEvents: whatever a remote server's event stream holds, what
// reaches the proxy is whole lines, each one JSON value with no line
// break in it, and nothing longer than the bound.
func FuzzRemoteEvents(f *testing.F) {
	for _, s := range []string{
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
		"data: {\"a\":\ndata: 1}\n\n",
		"event: ping\ndata: {}\n\n: comment\n\ndata: [1,2]\n",
		"data: not json\n\n",
		"data: {\"x\":\"\\u2028\"}\r\n\r\n",
		strings.Repeat("data: 1\n", 100),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		pr, pw := io.Pipe()
		b := &bridge{opts: &Options{Name: "f", MaxLine: 4096, Stderr: io.Discard}, out: pw}
		got := make(chan [][]byte, 1)
		go func() {
			var lines [][]byte
			r := bufio.NewReader(pr)
			for {
				line, err := r.ReadBytes('\n')
				if len(line) > 0 {
					lines = append(lines, line)
				}
				if err != nil {
					break
				}
			}
			got <- lines
		}()
		b.events(bytes.NewReader(body), func(data []byte) bool {
			b.deliver(data, false, nil)
			return false
		})
		pw.Close()
		for _, line := range <-got {
			if !bytes.HasSuffix(line, []byte("\n")) {
				t.Fatalf("a line without its end: %q", line)
			}
			v := line[:len(line)-1]
			if bytes.ContainsAny(v, "\r\n") || !json.Valid(v) || len(v) > 4096+16 {
				t.Fatalf("not one JSON value on one line: %q", line)
			}
		}
	})
}
