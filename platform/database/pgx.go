package database

import (
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

func pgxConfig(url, pooler string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database URL: %w", err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 5 * time.Second
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["timezone"] = "UTC"
	cfg.RuntimeParams["application_name"] = "eventapi"
	if pooler == PoolerTransaction {
		forTransactionPooler(cfg)
		return cfg, nil
	}
	if _, ok := cfg.RuntimeParams["statement_timeout"]; !ok {
		cfg.RuntimeParams["statement_timeout"] = "15000"
	}
	// bun writes argument values into the SQL text, so most statements are
	// seen once; those run unprepared (reuse.go), and only texts seen again
	// reach this cache. pgx's default of 512 prepared statements per
	// connection held about 100 MiB over a 20-connection pool (measured by
	// bench/catalogue); a small cache keeps the constant-text queries (first
	// list pages, auth) prepared.
	if !strings.Contains(url, "statement_cache_capacity") {
		cfg.StatementCacheCapacity = 32
	}
	// The description cache serves only pgx's cache_describe mode, which
	// the service never uses (it prepares or sends a statement once,
	// reuse.go); pgx would still allocate it for 512 entries on every
	// connection.
	if !strings.Contains(url, "description_cache_capacity") {
		cfg.DescriptionCacheCapacity = 0
	}
	return cfg, nil
}
