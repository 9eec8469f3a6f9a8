package database

import "testing"

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
			cfg, err := pgxConfig(c.url, c.pooler)
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
