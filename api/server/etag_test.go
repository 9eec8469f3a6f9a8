package server_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestReadsRevalidateWithTheirETag: a v2 read answers a weak ETag of its
// body, the same plain and gzipped; If-None-Match naming it (weakly or
// strongly, in a list, or *) gets 304 with no body but the rate-limit
// headers and the request id, and the request log records the 304. A
// change to the record changes the tag; a large list streamed from its
// buffer gets its tag too; writes, errors and v1 never get one.
func TestReadsRevalidateWithTheirETag(t *testing.T) {
	env := streamingEnv(t)
	org := env.NewOrg("Acme")
	one := seedLongCrewPage(t, org) // a page of 100 is a body stream
	if res := org.Post("/api/v2/crew_members", map[string]any{"first_name": "Tag", "last_name": "Less"}); res.Status != 201 || res.Header.Get("ETag") != "" {
		t.Fatalf("POST: %d, ETag %q, want 201 without one", res.Status, res.Header.Get("ETag"))
	}
	base := env.Listen(t)
	raw := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	do := func(method, path string, header ...string) (*http.Response, []byte) {
		t.Helper()
		var body io.Reader
		if method == "PATCH" {
			body = strings.NewReader(`{"notes": "changed"}`)
		}
		req, _ := http.NewRequest(method, base+path, body)
		req.Header.Set("Authorization", "Bearer "+org.Key)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := raw.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	record := "/api/v2/crew_members/" + one
	for _, path := range []string{record, "/api/v2/crew_members?limit=100"} {
		t.Run(path, func(t *testing.T) {
			first, _ := do("GET", path)
			tag := first.Header.Get("ETag")
			if first.StatusCode != 200 || !strings.HasPrefix(tag, `W/"`) || first.Header.Get("Cache-Control") != "private, no-cache" {
				t.Fatalf("%d, ETag %q, Cache-Control %q, want 200, a weak tag and private, no-cache", first.StatusCode, tag, first.Header.Get("Cache-Control"))
			}
			if zipped, _ := do("GET", path, "Accept-Encoding", "gzip"); zipped.Header.Get("ETag") != tag {
				t.Errorf("gzipped ETag %q, want %q", zipped.Header.Get("ETag"), tag)
			}
			strong := strings.TrimPrefix(tag, "W/")
			for _, inm := range []string{tag, strong, `"nope", ` + tag, "*"} {
				resp, body := do("GET", path, "If-None-Match", inm, "Accept-Encoding", "gzip")
				if resp.StatusCode != 304 || len(body) != 0 || resp.Header.Get("ETag") != tag || resp.Header.Get("Cache-Control") != "private, no-cache" {
					t.Errorf("If-None-Match %s: %d, %d bytes, ETag %q, want 304, none, %q", inm, resp.StatusCode, len(body), resp.Header.Get("ETag"), tag)
				}
				if resp.Header.Get("X-Request-Id") == "" || resp.Header.Get("X-RateLimit-Remaining") == "" {
					t.Errorf("If-None-Match %s: 304 without X-Request-Id or X-RateLimit-Remaining: %v", inm, resp.Header)
				}
			}
			if resp, body := do("GET", path, "If-None-Match", `W/"0000000000000000"`); resp.StatusCode != 200 || len(body) == 0 {
				t.Errorf("another tag: %d, %d bytes, want 200 with the body", resp.StatusCode, len(body))
			}
		})
	}

	t.Run("a change makes a new tag", func(t *testing.T) {
		before, _ := do("GET", record)
		tag := before.Header.Get("ETag")
		// A write asks for no condition: one with If-None-Match is refused
		// (TestWritesWithIfMatchAreRefused), and a write's answer is untagged.
		patched, _ := do("PATCH", record)
		if patched.StatusCode != 200 || patched.Header.Get("ETag") != "" {
			t.Fatalf("PATCH: %d, ETag %q, want 200 without one", patched.StatusCode, patched.Header.Get("ETag"))
		}
		after, body := do("GET", record, "If-None-Match", tag)
		if after.StatusCode != 200 || after.Header.Get("ETag") == tag || !strings.Contains(string(body), "changed") {
			t.Fatalf("after the change: %d, ETag %q (was %q), want 200 and a new tag", after.StatusCode, after.Header.Get("ETag"), tag)
		}
	})

	t.Run("errors and v1 get no tag", func(t *testing.T) {
		for _, path := range []string{"/api/v2/crew_members/00000000-0000-4000-8000-000000000000", "/api/v2/crew_members?limit=abc", "/api/v1/crew"} {
			if resp, _ := do("GET", path, "If-None-Match", "*"); resp.Header.Get("ETag") != "" || resp.StatusCode == 304 {
				t.Errorf("%s: %d, ETag %q", path, resp.StatusCode, resp.Header.Get("ETag"))
			}
		}
	})

	// Only a 200 is a representation to revalidate (docs/decisions.md,
	// "Conditional reads"): a 4xx answer to a GET carries neither the tag
	// nor its Cache-Control, with or without If-None-Match, and
	// If-None-Match: * leaves it the 4xx, with its body.
	t.Run("a 4xx is never tagged", func(t *testing.T) {
		for _, tc := range []struct {
			path   string
			status int
		}{
			{"/api/v2/crew_members/00000000-0000-4000-8000-000000000000", 404},
			{"/api/v2/crew_members?limit=0", 422},
			{"/api/v2/crew_members?limit=abc", 422},
		} {
			for _, inm := range [][]string{nil, {"If-None-Match", "*"}} {
				resp, body := do("GET", tc.path, inm...)
				if resp.StatusCode != tc.status || len(body) == 0 || resp.Header.Get("ETag") != "" || resp.Header.Get("Cache-Control") == "private, no-cache" {
					t.Errorf("%s, %q: %d, %d bytes, ETag %q, Cache-Control %q; want %d with its body, untagged",
						tc.path, inm, resp.StatusCode, len(body), resp.Header.Get("ETag"), resp.Header.Get("Cache-Control"), tc.status)
				}
			}
		}
	})

	t.Run("another organization's key learns nothing from the tag", func(t *testing.T) {
		other := env.NewOrg("Other")
		first, _ := do("GET", record)
		req, _ := http.NewRequest("GET", base+record, nil)
		req.Header.Set("Authorization", "Bearer "+other.Key)
		req.Header.Set("If-None-Match", first.Header.Get("ETag"))
		resp, err := raw.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 || resp.Header.Get("ETag") != "" {
			t.Fatalf("org B with org A's tag: %d, ETag %q, want 404 without one", resp.StatusCode, resp.Header.Get("ETag"))
		}
	})

	t.Run("the request log records the 304", func(t *testing.T) {
		first, _ := do("GET", record)
		resp, _ := do("GET", record, "If-None-Match", first.Header.Get("ETag"))
		ctx := context.Background()
		if err := env.Svc.RequestLog.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		var status int
		if err := env.Svc.DB.NewRaw("SELECT status FROM request_logs WHERE organization_id = ? AND request_id = ?", org.ID, resp.Header.Get("X-Request-Id")).Scan(ctx, &status); err != nil {
			t.Fatal(err)
		}
		if status != 304 {
			t.Errorf("logged status %d, want 304", status)
		}
	})
}
