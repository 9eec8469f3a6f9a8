package storage

import (
	"reflect"
	"testing"
)

// TestChangesSetAssignsAColumnOnce: setting a column again replaces its
// value, so a transaction run again after a serialization failure, which
// sets its columns again, does not make an UPDATE that assigns one column
// twice (PostgreSQL refuses it, and the request answered 500).
func TestChangesSetAssignsAColumnOnce(t *testing.T) {
	for _, tc := range []struct {
		name       string
		set        [][2]string
		cols, vals []string
	}{
		{"one", [][2]string{{"status", "packed"}}, []string{"status"}, []string{"packed"}},
		{"two columns", [][2]string{{"name", "A"}, {"status", "packed"}}, []string{"name", "status"}, []string{"A", "packed"}},
		{"a column again", [][2]string{{"status", "in_progress"}, {"name", "A"}, {"status", "packed"}},
			[]string{"status", "name"}, []string{"packed", "A"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Changes
			for _, s := range tc.set {
				c.Set(s[0], s[1])
			}
			vals := make([]string, len(c.vals))
			for i, v := range c.vals {
				vals[i] = v.(string)
			}
			if !reflect.DeepEqual(c.cols, tc.cols) || !reflect.DeepEqual(vals, tc.vals) {
				t.Fatalf("columns %v values %v, want %v %v", c.cols, vals, tc.cols, tc.vals)
			}
		})
	}
}
