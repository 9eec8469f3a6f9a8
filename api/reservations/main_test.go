package reservations_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/bookingtest"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/tenancy"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const base = "/api/v2/equipment_reservations"

// newEnv starts the app with a rate limit high enough for table tests.
func newEnv(t *testing.T) *apitest.Env {
	return apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.V2RateLimit = 100_000 }))
}

// orgWithMode creates an organization whose stock guard is mode.
func orgWithMode(t *testing.T, env *apitest.Env, name string, mode tenancy.StockGuardMode) *apitest.Org {
	o := env.NewOrg(name)
	if _, err := tenancy.UpdateOrganization(context.Background(), env.Svc.DB, o.ID,
		tenancy.OrganizationUpdate{StockGuardMode: &mode}); err != nil {
		t.Fatal(err)
	}
	return o
}

func want(t *testing.T, res *apitest.Response, status int, code string) {
	t.Helper()
	if res.Status != status || res.ErrorCode() != code {
		t.Fatalf("want %d %q, got %d: %s", status, code, res.Status, res.Body)
	}
}

func body(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// window returns RFC 3339 start and end of a window of May 2026 days.
func window(fromDay, toDay int) (string, string) {
	return fmt.Sprintf("2026-05-%02dT08:00:00Z", fromDay), fmt.Sprintf("2026-05-%02dT08:00:00Z", toDay)
}

// reserve is a create body for equipment eq over [fromDay, toDay).
func reserve(eq fmt.Stringer, fromDay, toDay int, kv ...any) map[string]any {
	s, e := window(fromDay, toDay)
	b := body("equipment_id", eq.String(), "start_date", s, "end_date", e)
	for k, v := range body(kv...) {
		b[k] = v
	}
	return b
}

func fields(res *apitest.Response) string {
	e, _ := res.JSON()["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	fs, _ := d["fields"].([]any)
	var out []string
	for _, f := range fs {
		m, _ := f.(map[string]any)
		out = append(out, fmt.Sprint(m["field"]))
	}
	return strings.Join(out, ",")
}

var _ = bookingtest.Stock
