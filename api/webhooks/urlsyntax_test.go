package webhooks_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
)

// TestURLMustBeAURIWithoutFragmentOrZone: POST and PATCH refuse, with the
// URL check's 422 on url, a URL that is not an RFC 3986 URI as written
// (a space, non-ASCII text), any fragment (an empty one too) and an IPv6
// zone, in production and with EVENTAPI_WEBHOOK_ALLOW_PRIVATE alike; a
// refused PATCH leaves the stored URL as it was (docs/webhooks.md,
// "Security").
func TestURLMustBeAURIWithoutFragmentOrZone(t *testing.T) {
	const (
		notURI   = "must be a URI as RFC 3986 writes it: percent-encode spaces, non-ASCII and other characters it does not allow, and give a host name in its ASCII (xn--) form"
		fragment = "must not contain a fragment"
		zone     = "must not name an IPv6 zone"
	)
	cases := []struct{ url, issue string }{
		{"https://1.1.1.1/#", fragment},
		{"https://1.1.1.1/hook#", fragment},
		{"https://1.1.1.1/a b", notURI},
		{"https://1.1.1.1/ééé", notURI},
		{"https://1.1.1.1/?q=é", notURI},
		{"https://[2606:4700:4700::1111%25x]/", zone},
	}
	for _, mode := range []struct {
		name string
		env  *apitest.Env
		good string
	}{
		{"production", apitest.New(t), "https://1.1.1.1/hook"},
		{"allow private", newEnv(t), "http://127.0.0.1:9/hook"},
	} {
		a := mode.env.NewOrg("A")
		res := a.Post(endpoints, map[string]any{"url": mode.good, "enabled_events": []string{"*"}})
		if res.Status != 201 {
			t.Fatalf("%s: create: %d %s", mode.name, res.Status, res.Body)
		}
		id := res.Data()["id"].(string)
		for _, tc := range cases {
			want, _ := json.Marshal(map[string]string{"field": "url", "issue": tc.issue})
			r := a.Post(endpoints, map[string]any{"url": tc.url, "enabled_events": []string{"*"}})
			if r.Status != 422 || r.ErrorCode() != "validation_error" || !strings.Contains(string(r.Body), string(want)) {
				t.Errorf("%s: POST %q: %d %s, want 422 %s", mode.name, tc.url, r.Status, r.Body, want)
			}
			r = a.Patch(endpoints+"/"+id, map[string]any{"url": tc.url})
			if r.Status != 422 || r.ErrorCode() != "validation_error" || !strings.Contains(string(r.Body), string(want)) {
				t.Errorf("%s: PATCH %q: %d %s, want 422 %s", mode.name, tc.url, r.Status, r.Body, want)
			}
		}
		if got := a.Get(endpoints + "/" + id).Data()["url"]; got != mode.good {
			t.Errorf("%s: after the refused PATCHes the url is %v, want %s", mode.name, got, mode.good)
		}
		if n := len(a.Get(endpoints).List()); n != 1 {
			t.Errorf("%s: %d endpoints after the refused POSTs, want 1", mode.name, n)
		}
	}
}
