package etag

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

func TestMatches(t *testing.T) {
	tag := Of([]byte(`{"data":{}}`))
	strong := strings.TrimPrefix(tag, "W/")
	tests := []struct {
		ifNoneMatch string
		want        bool
	}{
		{"", false},
		{tag, true},
		{strong, true}, // weak comparison: the strong form names it too
		{"*", true},
		{`"other", ` + tag, true},
		{`"other",` + strong + `  `, true},
		{`"other"`, false},
		{`W/"other", W/""`, false},
		{tag[:len(tag)-1], false}, // unterminated
		{",,", false},
	}
	for _, tt := range tests {
		if got := Matches(tt.ifNoneMatch, tag); got != tt.want {
			t.Errorf("Matches(%q) = %v, want %v", tt.ifNoneMatch, got, tt.want)
		}
	}
}

// TestNoneMatchNamesReadsEveryLine: a tag on a second If-None-Match line
// revalidates as one on the first does.
func TestNoneMatchNamesReadsEveryLine(t *testing.T) {
	tag := Of([]byte(`{"data":{}}`))
	for _, tt := range []struct {
		name  string
		lines []string
		want  bool
	}{
		{"none", nil, false},
		{"the tag on the first line", []string{tag, `"other"`}, true},
		{"the tag on the second line", []string{`"other"`, tag}, true},
		{"neither line", []string{`"other"`, `"more"`}, false},
	} {
		var h fasthttp.RequestHeader
		for _, l := range tt.lines {
			h.Add("If-None-Match", l)
		}
		if got := NoneMatchNames(&h, tag); got != tt.want {
			t.Errorf("%s: NoneMatchNames = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestOnlyA200IsTagged: only a 200 answer to a GET gets an ETag and
// Cache-Control, and only it can become a 304 (docs/decisions.md,
// "Conditional reads"). An error answer is not a representation of the
// record: tagged, a client's If-None-Match: * (or a tag that happened to
// match an error body) would turn a 404 or a 400 into a 304, and the
// client would keep using what it had. The service's handlers return their
// errors, which the middleware passes on untouched; a handler that writes
// its 4xx itself must be left alone too.
func TestOnlyA200IsTagged(t *testing.T) {
	app := fiber.New()
	app.Use(New(func(string, string) bool { return true }))
	app.Get("/ok", func(c *fiber.Ctx) error { return c.JSON(fiber.Map{"data": "ok"}) })
	app.Get("/missing", func(c *fiber.Ctx) error {
		return c.Status(fiber.StatusNotFound).JSON(fiber.Map{"error": fiber.Map{"code": "not_found"}})
	})
	app.Get("/bad", func(c *fiber.Ctx) error {
		return c.Status(fiber.StatusBadRequest).JSON(fiber.Map{"error": fiber.Map{"code": "invalid_parameter"}})
	})
	app.Get("/gone", func(*fiber.Ctx) error { return fiber.NewError(fiber.StatusGone, "cursor_expired") })
	tests := []struct {
		path   string
		status int
		tagged bool
	}{
		{"/ok", 200, true},
		{"/missing", 404, false},
		{"/bad", 400, false},
		{"/gone", 410, false},
	}
	for _, tt := range tests {
		t.Run(strings.TrimPrefix(tt.path, "/"), func(t *testing.T) {
			for _, inm := range []string{"", "*"} {
				req := httptest.NewRequest("GET", tt.path, nil)
				if inm != "" {
					req.Header.Set("If-None-Match", inm)
				}
				res, err := app.Test(req, -1)
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(res.Body)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				tag, cc := res.Header.Get("ETag"), res.Header.Get("Cache-Control")
				if tagged := tag != "" || cc != ""; tagged != tt.tagged {
					t.Errorf("If-None-Match %q: ETag %q, Cache-Control %q, want tagged %v", inm, tag, cc, tt.tagged)
				}
				want := tt.status
				if tt.tagged && inm == "*" {
					want = fiber.StatusNotModified
				}
				if res.StatusCode != want || (want != fiber.StatusNotModified && len(body) == 0) {
					t.Errorf("If-None-Match %q: %d, %d bytes, want %d with its body", inm, res.StatusCode, len(body), want)
				}
			}
		})
	}
}

func TestOf(t *testing.T) {
	a, b := Of([]byte("one body")), Of([]byte("another body"))
	if a == b || a != Of([]byte("one body")) {
		t.Fatalf("Of: %s, %s: want equal bodies to share a tag and others not", a, b)
	}
	if !strings.HasPrefix(a, `W/"`) || !strings.HasSuffix(a, `"`) || len(a) != len(`W/""`)+16 {
		t.Fatalf("Of = %s, want W/ and 16 hex digits in quotes", a)
	}
}

// BenchmarkOf: the tag of a record's answer (about 600 bytes) and of a
// 1000-item manifest (about 600 KB).
func BenchmarkOf(b *testing.B) {
	for _, size := range []int{600, 600 << 10} {
		body := []byte(strings.Repeat(`{"id":"0b6c…","name":"K2"},`, size/27+1))[:size]
		b.Run(map[int]string{600: "record", 600 << 10: "manifest"}[size], func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				_ = Of(body)
			}
		})
	}
}

func TestRefusedCondition(t *testing.T) {
	tests := []struct {
		name    string
		headers [][2]string
		want    error
	}{
		{"none", nil, nil},
		{"a tag", [][2]string{{"If-Match", `W/"abc"`}}, errIfMatch},
		{"a strong tag", [][2]string{{"If-Match", `"abc"`}}, errIfMatch},
		{"a star", [][2]string{{"If-Match", "*"}}, nil},
		{"a star and a tag in one line", [][2]string{{"If-Match", `*, "x"`}}, errIfMatch},
		{"an empty line", [][2]string{{"If-Match", "  "}}, errIfMatch}, // a list of no tags
		{"only a comma", [][2]string{{"If-Match", ","}}, errIfMatch},
		{"an empty line beside a star", [][2]string{{"If-Match", ""}, {"If-Match", "*"}}, nil},
		{"a tag in the second line", [][2]string{{"If-Match", "*"}, {"If-Match", `"x"`}}, errIfMatch},
		{"a tag after an empty line", [][2]string{{"If-Match", ""}, {"If-Match", `"x"`}}, errIfMatch},
		{"a date", [][2]string{{"If-Unmodified-Since", "Sat, 01 Jan 2000 00:00:00 GMT"}}, errIfUnmodifiedSince},
		{"a date beside a star", [][2]string{{"If-Match", "*"}, {"If-Unmodified-Since", "Sat, 01 Jan 2000 00:00:00 GMT"}}, nil},
		{"a date beside an empty If-Match", [][2]string{{"If-Match", ""}, {"If-Unmodified-Since", "Sat, 01 Jan 2000 00:00:00 GMT"}}, errIfMatch},
		{"an empty date", [][2]string{{"If-Unmodified-Since", " "}}, nil},
		{"If-None-Match star", [][2]string{{"If-None-Match", "*"}}, errIfNoneMatch},
		{"If-None-Match naming a tag", [][2]string{{"If-None-Match", `W/"abc"`}}, errIfNoneMatch},
		{"If-None-Match in a second line", [][2]string{{"If-None-Match", ""}, {"If-None-Match", `"x"`}}, errIfNoneMatch},
		{"If-None-Match beside If-Match star", [][2]string{{"If-Match", "*"}, {"If-None-Match", `"x"`}}, errIfNoneMatch},
		{"If-Match tag first", [][2]string{{"If-Match", `"x"`}, {"If-None-Match", `"x"`}}, errIfMatch},
		{"If-Unmodified-Since before If-None-Match", [][2]string{{"If-Unmodified-Since", "Sat, 01 Jan 2000 00:00:00 GMT"}, {"If-None-Match", "*"}}, errIfUnmodifiedSince},
		{"an empty If-None-Match", [][2]string{{"If-None-Match", " "}}, nil},
		{"an If-None-Match of commas", [][2]string{{"If-None-Match", " , ,"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h fasthttp.RequestHeader
			for _, kv := range tt.headers {
				h.Add(kv[0], kv[1])
			}
			if got := refusedCondition(&h); got != tt.want {
				t.Fatalf("refusedCondition = %v, want %v", got, tt.want)
			}
		})
	}
}
