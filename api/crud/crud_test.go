package crud_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/crud"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/storagetest"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/errs"
	"github.com/eventapi/eventapi/tenancy"
)

// thing is the test's resource, stored in the clients table.
type thing struct {
	bun.BaseModel `bun:"table:clients,alias:c"`

	ID        uuid.UUID `bun:"id,pk,type:uuid" json:"id"`
	Name      string    `bun:"name" json:"name"`
	Email     *string   `bun:"email" json:"email"`
	CreatedAt time.Time `bun:"created_at" json:"created_at"`
}

func (t *thing) PageKey() storage.Cursor { return storage.Cursor{CreatedAt: t.CreatedAt, ID: t.ID} }

const kind = "thing"

// fields is a decoded body: its column assignments and the name it sets.
type fields struct {
	ch   storage.Changes
	name string
}

func decode(in *rest.Input, create bool) fields {
	var f fields
	name := in.String("name", rest.Rule{Required: create, MaxLen: 20})
	f.ch.SetIf(name.Set, "name", name.Value)
	f.name = name.Value
	email := in.String("email", rest.Rule{Nullable: true})
	f.ch.SetIf(email.Set, "email", email.Ptr())
	in.ReadOnly("id", "created_at")
	return f
}

// harness is an app serving /things with crud over a real database; the
// X-Org header picks the calling organization (A or B).
type harness struct {
	f   *storagetest.Fixture
	app *fiber.App
	// checked are the ids the Check hook saw.
	checked []uuid.UUID
	// updateInTx records, for each Update, whether it ran in a transaction.
	updateInTx []bool
}

func newHarness(t *testing.T) *harness {
	h := &harness{f: storagetest.NewFixture(t)}
	env := &rest.Env{DB: h.f.DB, Cursors: storage.NewCursors([]byte("crud test key")), Log: slog.New(slog.DiscardHandler)}
	h.app = fiber.New(fiber.Config{ErrorHandler: rest.ErrorHandler(env.Log)})
	h.app.Use(func(c *fiber.Ctx) error {
		org := h.f.A
		if c.Get("X-Org") == "B" {
			org = h.f.B
		}
		rest.EnsureRequestID(c)
		c.SetUserContext(tenancy.WithPrincipal(c.UserContext(), &tenancy.Principal{OrganizationID: org.UUID,
			Scopes: tenancy.NewScopeSet(tenancy.EventsRead)}))
		return c.Next()
	})
	r := crud.Resource[thing, fields]{
		Kind: kind, Env: env, Decode: decode,
		Get: func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID) (*thing, error) {
			return storage.Get[thing](ctx, db, org, id, kind)
		},
		Create: func(ctx context.Context, db bun.IDB, t tenancy.Tenant, f fields) (*thing, error) {
			return storage.Create[thing](ctx, db, t, f.ch)
		},
		Update: func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, id uuid.UUID, f fields) (*thing, error) {
			h.updateInTx = append(h.updateInTx, database.IsTx(db))
			return storage.Update[thing](ctx, db, org, id, kind, f.ch)
		},
		Warn: warnings,
		Check: func(_ context.Context, _ bun.IDB, _ tenancy.OrganizationID, id uuid.UUID, f fields) error {
			h.checked = append(h.checked, id)
			if f.name == "forbidden" {
				return errs.InvalidField("name", "is forbidden by the check")
			}
			return nil
		},
		Expand: []rest.Expansion{rest.Expand("shout", tenancy.EventsRead, tenancy.JobsRead), rest.Expand("secret", tenancy.QuotesRead)},
		Show: func(_ context.Context, _ bun.IDB, _ tenancy.OrganizationID, want map[string]bool, v *thing) (any, error) {
			if want["shout"] {
				return map[string]any{"id": v.ID, "name": strings.ToUpper(v.Name)}, nil
			}
			return v, nil
		},
	}
	list := crud.List[thing](env, crud.Unfiltered("things", func(ctx context.Context, db bun.IDB, org tenancy.OrganizationID, p storage.PageRequest) (storage.Page[thing], error) {
		return storage.List[thing](ctx, db, org, p)
	}))
	held := []tenancy.Scope{tenancy.EventsRead} // the harness's key holds it
	r.Mount(h.app, "/things", held, held, list)
	return h
}

type reply struct {
	status int
	body   map[string]any
}

func (r reply) code() string {
	e, _ := r.body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func (r reply) data() map[string]any { d, _ := r.body["data"].(map[string]any); return d }

func (h *harness) do(t *testing.T, org, method, path, body string) reply {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Org", org)
	resp, err := h.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode}
	if err := json.Unmarshal(raw, &r.body); err != nil {
		t.Fatalf("%s %s: %d %s is not JSON", method, path, resp.StatusCode, raw)
	}
	return r
}

// names lists the names of org's rows, as stored.
func (h *harness) names(t *testing.T, org tenancy.OrganizationID) []string {
	t.Helper()
	p, err := storage.List[thing](context.Background(), h.f.DB, org, storage.PageRequest{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range p.Items {
		out = append(out, v.Name)
	}
	return out
}

// TestHandlers runs the four handlers through one table of requests, in
// order, each with the state it expects afterwards. {a} and {b} stand for
// a record of A and of B.
func TestHandlers(t *testing.T) {
	h := newHarness(t)
	a := h.f.Insert(t, "clients", h.f.A, map[string]any{"name": "alpha"})
	b := h.f.Insert(t, "clients", h.f.B, map[string]any{"name": "beta"})
	steps := []struct {
		name         string
		org          string
		method, path string
		body         string
		status       int
		code         string
		// want is data.name of a 2xx answer.
		want string
		// warned is the ignored_fields warning of a PATCH (nil: none).
		warned []any
		// checked is the id the Check hook must have seen (nil: no call).
		checked *uuid.UUID
		// stored are A's and B's names afterwards.
		storedA, storedB []string
	}{
		{name: "get own", method: "GET", path: "/things/{a}", status: 200, want: "alpha"},
		{name: "get with an expansion", method: "GET", path: "/things/{a}?expand=shout", status: 200, want: "ALPHA"},
		{name: "get with an expansion the key may not read", method: "GET", path: "/things/{a}?expand=shout,secret", status: 403, code: "insufficient_scope"},
		{name: "get with an unknown expansion", method: "GET", path: "/things/{a}?expand=whisper", status: 422, code: "validation_error"},
		{name: "get another organization's", method: "GET", path: "/things/{b}", status: 404, code: "not_found"},
		{name: "get a non-uuid id", method: "GET", path: "/things/nope", status: 404, code: "not_found"},
		{name: "create", method: "POST", path: "/things", body: `{"name":"gamma"}`, status: 201, want: "gamma",
			checked: &uuid.Nil, storedA: []string{"alpha", "gamma"}},
		{name: "create without the required field", method: "POST", path: "/things", body: `{"email":"x@y.z"}`, status: 422,
			code: "validation_error", storedA: []string{"alpha", "gamma"}},
		{name: "create with a read-only field", method: "POST", path: "/things", body: `{"name":"delta","id":"x"}`, status: 422,
			code: "validation_error", storedA: []string{"alpha", "gamma"}},
		{name: "create refused by the check", method: "POST", path: "/things", body: `{"name":"forbidden"}`, status: 422,
			code: "validation_error", checked: &uuid.Nil, storedA: []string{"alpha", "gamma"}},
		{name: "create with malformed JSON", method: "POST", path: "/things", body: `{"name":`, status: 400,
			code: "malformed_json", storedA: []string{"alpha", "gamma"}},
		{name: "create as B", org: "B", method: "POST", path: "/things", body: `{"name":"epsilon"}`, status: 201, want: "epsilon",
			checked: &uuid.Nil, storedB: []string{"beta", "epsilon"}},
		{name: "patch own", method: "PATCH", path: "/things/{a}", body: `{"name":"alpha2"}`, status: 200, want: "alpha2",
			checked: &a, storedA: []string{"alpha2", "gamma"}},
		{name: "patch ignores read-only fields, with a warning", method: "PATCH", path: "/things/{a}", body: `{"id":"x","name":"alpha3"}`,
			status: 200, want: "alpha3", warned: []any{"id"}, checked: &a, storedA: []string{"alpha3", "gamma"}},
		{name: "patch refused by the check", method: "PATCH", path: "/things/{a}", body: `{"name":"forbidden"}`, status: 422,
			code: "validation_error", checked: &a, storedA: []string{"alpha3", "gamma"}},
		// Another organization's record is 404 before the check runs (the
		// check would judge the body against a record that is not there).
		{name: "patch another organization's", method: "PATCH", path: "/things/{b}", body: `{"name":"taken"}`, status: 404,
			code: "not_found", storedA: []string{"alpha3", "gamma"}},
		{name: "patch a non-uuid id", method: "PATCH", path: "/things/nope", body: `{"name":"x"}`, status: 404, code: "not_found",
			storedA: []string{"alpha3", "gamma"}},
		{name: "patch with a bad value", method: "PATCH", path: "/things/{a}", body: `{"name":"` + strings.Repeat("n", 21) + `"}`,
			status: 422, code: "validation_error", storedA: []string{"alpha3", "gamma"}},
	}
	storedA, storedB := []string{"alpha"}, []string{"beta"}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			h.checked = nil
			path := strings.NewReplacer("{a}", a.String(), "{b}", b.String()).Replace(s.path)
			r := h.do(t, s.org, s.method, path, s.body)
			if r.status != s.status || r.code() != s.code {
				t.Fatalf("%s %s: %d %v, want %d %q", s.method, path, r.status, r.body, s.status, s.code)
			}
			if s.want != "" && r.data()["name"] != s.want {
				t.Fatalf("data.name %v, want %s", r.data()["name"], s.want)
			}
			var warned []any
			if w, ok := r.body["warnings"].([]any); ok && len(w) == 1 {
				warned = w[0].(map[string]any)["details"].(map[string]any)["fields"].([]any)
			}
			if !sameJSON(warned, s.warned) {
				t.Fatalf("warnings %v, want ignored fields %v", r.body["warnings"], s.warned)
			}
			if (s.checked == nil) != (h.checked == nil) || (s.checked != nil && (len(h.checked) != 1 || h.checked[0] != *s.checked)) {
				t.Fatalf("the check saw %v, want %v", h.checked, s.checked)
			}
			if s.storedA != nil {
				storedA = s.storedA
			}
			if s.storedB != nil {
				storedB = s.storedB
			}
			if got := h.names(t, h.f.A); !sameJSON(got, storedA) {
				t.Fatalf("A holds %v, want %v", got, storedA)
			}
			if got := h.names(t, h.f.B); !sameJSON(got, storedB) {
				t.Fatalf("B holds %v, want %v", got, storedB)
			}
		})
	}
}

func sameJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// TestList: pages follow next_cursor to the end, within the caller's
// organization; a cursor is bound to its organization; bad parameters are
// 422 naming them.
func TestList(t *testing.T) {
	h := newHarness(t)
	for _, n := range []string{"one", "two", "three"} {
		h.f.Insert(t, "clients", h.f.A, map[string]any{"name": n})
	}
	h.f.Insert(t, "clients", h.f.B, map[string]any{"name": "theirs"})
	page := func(r reply) (names []string, next string) {
		items, _ := r.body["data"].([]any)
		for _, it := range items {
			names = append(names, it.(map[string]any)["name"].(string))
		}
		p, _ := r.body["pagination"].(map[string]any)
		next, _ = p["next_cursor"].(string)
		if more, _ := p["has_more"].(bool); more != (next != "") {
			t.Fatalf("has_more %v with next_cursor %q", more, next)
		}
		return names, next
	}
	first := h.do(t, "", "GET", "/things?limit=2", "")
	got, next := page(first)
	if first.status != 200 || !sameJSON(got, []string{"one", "two"}) || next == "" {
		t.Fatalf("first page: %d %v", first.status, first.body)
	}
	tests := []struct {
		name   string
		org    string
		query  string
		status int
		fields []string // of a 422, in order
		want   []string
	}{
		{"the next page", "", "limit=2&cursor=" + next, 200, nil, []string{"three"}},
		{"everything on one page", "", "", 200, nil, []string{"one", "two", "three"}},
		{"another organization's list", "B", "", 200, nil, []string{"theirs"}},
		{"A's cursor in B's list", "B", "limit=2&cursor=" + next, 422, []string{"cursor"}, nil},
		{"a forged cursor", "", "cursor=" + strings.Repeat("A", 54), 422, []string{"cursor"}, nil},
		{"a limit out of range", "", "limit=0", 422, []string{"limit"}, nil},
		{"an expansion on a list that has none", "", "expand=shout", 422, []string{"expand"}, nil},
		{"every bad parameter at once", "", "cursor=zz&limit=0&expand=shout", 422, []string{"expand", "limit", "cursor"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do(t, tt.org, "GET", "/things?"+tt.query, "")
			if r.status != tt.status {
				t.Fatalf("%d %v, want %d", r.status, r.body, tt.status)
			}
			if tt.fields != nil {
				e, _ := r.body["error"].(map[string]any)
				d, _ := e["details"].(map[string]any)
				fs, _ := d["fields"].([]any)
				var got []string
				for _, f := range fs {
					got = append(got, f.(map[string]any)["field"].(string))
				}
				if !sameJSON(got, tt.fields) {
					t.Fatalf("%v, want a validation_error on %v", r.body, tt.fields)
				}
				return
			}
			if names, next := page(r); !sameJSON(names, tt.want) || next != "" {
				t.Fatalf("page %v (next %q), want %v and the end", names, next, tt.want)
			}
		})
	}
}
