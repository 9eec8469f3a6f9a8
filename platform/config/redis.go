package config

import (
	"fmt"
	"strconv"
	"time"
)

// Redis holds the edge store's Redis client settings. Zero values select the
// defaults of platform/edge; docs/edge.md ("Redis client settings") explains
// them.
type Redis struct {
	// Cluster treats the hosts of a redis:// URL as Redis Cluster seed
	// nodes (EVENTAPI_REDIS_CLUSTER=true), like redis+cluster://.
	Cluster bool
	// LimiterTimeout bounds one rate-limit decision; the limiter fails open
	// after it (EVENTAPI_REDIS_LIMITER_TIMEOUT, default 50ms).
	LimiterTimeout time.Duration
	// IdempotencyTimeout bounds one attempt of an idempotency-record
	// operation, retried once on timeout (EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT,
	// default 500ms).
	IdempotencyTimeout time.Duration
	// PoolSize is the connection pool size per Redis node
	// (EVENTAPI_REDIS_POOL_SIZE, default 50).
	PoolSize int
	// DialTimeout bounds opening one connection (EVENTAPI_REDIS_DIAL_TIMEOUT,
	// default 500ms).
	DialTimeout time.Duration
	// ReadTimeout and WriteTimeout are per-command socket ceilings
	// (EVENTAPI_REDIS_READ_TIMEOUT, EVENTAPI_REDIS_WRITE_TIMEOUT, default 1s).
	ReadTimeout, WriteTimeout time.Duration
}

// redisSettings reads the EVENTAPI_REDIS_* client settings; unset ones stay
// zero (the edge store's defaults).
func redisSettings(getenv Getenv, errs *[]error) Redis {
	var r Redis
	if v := getenv("EVENTAPI_REDIS_CLUSTER"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			*errs = append(*errs, fmt.Errorf("EVENTAPI_REDIS_CLUSTER %q must be true or false", v))
		}
		r.Cluster = b
	}
	r.LimiterTimeout = duration(getenv, "EVENTAPI_REDIS_LIMITER_TIMEOUT", 0, errs)
	r.IdempotencyTimeout = duration(getenv, "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT", 0, errs)
	r.DialTimeout = duration(getenv, "EVENTAPI_REDIS_DIAL_TIMEOUT", 0, errs)
	r.ReadTimeout = duration(getenv, "EVENTAPI_REDIS_READ_TIMEOUT", 0, errs)
	r.WriteTimeout = duration(getenv, "EVENTAPI_REDIS_WRITE_TIMEOUT", 0, errs)
	r.PoolSize = positiveInt(getenv, "EVENTAPI_REDIS_POOL_SIZE", 0, errs)
	return r
}
