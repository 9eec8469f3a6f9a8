package database

import "testing"

// TestPgxConfigCaches: a direct connection keeps a small statement cache and
// no description cache (only pgx's cache_describe mode reads it); a
// transaction pooler gets neither; a cache size in the URL wins.
func TestPgxConfigCaches(t *testing.T) {
	cases := []struct {
		name              string
		url, pooler       string
		statements, descs int
	}{
		{name: "direct", url: "postgres://u@h/db", statements: 32, descs: 0},
		{name: "transaction pooler", url: "postgres://u@h/db", pooler: PoolerTransaction, statements: 0, descs: 0},
		{name: "sizes in the URL", url: "postgres://u@h/db?statement_cache_capacity=7&description_cache_capacity=9",
			statements: 7, descs: 9},
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
