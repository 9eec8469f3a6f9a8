package pgtest

import (
	"context"
	"fmt"
	"log"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
)

// StaleAfter is the age past which a test database is certainly left over
// from a run that died before its cleanup: no test package runs that long.
const StaleAfter = 3 * time.Hour

// testDatabaseName matches only the names databaseName makes, and captures
// their creation time (unix seconds). Databases named otherwise, test
// databases of the old unstamped form included, are never touched.
var testDatabaseName = regexp.MustCompile(`^eventapi_test_[a-z0-9_]{1,24}_([0-9]{10})_[0-9a-f]{12}$`)

var sweepOnce sync.Once

// databaseName is the name of a test database of pkg created at now.
func databaseName(pkg string, now time.Time) string {
	return fmt.Sprintf("eventapi_test_%s_%d_%s", pkg, now.Unix(), randomSuffix())
}

// staleDatabases returns the names among names that databaseName made
// more than StaleAfter before now.
func staleDatabases(names []string, now time.Time) []string {
	var stale []string
	for _, n := range names {
		m := testDatabaseName.FindStringSubmatch(n)
		if m == nil {
			continue
		}
		sec, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			continue
		}
		if now.Sub(time.Unix(sec, 0)) > StaleAfter {
			stale = append(stale, n)
		}
	}
	return stale
}

// SweepStale drops the test databases older than StaleAfter on the test
// server and returns their names. NewDatabase runs it once per process.
func SweepStale(ctx context.Context) ([]string, error) {
	admin, err := database.Open(ctx, AdminURL(), adminOptions(1))
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	return sweepStale(ctx, admin, time.Now()), nil
}

// sweepStale drops stale test databases. It is safe beside other runs: a
// database is only dropped when its name says this package created it more
// than StaleAfter ago, and without FORCE, so one that still has a session
// (a test that really is still running) is left alone. Failures are logged,
// never fatal: the sweep is housekeeping.
func sweepStale(ctx context.Context, admin bun.IDB, now time.Time) []string {
	var names []string
	if err := admin.NewRaw("SELECT datname FROM pg_database WHERE datname LIKE 'eventapi\\_test\\_%'").Scan(ctx, &names); err != nil {
		log.Printf("pgtest: listing stale test databases: %v", err)
		return nil
	}
	var dropped []string
	for _, name := range staleDatabases(names, now) {
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS ?", bun.Ident(name)); err != nil {
			log.Printf("pgtest: leaving stale test database %s: %v", name, err)
			continue
		}
		dropped = append(dropped, name)
	}
	return dropped
}
