package api

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

func TestReadResponse(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		status int
		body   string
		bad    bool
	}{
		{name: "length", raw: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloEXTRA", status: 200, body: "hello"},
		{name: "chunked", raw: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nX-Trailer: y\r\n\r\n", status: 200, body: "hello, world"},
		{name: "to the close", raw: "HTTP/1.0 404 Not Found\r\n\r\n{\"error\":\"x\"}", status: 404, body: `{"error":"x"}`},
		{name: "not http", raw: "SSH-2.0-OpenSSH\r\n\r\n", bad: true},
		{name: "bad length", raw: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", bad: true},
		{name: "empty", raw: "", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := readResponse(bufio.NewReader(strings.NewReader(tt.raw)))
			if tt.bad {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(r.body)
			if err != nil || r.status != tt.status || string(b) != tt.body {
				t.Fatalf("status %d body %q err %v", r.status, b, err)
			}
		})
	}
}

func TestChunkedTruncated(t *testing.T) {
	r, err := readResponse(bufio.NewReader(strings.NewReader("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(r.body); err != io.ErrUnexpectedEOF {
		t.Fatalf("err = %v, want io.ErrUnexpectedEOF", err)
	}
}

// FuzzReadResponse: any bytes from the socket give a response or an error,
// never a panic, and a body never longer than it says.
func FuzzReadResponse(f *testing.F) {
	f.Add("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
	f.Add("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
	f.Fuzz(func(t *testing.T, raw string) {
		r, err := readResponse(bufio.NewReader(strings.NewReader(raw)))
		if err != nil {
			return
		}
		b, _ := io.ReadAll(io.LimitReader(r.body, int64(len(raw))+1))
		if len(b) > len(raw) {
			t.Fatalf("body of %d bytes from %d bytes of input", len(b), len(raw))
		}
	})
}
