package rest

import (
	"io"
	"reflect"
	"slices"
	"unsafe"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/rest/jsonplan"
)

// streamFrom is the size from which respond hands fasthttp its encoding
// buffer as the body instead of copying the body into fasthttp's own.
const streamFrom = 64 << 10

// encodePC identifies Encode among JSON encoders.
var encodePC = reflect.ValueOf(Encode).Pointer()

// respond writes v as the JSON body of a response with status, as
// c.Status(status).JSON(v) does, byte for byte, headers included, and adds
// the warnings member of a GET that carried parameters its handler did not
// read (ignoredParameters).
//
// When the app encodes with Encode and v's type has a plan, v is written
// into a pooled buffer, and no body is allocated: a small body is copied
// into fasthttp's pooled body buffer; a large one, such as a 1000-item
// manifest (about 600 KB), is not copied at all: the buffer becomes the
// body stream, which fasthttp writes to the connection after the handler
// returned and then closes, and only its Close gives the buffer back
// (docs/architecture.md, "JSON"). Any other encoder (the test harness
// compares encoding/json with Encode on every response) gets v through
// c.JSON as before.
func respond[V any](c *fiber.Ctx, status int, v V) error {
	warnings := ignoredParameters(c, status)
	n := jsonplan.Of(reflect.TypeFor[V]())
	if n == nil || !encodesWithEncode(c) {
		if err := c.Status(status).JSON(v); err != nil || warnings == nil {
			return err
		}
		res := c.Response()
		res.SetBodyRaw(withWarnings(slices.Clone(res.Body()), warnings))
		return nil
	}
	c.Status(status)
	buf := getBuffer()
	b, err := n.Append(buf.b[:0], unsafe.Pointer(&v))
	if err == nil {
		b = withWarnings(b, warnings)
	}
	buf.b = b
	if err != nil {
		putBuffer(buf)
		return err
	}
	res := c.Response()
	if len(b) < streamFrom {
		res.SetBody(b)
		putBuffer(buf)
	} else {
		res.SetBodyStream(&body{buf: buf}, len(b))
	}
	res.Header.SetContentType(fiber.MIMEApplicationJSON)
	return nil
}

// encodesWithEncode reports whether c's app renders JSON with Encode.
func encodesWithEncode(c *fiber.Ctx) bool {
	enc := c.App().Config().JSONEncoder
	return enc != nil && reflect.ValueOf(enc).Pointer() == encodePC
}

// body streams a response body from a pooled buffer. fasthttp reads it
// once when it writes the response (WriteTo: the buffer is written to the
// connection as it is), or when a middleware asks for the body, and closes
// it when done with it or when the body is replaced; Close gives the buffer
// back to the pool, once: a body, not the buffer, is what fasthttp holds,
// so a second Close or a read after Close never reaches a buffer another
// response may be using.
type body struct {
	buf *buffer
	off int
}

func (r *body) Read(p []byte) (int, error) {
	if r.buf == nil || r.off >= len(r.buf.b) {
		return 0, io.EOF
	}
	n := copy(p, r.buf.b[r.off:])
	r.off += n
	return n, nil
}

// WriteTo implements io.WriterTo, which io.Copy prefers to Read.
func (r *body) WriteTo(w io.Writer) (int64, error) {
	if r.buf == nil || r.off >= len(r.buf.b) {
		return 0, nil
	}
	n, err := w.Write(r.buf.b[r.off:])
	r.off += n
	return int64(n), err
}

// Bytes returns what is left to read, in place: a middleware that needs
// the whole answer (api/middleware/etag) reads it without consuming it.
func (r *body) Bytes() []byte {
	if r.buf == nil || r.off >= len(r.buf.b) {
		return nil
	}
	return r.buf.b[r.off:]
}

func (r *body) Close() error {
	if r.buf != nil {
		putBuffer(r.buf)
		r.buf = nil
	}
	return nil
}
