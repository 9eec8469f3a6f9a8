package manifest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"

	gojson "github.com/goccy/go-json"
	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/picklists"
)

// loaded returns the manifest's pick list with its items, their equipment
// and its categories, as the detail endpoint loads it.
func loaded(tb testing.TB, f fixture) *picklists.PickList {
	tb.Helper()
	ctx := context.Background()
	pl, err := picklists.Get(ctx, f.db, f.org, f.list)
	if err != nil {
		tb.Fatal(err)
	}
	lists := []picklists.PickList{*pl}
	if err := picklists.Expand(ctx, f.db, f.org, lists, picklists.Expansion{Items: true, Equipment: true, Category: true}); err != nil {
		tb.Fatal(err)
	}
	return &lists[0]
}

// renderers answer GET / with the loaded manifest in a Fiber app
// configured as the service's (Immutable): goccy/go-json through c.JSON,
// as rest.OK rendered it before encoding plans, and rest.OK with
// rest.Encode as the app's encoder, as now.
var renderers = []struct {
	name    string
	encoder func(any) ([]byte, error)
	handler func(*picklists.PickList) fiber.Handler
}{
	{"goccy", gojson.Marshal, func(m *picklists.PickList) fiber.Handler {
		return func(c *fiber.Ctx) error {
			return c.Status(fiber.StatusOK).JSON(rest.Data[*picklists.PickList]{Data: m})
		}
	}},
	{"rest.OK", rest.Encode, func(m *picklists.PickList) fiber.Handler {
		return func(c *fiber.Ctx) error { return rest.OK(c, m) }
	}},
}

// render runs h on one request and writes its response as fasthttp writes
// it to a connection, returning the body written.
func render(h fasthttp.RequestHandler, ctx *fasthttp.RequestCtx, w io.Writer) error {
	ctx.Request.Header.SetMethod(fiber.MethodGet)
	ctx.Request.SetRequestURI("/")
	h(ctx)
	_, err := ctx.Response.WriteTo(w)
	ctx.Response.Reset()
	ctx.Request.Reset()
	return err
}

// BenchmarkRender: the CPU of this process to render a manifest (no
// PostgreSQL: the records are loaded once) and write its response.
func BenchmarkRender(b *testing.B) {
	m := loaded(b, setup(b))
	for _, r := range renderers {
		b.Run(r.name, func(b *testing.B) {
			app := fiber.New(fiber.Config{JSONEncoder: r.encoder, Immutable: true})
			app.Get("/", r.handler(m))
			h := app.Handler()
			var ctx fasthttp.RequestCtx
			b.ReportAllocs()
			start := processCPU(b)
			for b.Loop() {
				if err := render(h, &ctx, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((processCPU(b)-start).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// TestRenderersAgree: both renderers write the same response, its body
// encoding/json's bytes (the benchmark compares equal work).
func TestRenderersAgree(t *testing.T) {
	m := loaded(t, setup(t))
	std, err := json.Marshal(rest.Data[*picklists.PickList]{Data: m})
	if err != nil {
		t.Fatal(err)
	}
	var first []byte
	for _, r := range renderers {
		app := fiber.New(fiber.Config{JSONEncoder: r.encoder, Immutable: true})
		app.Get("/", r.handler(m))
		var ctx fasthttp.RequestCtx
		var out bytes.Buffer
		if err := render(app.Handler(), &ctx, &out); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(out.Bytes(), std) {
			t.Errorf("%s: the body is not encoding/json's (%d bytes in all, %d of body)", r.name, out.Len(), len(std))
		}
		res := withoutDate(out.Bytes())
		if first == nil {
			first = res
		} else if !bytes.Equal(first, res) {
			t.Errorf("%s: the response differs from %s's", r.name, renderers[0].name)
		}
	}
}

// withoutDate drops the Date header line of a response, which changes every
// second.
func withoutDate(res []byte) []byte {
	start := bytes.Index(res, []byte("\r\nDate: "))
	if start < 0 {
		return res
	}
	end := bytes.Index(res[start+2:], []byte("\r\n"))
	return append(res[:start:start], res[start+2+end:]...)
}
