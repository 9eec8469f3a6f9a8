package server

import (
	"net"
	"strings"
	"testing"
)

// TestConnKeepsTheRequestLine: a connection keeps the first bytes of each
// request, read in any pieces, so that a request fasthttp reset before its
// error handler ran is still answered in its surface's envelope and logged
// with its method and target.
func TestConnKeepsTheRequestLine(t *testing.T) {
	long := "/api/v2/clients/" + strings.Repeat("x", 400)
	tests := []struct {
		name           string
		pieces         []string
		method, target string
	}{
		{"a path", []string{"GET /api/v1/equipment HTTP/1.1\r\n"}, "GET", "/api/v1/equipment"},
		{"a query", []string{"GET /api/v1?x=1 HTTP/1.1\r\n"}, "GET", "/api/v1?x=1"},
		{"headers in the same read", []string{"POST /api/v2/clients HTTP/1.1\r\nHost: t\r\n\r\n"}, "POST", "/api/v2/clients"},
		{"one byte at a time", []string{"P", "A", "T", "C", "H", " ", "/api/v1/", "equipment/1 HTTP/1.1\r\n"}, "PATCH", "/api/v1/equipment/1"},
		{"no version", []string{"GET /x\r\n"}, "GET", "/x"},
		{"a line longer than kept", []string{"GET " + long + " HTTP/1.1\r\n"}, "GET", long[:headBytes-len("GET ")]},
		{"no space yet", []string{"GET"}, "", ""},
		{"nothing read", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, server := net.Pipe()
			defer client.Close()
			c := &conn{Conn: server, lineEnd: -1}
			defer c.Close()
			go func() {
				for _, p := range tt.pieces {
					_, _ = client.Write([]byte(p))
				}
			}()
			buf := make([]byte, 1024)
			for range tt.pieces {
				if _, err := c.Read(buf); err != nil {
					t.Fatal(err)
				}
			}
			if m, target := c.requestLine(); m != tt.method || target != tt.target {
				t.Fatalf("requestLine() = %q %q, want %q %q (head %q)", m, target, tt.method, tt.target, c.head[:c.headLen])
			}
			c.requestRead()
			if m, target := c.requestLine(); m != "" || target != "" {
				t.Fatalf("the next request inherits the line %q %q", m, target)
			}
		})
	}
}

func TestHeadScan(t *testing.T) {
	for _, tt := range []struct {
		name       string
		head       string
		ended, bad bool
	}{
		{"a plain head", "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n\r\n", true, false},
		{"line feeds only", "GET / HTTP/1.1\nHost: a\n\n", true, false},
		{"a line without a colon, last", "GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", true, true},
		{"a line without a colon, first", "GET / HTTP/1.1\r\nNoColon\r\nHost: a\r\n\r\n", true, true},
		{"a continuation line is not judged here", "GET / HTTP/1.1\r\nX-A: b\r\n c\r\n\tno colon\r\n\r\n", true, false},
		{"no headers at all", "GET / HTTP/1.0\r\n\r\n", true, false},
		{"an empty line before the request line", "\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", true, false},
		{"a head still arriving", "GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n", false, true},
		{"the body is not scanned", "POST / HTTP/1.1\r\nContent-Length: 9\r\n\r\n{\n\"a\"\n}\n\n", true, false},
		{"a colon in the request line is not a header's", "GET /a:b HTTP/1.1\r\nNoColon\r\n\r\n", true, true},
		{"a long request line", "GET /" + strings.Repeat("a", 300) + " HTTP/1.0\r\nNoColon\r\n\r\n", true, true},
		{"a scan that starts inside a pipelined head is not judged", "Host: a\r\nNoColon\r\n\r\n", true, false},
		{"a scan that starts inside a pipelined body is not judged", "{\n\"a\"\n\n}", true, false},
		{"HTTP/0.9 is not judged", "GET /\r\nNoColon\r\n\r\n", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Whole, and one byte per read: a line may straddle reads.
			for _, step := range []int{len(tt.head), 1, 3} {
				var h headScan
				for b := []byte(tt.head); len(b) > 0; {
					n := min(step, len(b))
					h.add(b[:n])
					b = b[n:]
				}
				if h.ended != tt.ended || h.bad != tt.bad {
					t.Fatalf("read %d bytes at a time: ended %v bad %v, want %v %v", step, h.ended, h.bad, tt.ended, tt.bad)
				}
			}
		})
	}
}
