package rest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/storage/picklists"
	"github.com/eventapi/eventapi/platform/errs"
)

// renderSizes are the manifests the render test's apps serve, by item
// count: bodies from a few hundred bytes to about 2 MB, on both sides of
// streamFrom.
var renderSizes = []int{0, 1, 10, 60, 1000, 3000}

// renderApp serves the same routes as the service renders them, with
// encoder as the app's JSONEncoder and Immutable as in the service: with
// Encode, respond writes pooled buffers; with encoding/json, c.JSON as
// before (the reference).
func renderApp(t *testing.T, encoder func(any) ([]byte, error), lists map[int]*picklists.PickList) string {
	t.Helper()
	app := fiber.New(fiber.Config{JSONEncoder: encoder, Immutable: true, ErrorHandler: ErrorHandler(nil),
		DisableStartupMessage: true})
	// one request id for both apps (an error's body carries it)
	app.Use(func(c *fiber.Ctx) error {
		c.Locals(localRequestID, "request-1")
		c.Set(HeaderRequestID, "request-1")
		return c.Next()
	})
	// a middleware that reads the body after the handler, as the request
	// log does for an error
	app.Use("/peek", func(c *fiber.Ctx) error {
		err := c.Next()
		c.Set("X-Body-Length", strconv.Itoa(len(c.Response().Body())))
		return err
	})
	manifest := func(c *fiber.Ctx) error {
		n, _ := strconv.Atoi(c.Params("n"))
		return OK(c, lists[n])
	}
	app.Get("/manifest/:n", manifest)
	app.Get("/peek/manifest/:n", manifest)
	app.Get("/page", func(c *fiber.Ctx) error {
		next := "next/<cursor>&"
		return Page(c, []picklists.PickList{*lists[10], *lists[1000]}, &next)
	})
	app.Get("/empty", func(c *fiber.Ctx) error { return Page[picklists.PickList](c, nil, nil) })
	app.Post("/created", func(c *fiber.Ctx) error { return Created(c, lists[1]) })
	app.Get("/missing", func(c *fiber.Ctx) error { return errs.NotFoundOf("pick list") })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	return ln.Addr().String()
}

// response is one HTTP response as it came over the connection: its head
// without the Date line, and its body.
type response struct {
	head string
	body []byte
}

// exchange writes each request on conn and reads the responses; pause is
// called after the first kilobyte of each body, so a test can hold the
// server's write.
func exchange(t *testing.T, conn net.Conn, r *bufio.Reader, pause func(), requests ...string) []response {
	t.Helper()
	var raw strings.Builder
	for _, req := range requests {
		method, path, _ := strings.Cut(req, " ")
		fmt.Fprintf(&raw, "%s %s HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n", method, path)
	}
	if _, err := io.WriteString(conn, raw.String()); err != nil {
		t.Fatal(err)
	}
	var out []response
	for _, req := range requests {
		var head strings.Builder
		length := 0
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("%s: %v", req, err)
			}
			if name, value, ok := strings.Cut(line, ": "); ok && name == "Content-Length" {
				length, _ = strconv.Atoi(strings.TrimSpace(value))
			}
			if !strings.HasPrefix(line, "Date: ") {
				head.WriteString(line)
			}
			if line == "\r\n" {
				break
			}
		}
		if strings.HasPrefix(req, "HEAD ") {
			length = 0
		}
		body := make([]byte, length)
		first := min(length, 1024)
		if _, err := io.ReadFull(r, body[:first]); err != nil {
			t.Fatalf("%s: %v", req, err)
		}
		if pause != nil {
			pause()
		}
		if _, err := io.ReadFull(r, body[first:]); err != nil {
			t.Fatalf("%s: %v", req, err)
		}
		out = append(out, response{head: head.String(), body: body})
	}
	return out
}

func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn, bufio.NewReader(conn)
}

// TestRespondMatchesJSON: what a client receives from an app encoding
// with Encode, whose envelopes respond writes from pooled buffers (copied
// into fasthttp's body or streamed), is what it receives from c.JSON with
// encoding/json, byte for byte, head and body: every size, a page, an
// empty page, a created record, an error, a HEAD, requests pipelined on
// one connection, and a middleware that reads the body after the handler.
func TestRespondMatchesJSON(t *testing.T) {
	lists := map[int]*picklists.PickList{}
	for _, n := range renderSizes {
		lists[n] = manifest(n)
	}
	ref := renderApp(t, json.Marshal, lists)
	prod := renderApp(t, Encode, lists)
	requests := []string{"GET /page", "GET /empty", "POST /created", "GET /missing", "HEAD /manifest/1000",
		"GET /peek/manifest/1000", "GET /peek/manifest/10"}
	for _, n := range renderSizes {
		requests = append(requests, fmt.Sprintf("GET /manifest/%d", n))
	}
	var got [2][]response
	for i, addr := range []string{ref, prod} {
		conn, r := dial(t, addr)
		got[i] = exchange(t, conn, r, nil, requests...)
	}
	for i, req := range requests {
		want, res := got[0][i], got[1][i]
		if res.head != want.head || !bytes.Equal(res.body, want.body) {
			t.Errorf("%s differs:\n got  %q (%d bytes of body)\n want %q (%d bytes of body)", req, res.head, len(res.body), want.head, len(want.body))
		}
	}
	// the reference is encoding/json's envelope indeed, and the large
	// bodies were streamed
	std, err := json.Marshal(Data[*picklists.PickList]{Data: lists[3000]})
	if err != nil {
		t.Fatal(err)
	}
	if last := got[1][len(requests)-1]; !bytes.Equal(last.body, std) || len(std) < 4*streamFrom {
		t.Errorf("the 3000-item manifest is not encoding/json's envelope (%d bytes against %d)", len(last.body), len(std))
	}
}

// TestRespondBuffersAreNotShared: pooled buffers go back only when fasthttp
// is done writing them. Clients on keep-alive connections ask for bodies
// of every size at once, one of them reading each body slowly (its first
// kilobyte, then a pause while the others run), and every body arrives
// intact. A buffer given back while fasthttp still wrote it would be
// overwritten by another response's encoding.
func TestRespondBuffersAreNotShared(t *testing.T) {
	lists := map[int]*picklists.PickList{}
	want := map[int][]byte{}
	for _, n := range renderSizes {
		lists[n] = manifest(n)
		b, err := json.Marshal(Data[*picklists.PickList]{Data: lists[n]})
		if err != nil {
			t.Fatal(err)
		}
		want[n] = b
	}
	addr := renderApp(t, Encode, lists)
	var wg sync.WaitGroup
	for client := range 6 {
		wg.Go(func() {
			conn, r := dial(t, addr)
			var pause func()
			if client == 0 {
				pause = func() { time.Sleep(50 * time.Millisecond) }
			}
			for round := range 8 {
				var requests []string
				var sizes []int
				for k := range 3 {
					n := renderSizes[(client+round+k)%len(renderSizes)]
					requests, sizes = append(requests, fmt.Sprintf("GET /manifest/%d", n)), append(sizes, n)
				}
				for i, res := range exchange(t, conn, r, pause, requests...) {
					if !bytes.Equal(res.body, want[sizes[i]]) {
						t.Errorf("client %d, %s: %d bytes, not the expected body (%d bytes)", client, requests[i], len(res.body), len(want[sizes[i]]))
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestBodyStream: the body fasthttp streams reads once, and once closed
// neither reads nor gives its buffer back again.
func TestBodyStream(t *testing.T) {
	buf := getBuffer()
	buf.b = append(buf.b[:0], "0123456789"...)
	r := &body{buf: buf}
	p := make([]byte, 4)
	if n, err := r.Read(p); n != 4 || err != nil || string(p) != "0123" {
		t.Fatalf("Read: %d %v %q", n, err, p)
	}
	var out bytes.Buffer
	if n, err := r.WriteTo(&out); n != 6 || err != nil || out.String() != "456789" {
		t.Fatalf("WriteTo: %d %v %q", n, err, out.String())
	}
	if n, err := r.Read(p); n != 0 || err != io.EOF {
		t.Fatalf("Read at the end: %d %v", n, err)
	}
	if err := r.Close(); err != nil || r.buf != nil {
		t.Fatalf("Close: %v, buffer still held", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := r.Read(p); n != 0 || err != io.EOF {
		t.Fatalf("Read after Close: %d %v", n, err)
	}
	if n, err := r.WriteTo(&out); n != 0 || err != nil {
		t.Fatalf("WriteTo after Close: %d %v", n, err)
	}
}
