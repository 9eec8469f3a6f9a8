package manifest

import (
	"strconv"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/eventapi/eventapi/api/middleware/compress"
	"github.com/eventapi/eventapi/api/rest"
)

// countingWriter counts the bytes of the responses written to it.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// BenchmarkCompress: the CPU of this process to render the 1000-item
// manifest and write its response, as it is and gzipped by the compress
// middleware at several flate levels, and the bytes sent (the choice of
// compress.DefaultLevel, docs/decisions.md "Response compression").
func BenchmarkCompress(b *testing.B) {
	m := loaded(b, setup(b))
	for _, level := range []int{0, 1, 2, 5, 6} {
		name := "identity"
		if level > 0 {
			name = "gzip-" + strconv.Itoa(level)
		}
		b.Run(name, func(b *testing.B) {
			app := fiber.New(fiber.Config{JSONEncoder: rest.Encode, Immutable: true})
			if level > 0 {
				app.Use(compress.New(compress.Config{Level: level}))
			}
			app.Get("/", func(c *fiber.Ctx) error { return rest.OK(c, m) })
			h := app.Handler()
			var ctx fasthttp.RequestCtx
			var out countingWriter
			b.ReportAllocs()
			start := processCPU(b)
			for b.Loop() {
				ctx.Request.Header.Set(fiber.HeaderAcceptEncoding, "gzip")
				if err := render(h, &ctx, &out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((processCPU(b)-start).Microseconds())/float64(b.N), "cpu-µs/op")
			b.ReportMetric(float64(out.n)/float64(b.N), "wire-B/op")
		})
	}
}
