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
