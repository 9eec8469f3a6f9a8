package webhooks_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/apitest/crudtest"
	store "github.com/eventapi/eventapi/api/storage/webhooks"
)

// TestEndpointsPerOrganizationAreCapped: an organization registers at most
// store.MaxEndpoints endpoints, also when registrations race for the last
// places; another organization's count is its own, and deleting one makes
// room again.
func TestEndpointsPerOrganizationAreCapped(t *testing.T) {
	env := apitest.New(t)
	a, b := env.NewOrg("A"), env.NewOrg("B")
	body := func(i int) map[string]any {
		return map[string]any{"url": fmt.Sprintf("https://8.8.8.8/hook-%d", i), "enabled_events": []string{"*"}}
	}
	const racing = 6
	for i := range store.MaxEndpoints - 2 {
		if r := a.Post(endpoints, body(i)); r.Status != 201 {
			t.Fatalf("endpoint %d: %d %s", i, r.Status, r.Body)
		}
	}
	statuses := make([]int, racing)
	fields := make([][]string, racing)
	var wg sync.WaitGroup
	for i := range racing {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := a.Post(endpoints, body(100+i))
			statuses[i], fields[i] = r.Status, crudtest.Fields(r)
		}()
	}
	wg.Wait()
	created := 0
	for i, s := range statuses {
		switch {
		case s == 201:
			created++
		case s != 422 || len(fields[i]) != 1 || fields[i][0] != "body":
			t.Errorf("racing registration: %d naming %v, want 201 or 422 naming body", s, fields[i])
		}
	}
	if created != 2 {
		t.Errorf("%d of %d racing registrations for the last 2 places succeeded", created, racing)
	}
	list := a.Get(endpoints + "?limit=100").List()
	if len(list) != store.MaxEndpoints {
		t.Fatalf("%d endpoints listed, want %d", len(list), store.MaxEndpoints)
	}
	if r := b.Post(endpoints, body(0)); r.Status != 201 {
		t.Errorf("another organization's first endpoint: %d %s", r.Status, r.Body)
	}
	if r := a.Delete(endpoints + "/" + list[0]["id"].(string)); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if r := a.Post(endpoints, body(200)); r.Status != 201 {
		t.Errorf("registration after a delete: %d %s", r.Status, r.Body)
	}
	if r := a.Post(endpoints, body(201)); r.Status != 422 {
		t.Errorf("registration past the cap: %d %s", r.Status, r.Body)
	}
}
