package requestlogs_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/api/apitest"
	logstore "github.com/eventapi/eventapi/api/storage/requestlogs"
	"github.com/eventapi/eventapi/platform/requestlog"
)

// TestAFilterMatchingLittleAnswersBoundedPages: the organization's log
// holds more than twice logstore.MaxScan records, all GETs of one route
// but the oldest, a POST of another. Filtered by that POST's route, the
// first page is empty with has_more and a next_cursor (the read stopped at
// MaxScan instead of reading the whole log); following next_cursor reaches
// the last page (has_more false, no cursor) and lists the oldest record
// exactly once. Unfiltered, the first page is full, as before.
func TestAFilterMatchingLittleAnswersBoundedPages(t *testing.T) {
	env := apitest.New(t)
	a := env.NewOrg("Busy")
	key := uuid.New()
	get, post := "/api/v2/events", "/api/v2/clients"
	n := logstore.MaxScan*2 + logstore.MaxScan/2
	now := time.Now().UTC().Add(-time.Minute).Truncate(time.Millisecond)
	recs := make([]requestlog.Record, n)
	for i := range recs {
		r := &recs[i]
		*r = requestlog.Record{CreatedAt: now.Add(-time.Duration(n-i) * 40 * time.Millisecond), OrganizationID: &a.ID,
			KeyID: &key, Method: "GET", Path: get, Route: &get, Status: 200, APIVersion: "v2"}
		if i == 0 {
			r.Method, r.Path, r.Route, r.Status = "POST", post, &post, 201
		}
		r.Normalize()
		r.RequestID = r.ID.String()
	}
	if err := requestlog.Copy(context.Background(), env.Svc.DB, recs); err != nil {
		t.Fatal(err)
	}

	filter := "?limit=10&route=" + url.QueryEscape(post)
	next, pages := base+filter, 0
	var found []string
	for ; next != ""; pages++ {
		if pages > 10 {
			t.Fatal("more than 10 pages")
		}
		res := a.Get(next)
		if res.Status != 200 {
			t.Fatalf("page %d: %d %s", pages, res.Status, res.Body)
		}
		pg := res.JSON()["pagination"].(map[string]any)
		c, _ := pg["next_cursor"].(string)
		if more := pg["has_more"].(bool); more != (c != "") {
			t.Fatalf("page %d: has_more %v with next_cursor %v", pages, more, pg["next_cursor"])
		}
		if pages == 0 && (len(res.List()) != 0 || c == "") {
			t.Fatalf("first page: %s; want no record, has_more and a next_cursor", res.Body)
		}
		for _, r := range res.List() {
			found = append(found, r["request_id"].(string))
		}
		next = ""
		if c != "" {
			next = base + filter + "&cursor=" + c
		}
	}
	if len(found) != 1 || found[0] != recs[0].RequestID {
		t.Fatalf("found %v over %d pages, want the oldest record %s once", found, pages, recs[0].RequestID)
	}
	if pages < 3 {
		t.Fatalf("%d pages over %d records: a page read more than MaxScan", pages, n)
	}

	full := a.Get(base + "?limit=10")
	if full.Status != 200 || len(full.List()) != 10 || full.JSON()["pagination"].(map[string]any)["has_more"] != true {
		t.Fatalf("unfiltered first page: %d %s", full.Status, full.Body)
	}
}
