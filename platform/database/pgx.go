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
	keepDescriptions(cfg, strings.Contains(url, "description_cache_capacity"))
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
	return cfg, nil
}

// descriptionCacheCapacity is the size of each connection's description
// cache unless the URL names one.
const descriptionCacheCapacity = 16

// keepDescriptions sizes cfg's description cache. It serves pgx's
// cache_describe mode (PlanEachCall), which the service uses only for the
// few statements that must be planned on every call, so it is small: pgx's
// default would allocate 512 entries on every connection. A size given in
// the URL (inURL) is kept, but never below one entry, since cache_describe
// refuses to run without the cache.
func keepDescriptions(cfg *pgx.ConnConfig, inURL bool) {
	if !inURL {
		cfg.DescriptionCacheCapacity = descriptionCacheCapacity
	}
	cfg.DescriptionCacheCapacity = max(cfg.DescriptionCacheCapacity, 1)
}

// PlanEachCall is the leading query argument that makes pgx send a
// statement unnamed, with its parameters, on every call, so that
// PostgreSQL plans it for the values given and never caches a generic plan
// for it (a plan made for no organization in particular). The statement is
// described once per connection (pgx's cache_describe mode) and its results
// come in the binary format; each call is one round trip, on a direct
// connection and behind a transaction pooler alike. Both pgx's Query and
// database/sql's QueryContext on a pgx connection accept it. See
// docs/architecture.md, "Expansions".
const PlanEachCall = pgx.QueryExecModeCacheDescribe
