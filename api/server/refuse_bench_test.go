package server

import (
	"bufio"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// BenchmarkFramingProblem is the per-request cost of the framing check that
// HeaderReceived runs on every request (a typical authenticated GET).
func BenchmarkFramingProblem(b *testing.B) {
	var h fasthttp.RequestHeader
	raw := "GET /api/v2/equipment?limit=50 HTTP/1.1\r\nHost: api.example.com\r\nUser-Agent: integration/1.0\r\n" +
		"Accept: application/json\r\nAuthorization: Bearer svc_live_0123456789abcdefghijklmnopqrstuvwxyz\r\n" +
		"Accept-Encoding: gzip\r\nConnection: keep-alive\r\n\r\n"
	if err := h.Read(bufio.NewReader(strings.NewReader(raw))); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if framingProblem(&h) != "" {
			b.Fatal("problem")
		}
	}
}
