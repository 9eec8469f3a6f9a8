// Package storagetest checks the storage layer's first rule in tests: every
// statement that reads, changes or inserts rows of a tenant table (a table
// or view with an organization_id column) names the organization. The test
// harness (api/apitest) installs Guard on the service's database, so every
// query the suite runs, through any route or store, is checked.
package storagetest

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage"
)

// exempt are the tenant tables read across organizations by design:
// api_keys is searched by key hash to find the organization in the first
// place (tenancy's authenticator).
var exempt = map[string]bool{"api_keys": true}

// EveryOrganization marks a statement that spans organizations on purpose
// (a retention sweep): it opens the statement as an SQL comment, so the
// exception is visible where the query is written.
const EveryOrganization = "/* every organization: "

// Guard is a bun.QueryHook that records every statement on a tenant table
// without an organization filter and fails the test at its end.
type Guard struct {
	tables map[string]bool
	mu     sync.Mutex
	bad    []string
}

// Install adds a Guard to db and registers the check with tb: violations
// fail the test when it ends (hooks run on server goroutines, so they only
// record).
func Install(tb testing.TB, db *bun.DB) *Guard {
	tb.Helper()
	g, err := New(context.Background(), db)
	if err != nil {
		tb.Fatal(err)
	}
	// The service (and whatever else was given db) holds this *bun.DB: the
	// hooked copy replaces it in place so that every holder runs the guard.
	*db = *db.WithQueryHook(g)
	// The detail and list statements storage sends with real parameters
	// bypass bun's hooks; storage shows them to the guard itself.
	storage.AddStatementHook(db, func(_ context.Context, query string) { g.see(query) })
	tb.Cleanup(func() {
		for _, q := range g.Violations() {
			tb.Errorf("query on a tenant table without organization_id filter:\n%s", q)
		}
	})
	return g
}

// New reads the tenant tables of db's schema.
func New(ctx context.Context, db *bun.DB) (*Guard, error) {
	var names []string
	err := db.NewRaw(`SELECT DISTINCT table_name::text FROM information_schema.columns
		WHERE column_name = 'organization_id' AND table_schema = current_schema()`).Scan(ctx, &names)
	if err != nil {
		return nil, err
	}
	g := &Guard{tables: map[string]bool{}}
	for _, n := range names {
		if !exempt[n] {
			g.tables[n] = true
		}
	}
	return g, nil
}

// Violations returns the statements recorded so far.
func (g *Guard) Violations() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.bad...)
}

// BeforeQuery implements bun.QueryHook.
func (g *Guard) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	g.see(e.Query)
	return ctx
}

// see records query when it fails Check.
func (g *Guard) see(query string) {
	if !g.Check(query) {
		g.mu.Lock()
		g.bad = append(g.bad, query)
		g.mu.Unlock()
	}
}

// AfterQuery implements bun.QueryHook.
func (g *Guard) AfterQuery(context.Context, *bun.QueryEvent) {}

var (
	// tableRef is a table read or changed: FROM t, JOIN t, UPDATE t.
	tableRef = regexp.MustCompile(`(?i)\b(?:FROM|JOIN|UPDATE)\s+(?:ONLY\s+)?"?([a-z_][a-z0-9_]*)"?`)
	// insertRef is an insert into t with its column list.
	insertRef = regexp.MustCompile(`(?i)\bINSERT\s+INTO\s+"?([a-z_][a-z0-9_]*)"?(?:\s+AS\s+"?[a-z_]+"?)?\s*\(([^)]*)\)`)
	// orgPredicate is a comparison on organization_id (alone, qualified,
	// or first in a row comparison), or a test for the rows of no
	// organization (IS NULL: the request log's records refused before
	// authentication).
	orgPredicate = regexp.MustCompile(`(?i)organization_id"?\s*(?:=|<>|IN\b|IS\s+NULL\b)|\(\s*(?:"?[a-z_]+"?\.)?"?organization_id"?\s*,[^)]*\)\s*(?:=|IN\b)|=\s*(?:"?[a-z_]+"?\.)?"?organization_id\b`)
)

// Check reports whether query names the organization wherever it touches a
// tenant table: as many organization_id comparisons as tenant tables read
// or changed, and organization_id in the column list of every insert.
func (g *Guard) Check(query string) bool {
	if strings.HasPrefix(strings.TrimSpace(query), EveryOrganization) {
		return true
	}
	refs := 0
	for _, m := range tableRef.FindAllStringSubmatch(query, -1) {
		if g.tables[strings.ToLower(m[1])] {
			refs++
		}
	}
	if refs > len(orgPredicate.FindAllStringIndex(query, -1)) {
		return false
	}
	for _, m := range insertRef.FindAllStringSubmatch(query, -1) {
		if g.tables[strings.ToLower(m[1])] && !strings.Contains(m[2], "organization_id") {
			return false
		}
	}
	return true
}
