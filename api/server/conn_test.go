package server

import (
	"net"
	"testing"
)

// TestConnTellsTheSurface: a connection keeps the first bytes of each
// request, read in any pieces, so that a request fasthttp reset before its
// error handler ran is still answered in its surface's envelope.
func TestConnTellsTheSurface(t *testing.T) {
	tests := []struct {
		name   string
		pieces []string
		v1     bool
	}{
		{"v1 path", []string{"GET /api/v1/equipment HTTP/1.1\r\n"}, true},
		{"v1 root", []string{"GET /api/v1 HTTP/1.1\r\n"}, true},
		{"v1 query", []string{"GET /api/v1?x=1 HTTP/1.1\r\n"}, true},
		{"the longest method", []string{"OPTIONS /api/v1/equipment HTTP/1.1\r\n"}, true},
		{"one byte at a time", []string{"P", "A", "T", "C", "H", " ", "/api/v1/", "equipment/1 HTTP/1.1\r\n"}, true},
		{"v1 in upper case", []string{"GET /API/V1/equipment HTTP/1.1\r\n"}, true},
		{"v2", []string{"GET /api/v2/events HTTP/1.1\r\n"}, false},
		{"a v1 look-alike", []string{"GET /api/v10/events HTTP/1.1\r\n"}, false},
		{"v1 in the query only", []string{"GET /x?/api/v1 HTTP/1.1\r\n"}, false},
		{"no space yet", []string{"GET"}, false},
		{"nothing read", nil, false},
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
			buf := make([]byte, 64)
			for range tt.pieces {
				if _, err := c.Read(buf); err != nil {
					t.Fatal(err)
				}
			}
			if got := c.v1(); got != tt.v1 {
				t.Fatalf("v1() = %v, want %v (head %q)", got, tt.v1, c.head[:c.headLen])
			}
			c.requestRead()
			if c.v1() {
				t.Fatal("the next request inherits the surface")
			}
		})
	}
}
