package requestlogs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
	"github.com/eventapi/eventapi/platform/clientip"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/telemetry/logtest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const base = "/api/v2/request_logs"

// flush writes the buffered records, as the writer does within a second.
func flush(t *testing.T, env *apitest.Env) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := env.Svc.RequestLog.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// byRequestID lists org's log filtered by request_id and returns the record.
func byRequestID(t *testing.T, o *apitest.Org, reqID string) map[string]any {
	t.Helper()
	res := o.Get(base + "?request_id=" + url.QueryEscape(reqID))
	if res.Status != 200 {
		t.Fatalf("list: %d %s", res.Status, res.Body)
	}
	l := res.List()
	if len(l) != 1 {
		t.Fatalf("request %s: %d records: %s", reqID, len(l), res.Body)
	}
	return l[0]
}

// TestOrganizationSeesItsOwnRequests sends requests as A (a success, a 404, a
// keyed write and its replay, a 401-free refusal for scope) and reads them
// back from A's request log with their request id, route template, status
// and error code; B's key sees none of them.
func TestOrganizationSeesItsOwnRequests(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("Alpha"), env.NewOrg("Bravo")
	limited := env.NewKey(a.ID, apikey.Live, tenancy.EventsRead)

	list := a.Get("/api/v2/clients")
	missing := a.Get("/api/v2/clients/" + uuid.NewString())
	first := a.Do("POST", "/api/v2/clients", map[string]any{"name": "Keyed"}, "Idempotency-Key", "log-1")
	replay := a.Do("POST", "/api/v2/clients", map[string]any{"name": "Keyed"}, "Idempotency-Key", "log-1")
	denied := env.Send(apitest.Request{Method: "GET", Path: "/api/v2/clients", Key: limited})
	notAllowed := a.Do("PUT", "/api/v2/clients/"+uuid.NewString(), map[string]any{"name": "X"})
	if list.Status != 200 || missing.Status != 404 || first.Status != 201 || replay.Status != 201 || denied.Status != 403 ||
		notAllowed.Status != 405 {
		t.Fatalf("setup: %d %d %d %d %d %d", list.Status, missing.Status, first.Status, replay.Status, denied.Status, notAllowed.Status)
	}
	if replay.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("second keyed POST was not replayed")
	}
	flush(t, env)

	tests := []struct {
		name      string
		res       *apitest.Response
		method    string
		route     string
		status    float64
		errorCode any
		replayed  bool
	}{
		{"list", list, "GET", "/api/v2/clients", 200, nil, false},
		{"missing", missing, "GET", "/api/v2/clients/{id}", 404, "not_found", false},
		{"keyed write", first, "POST", "/api/v2/clients", 201, nil, false},
		{"replay", replay, "POST", "/api/v2/clients", 201, nil, true},
		{"scope refused", denied, "GET", "/api/v2/clients", 403, "insufficient_scope", false},
		{"method not allowed on a known path", notAllowed, "PUT", "/api/v2/clients/{id}", 405, "method_not_allowed", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqID := tt.res.Header.Get("X-Request-Id")
			r := byRequestID(t, a, reqID)
			if r["request_id"] != reqID || r["method"] != tt.method || r["route"] != tt.route ||
				r["status"] != tt.status || r["error_code"] != tt.errorCode || r["idempotent_replayed"] != tt.replayed ||
				r["api_version"] != "v2" {
				t.Errorf("record %v", r)
			}
			// The filter reads any spelling of the uuid, as the id route does.
			if upper := byRequestID(t, a, strings.ToUpper(reqID)); upper["id"] != r["id"] {
				t.Errorf("request_id in upper case found %v, want %v", upper["id"], r["id"])
			}
			if tt.replayed && r["idempotency_key"] != "log-1" {
				t.Errorf("idempotency_key = %v", r["idempotency_key"])
			}
			if r["key_id"] == nil || r["key_prefix"] == nil {
				t.Errorf("key not recorded: %v", r)
			}
			one := a.Get(base + "/" + r["id"].(string))
			if one.Status != 200 || one.Data()["request_id"] != reqID {
				t.Errorf("GET by id: %d %s", one.Status, one.Body)
			}
			// B never sees A's record, by filter or by id.
			if other := b.Get(base + "?request_id=" + url.QueryEscape(reqID)); other.Status != 200 || len(other.List()) != 0 {
				t.Errorf("B sees A's request: %d %s", other.Status, other.Body)
			}
			if other := b.Get(base + "/" + r["id"].(string)); other.Status != 404 || other.ErrorCode() != "not_found" {
				t.Errorf("B reads A's record by id: %d %s", other.Status, other.Body)
			}
		})
	}

	// Filters narrow A's log; the list is newest first.
	for q, want := range map[string]int{
		"?status=404": 1, "?status=4xx": 3, "?method=POST": 2, "?route=" + url.QueryEscape("/api/v2/clients/{id}"): 2,
	} {
		res := a.Get(base + q)
		if res.Status != 200 || len(res.List()) != want {
			t.Errorf("%s: %d records (want %d): %s", q, len(res.List()), want, res.Body)
		}
	}
	all := a.Get(base + "?limit=100").List()
	// Compared as instants: as text, RFC 3339 drops trailing zeros of the
	// fraction, so "…06.76Z" sorted after the later "…06.760828Z".
	at := func(r map[string]any) time.Time {
		ts, err := time.Parse(time.RFC3339Nano, r["created_at"].(string))
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	for i := 1; i < len(all); i++ {
		if at(all[i-1]).Before(at(all[i])) {
			t.Errorf("not newest first at %d: %v then %v", i, all[i-1]["created_at"], all[i]["created_at"])
		}
	}
	since := url.QueryEscape(time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	if res := a.Get(base + "?since=" + since); res.Status != 200 || len(res.List()) != 0 {
		t.Errorf("since in the future: %s", res.Body)
	}
	// An instant a tenth of a microsecond after a record's created_at: the
	// record is not "at or after" it, and is "before" it.
	created, err := time.Parse(time.RFC3339Nano, all[0]["created_at"].(string))
	if err != nil {
		t.Fatal(err)
	}
	justAfter := url.QueryEscape(created.Format("2006-01-02T15:04:05.000000") + "1Z")
	listed := func(q string) bool {
		for _, r := range a.Get(base + "?limit=100&" + q).List() {
			if r["id"] == all[0]["id"] {
				return true
			}
		}
		return false
	}
	if listed("since=" + justAfter) {
		t.Errorf("since=%s lists a record created at %s", justAfter, all[0]["created_at"])
	}
	if !listed("until=" + justAfter) {
		t.Errorf("until=%s leaves out a record created at %s", justAfter, all[0]["created_at"])
	}
}

// TestPagesNewestFirst walks A's log with limit=2 and finds every record once.
func TestPagesNewestFirst(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Pager")
	sent := map[string]bool{}
	for range 5 {
		sent[a.Get("/api/v2/events").Header.Get("X-Request-Id")] = true
	}
	flush(t, env)
	seen := map[string]bool{}
	next := base + "?limit=2&route=" + url.QueryEscape("/api/v2/events")
	for pages := 0; next != ""; pages++ {
		if pages > 5 {
			t.Fatal("too many pages")
		}
		res := a.Get(next)
		if res.Status != 200 {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
		for _, r := range res.List() {
			id := r["request_id"].(string)
			if seen[id] {
				t.Errorf("request %s twice", id)
			}
			seen[id] = true
		}
		next = ""
		if c, _ := res.JSON()["pagination"].(map[string]any)["next_cursor"].(string); c != "" {
			next = base + "?limit=2&route=" + url.QueryEscape("/api/v2/events") + "&cursor=" + c
		}
	}
	for id := range sent {
		if !seen[id] {
			t.Errorf("request %s missing from the pages", id)
		}
	}

	// A cursor is bound to its filters, as on every list.
	first := a.Get(base + "?limit=1&method=GET")
	c, _ := first.JSON()["pagination"].(map[string]any)["next_cursor"].(string)
	if c == "" {
		t.Fatalf("no cursor: %s", first.Body)
	}
	for _, q := range []string{"?limit=1&method=POST", "?limit=1&method=GET&status=4xx", "?limit=1"} {
		if r := a.Get(base + q + "&cursor=" + url.QueryEscape(c)); r.Status != 422 || r.ErrorCode() != "validation_error" {
			t.Errorf("%s with a method=GET cursor: %d %s, want 422", q, r.Status, r.Body)
		}
	}
	if r := a.Get(base + "?limit=1&method=GET&cursor=" + url.QueryEscape(c)); r.Status != 200 {
		t.Errorf("the cursor under its own filter: %d %s", r.Status, r.Body)
	}
}

// TestRefusedCredentialsAreLogged: a 401 reached authentication, so it is
// logged. A revoked or expired key's (its hash matched a stored key) is
// logged under the key's organization with its id, where that
// organization's list shows it and no other organization's does; an
// unknown or malformed key's, and a 503 of a key authentication could not
// check because PostgreSQL was unreachable, with no organization or key,
// where no organization's list can show it. When the key presented is
// well-formed the record and the access line carry its prefix, which says
// whose request it was; a malformed one's text is never logged.
func TestRefusedCredentialsAreLogged(t *testing.T) {
	access := &logtest.Buffer{}
	env := apitest.NewAccessLogging(t, access)
	a, other := env.NewOrg("Watcher"), env.NewOrg("Other")
	ctx := context.Background()
	unknown, err := apikey.Generate(apikey.Live)
	if err != nil {
		t.Fatal(err)
	}
	keyID := func(raw string) uuid.UUID {
		var id uuid.UUID
		if err := env.Svc.DB.NewRaw("SELECT id FROM api_keys WHERE organization_id = ? AND prefix = ?", a.ID, apikey.Prefix(raw)).
			Scan(ctx, &id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	revoked := env.NewKey(a.ID, apikey.Live, tenancy.AllScopes...)
	if err := tenancy.RevokeKey(ctx, env.Svc.DB, keyID(revoked)); err != nil {
		t.Fatal(err)
	}
	expired := env.NewKey(a.ID, apikey.Live, tenancy.AllScopes...)
	if _, err := env.Svc.DB.NewRaw("UPDATE api_keys SET expires_at = now() - interval '1 hour' WHERE organization_id = ? AND id = ?",
		a.ID, keyID(expired)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	unchecked := env.NewKey(a.ID, apikey.Live, tenancy.AllScopes...) // never used: not in the pod's cache
	tests := []struct {
		name, key string
		outage    bool
		status    int
		code      string
		prefix    string // "": none logged
		ownKey    bool   // logged under a's organization, with the key's id
	}{
		{"malformed", "svc_live_not-a-real-key", false, 401, "invalid_credentials", "", false},
		{"well-formed, unknown", unknown, false, 401, "invalid_credentials", apikey.Prefix(unknown), false},
		{"revoked", revoked, false, 401, "invalid_credentials", apikey.Prefix(revoked), true},
		{"expired", expired, false, 401, "invalid_credentials", apikey.Prefix(expired), true},
		{"not checked: PostgreSQL unreachable", unchecked, true, 503, "service_unavailable", apikey.Prefix(unchecked), false},
	}
	// Read while the database takes connections: during the outage the
	// app's pool cannot ask it.
	dbName := databaseOf(t, env)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.outage {
				stopConnections(t, dbName)
			}
			res := env.Send(apitest.Request{Method: "GET", Path: "/api/v2/events/" + uuid.NewString(), Key: tt.key})
			if tt.outage {
				setConnections(t, dbName, true)
			}
			if res.Status != tt.status || res.ErrorCode() != tt.code {
				t.Fatalf("%d %s, want %d %s", res.Status, res.Body, tt.status, tt.code)
			}
			reqID := res.Header.Get("X-Request-Id")
			flush(t, env)
			var row struct {
				Org       *uuid.UUID `bun:"organization_id"`
				Key       *uuid.UUID `bun:"key_id"`
				Prefix    *string    `bun:"key_prefix"`
				Route     string     `bun:"route"`
				ErrorCode string     `bun:"error_code"`
			}
			if err := env.Svc.DB.NewRaw("/* every organization: a refused request may have none */ SELECT organization_id, key_id, key_prefix, route, error_code FROM request_logs WHERE request_id = ?", reqID).
				Scan(ctx, &row); err != nil {
				t.Fatalf("the refusal is not logged: %v", err)
			}
			prefix := ""
			if row.Prefix != nil {
				prefix = *row.Prefix
			}
			if prefix != tt.prefix || row.Route != "/api/v2/events/{id}" || row.ErrorCode != tt.code {
				t.Errorf("record: %+v (prefix %q), want prefix %q", row, prefix, tt.prefix)
			}
			if l := other.Get(base + "?request_id=" + reqID).List(); len(l) != 0 {
				t.Errorf("another organization sees the refused request: %v", l)
			}
			line := accessLine(t, access, reqID)
			if line["key_prefix"] != map[bool]any{true: tt.prefix, false: nil}[tt.prefix != ""] || line["organization_id"] != nil {
				t.Errorf("access line %v, want key_prefix %q and no organization", line, tt.prefix)
			}
			if tt.prefix == "" && strings.Contains(access.String(), "not-a-real-key") {
				t.Errorf("a malformed key's text is in the access log")
			}
			if !tt.ownKey {
				if row.Org != nil || row.Key != nil {
					t.Errorf("record: %+v, want no organization or key", row)
				}
				if l := a.Get(base + "?request_id=" + reqID).List(); len(l) != 0 {
					t.Errorf("an organization sees the refused request: %v", l)
				}
				return
			}
			if id := keyID(tt.key); row.Org == nil || *row.Org != a.ID || row.Key == nil || *row.Key != id {
				t.Fatalf("record: %+v, want organization %s and key %s", row, a.ID, id)
			}
			rec := byRequestID(t, a, reqID)
			if rec["key_id"] != keyID(tt.key).String() || rec["key_prefix"] != tt.prefix || rec["status"] != 401.0 || rec["error_code"] != tt.code {
				t.Errorf("the organization's list shows %v, want the 401 with the key's id and prefix", rec)
			}
		})
	}
}

// accessLine returns the access line of the request reqID.
func accessLine(t *testing.T, log *logtest.Buffer, reqID string) map[string]any {
	t.Helper()
	for _, l := range strings.Split(log.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(l), &rec) == nil && rec["msg"] == "request" && rec["request_id"] == reqID {
			return rec
		}
	}
	t.Fatalf("no access line for request %s", reqID)
	return nil
}

// stopConnections makes the database refuse connections and ends the ones
// open, as an outage does; setConnections(t, name, true) ends it.
func stopConnections(t *testing.T, name string) {
	t.Helper()
	setConnections(t, name, false)
	t.Cleanup(func() { setConnections(t, name, true) }) // also when the test fails during the outage
	if _, err := pgtest.Open(t).NewRaw("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()",
		name).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func setConnections(t *testing.T, name string, allow bool) {
	t.Helper()
	stmt := fmt.Sprintf("ALTER DATABASE %q ALLOW_CONNECTIONS %t", name, allow)
	if _, err := pgtest.Open(t).ExecContext(context.Background(), stmt); err != nil {
		t.Fatal(err)
	}
}

// databaseOf is the name of env's database on the server (behind a
// pooler, the URL's name may be an alias).
func databaseOf(t *testing.T, env *apitest.Env) string {
	t.Helper()
	var name string
	if err := env.Svc.DB.NewRaw("SELECT current_database()").Scan(context.Background(), &name); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestBadFiltersAre422(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Strict")
	for _, q := range []string{"?status=abc", "?status=6xx", "?status=99", "?method=FETCH", "?key_id=nope",
		"?since=yesterday", "?status=", "?method=", "?key_id=", "?since=", "?until=", "?until=2026-13-01", "?limit=0", "?cursor=zzz",
		"?request_id=", "?request_id=%20%20", "?request_id=bad"} {
		if res := a.Get(base + q); res.Status != 422 || res.ErrorCode() != "validation_error" {
			t.Errorf("%s: %d %s", q, res.Status, res.Body)
		}
	}
	if res := a.Get(base + "/not-a-uuid"); res.Status != 404 {
		t.Errorf("bad id: %d %s", res.Status, res.Body)
	}
	// Each bad value is named with its own rule: bytes that are not UTF-8
	// are not "too long".
	for q, issue := range map[string]string{
		"?request_id=%FF%FE":                      "must be a request id",
		"?route=%FF":                              "must be valid UTF-8 text",
		"?since=2026-12-04T00:00:00+01:00":        "(a + in an offset must be sent as %2B)",
		"?route=" + strings.Repeat("r", 256):      "must be at most 255 characters",
		"?request_id=" + strings.Repeat("r", 101): "must be a request id",
	} {
		res := a.Get(base + q)
		if res.Status != 422 || !strings.Contains(string(res.Body), issue) {
			t.Errorf("%s: %d %s, want 422 %q", q, res.Status, res.Body, issue)
		}
	}
	// A window in which no instant lies is a mistake, named as the CLI names it.
	for _, q := range []string{"?since=2026-11-02T00:00:00Z&until=2026-11-01T00:00:00Z", "?since=2026-11-01T00:00:00Z&until=2026-11-01T00:00:00Z"} {
		if res := a.Get(base + q); res.Status != 422 || strings.Join(crudtest.Fields(res), ",") != "until" {
			t.Errorf("%s: %d %s, want 422 naming until", q, res.Status, res.Body)
		}
	}
	// Every method a request can be recorded with can be asked for.
	for _, m := range []string{"trace", "CONNECT", "options"} {
		if res := a.Get(base + "?method=" + m); res.Status != 200 {
			t.Errorf("method=%s: %d %s", m, res.Status, res.Body)
		}
	}
}

// TestTimeFiltersYearRange: since and until take the years every date-time
// of the API takes (storage.MinYear to storage.MaxYear); outside them the
// filter is named in a 422 before the database sees it (year 0 was a
// translated database error on "body").
func TestTimeFiltersYearRange(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Years")
	for _, tc := range []struct {
		query  string
		fields string // "" means 200
	}{
		{"?since=0000-01-01T00:00:00Z", "since"},
		{"?until=0000-01-01T00:00:00Z", "until"},
		{"?since=1899-12-31T23:59:59Z", "since"},
		{"?since=1900-01-01T00:00:00Z", ""},
		{"?until=9999-12-31T23:59:59Z", ""},
		{"?until=10000-01-01T00:00:00Z", "until"},
		{"?since=0001-01-01T00:00:00Z&until=0001-01-02T00:00:00Z", "since,until"},
		// strict RFC 3339 (rest.ParseDateTime): time.Parse shifts these
		{"?since=" + url.QueryEscape("2026-01-01T00:00:00+24:00"), "since"},
		{"?until=" + url.QueryEscape("2026-01-01T00:00:00+23:60"), "until"},
		{"?since=" + url.QueryEscape("2026-01-01T00:00:00-24:00"), "since"},
		{"?since=2026-01-01T1:00:00Z", "since"},
		{"?since=" + url.QueryEscape("2026-01-01T00:00:00+23:59"), ""},
	} {
		res := a.Get(base + tc.query)
		if tc.fields == "" {
			if res.Status != 200 {
				t.Errorf("%s: %d %s", tc.query, res.Status, res.Body)
			}
			continue
		}
		if got := strings.Join(crudtest.Fields(res), ","); res.Status != 422 || res.ErrorCode() != "validation_error" || got != tc.fields {
			t.Errorf("%s: %d fields %q, want 422 naming %q: %s", tc.query, res.Status, got, tc.fields, res.Body)
		}
	}
}

func TestNeedsTheScope(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrgWithKey("Scoped", apikey.Live, tenancy.EventsRead)
	if res := a.Get(base); res.Status != 403 || res.ErrorCode() != "insufficient_scope" {
		t.Errorf("%d %s", res.Status, res.Body)
	}
}

// TestTextPostgreSQLRefusesIsStoredReplaced: a request whose headers carry
// bytes a PostgreSQL text column refuses (invalid UTF-8) is logged with
// those bytes replaced, and the requests logged beside it in the same batch
// are kept: one client's odd bytes never cost other requests their records
// (the whole COPY failed before). The path is kept as sent, escaped.
func TestTextPostgreSQLRefusesIsStoredReplaced(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Bytes")
	before := a.Get("/api/v2/clients")
	odd := a.Do("GET", "/api/v2/clients/%ff%00x", nil, "User-Agent", "agent\xff", "Idempotency-Key", "key\xfe")
	after := a.Get("/api/v2/clients")
	if before.Status != 200 || odd.Status/100 != 4 || after.Status != 200 {
		t.Fatalf("setup: %d %d %d %s", before.Status, odd.Status, after.Status, odd.Body)
	}
	flush(t, env)
	for _, res := range []*apitest.Response{before, after} {
		byRequestID(t, a, res.Header.Get("X-Request-Id"))
	}
	r := byRequestID(t, a, odd.Header.Get("X-Request-Id"))
	if r["path"] != "/api/v2/clients/%ff%00x" || r["user_agent"] != "agent\uFFFD" || r["idempotency_key"] != "key\uFFFD" {
		t.Fatalf("record %v", r)
	}
}

// TestClientAddressThroughTrustedProxies: a record's ip is the socket's peer
// unless that peer is a trusted proxy (EVENTAPI_TRUSTED_PROXIES); then it is
// the rightmost X-Forwarded-For entry that is not a trusted proxy, never the
// leftmost one, which the client writes itself.
func TestClientAddressThroughTrustedProxies(t *testing.T) {
	const peer = "0.0.0.0" // the connection of Fiber's App.Test
	tests := []struct{ name, trusted, want string }{
		{"no proxy trusted: the peer", "", peer},
		{"an untrusted peer's header is ignored", "10.0.0.0/8", peer},
		{"through trusted proxies: the client they saw", peer + "/32, 10.0.0.0/8", "203.0.113.7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trusted, err := clientip.Parse(tt.trusted)
			if err != nil {
				t.Fatal(err)
			}
			env := apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.TrustedProxies = trusted }))
			a := env.NewOrg("Proxied")
			res := a.Do("GET", "/api/v2/clients", nil, clientip.HeaderForwardedFor, "198.51.100.1, 203.0.113.7, 10.0.0.9")
			if res.Status != 200 {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			flush(t, env)
			if got := byRequestID(t, a, res.Header.Get("X-Request-Id"))["ip"]; got != tt.want {
				t.Errorf("ip = %v, want %s", got, tt.want)
			}
		})
	}
}
