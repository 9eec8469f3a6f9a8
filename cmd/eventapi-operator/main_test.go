package main

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestParseFlags(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		wantErr string
		check   func(t *testing.T, f flags)
	}{
		{args: nil, check: func(t *testing.T, f flags) {
			if f.metricsAddr != ":8080" || f.probeAddr != ":8081" || f.leaderElect || f.logLevel != "info" || f.dbMaxConns != 4 ||
				f.leaderID != "eventapi-operator.eventapi.io" {
				t.Errorf("defaults %+v", f)
			}
		}},
		{args: []string{"--leader-elect", "--watch-namespaces", "a, b,,c", "--metrics-bind-address=0"}, check: func(t *testing.T, f flags) {
			if !f.leaderElect || f.metricsAddr != "0" || !slices.Equal(splitList(f.namespaces), []string{"a", "b", "c"}) {
				t.Errorf("flags %+v", f)
			}
		}},
		{args: []string{"--log-level", "loud"}, wantErr: "--log-level"},
		{args: []string{"--db-max-conns", "0"}, wantErr: "--db-max-conns must be at least 1"},
		{args: []string{"--db-max-conns=-3"}, wantErr: "--db-max-conns must be at least 1"},
		{args: []string{"--db-max-conns", "1"}, check: func(t *testing.T, f flags) {
			if f.dbMaxConns != 1 {
				t.Errorf("db-max-conns %d", f.dbMaxConns)
			}
		}},
		{args: []string{"--nope"}, wantErr: "not defined"},
		{args: []string{"extra"}, wantErr: "unexpected arguments"},
	} {
		f, err := parseFlags(tc.args, io.Discard)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: error %v, want %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		tc.check(t, f)
	}
}

func TestRunNeedsDatabaseURL(t *testing.T) {
	err := run(context.Background(), nil, io.Discard, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "EVENTAPI_DATABASE_URL") {
		t.Fatalf("run without a database URL: %v", err)
	}
}
