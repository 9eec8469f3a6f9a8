// Package compress gzips response bodies for clients that ask for it with
// Accept-Encoding (docs/decisions.md, "Response compression"). A page of a
// list, a pick list's manifest or the API description shrinks three to ten
// times; a body under MinSize (most records, every error envelope) is sent
// as it is, since compressing it would save no packet and cost CPU.
package compress

import (
	"bytes"
	"io"
	"sync"

	"github.com/gofiber/fiber/v2"
	"github.com/klauspost/compress/gzip"
	"github.com/valyala/bytebufferpool"
	"github.com/valyala/fasthttp"
)

// Defaults of Config.
const (
	// DefaultMinSize is about one TCP segment: a smaller body is sent in
	// one packet either way.
	DefaultMinSize = 1400
	// DefaultLevel is flate's fastest: the 1000-item manifest's 800 KB
	// become about 120 KB, against 87 KB at the default level 6 for about
	// 70% more CPU (bench/manifest, BenchmarkCompress).
	DefaultLevel = gzip.BestSpeed
)

// Config tunes the middleware; zero values take the defaults.
type Config struct {
	MinSize int
	Level   int
}

var buffers bytebufferpool.Pool

// New returns the middleware. It compresses after the handlers below it
// returned a response without an error, so the access log, the metrics and
// the request span above it time the compression. An error returned to it
// is rendered above it, as it is; one rendered below it (by the request
// log's middleware, on the API's routes) is compressed like any body when
// it is large enough, which an envelope rarely is. Every response it could
// compress carries Vary: Accept-Encoding, compressed or not, so a shared
// cache keeps the two apart; a strong ETag becomes weak when the body is
// compressed, since the bytes differ from the identity representation's
// (RFC 9110, 8.8.1).
func New(cfg Config) fiber.Handler {
	if cfg.MinSize <= 0 {
		cfg.MinSize = DefaultMinSize
	}
	if cfg.Level == 0 {
		cfg.Level = DefaultLevel
	}
	writers := sync.Pool{New: func() any {
		zw, err := gzip.NewWriterLevel(nil, cfg.Level)
		if err != nil {
			panic(err) // a level outside flate's range: a programming error
		}
		return zw
	}}
	return func(c *fiber.Ctx) error {
		if err := c.Next(); err != nil {
			return err
		}
		resp := c.Response()
		if resp.StatusCode() == fiber.StatusNotModified {
			// A 304 carries the Vary its 200 would (RFC 9110, 15.4.5):
			// judged on that 200 when NotModified made the 304, and
			// given always otherwise, which keeps a cache correct.
			if p, ok := c.Locals(notModifiedKey{}).(plainAnswer); !ok || p.size >= cfg.MinSize && compressible([]byte(p.contentType)) {
				vary(resp)
			}
			return nil
		}
		if !eligible(resp, cfg.MinSize) {
			return nil
		}
		vary(resp)
		if !Accepts(c) {
			return nil
		}
		out := buffers.Get()
		zw := writers.Get().(*gzip.Writer)
		zw.Reset(out)
		var err error
		if resp.IsBodyStream() {
			// A large body is streamed from its encoding buffer
			// (api/rest); read it from there, not copied first.
			_, err = io.Copy(zw, resp.BodyStream())
		} else {
			_, err = zw.Write(resp.Body())
		}
		if err == nil {
			err = zw.Close()
		}
		writers.Put(zw)
		if err == nil {
			resp.SetBody(out.B) // closes a body stream
			markGzip(resp)
		}
		buffers.Put(out)
		return err
	}
}

// notModifiedKey holds, in a 304's Locals, the plainAnswer it stands for.
type notModifiedKey struct{}

// plainAnswer is a 200's body size and type, before compression.
type plainAnswer struct {
	size        int
	contentType string
}

// NotModified answers c with 304 Not Modified and no body, in place of a
// 200 of size bytes of contentType that the client holds already; the
// middleware then gives the 304 the Vary that 200 would have had.
func NotModified(c *fiber.Ctx, size int, contentType string) error {
	c.Locals(notModifiedKey{}, plainAnswer{size: size, contentType: contentType})
	res := c.Response()
	res.ResetBody() // gives a streamed body's buffer back
	res.SetStatusCode(fiber.StatusNotModified)
	return nil
}

// eligible reports whether a response could be compressed: a body of at
// least minSize bytes (a streamed one of a known size), of a textual type,
// not yet encoded, with a status that has a body.
func eligible(resp *fasthttp.Response, minSize int) bool {
	switch status := resp.StatusCode(); {
	case status < 200, status == fiber.StatusNoContent, status == fiber.StatusNotModified:
		return false
	}
	if len(resp.Header.ContentEncoding()) > 0 {
		return false
	}
	size := resp.Header.ContentLength()
	if !resp.IsBodyStream() {
		size = len(resp.Body())
	}
	return size >= minSize && compressible(resp.Header.ContentType())
}

// Accepts reports whether c's request admits a gzipped answer; a handler
// that compressed its body ahead asks it before SendGzipped.
func Accepts(c *fiber.Ctx) bool {
	return acceptsGzip(c.Request().Header.PeekAll(fiber.HeaderAcceptEncoding))
}

// markGzip labels a response whose body has just been gzipped:
// Content-Encoding, Vary, and a strong ETag made weak.
func markGzip(resp *fasthttp.Response) {
	resp.Header.Set(fiber.HeaderContentEncoding, "gzip")
	vary(resp)
	if etag := resp.Header.Peek(fiber.HeaderETag); len(etag) > 0 && etag[0] == '"' {
		resp.Header.Set(fiber.HeaderETag, "W/"+string(etag))
	}
}

// vary adds Accept-Encoding to the response's Vary field, once: as a line
// of its own, beside any a handler set.
func vary(resp *fasthttp.Response) {
	for _, v := range resp.Header.PeekAll(fiber.HeaderVary) {
		if containsFold(v, fiber.HeaderAcceptEncoding) || bytes.Equal(bytes.TrimSpace(v), []byte("*")) {
			return
		}
	}
	resp.Header.Add(fiber.HeaderVary, fiber.HeaderAcceptEncoding)
}

// compressible reports whether a media type is text that gzip shrinks:
// text/*, JSON (and +json), JavaScript, YAML and XML.
func compressible(contentType []byte) bool {
	mediaType, _, _ := bytes.Cut(contentType, []byte(";"))
	mediaType = bytes.TrimSpace(mediaType)
	if hasPrefixFold(mediaType, "text/") {
		return true
	}
	if !hasPrefixFold(mediaType, "application/") {
		return false
	}
	sub := mediaType[len("application/"):]
	for _, textual := range []string{"json", "javascript", "yaml", "x-yaml", "xml"} {
		if bytes.EqualFold(sub, []byte(textual)) {
			return true
		}
	}
	return hasSuffixFold(sub, "+json") || hasSuffixFold(sub, "+xml")
}

func hasPrefixFold(s []byte, prefix string) bool {
	return len(s) >= len(prefix) && bytes.EqualFold(s[:len(prefix)], []byte(prefix))
}

func containsFold(s []byte, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if bytes.EqualFold(s[i:i+len(sub)], []byte(sub)) {
			return true
		}
	}
	return false
}

func hasSuffixFold(s []byte, suffix string) bool {
	return len(s) >= len(suffix) && bytes.EqualFold(s[len(s)-len(suffix):], []byte(suffix))
}
