package isolation_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/contract"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/errs"
)

// The route tables also drive a sweep of hostile input over every /api/v2
// and /api/v1 route (TestHostileInput): each body property the document
// gives a write (and each one the valid body carries, and each member of an
// array's element: the deepest objects a body has, which
// reachesNestedObjects holds the document to) takes each value of
// hostileValues, each write each of
// hostileBodies, each documented query parameter each of
// hostileQueryValues, each request each of hostileHeaders, and each path id
// each of hostileIDs (hostile_values_test.go). Whatever the route makes of
// them, it must answer below 500, in the error envelope when it refuses,
// within the OpenAPI document, and a refusal must write nothing
// (docs/decisions.md, "Hostile input").

// TestHostileInput sends hostile input to every route of the v2 table and
// of the v1 entries as A.
func TestHostileInput(t *testing.T) {
	env := apitest.New(t, apitest.WithConfig(func(c *config.Config) {
		// The sweep sends some ten thousand requests.
		c.V2RateLimit, c.V1RateLimit, c.RateWindow = 1_000_000, 1_000_000, time.Minute
	}))
	v2, err := contract.Load()
	if err != nil {
		t.Fatal(err)
	}
	v1, err := contract.LoadV1()
	if err != nil {
		t.Fatal(err)
	}
	s := &Suite{Env: env, B: env.NewOrg("B"), shared: map[string]string{}, contract: v2}
	all := maps.Clone(routes)
	maps.Copy(all, v1Entries)
	for _, key := range slices.Sorted(maps.Keys(all)) {
		t.Run(key, func(t *testing.T) {
			method, route := splitKey(key)
			r := all[key]
			doc := v2
			if strings.HasPrefix(route, "/api/v1/") {
				doc = v1
			}
			// An organization of the route's own: what one route's sweep
			// creates (up to a cap, such as 25 webhook endpoints) is not
			// left in another's way.
			rs := *s
			rs.A = env.NewOrg("A " + key)
			h := hostile{t: t, s: &rs, doc: doc, method: method, route: route, r: r}
			if hasParam(route) {
				h.ids()
			}
			if method == http.MethodPost || method == http.MethodPatch {
				h.bodies()
			}
			h.query()
			h.headers()
		})
	}
}

// hostile is the sweep of one route.
type hostile struct {
	t      *testing.T
	s      *Suite
	doc    *contract.Contract // the document of the route's surface
	method string
	route  string
	r      Route
	sent   int    // requests sent, to alternate the Idempotency-Key
	id     string // the record the route acts on (target)
}

// check sends one request as A and judges the answer. The contract check
// of apitest.Send also holds the status to those the document gives the
// operation.
func (h *hostile) check(what, path string, body any) *apitest.Response {
	h.t.Helper()
	var headers []string
	if h.method != http.MethodGet && h.sent%2 == 1 {
		// Half of the writes run in the request's transaction, where a
		// failed statement must not become a 5xx either.
		headers = []string{"Idempotency-Key", "hostile-" + uuid.NewString()}
	}
	h.sent++
	res := h.s.A.Do(h.method, path, body, headers...)
	h.judge(what, res)
	return res
}

// judge adds to the harness's own checks of every answer (apitest.Send
// fails a 5xx other than 503 and a v2 error without its envelope): no 503
// either, since Redis and PostgreSQL are up; not rate-limited (the sweep
// would prove nothing past its limit); and v1's error envelope too.
func (h *hostile) judge(what string, res *apitest.Response) {
	h.t.Helper()
	switch {
	case res.Status == http.StatusServiceUnavailable:
		h.t.Errorf("%s: %d %s", what, res.Status, clip(res.Body))
	case res.Status == http.StatusTooManyRequests:
		h.t.Fatalf("%s: rate-limited; raise the sweep's limit", what)
	case res.Status >= 400 && res.ErrorCode() == "":
		h.t.Errorf("%s: %d without the error envelope: %s", what, res.Status, clip(res.Body))
	}
}

// target is the record the route acts on (made in A) and its path, with
// the route's query; "" for a collection. One record serves the route's
// whole sweep (an organization may hold only so many webhook endpoints),
// but a DELETE gets a fresh one each time.
func (h *hostile) target() (id, path string) {
	if !hasParam(h.route) {
		return "", h.route + h.r.Query
	}
	if h.id == "" || h.method == http.MethodDelete {
		h.id = h.s.Make(h.t, h.r.Fixture, h.s.A)
	}
	return h.id, fill(h.route, h.id) + h.r.Query
}

// unchanged is a check that nothing was written: the table's rows of A and
// their latest update, and the target record's stamp. After a request the
// route accepted it takes the new state as the baseline.
type unchanged struct {
	h      *hostile
	id     string
	table  string
	stamp  string
	before crudtest.Snapshot
	row    time.Time
}

func (h *hostile) snapshot(id string) *unchanged {
	f := fixtures[h.r.Fixture]
	u := &unchanged{h: h, id: id, table: f.Table, stamp: f.Stamp}
	if u.stamp == "" {
		u.stamp = "updated_at"
	}
	u.take()
	return u
}

func (u *unchanged) take() {
	if u.stamp == "updated_at" {
		u.before = crudtest.Take(u.h.t, u.h.s.Env, u.table, u.h.s.A.ID)
	}
	if u.id != "" {
		u.row, _ = u.h.s.row(u.h.t, u.table, u.stamp, u.h.s.A.ID, u.id)
	}
}

// after checks the state after res.
func (u *unchanged) after(what string, res *apitest.Response) {
	u.h.t.Helper()
	if res.Status < 400 {
		u.take()
		return
	}
	if u.stamp == "updated_at" {
		if now := crudtest.Take(u.h.t, u.h.s.Env, u.table, u.h.s.A.ID); now != u.before {
			u.h.t.Errorf("%s: refused with %d, but %s changed: %+v, was %+v", what, res.Status, u.table, now, u.before)
		}
	}
	if u.id != "" {
		if row, ok := u.h.s.row(u.h.t, u.table, u.stamp, u.h.s.A.ID, u.id); !ok || !row.Equal(u.row) {
			u.h.t.Errorf("%s: refused with %d, but the record changed or went (exists=%v)", what, res.Status, ok)
		}
	}
}

// bodies sends the route's valid body with each property set to each
// hostile value, and each hostile whole body.
func (h *hostile) bodies() {
	if h.r.Check != nil && h.r.Body == nil {
		return // a route the table checks its own way, without a body
	}
	id, path := h.target()
	valid := h.s.body(h.t, h.method, h.r, h.s.A)
	props := h.doc.BodyProperties(h.method, docPath(h.route))
	for k := range valid {
		props = append(props, k)
	}
	slices.Sort(props)
	h.reachesNestedObjects(valid)
	u := h.snapshot(id)
	for _, prop := range slices.Compact(props) {
		for _, v := range hostileValues {
			what := fmt.Sprintf("%s %s with %s = %s", h.method, h.route, prop, clip(v))
			u.after(what, h.check(what, path, h.with(valid, prop, json.RawMessage(v))))
		}
		h.elements(path, valid, prop, u)
	}
	for _, b := range hostileBodies {
		what := fmt.Sprintf("%s %s with the body %s", h.method, h.route, clip(b.body))
		res := h.check(what, path, b.body)
		if res.Status < 400 && !(b.patchTakes && h.method == http.MethodPatch) {
			h.t.Errorf("%s: %d, want a refusal", what, res.Status)
		}
		u.after(what, res)
	}
}

// elements sends, when prop is an array of objects (in the valid body, or
// one arrayItems names), a one-element array whose element is valid but
// for one member set to each hostile value, for each member.
func (h *hostile) elements(path string, valid map[string]any, prop string, u *unchanged) {
	item := arrayItems[prop]
	if list, ok := valid[prop].([]any); ok && len(list) > 0 {
		if m, ok := list[0].(map[string]any); ok {
			item = m
		}
	}
	for _, member := range slices.Sorted(maps.Keys(item)) {
		for _, v := range hostileValues {
			el := maps.Clone(item)
			el[member] = json.RawMessage(v)
			what := fmt.Sprintf("%s %s with %s[0].%s = %s", h.method, h.route, prop, member, clip(v))
			u.after(what, h.check(what, path, h.with(valid, prop, []any{el})))
		}
	}
}

// reachesNestedObjects fails the route when its documented body has an
// object that elements does not sweep: one deeper than an array's element,
// or the element of an array for which neither the valid body nor
// arrayItems gives a valid element to vary.
func (h *hostile) reachesNestedObjects(valid map[string]any) {
	h.t.Helper()
	for _, nested := range h.doc.NestedObjects(h.method, docPath(h.route)) {
		prop, ok := strings.CutSuffix(nested, "[0]")
		if !ok || strings.ContainsAny(prop, ".[") {
			h.t.Errorf("%s %s: the body's object %s is deeper than the sweep reaches (hostile.elements)", h.method, h.route, nested)
			continue
		}
		if _, ok := arrayItems[prop]; ok {
			continue
		}
		if list, ok := valid[prop].([]any); !ok || len(list) == 0 {
			h.t.Errorf("%s %s: no valid element of %s to sweep: give one in the valid body or arrayItems", h.method, h.route, prop)
		}
	}
}

// with returns the JSON of valid with prop set to v.
func (h *hostile) with(valid map[string]any, prop string, v any) string {
	body := maps.Clone(valid)
	if body == nil {
		body = map[string]any{}
	}
	body[prop] = v
	raw, err := json.Marshal(body)
	if err != nil {
		h.t.Fatal(err)
	}
	return string(raw)
}

// validBody is the route's valid body for A, nil (no body at all) for GET
// and DELETE.
func (h *hostile) validBody() any {
	if b := h.s.body(h.t, h.method, h.r, h.s.A); b != nil {
		return b
	}
	return nil
}

// query sends each documented query parameter with each hostile value.
func (h *hostile) query() {
	_, path := h.target()
	base, rawQuery, _ := strings.Cut(path, "?")
	params, err := url.ParseQuery(rawQuery)
	if err != nil {
		h.t.Fatal(err)
	}
	body := h.validBody()
	for _, name := range h.doc.QueryParameters(h.method, docPath(h.route)) {
		for _, v := range hostileQueryValues {
			if name == "expand" && strings.TrimSpace(v) == "" {
				// An empty or blank expand names nothing and is taken
				// (docs/decisions.md); the document's enum cannot say so.
				continue
			}
			q := maps.Clone(params)
			q.Set(name, v)
			what := fmt.Sprintf("%s %s?%s=%q", h.method, h.route, name, clip(v))
			h.check(what, base+"?"+q.Encode(), body)
		}
		q := maps.Clone(params)
		q[name] = []string{"1", "2"}
		h.check(fmt.Sprintf("%s %s with %s twice", h.method, h.route, name), base+"?"+q.Encode(), body)
	}
}

// headers sends the route's valid request with each hostile header.
func (h *hostile) headers() {
	_, path := h.target()
	body := h.validBody()
	for _, hd := range hostileHeaders {
		if h.method == http.MethodDelete {
			_, path = h.target()
		}
		what := fmt.Sprintf("%s %s with %s: %q", h.method, h.route, hd[0], clip(hd[1]))
		res := h.s.Env.Send(apitest.Request{Method: h.method, Path: path, Body: body, Key: h.s.A.Key,
			Headers: map[string]string{hd[0]: hd[1]}})
		h.judge(what, res)
	}
}

// ids fills the route's path parameters with each hostile id; none names a
// record, so each must be refused.
func (h *hostile) ids() {
	body := h.validBody()
	for _, id := range hostileIDs {
		path := fill(h.route, url.PathEscape(id)) + h.r.Query
		what := fmt.Sprintf("%s %s with the id %q", h.method, h.route, clip(id))
		if res := h.check(what, path, body); res.Status < 400 {
			h.t.Errorf("%s: %d, want a refusal", what, res.Status)
		}
	}
}

// clip shortens text for a failure message.
func clip[T string | []byte](text T) string { return errs.Clip(string(text), 120) }
