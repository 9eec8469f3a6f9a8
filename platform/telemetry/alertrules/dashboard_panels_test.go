package alertrules

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDashboardQueriesReadRows: the queries of panels inside a collapsed
// row are read as the top-level panels' are.
func TestDashboardQueriesReadRows(t *testing.T) {
	tests := []struct {
		name, json string
		want       []string
	}{
		{"top level", `{"panels":[{"title":"Rate","targets":[{"refId":"A","expr":"sum(a_total)"}]}]}`, []string{"Rate A"}},
		{"inside a collapsed row", `{"panels":[{"title":"Row","type":"row","panels":[{"title":"Drops","targets":[{"refId":"B","expr":"rate(b_total[$__rate_interval])"}]}]}]}`, []string{"Drops B"}},
		{"both", `{"panels":[{"title":"Rate","targets":[{"refId":"A","expr":"a"}]},{"title":"Row","panels":[{"title":"In","targets":[{"refId":"A","expr":"b"}]}]}]}`, []string{"Rate A", "In A"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d.json")
			if err := os.WriteFile(path, []byte(tt.json), 0o600); err != nil {
				t.Fatal(err)
			}
			rules, err := DashboardQueries(path, API)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rules {
				got = append(got, r.Alert)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("queries %v, want %v", got, tt.want)
			}
		})
	}
}
