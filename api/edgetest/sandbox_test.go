package edgetest

import (
	"context"
	"net/http"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// withKey is org with another of its keys.
func withKey(o *apitest.Org, key string) *apitest.Org {
	c := *o
	c.Key = key
	return &c
}

func TestSandboxKeys(t *testing.T) {
	env, _ := newApp(t)
	ctx := context.Background()

	// P has a sandbox organization S: P's test keys act on S only.
	p := env.NewOrg("Parent Productions")
	s, err := tenancy.CreateOrganization(ctx, env.Svc.DB, "Parent Productions sandbox", &p.ID)
	if err != nil {
		t.Fatal(err)
	}
	pTest := withKey(p, env.NewKey(p.ID, apikey.Test, tenancy.AllScopes...))
	// A live key made on S itself acts on S, in the sandbox as any key there.
	sLive := withKey(p, env.NewKey(s.ID, apikey.Live, tenancy.AllScopes...))
	sLive.ID = s.ID
	// Q has none: its test keys act on Q itself, marking what they write.
	q := env.NewOrg("Solo Sound")
	qTest := withKey(q, env.NewKey(q.ID, apikey.Test, tenancy.AllScopes...))

	health := []struct {
		name    string
		org     *apitest.Org
		sandbox bool
		wantOrg string
	}{
		{"live key of P", p, false, p.ID.String()},
		{"test key of P: the sandbox", pTest, true, s.ID.String()},
		{"live key of the sandbox S", sLive, true, s.ID.String()},
		{"live key of Q", q, false, q.ID.String()},
		{"test key of Q: Q itself", qTest, true, q.ID.String()},
	}
	for _, tt := range health {
		t.Run("health: "+tt.name, func(t *testing.T) {
			d := tt.org.Get("/api/v2/health").Data()
			if d["sandbox"] != tt.sandbox || d["organization_id"] != tt.wantOrg {
				t.Fatalf("health %v, want sandbox %v organization %s", d, tt.sandbox, tt.wantOrg)
			}
		})
	}

	live := p.Post("/api/v2/clients", map[string]any{"name": "Real Client"})
	test := pTest.Post("/api/v2/clients", map[string]any{"name": "Sandbox Client"})
	qDemo := qTest.Post("/api/v2/clients", map[string]any{"name": "Demo Client"})
	sDemo := sLive.Post("/api/v2/clients", map[string]any{"name": "Sandbox Live Key Client"})
	for _, r := range []*apitest.Response{live, test, qDemo, sDemo} {
		if r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
	}
	if live.Data()["demo"] != false || test.Data()["demo"] != true || qDemo.Data()["demo"] != true || sDemo.Data()["demo"] != true {
		t.Fatalf("demo flags: live %v, sandbox %v, test key without sandbox %v, live key of the sandbox %v",
			live.Data()["demo"], test.Data()["demo"], qDemo.Data()["demo"], sDemo.Data()["demo"])
	}

	visible := []struct {
		name   string
		reader *apitest.Org
		id     any
		status int
	}{
		{"the test key cannot read the parent's record", pTest, live.Data()["id"], 404},
		{"the live key cannot read the sandbox's record", p, test.Data()["id"], 404},
		{"the test key reads its sandbox record", pTest, test.Data()["id"], 200},
		{"Q's live key reads the demo record of Q's test key", q, qDemo.Data()["id"], 200},
	}
	for _, tt := range visible {
		t.Run(tt.name, func(t *testing.T) {
			if r := tt.reader.Get("/api/v2/clients/" + tt.id.(string)); r.Status != tt.status {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		})
	}
	lists := []struct {
		reader *apitest.Org
		want   string
	}{{p, "Real Client"}}
	for _, tt := range lists {
		items := tt.reader.Get("/api/v2/clients").List()
		if len(items) != 1 || items[0]["name"] != tt.want {
			t.Fatalf("list: %v, want only %s", items, tt.want)
		}
	}
	// The sandbox's keys, test or live, see the sandbox's records alone,
	// every one demo.
	for _, reader := range []*apitest.Org{pTest, sLive} {
		items := reader.Get("/api/v2/clients").List()
		if len(items) != 2 || items[0]["name"] != "Sandbox Client" || items[1]["name"] != "Sandbox Live Key Client" ||
			items[0]["demo"] != true || items[1]["demo"] != true {
			t.Fatalf("the sandbox's list: %v, want its two demo clients", items)
		}
	}

	// Idempotency keys are scoped to the effective organization: the same
	// key on the live and the test key are two different requests.
	k1 := p.Do("POST", "/api/v2/clients", map[string]any{"name": "Same Key"}, keyHeader, "shared-key")
	k2 := pTest.Do("POST", "/api/v2/clients", map[string]any{"name": "Same Key"}, keyHeader, "shared-key")
	if k1.Status != 201 || k2.Status != 201 || k2.Header.Get("Idempotent-Replayed") != "" || k1.Data()["id"] == k2.Data()["id"] {
		t.Fatalf("shared key across sandbox: %d %s / %d %s", k1.Status, k1.Body, k2.Status, k2.Body)
	}
}
