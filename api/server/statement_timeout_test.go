package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestStatementTimeoutFollowsTheRequestTimeout: on a direct connection the
// pool's statement_timeout is the request timeout when that is longer than
// the default (a fixed 15 s once cancelled every statement past it, whatever
// EVENTAPI_REQUEST_TIMEOUT allowed), and the default when shorter. Behind a
// transaction pooler none is sent: the role's setting applies.
func TestStatementTimeoutFollowsTheRequestTimeout(t *testing.T) {
	for _, tc := range []struct {
		request time.Duration
		want    string
	}{
		{time.Minute, "1min"},
		{5 * time.Second, "15s"},
	} {
		env := apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.RequestTimeout = tc.request }))
		var got string
		if err := env.Svc.DB.QueryRowContext(context.Background(), "SHOW statement_timeout").Scan(&got); err != nil {
			t.Fatal(err)
		}
		want := tc.want
		if pgtest.Pooler() == database.PoolerTransaction {
			want = "0" // the test role sets none
		}
		if got != want {
			t.Errorf("request timeout %v: statement_timeout %s, want %s", tc.request, got, want)
		}
	}
}
