package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestPublicPathsAnswerOtherMethods405: a method other than GET or HEAD on
// a public documentation path is 405 with Allow, with or without a key, as
// on any served path; it was 401 without a key (the authenticated group
// answered it), so a browser's preflight of the CORS-enabled document
// failed. A private path still wants a key first.
func TestPublicPathsAnswerOtherMethods405(t *testing.T) {
	env := apitest.New(t)
	base := env.Listen(t)
	send := func(method, path string) (*http.Response, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		var doc map[string]any
		_ = json.Unmarshal(body, &doc)
		return res, doc
	}
	for _, path := range []string{"/api/v2/openapi.json", "/api/v2/reference", "/api/v2/reference/assets/redoc.standalone.js", "/api/v1/openapi.json"} {
		for _, method := range []string{"OPTIONS", "POST", "DELETE"} {
			res, _ := send(method, path)
			if res.StatusCode != 405 || res.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %d Allow %q, want 405 Allow GET, HEAD", method, path, res.StatusCode, res.Header.Get("Allow"))
			}
		}
		if res, _ := send("GET", path); res.StatusCode != 200 {
			t.Errorf("GET %s: %d, want 200", path, res.StatusCode)
		}
	}
	res, doc := send("POST", "/api/v2/clients")
	if res.StatusCode != 401 || !strings.Contains(strings.ToLower(res.Header.Get("WWW-Authenticate")), "bearer") || doc["error"] == nil {
		t.Errorf("POST /api/v2/clients without a key: %d %v, want 401 asking for a key", res.StatusCode, doc)
	}
}
