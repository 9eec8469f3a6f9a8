package compress

import (
	"bytes"

	"github.com/gofiber/fiber/v2"
	"github.com/klauspost/compress/gzip"
)

// Best returns b gzipped at the best compression: for a body that never
// changes (an embedded document or asset), which its handler compresses
// once per process and keeps rather than have the middleware compress it
// on every request.
func Best(b []byte) []byte {
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression) // a valid level: no error
	_, _ = zw.Write(b)                                       // a bytes.Buffer does not fail
	_ = zw.Close()
	return out.Bytes()
}

// SendGzipped answers c with gzipped, a body its handler compressed ahead
// (Best), labelled as the middleware labels the bodies it compresses; the
// middleware then leaves it alone. Call it when Accepts(c).
func SendGzipped(c *fiber.Ctx, gzipped []byte) error {
	markGzip(c.Response())
	return c.Send(gzipped)
}
