package requestlogs_test

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/requestlog"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// partitioned creates the partitions from yesterday to tomorrow, as the
// serve process does at start.
func partitioned(t *testing.T, db *bun.DB) {
	t.Helper()
	if _, err := requestlog.Maintain(context.Background(), db, requestlog.MaintainOptions{Retention: 72 * time.Hour, Ahead: 1}); err != nil {
		t.Fatal(err)
	}
}
