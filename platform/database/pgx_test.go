package database

import (
	"testing"
	"time"
)

// TestPgxConfigCaches: a direct connection keeps a small statement cache; a
// transaction pooler gets none; both keep a small description cache, which
// PlanEachCall needs; a cache size in the URL wins, but a description cache
// never falls below one entry.
func TestPgxConfigCaches(t *testing.T) {
	cases := []struct {
		name              string
		url, pooler       string
		statements, descs int
	}{
		{name: "direct", url: "postgres://u@h/db", statements: 32, descs: descriptionCacheCapacity},
		{name: "transaction pooler", url: "postgres://u@h/db", pooler: PoolerTransaction, statements: 0, descs: descriptionCacheCapacity},
		{name: "sizes in the URL", url: "postgres://u@h/db?statement_cache_capacity=7&description_cache_capacity=9",
			statements: 7, descs: 9},
		{name: "no description cache in the URL", url: "postgres://u@h/db?description_cache_capacity=0", statements: 32, descs: 1},
		{name: "behind the pooler, a size in the URL", url: "postgres://u@h/db?description_cache_capacity=3",
			pooler: PoolerTransaction, statements: 0, descs: 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := pgxConfig(c.url, Options{Pooler: c.pooler})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.StatementCacheCapacity != c.statements || cfg.DescriptionCacheCapacity != c.descs {
				t.Fatalf("caches = %d statements, %d descriptions; want %d, %d",
					cfg.StatementCacheCapacity, cfg.DescriptionCacheCapacity, c.statements, c.descs)
			}
		})
	}
}

// TestPgxConfigStatementTimeout: a direct connection sends the
// statement_timeout it is given, DefaultStatementTimeout when none, the
// URL's own when it names one; behind a transaction pooler it sends none
// (PgBouncer refuses the startup parameter).
func TestPgxConfigStatementTimeout(t *testing.T) {
	for _, c := range []struct {
		name, url string
		opt       Options
		want      string // "" for none sent
	}{
		{"the default", "postgres://u@h/db", Options{}, "15000"},
		{"the request timeout's", "postgres://u@h/db", Options{StatementTimeout: time.Minute}, "60000"},
		{"the URL's wins", "postgres://u@h/db?statement_timeout=5000", Options{StatementTimeout: time.Minute}, "5000"},
		{"behind a transaction pooler", "postgres://u@h/db", Options{Pooler: PoolerTransaction, StatementTimeout: time.Minute}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := pgxConfig(c.url, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.RuntimeParams["statement_timeout"]; got != c.want {
				t.Fatalf("statement_timeout %q, want %q", got, c.want)
			}
		})
	}
}
