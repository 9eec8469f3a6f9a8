package webhooks_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	apiserver "github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/webhook"
)

// stalledDNS is a resolver whose every lookup waits until released and then
// fails: it holds a registration in its DNS lookup for as long as a test
// needs.
type stalledDNS struct {
	started chan struct{}
	once    sync.Once
	release chan struct{}
}

func newStalledDNS() *stalledDNS {
	return &stalledDNS{started: make(chan struct{}), release: make(chan struct{})}
}

func (s *stalledDNS) resolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		s.once.Do(func() { close(s.started) })
		select {
		case <-s.release:
		case <-ctx.Done():
		}
		return nil, errors.New("no DNS server in this test")
	}}
}

// TestURLLookupHoldsNoTransaction registers (POST) and re-points (PATCH)
// an endpoint with an Idempotency-Key while the URL's DNS lookup is
// stalled: no transaction of the request may be open meanwhile. The
// Idempotency-Key middleware opens one before the handler and marks it with
// a savepoint; a lookup inside it would hold a pool connection and the
// change feed's horizon for as long as DNS takes.
func TestURLLookupHoldsNoTransaction(t *testing.T) {
	for _, tc := range []struct {
		method, name string
		// alias is a "URL" key beside "url": a body that a decoder reading
		// keys case-insensitively would check in place of "url".
		alias bool
	}{
		{http.MethodPost, "url", false},
		{http.MethodPatch, "url", false},
		{http.MethodPost, "url and URL", true},
		{http.MethodPatch, "url and URL", true},
	} {
		method := tc.method
		t.Run(method+" "+tc.name, func(t *testing.T) {
			dns := newStalledDNS()
			env := apitest.New(t, func(_ *config.Config, o *apiserver.Options) { o.WebhookResolver = dns.resolver() })
			o := env.NewOrg("Lookup")
			path := endpoints
			if method == http.MethodPatch {
				// A literal public address needs no lookup.
				res := o.Post(endpoints, map[string]any{"url": "https://93.184.216.34/hooks", "enabled_events": []string{"*"}})
				if res.Status != 201 {
					t.Fatalf("register: %d %s", res.Status, res.Body)
				}
				path += "/" + res.Data()["id"].(string)
			}
			// Written by hand: the alias must come after "url" (a
			// case-insensitive decoder keeps the last key that matches).
			body := `{"url":"https://hooks.rental.example/in"`
			if tc.alias {
				body += `,"URL":"https://93.184.216.34/alias"`
			}
			if method == http.MethodPost {
				body += `,"enabled_events":["*"]`
			}
			body += "}"
			done := make(chan *apitest.Response, 1)
			go func() { done <- o.Do(method, path, body, "Idempotency-Key", "lookup-"+method+"-"+tc.name) }()

			select {
			case <-dns.started:
			case res := <-done:
				t.Fatalf("answered without a lookup: %d %s", res.Status, res.Body)
			case <-time.After(time.Minute):
				t.Fatal("the URL was never looked up")
			}
			var open int
			err := env.Svc.DB.NewRaw(`SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND state LIKE 'idle in transaction%' AND query LIKE 'SAVEPOINT %'`).
				Scan(context.Background(), &open)
			close(dns.release)
			res := <-done
			if err != nil {
				t.Fatal(err)
			}
			if open != 0 {
				t.Errorf("%d request transaction(s) open during the DNS lookup", open)
			}
			if res.Status != 422 || !strings.Contains(string(res.Body), `{"field":"url","issue":"`+webhook.UnresolvedOrPrivate+`"}`) {
				t.Errorf("unresolvable host: %d %s, want 422 on url", res.Status, res.Body)
			}
		})
	}
}
