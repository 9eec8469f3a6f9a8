package server_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/platform/config"
)

// TestPoolMetricsAreExportedOnce: with tracing and metrics on, as serve
// runs with an OTLP endpoint, every go_sql_connections_* family on /metrics
// has one series, labelled db_system="postgresql" only (otelsql). bunotel's
// hook reported the same pool a second time, labelled db_name="eventapi"
// whatever the database, so a sum by pod (the dashboard's) counted it
// twice. The names the dashboard queries are there.
func TestPoolMetricsAreExportedOnce(t *testing.T) {
	u := metricsEndpoint(t)
	env := apitest.New(t, func(_ *config.Config, o *server.Options) { o.Tracing, o.Metrics = true, true })
	org := env.NewOrg("Pooled")
	if res := org.Get("/api/v2/clients"); res.Status != 200 {
		t.Fatalf("GET /api/v2/clients: %d %s", res.Status, res.Body)
	}
	fams := scrape(t, u)
	var names []string
	for name, fam := range fams {
		if !strings.HasPrefix(name, "go_sql_connections_") {
			continue
		}
		names = append(names, name)
		var sets []map[string]string
		for _, m := range fam.GetMetric() {
			sets = append(sets, labels(m))
		}
		if len(sets) != 1 {
			t.Errorf("%s has %d series, want 1: %v", name, len(sets), sets)
			continue
		}
		if !maps.Equal(sets[0], map[string]string{"db_system": "postgresql"}) {
			t.Errorf("%s is labelled %v, want db_system=postgresql only", name, sets[0])
		}
	}
	slices.Sort(names)
	t.Logf("pool families: %v", names)
	// The families do not depend on tracing: bunotel's query histogram,
	// labelled with a fixed db_name and table names guessed from the SQL,
	// was exported only with tracing on.
	for name := range fams {
		if strings.HasPrefix(name, "go_sql_query_timing") {
			t.Errorf("%s is exported with tracing on", name)
		}
	}
	// charts/eventapi/dashboards/eventapi.json, "PostgreSQL pool saturation".
	for _, name := range []string{"go_sql_connections_in_use", "go_sql_connections_max_open", "go_sql_connections_wait_count_total"} {
		if !slices.Contains(names, name) {
			t.Errorf("no %s (the dashboard queries it); pool families: %v", name, names)
		}
	}
}
