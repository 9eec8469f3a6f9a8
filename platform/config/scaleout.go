package config

import (
	"fmt"
	"time"
)

// Pooler modes of EVENTAPI_DATABASE_POOLER.
const (
	// PoolerNone: the service talks to PostgreSQL directly and may keep
	// prepared statements per connection; it sends statement_timeout as a
	// startup parameter, which PgBouncer refuses in every pool mode, so
	// PgBouncer, session mode included, takes PoolerTransaction.
	PoolerNone = "none"
	// PoolerTransaction: a PgBouncer-style transaction pooler hands each
	// transaction a possibly different server connection, so no session
	// state may be relied on (see docs/decisions.md).
	PoolerTransaction = "transaction"
)

// scaleOut reads the settings for running several pods: the drain delay, the
// pooler mode and the direct migration URL.
func scaleOut(getenv Getenv, c *Config, errs *[]error) {
	c.DrainDelay = nonNegativeDuration(getenv, "EVENTAPI_DRAIN_DELAY", 5*time.Second, errs)
	var err error
	if c.DatabasePooler, err = DatabasePooler(getenv); err != nil {
		*errs = append(*errs, err)
	}
	c.MigrateDatabaseURL = getenv("EVENTAPI_MIGRATE_DATABASE_URL")
	if err := CheckDatabaseURL("EVENTAPI_MIGRATE_DATABASE_URL", c.MigrateDatabaseURL, false); err != nil {
		*errs = append(*errs, err)
	}
}

// MigrationURL is the URL migrations connect to: the direct one when set.
func (c Config) MigrationURL() string {
	if c.MigrateDatabaseURL != "" {
		return c.MigrateDatabaseURL
	}
	return c.DatabaseURL
}

func nonNegativeDuration(getenv Getenv, name string, def time.Duration, errs *[]error) time.Duration {
	v := getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		*errs = append(*errs, fmt.Errorf("%s %q must be a duration such as 5s (0 disables)", name, v))
		return def
	}
	return d
}
