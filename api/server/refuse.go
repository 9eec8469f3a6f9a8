package server

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/platform/errs"
)

// Limits of what the HTTP layer reads (docs/decisions.md, "Requests the
// HTTP layer refuses"). The read buffer holds a request line and headers at
// their limits; a request beyond it fails inside fasthttp and is classified
// by refuseUnread.
const (
	MaxURIBytes    = 8 << 10
	MaxHeaderBytes = 16 << 10
	readBufferSize = MaxURIBytes + MaxHeaderBytes + 1<<10
	// readTimeout bounds the reading of one request and writeTimeout the
	// writing of its answer (fiber.Config); a connection gives the answer
	// to a request that began arriving both (conn).
	readTimeout  = 30 * time.Second
	writeTimeout = 30 * time.Second
)

// unparsable reports whether fasthttp could not build the request's URI
// from its target and Host (a control byte in the target): it leaves the
// path empty then, which no route matches.
func unparsable(fctx *fasthttp.RequestCtx) bool {
	if len(fctx.URI().PathOriginal()) > 0 {
		return false
	}
	var u fasthttp.URI
	return u.Parse(fctx.Request.Header.Host(), fctx.Request.Header.RequestURI()) != nil
}

// restorePath sets the request's path to the one its request line names,
// for a request whose URI fasthttp built wrongly or not at all from its
// Host and target: the answer's envelope (v1 or v2) and its access line
// follow the path as sent.
func restorePath(fctx *fasthttp.RequestCtx, c *conn) {
	if c == nil {
		return
	}
	if _, target := c.requestLine(); strings.HasPrefix(target, "/") {
		path, _, _ := strings.Cut(target, "?")
		fctx.URI().SetPath(path)
	}
}

// isTimeout reports whether err is a read deadline's.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// isReset reports whether h reads as a reset header does: fasthttp answers
// GET and / for a method and target it has not got.
func isReset(h *fasthttp.RequestHeader) bool {
	return h.IsGet() && string(h.RequestURI()) == "/"
}

// refuseUnread classifies a request fasthttp could not read: nil leaves it
// to Fiber's own mapping (413 for a body over the limit, 408 when the read
// deadline passed; rest.FromFiber names them).
func refuseUnread(fctx *fasthttp.RequestCtx, err error) error {
	if !errors.As(err, new(*fasthttp.ErrSmallBuffer)) {
		return nil
	}
	// The request line and headers overflowed the read buffer: blame the
	// target when it alone is over its limit, measured as refuse measures
	// it.
	if c, ok := fctx.Conn().(*conn); ok && c.requestTargetLen() > MaxURIBytes {
		return uriTooLong()
	}
	return headersTooLarge()
}

func uriTooLong() error {
	return errs.New(errs.URITooLong, "the request target is longer than "+strconv.Itoa(MaxURIBytes)+" bytes")
}

func headersTooLarge() error {
	return errs.New(errs.HeadersTooLarge, "the request headers are larger than "+strconv.Itoa(MaxHeaderBytes)+" bytes")
}

// refuse runs below the access log, the inner recoverer and compression
// (app.go): it answers in the envelope what the handlers must never see.
func refuse(c *fiber.Ctx) error {
	h := &c.Request().Header
	if len(h.RequestURI()) > MaxURIBytes {
		return uriTooLong()
	}
	if len(h.RawHeaders()) > MaxHeaderBytes {
		return headersTooLarge()
	}
	if beside(c.Path()) {
		return noSuchRoute()
	}
	if mergedTrailer(h) {
		return errs.New(errs.BadRequest, "a chunked body's trailer fields are not accepted: send every field in the header section")
	}
	return c.Next()
}

// apiPrefixes are the paths of the API groups (app.go).
var apiPrefixes = [...]string{rest.V1Prefix, rest.V2Prefix}

// beside reports whether path only begins with the text of an API group's
// path (/api/v1x, /api/v2equipment): Fiber matches a group by that text,
// so such a path went through the group's authentication, rate limit and
// request log (and v1's deprecation headers) before its 404 in the
// envelope of neither. It is no route of either API, and is answered as
// one at once.
func beside(path string) bool {
	for _, p := range apiPrefixes {
		if len(path) > len(p) && strings.EqualFold(path[:len(p)], p) && path[len(p)] != '/' {
			return true
		}
	}
	return false
}

// jsonBody refuses a body that is not JSON, or is compressed, with 415. It
// runs in the API groups after authentication and the rate limiter, so the
// refusal is an authenticated, counted answer that carries the rate-limit
// headers like every other (docs/decisions.md), and before anything reads
// the body. A request no route of its method serves (serves) is left to
// the router's 404 or 405: a 415 would send the client to fix a body that
// no answer would take.
func jsonBody(serves func(method, path string) bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if len(c.Request().Body()) == 0 {
			return c.Next()
		}
		compressed, err := bodyProblem(c)
		if err == nil || !serves(c.Method(), c.Path()) {
			return c.Next()
		}
		if compressed {
			c.Set(fiber.HeaderAcceptEncoding, "identity")
		}
		return err
	}
}

// bodyProblem reports the 415 for c's body, or nil, and whether it is for
// a compressed body.
func bodyProblem(c *fiber.Ctx) (compressed bool, err error) {
	h := &c.Request().Header
	types, encoded := bodyHeaders(h.RawHeaders())
	switch c.Method() {
	case fiber.MethodPost, fiber.MethodPatch, fiber.MethodPut:
		if types > 1 {
			return false, errs.New(errs.UnsupportedMediaType, "the request has more than one Content-Type header: send one, Content-Type: application/json")
		}
		if !isJSON(h.ContentType()) {
			return false, errs.New(errs.UnsupportedMediaType, "the request body must be JSON: send Content-Type: application/json")
		}
	}
	if encoded {
		return true, errs.New(errs.UnsupportedMediaType, "the request body must not be compressed: send it without Content-Encoding")
	}
	return false, nil
}

// isJSON reports whether a Content-Type is application/json or
// application/<anything>+json, with any parameters, a charset too: the body
// is read as UTF-8 whatever it declares, and one that is not valid UTF-8 is
// 400 malformed_json (docs/decisions.md, "Bodies are UTF-8, whatever
// charset they declare").
func isJSON(ct []byte) bool {
	if i := bytes.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	ct = bytes.ToLower(bytes.TrimSpace(ct))
	if !bytes.HasPrefix(ct, []byte("application/")) {
		return false
	}
	sub := ct[len("application/"):]
	return string(sub) == "json" || (bytes.HasSuffix(sub, []byte("+json")) && len(sub) > len("+json"))
}

// versionProblem describes why the HTTP version of a request's line is
// not one this server speaks, or "". fasthttp reads every version but
// HTTP/1.1 as HTTP/1.0 (no chunked body, no keep-alive) and serves it: a
// later minor version of HTTP/1 (HTTP/1.2) is read as HTTP/1.1 here
// instead, as RFC 9112 §2.3 asks, and anything else (HTTP/2.0 in a text
// request line, "http/1.1", "FOO/1.1") is refused as a malformed request
// line rather than served as HTTP/1.0. A request line without a version
// stays HTTP/1.0, as fasthttp reads it.
func versionProblem(h *fasthttp.RequestHeader) string {
	p := h.Protocol()
	switch {
	case string(p) == "HTTP/1.1" || string(p) == "HTTP/1.0":
		return ""
	case len(p) == len("HTTP/1.x") && bytes.HasPrefix(p, []byte("HTTP/1.")) && p[7] >= '0' && p[7] <= '9':
		// fasthttp decided whether the connection closes after it as
		// for HTTP/1.0 (unless keep-alive); HTTP/1.1 keeps it unless the
		// request says close.
		h.SetProtocol("HTTP/1.1")
		if asksToClose(h) {
			h.SetConnectionClose()
		} else {
			h.ResetConnectionClose()
		}
		return ""
	}
	return fmt.Sprintf("the request line's version %q is not HTTP/1.0 or HTTP/1.1", errs.Echo(string(p)))
}

// asksToClose reports whether a Connection header of the request, as
// sent, names "close" (fasthttp's own reading says "close" for every
// HTTP/1.0 request without keep-alive).
func asksToClose(h *fasthttp.RequestHeader) bool {
	for line := range headerLines(h.RawHeaders()) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || !bytes.EqualFold(name, []byte(fiber.HeaderConnection)) {
			continue
		}
		for _, token := range bytes.Split(value, []byte(",")) {
			if bytes.EqualFold(bytes.TrimSpace(token), []byte("close")) {
				return true
			}
		}
	}
	return false
}

// framingProblem describes why the framing of a request is ambiguous (two
// different Content-Length values, Content-Length beside Transfer-Encoding,
// a Transfer-Encoding other than chunked, a folded header, or not exactly
// one Host header of the form RFC 9112 §3.2 asks), or "". Such a request
// could be read differently by a proxy in front, so it is refused rather
// than guessed (request smuggling, a Host a cache keys otherwise).
func framingProblem(h *fasthttp.RequestHeader) string {
	var length []byte
	lengths, encodings, hosts := 0, 0, 0
	for line := range headerLines(h.RawHeaders()) {
		// A line folded onto the one before (obs-fold) would hide a value
		// from the checks below, which read one line at a time, while
		// fasthttp joins it to the header before it ("Transfer-Encoding:
		// chunked" folded with ", identity"): RFC 9112 §5.2 lets a server
		// refuse it, and nothing today sends it.
		if len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
			return "the request folds a header over several lines"
		}
		// Only the two names matter: skip other lines by their name's
		// length before comparing (this runs on every request).
		colon := bytes.IndexByte(line, ':')
		if colon != len("Content-Length") && colon != len("Transfer-Encoding") && colon != len("Host") {
			continue
		}
		name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
		switch {
		case bytes.EqualFold(name, []byte("Host")):
			hosts++
			if hosts > 1 {
				return "the request has more than one Host header"
			}
			if !validHost(value) {
				return "the request's Host header is not a host name with an optional port"
			}
		case bytes.EqualFold(name, []byte("Content-Length")):
			if lengths > 0 && !bytes.Equal(value, length) {
				return "the request has two different Content-Length headers"
			}
			length = value
			lengths++
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			encodings++
			if encodings > 1 || !bytes.EqualFold(value, []byte("chunked")) {
				return "the request's Transfer-Encoding must be a single chunked"
			}
		}
	}
	if lengths > 0 && encodings > 0 {
		return "the request has both Content-Length and Transfer-Encoding"
	}
	// RFC 9112 §6.1: an HTTP/1.0 message with Transfer-Encoding is
	// faulty framing (an HTTP/1.0 proxy in front would not read chunks).
	if encodings > 0 && !h.IsHTTP11() {
		return "an HTTP/1.0 request must not use Transfer-Encoding"
	}
	if hosts == 0 && h.IsHTTP11() {
		return "the request has no Host header"
	}
	return ""
}
