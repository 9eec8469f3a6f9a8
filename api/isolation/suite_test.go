package isolation_test

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"net/http"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/contract"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

// Fixture creates records of one resource.
type Fixture struct {
	// Table holds the records (organization_id, id, updated_at).
	Table string
	// Make creates a record in o and returns its id. It may call s.Shared
	// for the records it depends on.
	Make func(t testing.TB, s *Suite, o *apitest.Org) string
	// Stamp is the column that must not change under another
	// organization's requests (default updated_at; created_at for records
	// that are never updated).
	Stamp string
}

// Ref is a body field that references another resource's record. The
// suite derives them from the OpenAPI document (references.go).
type Ref struct {
	// Field is the field the 422 must name ("line_items[0].equipment_id"
	// for a field of an array's elements).
	Field string
	// Fixture is the referenced resource.
	Fixture string
}

// Route is the isolation check of one registered route.
type Route struct {
	// Fixture is the resource the route acts on: the record whose id fills
	// the path's parameter, the records a list must (own) or must not
	// (foreign) hold, the table a POST must not write to when refused.
	Fixture string
	// Body builds a valid POST or PATCH body for o (nil: {}). Each
	// reference the document gives the body (Suite.refs), pointed at the
	// other organization's record, must give 422 naming the field.
	Body func(t testing.TB, s *Suite, o *apitest.Org) map[string]any
	// Query is appended to the path (e.g. "?start=…&end=…") for routes
	// whose GET needs parameters to be served.
	Query string
	// Check, when set, replaces the generic check for routes that fit
	// none of them (a GET without :id that is not a paged list).
	Check func(t *testing.T, s *Suite)
	// Params, for a route with more than one path parameter, makes a record
	// in o and returns the value of each parameter (by name, without the
	// colon) that reaches it, such as a delivery's endpoint id and its own
	// id. fill puts one id everywhere, so only Params can name B's endpoint
	// with A's delivery (checkNested).
	Params func(t testing.TB, s *Suite, o *apitest.Org) map[string]string
}

var (
	fixtures = map[string]Fixture{}
	routes   = map[string]Route{}
	// origin records which file registered each fixture and route, to
	// report duplicates.
	origin = map[string][]string{}
)

// register adds fixtures and routes to the suite (call it from init in the
// file of an area). Route keys are "METHOD /api/v2/path/:param".
func register(fs map[string]Fixture, rs map[string]Route) {
	_, file, _, _ := runtime.Caller(1)
	file = filepath.Base(file)
	for k, f := range fs {
		origin["fixture "+k] = append(origin["fixture "+k], file)
		fixtures[k] = f
	}
	for k, r := range rs {
		origin[k] = append(origin[k], file)
		routes[k] = r
	}
}

// publicPrefixes are /api/v2 paths served without a key (the API
// description); they hold no tenant data.
var publicPrefixes = []string{"/api/v2/openapi.json", "/api/v2/reference"}

// exempt are authenticated routes with no tenant records.
var exempt = []string{"GET /api/v2/health"}

// Suite is a running app with two organizations, A and B.
type Suite struct {
	Env    *apitest.Env
	A, B   *apitest.Org
	shared map[string]string
	// contract is the OpenAPI document the references are read from.
	contract *contract.Contract
}

func newSuite(t *testing.T) *Suite {
	env := apitest.New(t)
	return suiteOf(t, env, env.NewOrg("A"), env.NewOrg("B"))
}

// suiteOf is the suite of a and b, two organizations of env (or an
// organization and its sandbox) as their keys act for them.
func suiteOf(t *testing.T, env *apitest.Env, a, b *apitest.Org) *Suite {
	c, err := contract.Load()
	if err != nil {
		t.Fatal(err)
	}
	return &Suite{Env: env, A: a, B: b, shared: map[string]string{}, contract: c}
}

// Make creates a new record of fixture name in o.
func (s *Suite) Make(t testing.TB, name string, o *apitest.Org) string {
	t.Helper()
	f, ok := fixtures[name]
	if !ok {
		t.Fatalf("no fixture %q", name)
	}
	return f.Make(t, s, o)
}

// Shared returns one record of fixture name in o, made on first use. Use it
// for records that are only pointed at (never changed or deleted).
func (s *Suite) Shared(t testing.TB, name string, o *apitest.Org) string {
	t.Helper()
	key := name + "/" + o.ID.String()
	if id, ok := s.shared[key]; ok {
		return id
	}
	id := s.Make(t, name, o)
	s.shared[key] = id
	return id
}

// Create POSTs body to path as o and returns the new record's id.
func (s *Suite) Create(t testing.TB, o *apitest.Org, path string, body map[string]any) string {
	t.Helper()
	r := o.Post(path, body)
	if r.Status != http.StatusCreated {
		t.Fatalf("fixture POST %s: %d %s", path, r.Status, r.Body)
	}
	id, _ := r.Data()["id"].(string)
	return id
}

// row reads the stamp column (updated_at) of a record of org (ok=false: no
// such row).
func (s *Suite) row(t testing.TB, table, stamp string, org uuid.UUID, id string) (updated time.Time, ok bool) {
	t.Helper()
	err := s.Env.Svc.DB.NewSelect().Table(table).Column(stamp).
		Where("organization_id = ?", org).Where("id = ?", id).Scan(context.Background(), &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return updated, false
	}
	if err != nil {
		t.Fatalf("read %s %s: %v", table, id, err)
	}
	return updated, true
}

// v2Routes lists the registered, authenticated /api/v2 routes as
// "METHOD path" keys.
func v2Routes(env *apitest.Env) []string {
	seen := map[string]bool{}
	for _, r := range env.Svc.App.GetRoutes(true) {
		if r.Method == http.MethodHead || !strings.HasPrefix(r.Path, "/api/v2/") || isPublic(r.Path) {
			continue
		}
		seen[r.Method+" "+r.Path] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

func isPublic(path string) bool {
	for _, p := range publicPrefixes {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

func splitKey(key string) (method, path string) {
	method, path, _ = strings.Cut(key, " ")
	return method, path
}

// fill replaces every :param segment of a route path with id.
func fill(path, id string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") {
			parts[i] = id
		}
	}
	return strings.Join(parts, "/")
}

// fillParams replaces each :param segment of a route path with its value
// in values; a parameter values lacks fails t.
func fillParams(t testing.TB, path string, values map[string]string) string {
	t.Helper()
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if name, ok := strings.CutPrefix(p, ":"); ok {
			v, ok := values[name]
			if !ok {
				t.Fatalf("no value for :%s of %s", name, path)
			}
			parts[i] = v
		}
	}
	return strings.Join(parts, "/")
}

// params lists the names of a route path's parameters in order.
func params(path string) []string {
	var out []string
	for _, p := range strings.Split(path, "/") {
		if name, ok := strings.CutPrefix(p, ":"); ok {
			out = append(out, name)
		}
	}
	return out
}

func hasParam(path string) bool { return strings.Contains(path, "/:") }

// body builds the route's body for o (nil for GET and DELETE).
func (s *Suite) body(t testing.TB, method string, r Route, o *apitest.Org) map[string]any {
	if method == http.MethodGet || method == http.MethodDelete {
		return nil
	}
	if r.Body == nil {
		return map[string]any{}
	}
	return r.Body(t, s, o)
}

// TestCompleteness fails when a registered /api/v2 route has no entry in the
// table, when an entry names a route that is not registered or a fixture
// that does not exist, or when two files register the same key.
func TestCompleteness(t *testing.T) {
	env := apitest.New(t)
	registered := v2Routes(env)
	if len(registered) < 20 {
		t.Fatalf("only %d /api/v2 routes found: %v", len(registered), registered)
	}
	for _, key := range registered {
		if _, ok := routes[key]; !ok && !slices.Contains(exempt, key) {
			t.Errorf("route %s has no isolation entry: add it to the table (api/isolation/*_test.go)", key)
		}
	}
	for key, r := range routes {
		if !slices.Contains(registered, key) {
			t.Errorf("isolation entry %s names no registered route", key)
		}
		if _, ok := fixtures[r.Fixture]; !ok {
			t.Errorf("isolation entry %s uses unknown fixture %q", key, r.Fixture)
		}
		// fill gives every parameter the same id, which can only name A's
		// record whole: a nested route needs Params to mix A's and B's.
		if _, path := splitKey(key); len(params(path)) > 1 && r.Params == nil {
			t.Errorf("isolation entry %s has %d path parameters but no Params", key, len(params(path)))
		}
	}
	for key, files := range origin {
		if len(files) > 1 {
			t.Errorf("%s is registered more than once: %v", key, files)
		}
	}
}

// TestIsolation runs the check of every table entry with two organizations.
func TestIsolation(t *testing.T) { checkRoutes(t, newSuite(t)) }

// TestIsolationOfASandbox runs every check between a live organization and
// its sandbox, reached through the live organization's own test key, both
// ways: the test key never sees, changes or references the parent's live
// records, and the parent's live key none of the sandbox's.
func TestIsolationOfASandbox(t *testing.T) {
	env := apitest.New(t)
	live := env.NewOrg("Parent")
	test := live.SandboxOf("Parent sandbox")
	if h := test.Get("/api/v2/health").Data(); h["organization_id"] != test.ID.String() || h["sandbox"] != true {
		t.Fatalf("the parent's test key: /health %v, want the sandbox %s", h, test.ID)
	}
	t.Run("test key against the parent", func(t *testing.T) { checkRoutes(t, suiteOf(t, env, live, test)) })
	t.Run("parent against its sandbox", func(t *testing.T) { checkRoutes(t, suiteOf(t, env, test, live)) })
}

// TestIsolationOfLegacyKeys runs every check with legacy (sk_live_) keys,
// which v2 accepts too.
func TestIsolationOfLegacyKeys(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrgWithKey("A", apikey.Legacy, tenancy.AllScopes...)
	b := env.NewOrgWithKey("B", apikey.Legacy, tenancy.AllScopes...)
	checkRoutes(t, suiteOf(t, env, a, b))
}

// checkRoutes runs the check of every table entry with s's A and B.
func checkRoutes(t *testing.T, s *Suite) {
	for _, key := range slices.Sorted(maps.Keys(routes)) {
		t.Run(key, func(t *testing.T) {
			method, path := splitKey(key)
			r := routes[key]
			switch {
			case r.Check != nil:
				r.Check(t, s)
			case r.Params != nil:
				s.checkNested(t, method, path, s.body(t, method, r, s.B), r.Params(t, s, s.A), r.Params(t, s, s.B))
			case hasParam(path):
				s.checkItem(t, method, path, r)
			case method == http.MethodGet:
				s.checkList(t, path, r)
			default:
				s.checkCreate(t, method, path, r)
			}
		})
	}
}

// checkItem: B gets 404 on A's record, exactly as on a random id (on HEAD
// too for a GET), and changes nothing; A cannot point
// the record at B's records; A itself is served (so the check can fail).
func (s *Suite) checkItem(t *testing.T, method, route string, r Route) {
	table := fixtures[r.Fixture].Table
	id := s.Make(t, r.Fixture, s.A)
	path := fill(route, id) + r.Query
	stamp := fixtures[r.Fixture].Stamp
	if stamp == "" {
		stamp = "updated_at"
	}
	before, ok := s.row(t, table, stamp, s.A.ID, id)
	if !ok {
		t.Fatalf("fixture %s made no row %s in %s", r.Fixture, id, table)
	}
	unchanged := func(what string) {
		t.Helper()
		after, ok := s.row(t, table, stamp, s.A.ID, id)
		if !ok || !after.Equal(before) {
			t.Fatalf("%s changed or removed A's record (exists=%v)", what, ok)
		}
	}

	// B is told nothing more than for a random id (existence_test.go),
	// GET on HEAD too.
	res := s.foreignItem(t, method, path, []string{id}, s.body(t, method, r, s.B))
	if res.Status != http.StatusNotFound || res.ErrorCode() != "not_found" {
		t.Errorf("B %s A's record: %d %s, want 404 not_found", method, res.Status, res.Body)
	}
	unchanged("B's " + method)
	for _, ref := range s.refs(t, method, route) {
		foreign := s.Shared(t, ref.Fixture, s.B)
		for _, res := range s.refused(t, method, path, withRef(s.body(t, method, r, s.A), ref, foreign)) {
			if res.Status != http.StatusUnprocessableEntity || res.ErrorCode() != "validation_error" ||
				crudtest.Issues(res)[ref.Field] != related.IssueNotInOrg {
				t.Errorf("A %s with B's %s in %s: %d %s, want 422 naming %s: %s", method, ref.Fixture, ref.Field, res.Status, res.Body, ref.Field, related.IssueNotInOrg)
			}
		}
		unchanged("a refused " + ref.Field)
	}
	if res := s.A.Do(method, path, s.body(t, method, r, s.A)); res.Status >= 300 {
		t.Errorf("A %s its own record: %d %s", method, res.Status, res.Body)
	}
}

// refused sends a request that must be refused twice as A: as is, and with
// a fresh Idempotency-Key (the write then runs in the request's transaction,
// which a failed statement must not turn into a 5xx).
func (s *Suite) refused(t testing.TB, method, path string, body map[string]any) []*apitest.Response {
	t.Helper()
	return []*apitest.Response{
		s.A.Do(method, path, body),
		s.A.Do(method, path, body, "Idempotency-Key", "isolation-"+uuid.NewString()),
	}
}

// checkList: A's list holds A's record and none of B's, and a cursor of
// B's list is refused on A's.
func (s *Suite) checkList(t *testing.T, path string, r Route) {
	mine := s.Make(t, r.Fixture, s.A)
	theirs := []string{s.Make(t, r.Fixture, s.B), s.Make(t, r.Fixture, s.B)}
	got := crudtest.Walk(t, s.A, path, 100, nil)
	if !slices.Contains(got, mine) {
		t.Errorf("A's list does not hold A's record %s", mine)
	}
	for _, id := range theirs {
		if slices.Contains(got, id) {
			t.Errorf("A's list holds B's record %s", id)
		}
	}
	cursor := crudtest.Cursor(t, s.B, path)
	res := s.A.Get(path + "?cursor=" + cursor)
	if res.Status != http.StatusUnprocessableEntity || !slices.Contains(crudtest.Fields(res), "cursor") {
		t.Errorf("A with B's cursor: %d %s, want 422 on cursor", res.Status, res.Body)
	}
}

// checkCreate: A cannot create a record pointing at B's records, and such a
// refusal writes nothing; a valid body is accepted.
func (s *Suite) checkCreate(t *testing.T, method, path string, r Route) {
	table := fixtures[r.Fixture].Table
	for _, ref := range s.refs(t, method, path) {
		foreign := s.Shared(t, ref.Fixture, s.B)
		before := crudtest.Take(t, s.Env, table, s.A.ID)
		for _, res := range s.refused(t, method, path, withRef(s.body(t, method, r, s.A), ref, foreign)) {
			if res.Status != http.StatusUnprocessableEntity || res.ErrorCode() != "validation_error" ||
				crudtest.Issues(res)[ref.Field] != related.IssueNotInOrg {
				t.Errorf("A %s with B's %s in %s: %d %s, want 422 naming %s: %s", method, ref.Fixture, ref.Field, res.Status, res.Body, ref.Field, related.IssueNotInOrg)
			}
		}
		if after := crudtest.Take(t, s.Env, table, s.A.ID); after != before {
			t.Errorf("refused %s wrote to %s", ref.Field, table)
		}
	}
	if res := s.A.Do(method, path, s.body(t, method, r, s.A)); res.Status >= 300 {
		t.Errorf("A %s a valid body: %d %s", method, res.Status, res.Body)
	}
}

// TestLegacyScopeGrantsNothing: a key holding only the legacy crew:read
// scope (v1 only) is refused with 403 insufficient_scope on every v2 route
// but /health, before any lookup or validation.
func TestLegacyScopeGrantsNothing(t *testing.T) {
	env := apitest.New(t)
	for _, mode := range []apikey.Mode{apikey.Live, apikey.Legacy} {
		org := env.NewOrgWithKey("crew reader", mode, tenancy.CrewRead)
		for _, key := range v2Routes(env) {
			if slices.Contains(exempt, key) {
				continue
			}
			method, path := splitKey(key)
			res := org.Do(method, fill(path, uuid.NewString()), map[string]any{})
			if res.Status != http.StatusForbidden || res.ErrorCode() != "insufficient_scope" {
				t.Errorf("%s with a %s crew:read key: %d %s, want 403 insufficient_scope", key, mode, res.Status, res.Body)
			}
		}
		if res := org.Get("/api/v2/health"); res.Status != http.StatusOK {
			t.Errorf("GET /api/v2/health with a %s crew:read key: %d", mode, res.Status)
		}
	}
}

// TestKeylessRefused: every authenticated v2 route refuses a request
// without a key; only the public description is served.
func TestKeylessRefused(t *testing.T) {
	env := apitest.New(t)
	for _, key := range v2Routes(env) {
		method, path := splitKey(key)
		res := env.Send(apitest.Request{Method: method, Path: fill(path, uuid.NewString()), Body: map[string]any{}})
		if res.Status != http.StatusUnauthorized {
			t.Errorf("%s without a key: %d", key, res.Status)
		}
	}
	for _, r := range env.Svc.App.GetRoutes(true) {
		if r.Method == http.MethodGet && isPublic(r.Path) && !hasParam(r.Path) {
			if res := env.Send(apitest.Request{Method: http.MethodGet, Path: r.Path}); res.Status != http.StatusOK {
				t.Errorf("public GET %s without a key: %d", r.Path, res.Status)
			}
		}
	}
}
