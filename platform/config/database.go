package config

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5/pgconn"
)

// CheckDatabaseURL is the rule for a database URL setting such as
// EVENTAPI_DATABASE_URL, read by the API, the migrator and the operator
// alike: a postgres:// or postgresql:// URL that the driver takes. The
// driver's own check comes at start, beside the other settings' problems,
// instead of at the first connect (sslmode=bogus, an sslrootcert file that
// is not mounted); its message masks a password. An empty value is an
// error only when the setting is required.
func CheckDatabaseURL(name, v string, required bool) error {
	if v == "" {
		if required {
			return fmt.Errorf("%s is required (for example postgres://postgres@127.0.0.1:5432/eventapi?sslmode=disable)", name)
		}
		return nil
	}
	if u, err := url.Parse(v); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return errors.New(name + " must be a postgres:// or postgresql:// URL")
	}
	if _, err := pgconn.ParseConfig(v); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	return nil
}

// DatabasePooler reads EVENTAPI_DATABASE_POOLER: PoolerNone when unset.
func DatabasePooler(getenv Getenv) (string, error) {
	v := orDefault(getenv("EVENTAPI_DATABASE_POOLER"), PoolerNone)
	switch v {
	case PoolerNone, PoolerTransaction:
		return v, nil
	}
	return PoolerNone, fmt.Errorf("EVENTAPI_DATABASE_POOLER %q must be none or transaction", v)
}
