package rest_test

import (
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/eventapi/eventapi/api/rest"
)

// BenchmarkQueryReads is what recording a request's query reads costs a
// list that reads three parameters, against the same list without the
// record, in one run (docs/decisions.md, "Query parameters"):
//
//	go test -run '^$' -bench QueryReads -count 6 ./api/rest/
func BenchmarkQueryReads(b *testing.B) {
	app := fiber.New(fiber.Config{JSONEncoder: rest.Encode})
	type thing struct {
		ID string `json:"id"`
	}
	items := []thing{{ID: "a"}, {ID: "b"}}
	list := func(c *fiber.Ctx) error {
		q := rest.NewQuery(c)
		q.Raw("status")
		if rest.QueryGiven(c, "limit") {
			_ = rest.QueryValue(c, "limit")
		}
		_ = rest.QueryValue(c, "expand")
		return rest.Page(c, items, nil)
	}
	// The same middleware hop without the record, so that the difference
	// is the record alone (the app's v2 group has a dozen hops already).
	app.Group("/untracked", func(c *fiber.Ctx) error { return c.Next() }).Get("/things", list)
	app.Group("/tracked", rest.TrackQueryReads).Get("/things", list)
	h := app.Handler()
	for _, bc := range []struct{ name, uri string }{
		{"untracked", "/untracked/things?limit=5&status=open"},
		{"tracked", "/tracked/things?limit=5&status=open"},
		{"tracked, no query", "/tracked/things"},
		{"tracked, one ignored", "/tracked/things?limit=5&stauts=open"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var ctx fasthttp.RequestCtx
			ctx.Request.Header.SetMethod(fiber.MethodGet)
			ctx.Request.SetRequestURI(bc.uri)
			for b.Loop() {
				h(&ctx)
				ctx.Response.Reset()
			}
		})
	}
}
