package server_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// rawExchange writes request on a fresh TCP connection to base, then body
// when set (a write error is ignored: the answer may come early), and reads
// one response. Speaking HTTP by hand reaches the refusals
// that happen inside fasthttp, before any Go HTTP client would let it.
func rawExchange(t *testing.T, base, request string, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	conn := rawSend(t, base, request)
	defer conn.Close()
	if body != nil {
		_, _ = io.Copy(conn, body)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer's body: %v", err)
	}
	return resp, out
}

// rawSend writes request on a fresh TCP connection to base, which the
// caller closes. The connection's deadline is 10 s: a refusal must come at
// once, and a server left waiting for a body fails the read instead of
// hanging the test.
func rawSend(t *testing.T, base, request string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		conn.Close()
		t.Fatal(err)
	}
	return conn
}

// assertEnvelope checks status, the v2 error envelope with code, and that
// X-Request-Id is error.request_id.
func assertEnvelope(t *testing.T, resp *http.Response, body []byte, status int, code string) {
	t.Helper()
	var e struct {
		Error struct {
			Code      string `json:"code"`
			Message   string `json:"message"`
			RequestID string `json:"request_id"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("%d %q is not the JSON envelope: %v", resp.StatusCode, body, err)
	}
	if resp.StatusCode != status || e.Error.Code != code || e.Error.Message == "" {
		t.Fatalf("got %d %s, want %d %s", resp.StatusCode, body, status, code)
	}
	if (status == 401) != (resp.Header.Get("WWW-Authenticate") == rest.WWWAuthenticate) {
		t.Fatalf("%d with WWW-Authenticate %q", status, resp.Header.Get("WWW-Authenticate"))
	}
	if id := resp.Header.Get("X-Request-Id"); id == "" || id != e.Error.RequestID {
		t.Fatalf("X-Request-Id %q, error.request_id %q", id, e.Error.RequestID)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q", ct)
	}
}

// assertV1Envelope checks status and the v1 error envelope with code.
func assertV1Envelope(t *testing.T, resp *http.Response, body []byte, status int, code string) {
	t.Helper()
	var e struct {
		Error map[string]any `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("%d %q is not the JSON envelope: %v", resp.StatusCode, body, err)
	}
	if resp.StatusCode != status || e.Error["code"] != code || e.Error["message"] == "" || len(e.Error) != 2 {
		t.Fatalf("got %d %s, want %d %s in the v1 envelope", resp.StatusCode, body, status, code)
	}
	if resp.Header.Get("X-Request-Id") == "" {
		t.Fatal("no X-Request-Id")
	}
	if (status == 401) != (resp.Header.Get("WWW-Authenticate") == rest.WWWAuthenticate) {
		t.Fatalf("%d with WWW-Authenticate %q", status, resp.Header.Get("WWW-Authenticate"))
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q", ct)
	}
}

func TestRefusalsAtTheHTTPLayer(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Acme")
	base := env.Listen(t)
	auth := "Authorization: Bearer " + org.Key + "\r\n"
	get := func(target, headers string) string {
		return "GET " + target + " HTTP/1.1\r\nHost: test\r\n" + auth + headers + "\r\n"
	}

	t.Run("unknown method is 405", func(t *testing.T) {
		resp, body := rawExchange(t, base, "FOO /api/v2/clients HTTP/1.1\r\nHost: test\r\n"+auth+"\r\n", nil)
		assertEnvelope(t, resp, body, 405, "method_not_allowed")
		if allow := resp.Header.Get("Allow"); allow != "GET, HEAD, POST" {
			t.Errorf("Allow = %q", allow)
		}
	})
	t.Run("request line over 8 KiB is 414", func(t *testing.T) {
		resp, body := rawExchange(t, base, get("/api/v2/clients?search="+strings.Repeat("a", 8<<10), ""), nil)
		assertEnvelope(t, resp, body, 414, "uri_too_long")
	})
	t.Run("100 kB query string is 414", func(t *testing.T) {
		resp, body := rawExchange(t, base, get("/api/v2/clients?search="+strings.Repeat("a", 100_000), ""), nil)
		assertEnvelope(t, resp, body, 414, "uri_too_long")
	})
	t.Run("the target is measured alike beside headers over the read buffer", func(t *testing.T) {
		// A target at its limit with a header that overflows the read
		// buffer is the headers' fault; one byte over it, the target's. (An
		// unknown query parameter is ignored.)
		target := "/api/v2/clients?pad="
		target += strings.Repeat("a", server.MaxURIBytes-len(target))
		big := "X-Pad: " + strings.Repeat("h", 18_000) + "\r\n"
		for _, tc := range []struct {
			target, headers string
			status          int
			code            string
		}{
			{target, "", 200, ""},
			{target, big, 431, "headers_too_large"},
			{target + "a", big, 414, "uri_too_long"},
		} {
			resp, body := rawExchange(t, base, get(tc.target, tc.headers), nil)
			if tc.status == 200 {
				if resp.StatusCode != 200 {
					t.Fatalf("a target of %d bytes: %d %s", len(tc.target), resp.StatusCode, body)
				}
				continue
			}
			assertEnvelope(t, resp, body, tc.status, tc.code)
		}
	})
	t.Run("headers over 16 KiB are 431", func(t *testing.T) {
		resp, body := rawExchange(t, base, get("/api/v2/clients", "X-Pad: "+strings.Repeat("h", 16<<10)+"\r\n"), nil)
		assertEnvelope(t, resp, body, 431, "headers_too_large")
	})
	t.Run("headers far over the read buffer are 431", func(t *testing.T) {
		var pad strings.Builder
		for i := range 40 {
			pad.WriteString("X-Pad-" + string(rune('a'+i%26)) + ": " + strings.Repeat("h", 1000) + "\r\n")
		}
		resp, body := rawExchange(t, base, get("/api/v2/clients", pad.String()), nil)
		assertEnvelope(t, resp, body, 431, "headers_too_large")
	})
	t.Run("an upload over 1 MiB gets a readable 413", func(t *testing.T) {
		// 16 MiB is more than the socket buffers hold: the client is still
		// writing when the server answers, the case that ended in a
		// connection reset before the server lingered. Go's client reads
		// the answer only if the connection is not reset under it; a few
		// rounds of each framing make a reset show.
		for round := range 3 {
			for _, chunked := range []bool{false, true} {
				var body io.Reader = bytes.NewReader(make([]byte, 16<<20))
				if chunked {
					body = io.MultiReader(body) // length unknown: sent chunked
				}
				req, err := http.NewRequest("POST", base+"/api/v2/clients", body)
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Authorization", "Bearer "+org.Key)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatalf("round %d, chunked %v: %v", round, chunked, err)
				}
				out, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				assertEnvelope(t, resp, out, 413, "payload_too_large")
			}
		}
	})
	t.Run("two different Content-Length headers are 400 at once", func(t *testing.T) {
		req := "POST /api/v2/clients HTTP/1.1\r\nHost: test\r\n" + auth +
			"Content-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 100\r\n\r\n{\"a\":"
		resp, body := rawExchange(t, base, req, nil)
		assertEnvelope(t, resp, body, 400, "bad_request")
	})
	t.Run("ambiguous framing on v1 is 400 in the v1 envelope", func(t *testing.T) {
		legacy := "Authorization: Bearer " + env.NewKey(org.ID, apikey.Legacy, tenancy.EquipmentRead, tenancy.EquipmentWrite) + "\r\n"
		req := "PATCH /api/v1/equipment/" + uuid.NewString() + " HTTP/1.1\r\nHost: test\r\n" + legacy +
			"Content-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 100\r\n\r\n{\"a\":"
		resp, body := rawExchange(t, base, req, nil)
		assertV1Envelope(t, resp, body, 400, "BAD_REQUEST")
	})
	t.Run("Content-Length beside Transfer-Encoding is 400 at once", func(t *testing.T) {
		req := "POST /api/v2/clients HTTP/1.1\r\nHost: test\r\n" + auth +
			"Content-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
		resp, body := rawExchange(t, base, req, nil)
		assertEnvelope(t, resp, body, 400, "bad_request")
	})
	t.Run("a header folded over lines is 400 at once", func(t *testing.T) {
		// fasthttp joins a folded line to the header before it: folded,
		// "Transfer-Encoding: chunked" with ", identity" passed the single
		// chunked check, which reads one line at a time.
		const chunked = "15\r\n{\"name\":\"Folded one\"}\r\n0\r\n\r\n"
		for _, headers := range []string{
			auth + "Transfer-Encoding: chunked\r\n , identity\r\n",
			"Authorization: Bearer\r\n " + org.Key + "\r\nTransfer-Encoding: chunked\r\n",
		} {
			req := "POST /api/v2/clients HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n" + headers + "\r\n" + chunked
			resp, body := rawExchange(t, base, req, nil)
			assertEnvelope(t, resp, body, 400, "bad_request")
		}
		if res := org.Do("GET", "/api/v2/clients?limit=100", nil); res.Status != 200 || bytes.Contains(res.Body, []byte("Folded")) {
			t.Errorf("a folded request was stored: %d %s", res.Status, res.Body)
		}
	})
	t.Run("a header line without a colon is 400 at once", func(t *testing.T) {
		// As the last line, fasthttp waited for its colon until the read
		// timeout (30 s) and answered 408; rawExchange gives up after 10.
		for _, req := range []string{
			"GET /api/v2/clients HTTP/1.1\r\nHost: test\r\n" + auth + "NoColon\r\n\r\n",
			"GET /api/v2/clients HTTP/1.1\r\nNoColon\r\n\r\n",
			"GET /api/v2/clients HTTP/1.1\nHost: test\n" + auth + "NoColon\n\n",
			"GET /livez HTTP/1.1\r\nHost: test\r\nNo Colon Here\r\n\r\n",
			"POST /api/v2/clients HTTP/1.1\r\nHost: test\r\n" + auth + "Content-Type: application/json\r\n" +
				"Content-Length: 23\r\nNoColon\r\n\r\n{\"name\":\"Colonless\"}",
		} {
			resp, body := rawExchange(t, base, req, nil)
			assertEnvelope(t, resp, body, 400, "bad_request")
		}
		if res := org.Do("GET", "/api/v2/clients?limit=100", nil); res.Status != 200 || bytes.Contains(res.Body, []byte("Colonless")) {
			t.Errorf("a request with a line without a colon was stored: %d %s", res.Status, res.Body)
		}
		// A body's lines are not header lines, nor are a second request's
		// on the same connection.
		body := "{\n\"name\"\n:\n\"Multi line\"\n}"
		req := "POST /api/v2/clients HTTP/1.1\r\nHost: test\r\n" + auth + "Content-Type: application/json\r\n" +
			"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
		if resp, out := rawExchange(t, base, req, nil); resp.StatusCode != 201 {
			t.Errorf("a JSON body over several lines: %d %s", resp.StatusCode, out)
		}
	})
	t.Run("not exactly one Host of a host's form is 400 at once", func(t *testing.T) {
		for _, host := range []string{"", "Host: test\r\nHost: other\r\n", "Host: a/b\r\n", "Host: a?b\r\n", "Host: a#b\r\n", "Host: u@a\r\n",
			// fasthttp cannot build a URI from these: every route was 404.
			"Host: a:b\r\n", "Host: a:80x\r\n", "Host: a:-1\r\n", "Host: a:80:90\r\n", "Host: [::1\r\n", "Host: [::1]x\r\n", "Host: []\r\n", "Host: a%20b\r\n", "Host: a%2\r\n"} {
			req := "GET /api/v2/clients HTTP/1.1\r\n" + host + auth + "\r\n"
			resp, body := rawExchange(t, base, req, nil)
			assertEnvelope(t, resp, body, 400, "bad_request")
		}
		for _, req := range []string{
			"GET /api/v2/clients HTTP/1.0\r\n" + auth + "\r\n", // HTTP/1.0 needs none
			"GET /api/v2/clients HTTP/1.1\r\nHost: [::1]:8080\r\n" + auth + "\r\n",
			"GET /api/v2/clients HTTP/1.1\r\nHost: api.example.com:443\r\n" + auth + "\r\n",
			"GET /api/v2/clients HTTP/1.1\r\nHost: 127.0.0.1:\r\n" + auth + "\r\n", // an empty port is allowed
			"GET /api/v2/clients HTTP/1.1\r\nHost: b%C3%BCcher.example\r\n" + auth + "\r\n",
			"GET /api/v2/clients HTTP/1.1\r\nHost:\r\n" + auth + "\r\n", // empty: no authority
		} {
			if resp, body := rawExchange(t, base, req, nil); resp.StatusCode != 200 {
				t.Errorf("%q: %d %s", req, resp.StatusCode, body)
			}
		}
	})
	t.Run("a control byte in the target is 400, not a missing route", func(t *testing.T) {
		for _, target := range []string{"/api/v2/clients?x=\x01", "/api/v2/clients\x7f"} {
			resp, body := rawExchange(t, base, "GET "+target+" HTTP/1.1\r\nHost: test\r\n"+auth+"\r\n", nil)
			assertEnvelope(t, resp, body, 400, "bad_request")
		}
	})
	t.Run("Transfer-Encoding on an HTTP/1.0 request is 400 and runs nothing", func(t *testing.T) {
		req := "POST /api/v2/clients HTTP/1.0\r\n" + auth + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"15\r\n{\"name\":\"Chunked 10\"}\r\n0\r\n\r\n"
		resp, body := rawExchange(t, base, req, nil)
		assertEnvelope(t, resp, body, 400, "bad_request")
		if res := org.Do("GET", "/api/v2/clients?limit=100", nil); res.Status != 200 || bytes.Contains(res.Body, []byte("Chunked 10")) {
			t.Errorf("an HTTP/1.0 chunked request was stored: %d %s", res.Status, res.Body)
		}
	})
	t.Run("a version other than HTTP/1.x is 400, HTTP/1.2 is read as HTTP/1.1", func(t *testing.T) {
		for _, version := range []string{"HTTP/2.0", "HTTP/3.0", "http/1.1", "FOO/1.1", "HTTP/1.10", "HTTP/1.x", "HTTP/0.9"} {
			resp, body := rawExchange(t, base, "GET /api/v2/clients "+version+"\r\nHost: test\r\n"+auth+"\r\n", nil)
			assertEnvelope(t, resp, body, 400, "bad_request")
		}
		// A chunked body, which HTTP/1.0 may not carry, and a connection
		// kept open, as for HTTP/1.1.
		req := "POST /api/v2/clients HTTP/1.2\r\nHost: test\r\n" + auth + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"15\r\n{\"name\":\"Chunked 12\"}\r\n0\r\n\r\n"
		resp, body := rawExchange(t, base, req, nil)
		if resp.StatusCode != 201 || resp.Close || !bytes.Contains(body, []byte("Chunked 12")) {
			t.Errorf("HTTP/1.2 chunked POST: %d (close %v) %s, want 201 on a kept connection", resp.StatusCode, resp.Close, body)
		}
		if resp, _ := rawExchange(t, base, "GET /api/v2/clients HTTP/1.2\r\nHost: test\r\nConnection: keep-alive, Close\r\n"+auth+"\r\n", nil); resp.StatusCode != 200 || !resp.Close {
			t.Errorf("HTTP/1.2 GET asking to close: %d (close %v), want 200 and the connection closed", resp.StatusCode, resp.Close)
		}
	})
	t.Run("a body no route would take is 404 or 405, not 415", func(t *testing.T) {
		for _, tt := range []struct {
			line   string
			status int
			code   string
		}{
			{"PUT /api/v2/clients", 405, "method_not_allowed"},
			{"POST /api/v2/health", 405, "method_not_allowed"},
			{"POST /api/v2/nosuch", 404, "not_found"},
			{"POST /api/v2/clients", 415, "unsupported_media_type"},
		} {
			req := tt.line + " HTTP/1.1\r\nHost: test\r\n" + auth + "Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi"
			resp, body := rawExchange(t, base, req, nil)
			assertEnvelope(t, resp, body, tt.status, tt.code)
		}
	})
	t.Run("two Content-Type headers are 415, whichever comes last", func(t *testing.T) {
		for _, types := range []string{
			"Content-Type: text/plain\r\nContent-Type: application/json\r\n",
			"Content-Type: application/json\r\nContent-Type: application/json\r\n",
		} {
			req := "POST /api/v2/clients HTTP/1.1\r\nHost: test\r\n" + auth + types + "Content-Length: 14\r\n\r\n{\"name\":\"Two\"}"
			resp, body := rawExchange(t, base, req, nil)
			assertEnvelope(t, resp, body, 415, "unsupported_media_type")
		}
	})
	t.Run("a request fasthttp cannot parse is 400 bad_request, not a body's error", func(t *testing.T) {
		for _, framing := range []string{"Content-Length: -1\r\n", "Content-Length: 0xe\r\n", "Transfer-Encoding: chunked\r\n"} {
			req := "POST /api/v2/clients HTTP/1.1\r\nHost: test\r\n" + auth + "Content-Type: application/json\r\n" + framing + "\r\n"
			if strings.HasPrefix(framing, "Transfer") {
				req += "zz\r\n{}\r\n0\r\n\r\n" // a chunk size that is not hex
			}
			resp, body := rawExchange(t, base, req, nil)
			assertEnvelope(t, resp, body, 400, "bad_request")
		}
	})
	t.Run("a compressed body is 415, however small it is on the wire", func(t *testing.T) {
		// 4 MiB of JSON whitespace gzips to about 4 KB: under the body
		// limit on the wire, over it once inflated.
		var bomb bytes.Buffer
		zw := gzip.NewWriter(&bomb)
		_, _ = zw.Write([]byte(`{"name":"Bomb","notes":"x"` + strings.Repeat(" ", 4<<20) + `}`))
		_ = zw.Close()
		for _, tt := range []struct{ encoding, body string }{
			{"gzip", bomb.String()},
			{"deflate", "x\x9c\xab\xae\x05\x00\x01u\x00\xf9"},
			{"bogus", `{"name":"Bogus"}`},
			{"gzip, identity", bomb.String()},
		} {
			res := env.Send(apitest.Request{Method: "POST", Path: "/api/v2/clients", Key: org.Key, Body: tt.body,
				Headers: map[string]string{"Content-Type": "application/json", "Content-Encoding": tt.encoding}})
			if res.Status != 415 || res.ErrorCode() != "unsupported_media_type" || res.Header.Get("Accept-Encoding") != "identity" {
				t.Errorf("Content-Encoding %q: %d %s (Accept-Encoding %q)", tt.encoding, res.Status, res.Body, res.Header.Get("Accept-Encoding"))
			}
		}
		if res := org.Do("GET", "/api/v2/clients?limit=100", nil); res.Status != 200 || bytes.Contains(res.Body, []byte("Bomb")) || bytes.Contains(res.Body, []byte("Bogus")) {
			t.Errorf("a refused body was stored: %d %s", res.Status, res.Body)
		}
		// Fiber inflates by the last Content-Encoding header: every one is
		// read, on v2 and on v1.
		legacy := "Authorization: Bearer " + env.NewKey(org.ID, apikey.Legacy, tenancy.EquipmentRead, tenancy.EquipmentWrite) + "\r\n"
		for _, tt := range []struct{ line, auth string }{
			{"POST /api/v2/clients", auth},
			{"PATCH /api/v1/equipment/" + uuid.NewString(), legacy},
		} {
			for _, codings := range []string{
				"Content-Encoding: identity\r\nContent-Encoding: gzip\r\n",
				"Content-Encoding: gzip\r\nContent-Encoding: identity\r\n",
				"Content-Encoding: identity, gzip\r\n",
			} {
				req := tt.line + " HTTP/1.1\r\nHost: test\r\n" + tt.auth + "Content-Type: application/json\r\n" + codings +
					"Content-Length: " + strconv.Itoa(bomb.Len()) + "\r\n\r\n" + bomb.String()
				resp, body := rawExchange(t, base, req, nil)
				if resp.StatusCode != 415 || resp.Header.Get("Accept-Encoding") != "identity" {
					t.Errorf("%s with %q: %d %s", tt.line, codings, resp.StatusCode, body)
				}
			}
		}
		if res := org.Do("GET", "/api/v2/clients?limit=100", nil); res.Status != 200 || bytes.Contains(res.Body, []byte("Bomb")) {
			t.Errorf("an inflated body was stored: %d %s", res.Status, res.Body)
		}
		for _, ce := range []string{"identity", "Identity", ""} {
			res := env.Send(apitest.Request{Method: "POST", Path: "/api/v2/clients", Key: org.Key, Body: `{"name":"Plain ` + ce + `"}`,
				Headers: map[string]string{"Content-Type": "application/json", "Content-Encoding": ce}})
			if res.Status != 201 {
				t.Errorf("Content-Encoding %q: %d %s", ce, res.Status, res.Body)
			}
		}
	})
	t.Run("a multipart body is 415 in its surface's envelope, whatever it holds", func(t *testing.T) {
		legacy := "Authorization: Bearer " + env.NewKey(org.ID, apikey.Legacy, tenancy.EquipmentRead, tenancy.EquipmentWrite) + "\r\n"
		form := "--x\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nForm\r\n--x--\r\n"
		for _, tt := range []struct {
			name, line, auth, body string
			v1                     bool
		}{
			{"v2, JSON in a multipart request", "POST /api/v2/clients", auth, `{"name":"x"}`, false},
			{"v2, a valid form", "POST /api/v2/clients", auth, form, false},

			{"v1, JSON in a multipart request", "PATCH /api/v1/equipment/" + uuid.NewString(), legacy, `{"name":"x"}`, true},
			{"v1, a valid form", "PATCH /api/v1/equipment/" + uuid.NewString(), legacy, form, true},
		} {
			t.Run(tt.name, func(t *testing.T) {
				req := tt.line + " HTTP/1.1\r\nHost: test\r\n" + tt.auth +
					"Content-Type: multipart/form-data; boundary=x\r\nContent-Length: " + strconv.Itoa(len(tt.body)) + "\r\n\r\n" + tt.body
				resp, body := rawExchange(t, base, req, nil)
				if tt.v1 {
					assertV1Envelope(t, resp, body, 415, "BAD_REQUEST")
				} else {
					assertEnvelope(t, resp, body, 415, "unsupported_media_type")
				}
				// Refused after the limiter: counted, with its headers.
				if resp.Header.Get("X-Ratelimit-Limit") == "" || resp.Header.Get("X-Ratelimit-Remaining") == "" {
					t.Errorf("415 without the rate-limit headers: %v", resp.Header)
				}
			})
		}
		// Without a key, the key is what is wrong.
		req := "POST /api/v2/clients HTTP/1.1\r\nHost: test\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 12\r\n\r\n{\"name\":\"x\"}"
		resp, body := rawExchange(t, base, req, nil)
		assertEnvelope(t, resp, body, 401, "invalid_credentials")
	})
	t.Run("a body that is not JSON is 415", func(t *testing.T) {
		for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", ""} {
			res := env.Send(apitest.Request{Method: "POST", Path: "/api/v2/clients", Key: org.Key,
				Body: `{"name":"Plain"}`, Headers: map[string]string{"Content-Type": ct}})
			if res.Status != 415 || res.ErrorCode() != "unsupported_media_type" {
				t.Errorf("Content-Type %q: %d %s", ct, res.Status, res.Body)
			}
		}
		for _, ct := range []string{"application/json; charset=utf-8", "application/merge-patch+json", "Application/JSON",
			"application/json; charset=UTF8", "application/json; charset=us-ascii"} {
			res := env.Send(apitest.Request{Method: "POST", Path: "/api/v2/clients", Key: org.Key,
				Body: `{"name":"Json ` + ct + `"}`, Headers: map[string]string{"Content-Type": ct}})
			if res.Status != 201 {
				t.Errorf("Content-Type %q: %d %s", ct, res.Status, res.Body)
			}
		}
	})
	t.Run("a body is read as UTF-8 whatever charset it declares", func(t *testing.T) {
		// docs/decisions.md, "Bodies are UTF-8, whatever charset they
		// declare": application/json with any charset is JSON; invalid
		// UTF-8 is 400 malformed_json, and nothing is stored.
		for _, tt := range []struct{ ct, body string }{
			{"application/json; charset=iso-8859-1", `{"name":"Buehne ascii latin1"}`},
			{"application/json; charset=utf-8; charset=latin1", `{"name":"Two charsets"}`},
			{"application/json; charset=", `{"name":"Empty charset"}`},
		} {
			res := env.Send(apitest.Request{Method: "POST", Path: "/api/v2/clients", Key: org.Key,
				Body: tt.body, Headers: map[string]string{"Content-Type": tt.ct}})
			if res.Status != 201 {
				t.Errorf("Content-Type %q, a UTF-8 body: %d %s", tt.ct, res.Status, res.Body)
			}
		}
		for _, tt := range []struct{ ct, body string }{
			{"application/json; charset=iso-8859-1", "{\"name\":\"B\xfchne refused\"}"},
			{"application/json; charset=utf-16", "{\x00\"\x00n\x00\"\x00}\x00"},
		} {
			res := env.Send(apitest.Request{Method: "POST", Path: "/api/v2/clients", Key: org.Key,
				Body: tt.body, Headers: map[string]string{"Content-Type": tt.ct}})
			if res.Status != 400 || res.ErrorCode() != "malformed_json" {
				t.Errorf("Content-Type %q, a body in that charset: %d %s", tt.ct, res.Status, res.Body)
			}
		}
		if res := org.Do("GET", "/api/v2/clients?search=refused", nil); res.Status != 200 || bytes.Contains(res.Body, []byte("refused")) {
			t.Errorf("a refused body was stored: %d %s", res.Status, res.Body)
		}
		if res := env.Send(apitest.Request{Method: "POST", Path: "/api/v2/clients", Key: org.Key,
			Body: "{\"name\":\"B\xfchne\"}", Headers: map[string]string{"Content-Type": "application/json; charset=iso-8859-1"}}); !bytes.Contains(res.Body, []byte("not valid UTF-8")) {
			t.Errorf("the refusal does not say the body is not UTF-8: %s", res.Body)
		}
		legacy := "Authorization: Bearer " + env.NewKey(org.ID, apikey.Legacy, tenancy.EquipmentRead, tenancy.EquipmentWrite) + "\r\n"
		body := "{\"case_type\":\"B\xfchne\"}"
		req := "PATCH /api/v1/equipment/" + uuid.NewString() + " HTTP/1.1\r\nHost: test\r\n" + legacy +
			"Content-Type: application/json; charset=latin1\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
		resp, got := rawExchange(t, base, req, nil)
		assertV1Envelope(t, resp, got, 400, "BAD_REQUEST")
	})
}

// TestOneOfEachHeaderThatActs: a request carrying two Authorization headers
// (which key acts would depend on the reader) is refused as unauthenticated,
// on both surfaces, whichever key comes first; two Idempotency-Key headers
// are a 422 on the header. Neither request writes anything.
func TestOneOfEachHeaderThatActs(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("Alpha"), env.NewOrg("Bravo")
	legacy := env.NewKey(a.ID, apikey.Legacy, tenancy.EquipmentRead)
	base := env.Listen(t)
	line := func(k string) string { return "Authorization: Bearer " + k + "\r\n" }
	tests := []struct {
		name, request string
		v1            bool
		status        int
		code          string
	}{
		{"v2, two keys of two organizations", "GET /api/v2/health HTTP/1.1\r\nHost: t\r\n" + line(a.Key) + line(b.Key) + "\r\n", false, 401, "invalid_credentials"},
		{"v2, the other order", "GET /api/v2/health HTTP/1.1\r\nHost: t\r\n" + line(b.Key) + line(a.Key) + "\r\n", false, 401, "invalid_credentials"},
		{"v2, one key twice", "GET /api/v2/health HTTP/1.1\r\nHost: t\r\n" + line(a.Key) + line(a.Key) + "\r\n", false, 401, "invalid_credentials"},
		{"v1, two keys", "GET /api/v1/equipment HTTP/1.1\r\nHost: t\r\n" + line(legacy) + line(b.Key) + "\r\n", true, 401, "UNAUTHORIZED"},
		{"v2, two Idempotency-Keys", "POST /api/v2/clients HTTP/1.1\r\nHost: t\r\n" + line(a.Key) +
			"Idempotency-Key: one\r\nIdempotency-Key: two\r\nContent-Type: application/json\r\nContent-Length: 14\r\n\r\n{\"name\":\"Two\"}", false, 422, "validation_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawExchange(t, base, tt.request, nil)
			if tt.v1 {
				assertV1Envelope(t, resp, body, tt.status, tt.code)
			} else {
				assertEnvelope(t, resp, body, tt.status, tt.code)
			}
		})
	}
	if r := a.Get("/api/v2/clients"); r.Status != 200 || len(r.List()) != 0 {
		t.Fatalf("a refused request wrote: %d %s", r.Status, r.Body)
	}
	if r := a.Get("/api/v2/health"); r.Status != 200 {
		t.Fatalf("one header still works: %d %s", r.Status, r.Body)
	}
}

// TestEveryV1ErrorIsV1: a v1 request refused before the v1 group runs (a
// body that is not JSON, too large or ambiguously framed, headers over the
// limit), or sent in another letter case (the router serves /API/V1 as
// v1), is answered in the v1 envelope with the Deprecation and Sunset
// headers every v1 response carries.
func TestEveryV1ErrorIsV1(t *testing.T) {
	env := apitest.New(t)
	org := env.NewOrg("Legacy")
	legacy := "Authorization: Bearer " + env.NewKey(org.ID, apikey.Legacy, tenancy.EquipmentRead, tenancy.EquipmentWrite) + "\r\n"
	base := env.Listen(t)
	patch := "PATCH /api/v1/equipment/" + uuid.NewString() + " HTTP/1.1\r\nHost: t\r\n" + legacy
	big := strings.Repeat(" ", 1<<20+10)
	tests := []struct {
		name, request string
		status        int
		code          string
	}{
		{"not JSON", patch + "Content-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}", 415, "BAD_REQUEST"},
		{"too large", patch + "Content-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(big)) + "\r\n\r\n" + big, 413, "BAD_REQUEST"},
		{"ambiguous framing", patch + "Content-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 400, "BAD_REQUEST"},
		{"a Host that is not a host", "GET /api/v1/equipment HTTP/1.1\r\nHost: a/b\r\n" + legacy + "\r\n", 400, "BAD_REQUEST"},
		{"a Host fasthttp cannot parse", "GET /api/v1/equipment HTTP/1.1\r\nHost: a:b\r\n" + legacy + "\r\n", 400, "BAD_REQUEST"},
		{"a control byte in the target", "GET /api/v1/equipment?x=\x01 HTTP/1.1\r\nHost: t\r\n" + legacy + "\r\n", 400, "BAD_REQUEST"},
		{"a last header line without a colon", "GET /api/v1/equipment HTTP/1.1\r\nHost: t\r\n" + legacy + "NoColon\r\n\r\n", 400, "BAD_REQUEST"},
		{"headers over the limit", "GET /api/v1/equipment HTTP/1.1\r\nHost: t\r\n" + legacy + "X-Big: " + strings.Repeat("a", 17000) + "\r\n\r\n", 431, "BAD_REQUEST"},
		// Paths are case-sensitive: another case is no route, still
		// answered in the v1 envelope.
		{"upper case, bad query", "GET /API/V1/equipment?page=0 HTTP/1.1\r\nHost: t\r\n" + legacy + "\r\n", 404, "NOT_FOUND"},
		{"upper case, unknown record", "GET /API/V1/equipment/" + uuid.NewString() + " HTTP/1.1\r\nHost: t\r\n" + legacy + "\r\n", 404, "NOT_FOUND"},
		{"upper case, no key", "GET /Api/V1/equipment HTTP/1.1\r\nHost: t\r\n\r\n", 404, "NOT_FOUND"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawExchange(t, base, tt.request, nil)
			assertV1Envelope(t, resp, body, tt.status, tt.code)
			if resp.Header.Get("Deprecation") != "true" || resp.Header.Get("Sunset") == "" {
				t.Fatalf("Deprecation %q, Sunset %q", resp.Header.Get("Deprecation"), resp.Header.Get("Sunset"))
			}
		})
	}
}
