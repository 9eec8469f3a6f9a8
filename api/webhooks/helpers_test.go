package webhooks_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/apitest"
	store "github.com/eventapi/eventapi/api/storage/webhooks"
	"github.com/eventapi/eventapi/platform/config"
)

const endpoints = "/api/v2/webhook_endpoints"

// newEnv runs the app with delivery tuned for tests: private addresses and
// plain http allowed (the receivers are local), short polls and backoff.
func newEnv(t *testing.T, tune ...func(*config.Webhook)) *apitest.Env {
	return apitest.New(t, apitest.WithConfig(func(c *config.Config) {
		c.Webhook.AllowPrivate = true
		c.Webhook.PollInterval = 20 * time.Millisecond
		c.Webhook.BackoffBase = 20 * time.Millisecond
		c.Webhook.BackoffMax = 200 * time.Millisecond
		for _, f := range tune {
			f(&c.Webhook)
		}
	}))
}

// register creates an endpoint of o for rcv and hands rcv the secret.
func register(t *testing.T, o *apitest.Org, rcv *receiver, events ...string) string {
	t.Helper()
	if len(events) == 0 {
		events = []string{"*"}
	}
	res := o.Post(endpoints, map[string]any{"url": rcv.URL(), "enabled_events": events, "description": "test receiver"})
	if res.Status != 201 {
		t.Fatalf("register endpoint: %d %s", res.Status, res.Body)
	}
	d := res.Data()
	secret, _ := d["secret"].(string)
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret %q lacks whsec_", secret)
	}
	rcv.SetSecret(secret)
	return d["id"].(string)
}

// fanOutOne runs the fan-out until it has queued one delivery: the change
// a test just made, to an endpoint whose worker is off.
func fanOutOne(t *testing.T, db bun.IDB) {
	t.Helper()
	waitFor(t, "the delivery fanned out", func() bool {
		res, err := store.FanOut(context.Background(), db, 100)
		if err != nil {
			t.Fatal(err)
		}
		return res.Queued == 1
	})
}

// createClient creates a client through the API and returns its id.
func createClient(t *testing.T, o *apitest.Org, name string) string {
	t.Helper()
	res := o.Post("/api/v2/clients", map[string]any{"name": name})
	if res.Status != 201 {
		t.Fatalf("create client: %d %s", res.Status, res.Body)
	}
	return res.Data()["id"].(string)
}

// deliveries returns every delivery of the endpoint, following cursors.
func deliveries(t *testing.T, o *apitest.Org, endpoint string) []map[string]any {
	t.Helper()
	var out []map[string]any
	path := fmt.Sprintf("%s/%s/deliveries?limit=100", endpoints, endpoint)
	for next := ""; ; {
		p := path
		if next != "" {
			p += "&cursor=" + next
		}
		res := o.Get(p)
		if res.Status != 200 {
			t.Fatalf("GET %s: %d %s", p, res.Status, res.Body)
		}
		out = append(out, res.List()...)
		c, _ := res.JSON()["pagination"].(map[string]any)["next_cursor"].(string)
		if c == "" {
			return out
		}
		next = c
	}
}

// created returns the ids of the client.created messages rcv verified.
func created(rcv *receiver) map[string]int {
	out := map[string]int{}
	for _, m := range rcv.Messages() {
		if m.Type == "client.created" {
			out[m.Data["id"].(string)]++
		}
	}
	return out
}
