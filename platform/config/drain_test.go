package config

import (
	"slices"
	"strings"
	"testing"
)

// A request timeout longer than the shutdown timeout is accepted with one
// warning; equal or shorter (the defaults are both 20 s) gives none.
func TestDrainWarnings(t *testing.T) {
	for _, tc := range []struct {
		name     string
		env      map[string]string
		warnings []string // substrings, one per warning
	}{
		{name: "defaults", env: map[string]string{}},
		{name: "equal", env: map[string]string{"EVENTAPI_REQUEST_TIMEOUT": "30s", "EVENTAPI_SHUTDOWN_TIMEOUT": "30s"}},
		{name: "shorter request timeout", env: map[string]string{"EVENTAPI_REQUEST_TIMEOUT": "5s", "EVENTAPI_SHUTDOWN_TIMEOUT": "10s"}},
		// The drain delay does not count: a request arriving at its end
		// has only the shutdown timeout.
		{name: "longer than the shutdown timeout", env: map[string]string{"EVENTAPI_SHUTDOWN_TIMEOUT": "10s", "EVENTAPI_DRAIN_DELAY": "30s"},
			warnings: []string{"EVENTAPI_REQUEST_TIMEOUT (20s) is longer than EVENTAPI_SHUTDOWN_TIMEOUT (10s)"}},
		{name: "by a millisecond", env: map[string]string{"EVENTAPI_REQUEST_TIMEOUT": "20001ms"},
			warnings: []string{"EVENTAPI_REQUEST_TIMEOUT (20.001s) is longer than EVENTAPI_SHUTDOWN_TIMEOUT (20s)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"EVENTAPI_DATABASE_URL": "postgres://u@h/db"}
			for k, v := range tc.env {
				env[k] = v
			}
			c, err := FromEnv(func(k string) string { return env[k] })
			if err != nil {
				t.Fatalf("refused: %v (a warning must not stop the service)", err)
			}
			got := c.Warnings()
			if len(got) != len(tc.warnings) || !slices.EqualFunc(got, tc.warnings, strings.Contains) {
				t.Fatalf("warnings %q, want %q", got, tc.warnings)
			}
		})
	}
}
