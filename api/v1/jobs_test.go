package v1_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/tenancy"
	"github.com/eventapi/eventapi/tenancy/apikey"
)

func TestJobs(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	fa := fix(t, env, a)
	client := fa.client("Acme Festivals")

	// Six events, one per status, created an hour apart (oldest first). The
	// start is late evening at UTC-5, so its UTC date is the next day.
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	start := time.Date(2026, 5, 1, 23, 30, 0, 0, time.FixedZone("EST", -5*3600))
	end := time.Date(2026, 5, 3, 10, 0, 0, 0, time.UTC)
	eventStatuses := []string{"inquiry", "tentative", "confirmed", "in_progress", "completed", "cancelled"}
	mapped := map[string]string{"inquiry": "draft", "tentative": "draft", "confirmed": "active",
		"in_progress": "active", "completed": "completed", "cancelled": "cancelled"}
	byStatus := map[string]string{} // event status -> id
	var newestFirst []string
	for i, s := range eventStatuses {
		var cl *string
		if i%2 == 0 {
			cl = &client
		}
		id := fa.event("Event "+s, s, start, end, base.Add(time.Duration(i)*time.Hour), cl)
		byStatus[s] = id
		newestFirst = append([]string{id}, newestFirst...)
	}
	// Two more with the same created_at, later than all: id descending breaks the tie.
	tieAt := base.Add(24 * time.Hour)
	t1 := fa.event("Tie 1", "confirmed", start, end, tieAt, nil)
	t2 := fa.event("Tie 2", "confirmed", start, end, tieAt, nil)
	ties := []string{t1, t2}
	slices.Sort(ties)
	slices.Reverse(ties)
	newestFirst = append(ties, newestFirst...)
	foreign := fix(t, env, b).event("B event", "confirmed", start, end, base, nil)

	r := get(env, a.Key, "/api/v1/jobs")
	wantStatus(t, r, http.StatusOK)
	if got := ids(r); !slices.Equal(got, newestFirst) {
		t.Fatalf("order %v, want %v (created_at desc, id desc)", got, newestFirst)
	}
	if m := meta(r); m["total"] != 8.0 || m["page"] != 1.0 || m["org_id"] != a.ID.String() {
		t.Fatalf("meta %v", m)
	}

	// Every event status maps to its job status, on the list and the detail.
	rows := map[string]map[string]any{}
	for _, m := range r.List() {
		rows[m["id"].(string)] = m
	}
	for i, s := range eventStatuses {
		wantClient := any(nil)
		if i%2 == 0 {
			wantClient = "Acme Festivals"
		}
		want := map[string]any{"id": byStatus[s], "name": "Event " + s, "status": mapped[s], "event_date": "2026-05-02",
			"event_end_date": "2026-05-03", "venue": "Main Hall", "client_name": wantClient, "organization_id": a.ID.String()}
		checkFields(t, rows[byStatus[s]], want, "created_at", "updated_at")
		d := get(env, a.Key, "/api/v1/jobs/"+byStatus[s])
		wantStatus(t, d, http.StatusOK)
		checkFields(t, d.Data(), want, "created_at", "updated_at")
		if m := meta(d); len(m) != 1 || m["org_id"] != a.ID.String() {
			t.Fatalf("detail meta %v", m)
		}
	}

	// The status filter maps back to every event status of a job status.
	filters := map[string][]string{
		"draft":     {byStatus["tentative"], byStatus["inquiry"]},
		"active":    append(slices.Clone(ties), byStatus["in_progress"], byStatus["confirmed"]),
		"completed": {byStatus["completed"]},
		"cancelled": {byStatus["cancelled"]},
	}
	for status, want := range filters {
		t.Run("status="+status, func(t *testing.T) {
			f := get(env, a.Key, "/api/v1/jobs?status="+status)
			wantStatus(t, f, http.StatusOK)
			if got := ids(f); !slices.Equal(got, want) {
				t.Fatalf("got %v, want %v", got, want)
			}
			if meta(f)["total"] != float64(len(want)) {
				t.Fatalf("total %v, want %d", meta(f)["total"], len(want))
			}
			for _, m := range f.List() {
				if m["status"] != status {
					t.Errorf("job %v has status %v", m["id"], m["status"])
				}
			}
		})
	}
	for _, bad := range []string{"inquiry", "ACTIVE", "x"} {
		wantV1Error(t, get(env, a.Key, "/api/v1/jobs?status="+bad), http.StatusBadRequest, "BAD_REQUEST", "status")
	}

	// Paging with a filter: total counts the filtered set.
	p2 := get(env, a.Key, "/api/v1/jobs?status=active&limit=3&page=2")
	if got := ids(p2); !slices.Equal(got, filters["active"][3:]) || meta(p2)["total"] != 4.0 || meta(p2)["page"] != 2.0 {
		t.Fatalf("active page 2: %s", p2.Body)
	}
	p3 := get(env, a.Key, "/api/v1/jobs?status=active&limit=2&page=3")
	if len(ids(p3)) != 0 || meta(p3)["total"] != 4.0 {
		t.Fatalf("past the end: %s", p3.Body)
	}

	// Isolation.
	if rb := get(env, b.Key, "/api/v1/jobs"); !slices.Equal(ids(rb), []string{foreign}) || meta(rb)["total"] != 1.0 {
		t.Fatalf("org B list: %s", rb.Body)
	}
	for _, path := range []string{"/api/v1/jobs/" + foreign, "/api/v1/jobs/" + uuid.NewString(), "/api/v1/jobs/123"} {
		wantV1Error(t, get(env, a.Key, path), http.StatusNotFound, "NOT_FOUND")
	}
	wantV1Error(t, get(env, b.Key, "/api/v1/jobs/"+t1), http.StatusNotFound, "NOT_FOUND")
}

func TestCrew(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	fa := fix(t, env, a)
	// Expected order: last name, then first name (case-insensitive), then id.
	adams := fa.crew("zoe", "Adams", ptr("zoe@example.com"), ptr("Rigger"), ptr("+1 555 0100"))
	adamsB := fa.crew("Ann", "adams", nil, nil, nil)
	smith1 := fa.crew("Jo", "Smith", nil, nil, nil)
	smith2 := fa.crew("Jo", "Smith", nil, nil, nil)
	baker := fa.crew("Ann", "Baker", nil, ptr("LD"), nil)
	foreign := fix(t, env, b).crew("Bea", "Aaron", nil, nil, nil)
	smiths := []string{smith1, smith2}
	slices.Sort(smiths)
	want := append([]string{adamsB, adams, baker}, smiths...)

	r := get(env, a.Key, "/api/v1/crew")
	wantStatus(t, r, http.StatusOK)
	if got := ids(r); !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if m := meta(r); m["total"] != 5.0 || m["page"] != 1.0 || m["org_id"] != a.ID.String() {
		t.Fatalf("meta %v", m)
	}
	wantAdams := map[string]any{"id": adams, "name": "zoe Adams", "email": "zoe@example.com", "role": "Rigger",
		"phone": "+1 555 0100", "organization_id": a.ID.String()}
	checkFields(t, r.List()[1], wantAdams, "created_at", "updated_at")
	checkFields(t, r.List()[0], map[string]any{"name": "Ann adams", "email": nil, "role": nil, "phone": nil},
		"id", "organization_id", "created_at", "updated_at")

	d := get(env, a.Key, "/api/v1/crew/"+adams)
	wantStatus(t, d, http.StatusOK)
	checkFields(t, d.Data(), wantAdams, "created_at", "updated_at")

	pages := get(env, a.Key, "/api/v1/crew?limit=4&page=2")
	if !slices.Equal(ids(pages), want[4:]) || meta(pages)["total"] != 5.0 {
		t.Fatalf("page 2: %s", pages.Body)
	}

	if rb := get(env, b.Key, "/api/v1/crew"); !slices.Equal(ids(rb), []string{foreign}) {
		t.Fatalf("org B list: %s", rb.Body)
	}
	for _, path := range []string{"/api/v1/crew/" + foreign, "/api/v1/crew/" + uuid.NewString(), "/api/v1/crew/x"} {
		wantV1Error(t, get(env, a.Key, path), http.StatusNotFound, "NOT_FOUND")
	}
}

// TestBadQueryParametersNamedTogether: one 400 names every bad query
// parameter of a list, the filter beside page and limit (docs/v1.md,
// "Paging"). A repeated parameter is refused first and alone, before the
// scope and the other parameters are looked at.
func TestBadQueryParametersNamedTogether(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("A")
	equipmentOnly := env.NewKey(a.ID, apikey.Live, tenancy.EquipmentRead)
	const (
		page   = "page: must be an integer from 1 to 2147483647"
		limit  = "limit: must be an integer from 1 to 100"
		status = "status: must be one of: active, completed, cancelled, draft"
	)
	for _, tt := range []struct {
		name, key, path, want string
	}{
		{"status with page and limit", a.Key, "/api/v1/jobs?status=x&page=0&limit=500", page + "; " + limit + "; " + status},
		{"status with page", a.Key, "/api/v1/jobs?page=x&status=", page + "; " + status},
		{"status with limit", a.Key, "/api/v1/jobs?status=ACTIVE&limit=0", limit + "; " + status},
		{"status alone", a.Key, "/api/v1/jobs?status=x", status},
		{"page and limit of a list without filters", a.Key, "/api/v1/crew?page=-1&limit=x", page + "; " + limit},
		{"repeated parameter first and alone", a.Key, "/api/v1/jobs?status=x&page=1&page=2&limit=0",
			"page: " + rest.RepeatedParamIssue},
		{"repeated parameter before the scope", equipmentOnly, "/api/v1/jobs?page=1&page=2", "page: " + rest.RepeatedParamIssue},
		{"two repeated parameters", a.Key, "/api/v1/equipment?page=1&page=2&limit=5&limit=6",
			"page: " + rest.RepeatedParamIssue + "; limit: " + rest.RepeatedParamIssue},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := get(env, tt.key, tt.path)
			wantV1Error(t, r, http.StatusBadRequest, "BAD_REQUEST")
			if msg := r.JSON()["error"].(map[string]any)["message"]; msg != tt.want {
				t.Errorf("message %q, want %q", msg, tt.want)
			}
		})
	}
}
