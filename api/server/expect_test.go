package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/eventapi/eventapi/api/middleware/route"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/telemetry"
	"github.com/eventapi/eventapi/platform/telemetry/logtest"
)

// guardedTestApp is an app behind guard, configured by cfg (its error
// handler is the service's), that answers GET and POST /api/v2/clients
// with 204, served on a Listener like the service's with cfg's write
// timeout; its log goes to the returned buffer.
func guardedTestApp(t *testing.T, cfg fiber.Config) (*fiber.App, string, *logtest.Buffer) {
	t.Helper()
	out := &logtest.Buffer{}
	log := telemetry.NewLogger(out, "info")
	cfg.ErrorHandler, cfg.DisableStartupMessage = rest.ErrorHandler(log), true
	app := fiber.New(cfg)
	guard(app, cfg.ErrorHandler, route.New(app), log)
	ok := func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusNoContent) }
	app.Post(testPath, ok)
	app.Get(testPath, ok)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	write := cfg.WriteTimeout
	if write == 0 {
		write = writeTimeout
	}
	go func() { _ = app.Listener(newListener(ln, cfg.ReadTimeout, write)) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	// Served once: the app has built its routes (a test may also call its
	// handler directly).
	resp, err := http.Get("http://" + ln.Addr().String() + testPath)
	if err != nil || resp.StatusCode != 204 {
		t.Fatalf("the app does not serve: %v %v", resp, err)
	}
	resp.Body.Close()
	return app, ln.Addr().String(), out
}

// testPath is the one path guardedTestApp serves.
const testPath = "/api/v2/clients"

// TestExpectAfterAnIdleSpell: a request with "Expect: 100-continue" on a
// connection kept idle for longer than the write timeout gets its "100
// Continue" and its answer. fasthttp writes the 100 under the deadline it
// set for the previous response, which has passed by then; without the
// connection's fresh deadline the write failed and the client got nothing.
func TestExpectAfterAnIdleSpell(t *testing.T) {
	const write = 100 * time.Millisecond
	_, addr, _ := guardedTestApp(t, fiber.Config{WriteTimeout: write})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	if _, err := io.WriteString(c, "GET "+testPath+" HTTP/1.1\r\nHost: t\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.ReadResponse(r, nil); err != nil || resp.StatusCode != 204 {
		t.Fatalf("first request: %v %v", resp, err)
	}
	// Past the deadline the first answer was written under: a wait for
	// time to pass, not for an event.
	time.Sleep(3 * write)
	if _, err := io.WriteString(c, "POST "+testPath+" HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 100 Continue") {
		t.Fatalf("after an idle spell, Expect got %q, %v; want 100 Continue", line, err)
	}
	if _, err := r.ReadString('\n'); err != nil { // the blank line ending the 100
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, "{}"); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.ReadResponse(r, nil); err != nil || resp.StatusCode != 204 {
		t.Fatalf("the answer after 100 Continue: %v %v", resp, err)
	}
}

// TestExpectationsSettledFromTheHeaders: "Expect: 100-continue" is
// answered whatever its letter case (RFC 9110 §10.1.1: case-insensitive;
// a client waited in vain for the 100), not on an HTTP/1.0 request (which
// must ignore it), and a body over the limit is refused from its
// Content-Length at once, without a "100 Continue" inviting the upload.
func TestExpectationsSettledFromTheHeaders(t *testing.T) {
	_, addr, _ := guardedTestApp(t, fiber.Config{BodyLimit: 1 << 20})
	first := func(request string) (string, *bufio.Reader, net.Conn) {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, request); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(c)
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%q: no answer: %v", request, err)
		}
		return line, r, c
	}
	post := "POST " + testPath + " HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"

	line, r, c := first(post + "Content-Length: 2\r\nExpect: 100-Continue\r\n\r\n")
	if !strings.HasPrefix(line, "HTTP/1.1 100 Continue") {
		t.Fatalf("Expect: 100-Continue got %q, want 100 Continue before the body", line)
	}
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, "{}"); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.ReadResponse(r, nil); err != nil || resp.StatusCode != 204 {
		t.Fatalf("the answer after 100 Continue: %v %v", resp, err)
	}

	line, _, _ = first("POST " + testPath + " HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n{}")
	if !strings.Contains(line, " 204 ") {
		t.Errorf("an HTTP/1.0 request with Expect got %q first, want its 204 and no 100", line)
	}

	line, _, _ = first(post + "Content-Length: 2000000\r\nExpect: 100-continue\r\n\r\n")
	if !strings.Contains(line, " 413 ") {
		t.Errorf("a body over the limit with Expect got %q first, want 413 and no 100", line)
	}
}

// TestStalledRequestAnsweredAtItsReadDeadline: a request that stops
// arriving gets its 408 when the read timeout passes, also when the read
// and write timeouts are equal (30 s each in production): the answer's
// write deadline must not pass at the same moment. Several connections at
// once, as the two deadlines raced (about one answer in two was lost).
// The timeouts are long enough that a stall of the loaded test machine
// between the read deadline and the answers does not outlast the write
// deadline (at 300 ms, one run in about 500 lost all eight answers so).
func TestStalledRequestAnsweredAtItsReadDeadline(t *testing.T) {
	const timeout = 1500 * time.Millisecond
	_, addr, _ := guardedTestApp(t, fiber.Config{ReadTimeout: timeout, WriteTimeout: timeout})
	const conns = 8
	statuses := make(chan string, conns)
	for range conns {
		go func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				statuses <- err.Error()
				return
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			_, _ = io.WriteString(c, "POST "+testPath+" HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{\"weig")
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				statuses <- "no answer: " + err.Error()
				return
			}
			resp.Body.Close()
			statuses <- resp.Status
		}()
	}
	for range conns {
		if got := <-statuses; !strings.HasPrefix(got, "408") {
			t.Errorf("a stalled request got %q, want 408", got)
		}
	}
}

// TestAConnectionThatSendsNothingIsClosedUnanswered: a connection on which
// no byte of a request arrives before the read timeout is closed without an
// answer, as an idle keep-alive connection is: a client that opened it
// ahead of need (a pool warming up, a preconnect) would otherwise read an
// unrequested 408 as the answer to the request it sends next. A request
// that began arriving still gets its 408.
func TestAConnectionThatSendsNothingIsClosedUnanswered(t *testing.T) {
	const timeout = 300 * time.Millisecond
	_, addr, log := guardedTestApp(t, fiber.Config{ReadTimeout: timeout, WriteTimeout: timeout})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(c)
	if err != nil || len(got) != 0 {
		t.Fatalf("an idle new connection got %q (%v), want it closed with nothing written", got, err)
	}
	if strings.Contains(log.String(), "408") {
		t.Errorf("an access line was written for a request that never came: %s", log.String())
	}
}

// TestAnUnansweredFramingProblemIsNotInherited: fasthttp reuses a request
// header for the next request of a connection, and then for other
// connections. A framing problem noted for a request that was never
// answered (its connection failed before its body was read, as when the
// client reset it before "100 Continue") must not refuse the valid request
// that comes next on that header: an unauthenticated client could refuse
// other organizations' requests so.
func TestAnUnansweredFramingProblemIsNotInherited(t *testing.T) {
	app, _, _ := guardedTestApp(t, fiber.Config{})
	srv := app.Server()
	var fctx fasthttp.RequestCtx
	read := func(request string) {
		t.Helper()
		fctx.Request.Reset()
		if err := fctx.Request.Header.Read(bufio.NewReader(strings.NewReader(request))); err != nil {
			t.Fatal(err)
		}
	}
	// The ambiguous request: noted, then abandoned by its connection.
	read("POST " + testPath + " HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nContent-Length: 6\r\nExpect: 100-continue\r\n\r\n")
	if cfg := srv.HeaderReceived(&fctx.Request.Header); cfg.ReadTimeout == 0 {
		t.Fatal("the ambiguous request was not noted")
	}

	t.Run("a valid request on the header", func(t *testing.T) {
		read("GET " + testPath + " HTTP/1.1\r\nHost: t\r\n\r\n")
		srv.HeaderReceived(&fctx.Request.Header)
		srv.Handler(&fctx)
		if got := fctx.Response.StatusCode(); got != 204 {
			t.Fatalf("a valid request after an abandoned ambiguous one: %d %s", got, fctx.Response.Body())
		}
	})
	t.Run("a request whose headers could not be read", func(t *testing.T) {
		read("POST " + testPath + " HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n")
		srv.HeaderReceived(&fctx.Request.Header)
		// Abandoned again; the next request fails before HeaderReceived.
		fctx.Request.Reset()
		fctx.Response.Reset()
		srv.ErrorHandler(&fctx, &fasthttp.ErrSmallBuffer{})
		if body := string(fctx.Response.Body()); strings.Contains(body, "Content-Length") {
			t.Fatalf("a request that failed for another reason was answered with the stale problem: %d %s", fctx.Response.StatusCode(), body)
		}
	})
}
