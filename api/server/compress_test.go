package server_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// TestResponsesAreGzippedWhenAccepted: a page of a list, on v2 and v1, and
// the API description are sent gzipped to a client whose Accept-Encoding
// admits gzip, with Vary, and decode to exactly what a client without it
// gets; a record's small body and an error are sent as they are. Go's own
// client (the SDK's) asks for gzip and decodes it unseen.
func TestResponsesAreGzippedWhenAccepted(t *testing.T) {
	env := streamingEnv(t)
	org := env.NewOrgWithKey("Acme", apikey.Live, tenancy.CrewMembersRead, tenancy.CrewMembersWrite, tenancy.CrewRead)
	one := seedLongCrewPage(t, org)
	base := env.Listen(t)
	raw := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(path, acceptEncoding string, header ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Authorization", "Bearer "+org.Key)
		if acceptEncoding != "" {
			req.Header.Set("Accept-Encoding", acceptEncoding)
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := raw.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	read := func(resp *http.Response) []byte {
		t.Helper()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Header.Get("Content-Encoding") != "gzip" {
			return body
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		return plain
	}
	for _, path := range []string{"/api/v2/crew_members?limit=100", "/api/v1/crew", "/api/v2/openapi.json", "/api/v1/openapi.json",
		"/api/v2/reference/assets/redoc.standalone.js"} {
		t.Run(path, func(t *testing.T) {
			zipped := get(path, "gzip, deflate, br")
			if zipped.StatusCode != 200 || zipped.Header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("%d, Content-Encoding %q, want 200 gzip", zipped.StatusCode, zipped.Header.Get("Content-Encoding"))
			}
			plain := get(path, "")
			if plain.Header.Get("Content-Encoding") != "" {
				t.Fatalf("Content-Encoding %q without Accept-Encoding", plain.Header.Get("Content-Encoding"))
			}
			for _, resp := range []*http.Response{zipped, plain} {
				if !strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") {
					t.Errorf("Vary %q", resp.Header.Get("Vary"))
				}
			}
			if path == "/api/v2/crew_members?limit=100" && plain.ContentLength <= 64<<10 {
				t.Errorf("the page is %d bytes, not a body stream", plain.ContentLength)
			}
			if zipped.ContentLength <= 0 || zipped.ContentLength*2 > plain.ContentLength {
				t.Errorf("%d bytes gzipped against %d plain", zipped.ContentLength, plain.ContentLength)
			}
			if a, b := read(zipped), read(plain); !bytes.Equal(a, b) {
				t.Fatalf("gunzipped body differs:\n%.2000s\n%.2000s", a, b)
			}
		})
	}

	t.Run("a record and an error are sent as they are", func(t *testing.T) {
		for _, path := range []string{"/api/v2/crew_members/" + one, "/api/v2/crew_members/00000000-0000-4000-8000-000000000000", "/api/v2/crew_members?limit=abc"} {
			if resp := get(path, "gzip"); resp.Header.Get("Content-Encoding") != "" {
				t.Errorf("%s: Content-Encoding %q", path, resp.Header.Get("Content-Encoding"))
			}
		}
	})

	t.Run("the description's weak ETag revalidates either copy", func(t *testing.T) {
		tag := get("/api/v2/openapi.json", "gzip").Header.Get("ETag")
		if !strings.HasPrefix(tag, `W/"`) {
			t.Fatalf("ETag %q, want a weak tag", tag)
		}
		for _, ae := range []string{"gzip", ""} {
			resp := get("/api/v2/openapi.json", ae, "If-None-Match", tag)
			if resp.StatusCode != 304 || resp.Header.Get("ETag") != tag || resp.Header.Get("Vary") != "Accept-Encoding" {
				t.Errorf("Accept-Encoding %q: %d, ETag %q, Vary %q, want 304, %q and the 200's Vary", ae, resp.StatusCode,
					resp.Header.Get("ETag"), resp.Header.Get("Vary"), tag)
			}
		}
	})

	t.Run("a 304 carries the Vary of its 200, no more", func(t *testing.T) {
		for _, path := range []string{"/api/v2/crew_members/" + one, "/api/v2/crew_members?limit=100", "/api/v2/reference/assets/reference.css"} {
			ok := get(path, "gzip")
			resp := get(path, "gzip", "If-None-Match", ok.Header.Get("ETag"))
			if resp.StatusCode != 304 || resp.Header.Get("Vary") != ok.Header.Get("Vary") {
				t.Errorf("%s: %d, Vary %q; the 200's Vary %q", path, resp.StatusCode, resp.Header.Get("Vary"), ok.Header.Get("Vary"))
			}
		}
	})

	t.Run("Go's client asks and decodes unseen", func(t *testing.T) {
		req, _ := http.NewRequest("GET", base+"/api/v2/crew_members?limit=100", nil)
		req.Header.Set("Authorization", "Bearer "+org.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var page struct{ Data []map[string]any }
		if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || !resp.Uncompressed || len(page.Data) != 100 {
			t.Fatalf("uncompressed %v, %d records, %v", resp.Uncompressed, len(page.Data), err)
		}
	})
}

// streamingEnv is the app with the service's own encoder: the test
// harness's comparing one renders every body in memory, never as a stream.
func streamingEnv(t *testing.T) *apitest.Env {
	return apitest.New(t, func(_ *config.Config, o *server.Options) { o.JSONEncoder = rest.Encode })
}

// seedLongCrewPage creates 100 crew members with long notes, so that a page
// of 100 is over 64 KiB and leaves as a body stream from its encoding
// buffer (api/rest), and returns the last one's id.
func seedLongCrewPage(t *testing.T, org *apitest.Org) string {
	t.Helper()
	notes := strings.Repeat("Rigging certificate, forklift licence, follow-spot. ", 14)
	var id string
	for i := range 100 {
		res := org.Post("/api/v2/crew_members", map[string]any{"first_name": fmt.Sprintf("Rigger %02d", i), "last_name": "Hands", "notes": notes})
		if res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
		id = res.Data()["id"].(string)
	}
	return id
}
