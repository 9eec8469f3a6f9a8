package config

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisSchemes are the accepted EVENTAPI_REDIS_URL schemes; the +cluster ones
// name a Redis Cluster by seed nodes: redis+cluster://host:port,host:port.
var redisSchemes = map[string]bool{"redis": true, "rediss": true, "redis+cluster": true, "rediss+cluster": true}

// checkRedisURL reports what the Redis client would refuse in raw, read as
// platform/edge reads it: a single node's URL as go-redis parses it, or a
// cluster's seed nodes (redis+cluster://, or any URL with cluster set), of
// which there must be at least one.
func checkRedisURL(raw string, cluster bool) error {
	u, err := url.Parse(raw)
	if err != nil || !redisSchemes[u.Scheme] {
		return errors.New("must be a redis://, rediss://, redis+cluster:// or rediss+cluster:// URL")
	}
	single, isCluster := strings.CutSuffix(u.Scheme, "+cluster")
	if !isCluster && !cluster {
		_, err := redis.ParseURL(raw)
		return err
	}
	seeds := strings.Split(u.Host, ",")
	for _, seed := range seeds {
		if seed == "" {
			return errors.New("names no Redis Cluster seed node (redis+cluster://host:port,host:port)")
		}
	}
	first := *u
	first.Scheme, first.Host, first.Path = single, seeds[0], ""
	_, err = redis.ParseClusterURL(first.String())
	return err
}

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
