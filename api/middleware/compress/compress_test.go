package compress_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/eventapi/eventapi/api/middleware/compress"
)

// big is a JSON body over the threshold, small one under it.
var (
	big   = `{"data":[` + strings.Repeat(`{"name":"Moving head spot","category":"Lighting"},`, 60) + `{}]}`
	small = `{"data":[]}`
)

func app() *fiber.App {
	a := fiber.New()
	a.Use(compress.New(compress.Config{}))
	json := func(body string) fiber.Handler {
		return func(c *fiber.Ctx) error {
			c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
			return c.SendString(body)
		}
	}
	a.Get("/big", json(big))
	a.Get("/small", json(small))
	a.Get("/tagged", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderETag, `"abc"`)
		return json(big)(c)
	})
	a.Get("/varied", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderVary, "Origin")
		return json(big)(c)
	})
	a.Get("/binary", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, "application/octet-stream")
		return c.SendString(big)
	})
	a.Get("/encoded", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentEncoding, "br")
		return json(big)(c)
	})
	a.Get("/stream", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.SendStream(strings.NewReader(big), len(big))
	})
	a.Get("/chunked", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.SendStream(strings.NewReader(big), -1)
	})
	a.Get("/error", func(c *fiber.Ctx) error { return errors.New(big) })
	a.Get("/created", func(c *fiber.Ctx) error { c.Status(201); return json(big)(c) })
	a.Get("/not-modified", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.SendStatus(304)
	})
	a.Get("/not-modified-large", func(c *fiber.Ctx) error {
		return compress.NotModified(c, len(big), fiber.MIMEApplicationJSON)
	})
	a.Get("/not-modified-small", func(c *fiber.Ctx) error {
		return compress.NotModified(c, 10, fiber.MIMEApplicationJSON)
	})
	a.Get("/not-modified-binary", func(c *fiber.Ctx) error {
		return compress.NotModified(c, len(big), "image/png")
	})
	return a
}

func TestCompression(t *testing.T) {
	tests := []struct {
		name, path, acceptEncoding string
		gzipped                    bool
		vary                       bool
		etag                       string
	}{
		{"a large JSON body, gzip accepted", "/big", "gzip, deflate, br", true, true, ""},
		{"a created record too", "/created", "gzip", true, true, ""},
		{"gzip not asked for", "/big", "", false, true, ""},
		{"gzip refused by weight", "/big", "gzip;q=0, deflate", false, true, ""},
		{"refused on a second field line", "/big", "*\ngzip;q=0", false, true, ""},
		{"admitted on a second field line", "/big", "br\ngzip", true, true, ""},
		{"a body under the threshold", "/small", "gzip", false, false, ""},
		{"a type gzip cannot shrink", "/binary", "gzip", false, false, ""},
		{"already encoded", "/encoded", "gzip", false, false, ""},
		{"a streamed body of a known size", "/stream", "gzip", true, true, ""},
		{"a streamed body of an unknown size", "/chunked", "gzip", false, false, ""},
		{"an error is rendered above", "/error", "gzip", false, false, ""},
		{"a 304 of unknown origin has Vary", "/not-modified", "gzip", false, true, ""},
		{"a 304 of a large 200 has its Vary", "/not-modified-large", "gzip", false, true, ""},
		{"a 304 of a small 200 has none, as its 200", "/not-modified-small", "gzip", false, false, ""},
		{"a 304 of an incompressible 200 has none", "/not-modified-binary", "", false, false, ""},
		{"a strong ETag turns weak when gzipped", "/tagged", "gzip", true, true, `W/"abc"`},
		{"and stays strong when not", "/tagged", "identity", false, true, `"abc"`},
		{"a handler's own Vary is kept", "/varied", "gzip", true, true, ""},
	}
	a := app()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", tt.path, nil)
			if tt.acceptEncoding != "" {
				for _, line := range strings.Split(tt.acceptEncoding, "\n") {
					req.Header.Add("Accept-Encoding", line)
				}
			}
			resp, err := a.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if got := resp.Header.Get("Content-Encoding") == "gzip"; got != tt.gzipped {
				t.Fatalf("Content-Encoding %q, want gzip: %v", resp.Header.Get("Content-Encoding"), tt.gzipped)
			}
			v := strings.Join(resp.Header.Values("Vary"), ", ")
			if got := strings.Contains(v, "Accept-Encoding"); got != tt.vary {
				t.Errorf("Vary %q, want Accept-Encoding: %v", v, tt.vary)
			}
			if tt.path == "/varied" && v != "Origin, Accept-Encoding" {
				t.Errorf("Vary %q, want the handler's and Accept-Encoding", v)
			}
			if tt.etag != "" && resp.Header.Get("ETag") != tt.etag {
				t.Errorf("ETag %q, want %q", resp.Header.Get("ETag"), tt.etag)
			}
			if !tt.gzipped {
				return
			}
			if len(body) >= len(big)/4 {
				t.Errorf("gzipped %d bytes to %d", len(big), len(body))
			}
			if cl := resp.Header.Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(body)) {
				t.Errorf("Content-Length %s for %d bytes", cl, len(body))
			}
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			plain, err := io.ReadAll(zr)
			if err != nil || string(plain) != big {
				t.Fatalf("gunzipped %q (%v), want the handler's body", plain, err)
			}
		})
	}
}
