package v1_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// fixtures inserts rows straight into the tables, always for one organization.
type fixtures struct {
	t   *testing.T
	env *apitest.Env
	org uuid.UUID
}

func fix(t *testing.T, env *apitest.Env, org *apitest.Org) fixtures {
	return fixtures{t: t, env: env, org: org.ID}
}

// insert runs an INSERT ... RETURNING id whose first argument is the organization.
func (f fixtures) insert(query string, args ...any) string {
	f.t.Helper()
	var id uuid.UUID
	row := f.env.Svc.DB.QueryRowContext(context.Background(), query, append([]any{f.org}, args...)...)
	if err := row.Scan(&id); err != nil {
		f.t.Fatalf("fixture %q: %v", query, err)
	}
	return id.String()
}

func (f fixtures) category(name string) string {
	return f.insert(`INSERT INTO equipment_categories (organization_id, name) VALUES (?, ?) RETURNING id`, name)
}

// equipment is one equipment row; nil pointers stay NULL.
type equipment struct {
	name, status                  string
	brand, model, serial, caseTyp *string
	category                      *string
	length, width, height, weight *float64
}

func (f fixtures) equipment(e equipment) string {
	if e.status == "" {
		e.status = "available"
	}
	return f.insert(`INSERT INTO equipment (organization_id, name, status, brand, model, serial_number, case_type,
		category_id, case_length_in, case_width_in, case_height_in, weight_lbs)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		e.name, e.status, e.brand, e.model, e.serial, e.caseTyp, e.category, e.length, e.width, e.height, e.weight)
}

func (f fixtures) client(name string) string {
	return f.insert(`INSERT INTO clients (organization_id, name) VALUES (?, ?) RETURNING id`, name)
}

func (f fixtures) event(name, status string, start, end, created time.Time, client *string) string {
	return f.insert(`INSERT INTO events (organization_id, name, status, start_date, end_date, venue, client_id, created_at)
		VALUES (?, ?, ?, ?, ?, 'Main Hall', ?, ?) RETURNING id`, name, status, start, end, client, created)
}

func (f fixtures) crew(first, last string, email, role, phone *string) string {
	return f.insert(`INSERT INTO crew_members (organization_id, first_name, last_name, email, role, phone)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, first, last, email, role, phone)
}

func ptr[T any](v T) *T { return &v }

// get sends GET path with key.
func get(env *apitest.Env, key, path string) *apitest.Response {
	env.T.Helper()
	return env.Send(apitest.Request{Method: "GET", Path: path, Key: key})
}

// ids returns the id of every record of a list response.
func ids(r *apitest.Response) []string {
	var out []string
	for _, m := range r.List() {
		s, _ := m["id"].(string)
		out = append(out, s)
	}
	return out
}

// meta returns body.meta.
func meta(r *apitest.Response) map[string]any {
	m, _ := r.JSON()["meta"].(map[string]any)
	return m
}

// wantStatus fails unless r has status; it prints the body.
func wantStatus(t *testing.T, r *apitest.Response, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
}

// wantV1Error checks status and the v1 envelope {error:{code,message}} with
// nothing else, and that the message contains every fragment.
func wantV1Error(t *testing.T, r *apitest.Response, status int, code string, fragments ...string) {
	t.Helper()
	wantStatus(t, r, status)
	body := r.JSON()
	e, _ := body["error"].(map[string]any)
	if len(body) != 1 || len(e) != 2 || e["code"] != code {
		t.Fatalf("want v1 error %s, got %s", code, r.Body)
	}
	msg, _ := e["message"].(string)
	for _, f := range fragments {
		if !strings.Contains(msg, f) {
			t.Errorf("message %q does not mention %q", msg, f)
		}
	}
}
