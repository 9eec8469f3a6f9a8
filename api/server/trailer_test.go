package server_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestTrailerFieldsAreRefused: fields in a chunked body's trailer section
// are refused with 400 bad_request, before anything reads them (fasthttp
// merged them into the header fields: a trailer Idempotency-Key keyed a
// write, an X-Forwarded-For trailer stood right of the trusted proxy's
// entry); a chunked body without trailer fields is served.
func TestTrailerFieldsAreRefused(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Trailers")
	addr := strings.TrimPrefix(env.Listen(t), "http://")
	send := func(head, trailer string) (int, string) {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		body := `{"name":"Chunked"}`
		fmt.Fprintf(c, "%sAuthorization: Bearer %s\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n%x\r\n%s\r\n0\r\n%s\r\n",
			head, org.Key, len(body), body, trailer)
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	post := "POST /api/v2/clients HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
	for _, tc := range []struct {
		name, head, trailer string
		status              int
	}{
		{"no trailer fields", post, "", 201},
		{"an Idempotency-Key trailer", post + "Trailer: Idempotency-Key\r\n", "Idempotency-Key: trailer-key-1\r\n", 400},
		{"a second Idempotency-Key in the trailer", post + "Idempotency-Key: header-key\r\n", "Idempotency-Key: trailer-key-2\r\n", 400},
		{"an X-Forwarded-For trailer on a GET", "GET /api/v2/health HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.9\r\n",
			"X-Forwarded-For: 5.6.7.8\r\n", 400},
		{"an undeclared trailer field", post, "X-Anything: 1\r\n", 400},
	} {
		status, body := send(tc.head, tc.trailer)
		if status != tc.status || (status == 400 && !strings.Contains(body, `"bad_request"`)) {
			t.Errorf("%s: %d %s, want %d", tc.name, status, body, tc.status)
		}
	}
	if list := org.Get("/api/v2/clients").List(); len(list) != 1 {
		t.Errorf("%d clients after one accepted write, want 1: %v", len(list), list)
	}
}
