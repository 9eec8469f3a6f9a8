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
	// after it (EVENTAPI_REDIS_LIMITER_TIMEOUT, default
	// DefaultLimiterTimeout, from MinLimiterTimeout to MaxLimiterTimeout).
	LimiterTimeout time.Duration
	// IdempotencyTimeout bounds one attempt of an idempotency-record
	// operation, retried once on timeout (EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT,
	// default DefaultIdempotencyTimeout, from MinIdempotencyTimeout to
	// MaxIdempotencyTimeout).
	IdempotencyTimeout time.Duration
	// PoolSize is the connection pool size per Redis node
	// (EVENTAPI_REDIS_POOL_SIZE, default 50).
	PoolSize int
	// DialTimeout bounds opening one connection (EVENTAPI_REDIS_DIAL_TIMEOUT,
	// default 500ms).
	DialTimeout time.Duration
	// ReadTimeout and WriteTimeout are per-command socket ceilings
	// (EVENTAPI_REDIS_READ_TIMEOUT, EVENTAPI_REDIS_WRITE_TIMEOUT). Unset,
	// platform/edge takes 1s or the longest per-call bound above when that
	// is longer; set, they may not be shorter than a per-call bound
	// (socketCeilings).
	ReadTimeout, WriteTimeout time.Duration
}

// The per-call bounds applied when their variables are unset. platform/edge
// applies them (edge.DefaultLimiterTimeout and edge.DefaultIdempotencyTimeout
// are these); they are here so that socketCeilings compares a socket timeout
// with the bound that will really apply.
const (
	DefaultLimiterTimeout     = 50 * time.Millisecond
	DefaultIdempotencyTimeout = 500 * time.Millisecond
)

// The range of EVENTAPI_REDIS_LIMITER_TIMEOUT (docs/edge.md, "Redis client
// settings"). The limiter is in front of every request, so its bound is
// latency any request may gain while Redis is slow, and it fails open after
// it, so a bound Redis cannot meet turns rate limiting off.
const (
	// MinLimiterTimeout: a healthy Redis answers in well under a
	// millisecond; a shorter bound fails open on a healthy Redis.
	MinLimiterTimeout = time.Millisecond
	// MaxLimiterTimeout is the default socket ceiling (read and write
	// timeouts), which the docs keep above every call's own deadline, and
	// the patient value tests on a starved machine use; 50 ms is only the
	// default.
	MaxLimiterTimeout = time.Second
)

// The range of EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT (docs/edge.md, "Redis
// client settings"). A keyed write whose record operation misses the bound
// twice is refused with 503, and /readyz pings Redis with it, so a bound
// Redis cannot meet refuses every keyed write and reports a healthy Redis
// unavailable; a long one only makes a keyed write wait longer for a Redis
// that stalls.
const (
	// MinIdempotencyTimeout is many times a healthy Redis's round trip
	// (well under a millisecond). Shorter bounds turn a busy moment into
	// refused writes: on a CPU-starved pod 5 ms refused 107 of 2,179
	// keyed writes, 50 ms 3 of 1,529 and the default none (docs/edge.md).
	MinIdempotencyTimeout = 10 * time.Millisecond
	// MaxIdempotencyTimeout is far above the 500 ms default, high enough
	// for api/edgetest's crash test, which holds a process between COMMIT
	// and its reply with a 10-minute bound, and low enough to catch a
	// unit slip such as "500m" (minutes) for 500 ms.
	MaxIdempotencyTimeout = 10 * time.Minute
)

// The range of EVENTAPI_REDIS_DIAL_TIMEOUT (docs/edge.md, "Redis client
// settings"). Every connection waits up to it to open, and the limiter
// fails open and keyed writes are refused while none opens, so a bound no
// dial can meet (1ns was accepted) starts a process with rate limiting off.
const (
	// MinDialTimeout leaves room for a TCP and TLS handshake across zones.
	MinDialTimeout = 10 * time.Millisecond
	// MaxDialTimeout catches a unit slip ("500m" is 500 minutes): a dial
	// never needs a minute.
	MaxDialTimeout = time.Minute
)

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
	r.LimiterTimeout = boundedDuration(getenv, "EVENTAPI_REDIS_LIMITER_TIMEOUT", MinLimiterTimeout, MaxLimiterTimeout,
		"every request waits up to it for its rate-limit decision, which fails open after it", errs)
	r.IdempotencyTimeout = boundedDuration(getenv, "EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT", MinIdempotencyTimeout, MaxIdempotencyTimeout,
		"a keyed write whose Idempotency-Key record misses it twice is refused with 503, and /readyz pings Redis with it", errs)
	r.DialTimeout = boundedDuration(getenv, "EVENTAPI_REDIS_DIAL_TIMEOUT", MinDialTimeout, MaxDialTimeout,
		"every Redis connection waits up to it to open, and while none opens rate limiting is off and keyed writes are refused", errs)
	r.ReadTimeout = duration(getenv, "EVENTAPI_REDIS_READ_TIMEOUT", 0, errs)
	r.WriteTimeout = duration(getenv, "EVENTAPI_REDIS_WRITE_TIMEOUT", 0, errs)
	r.PoolSize = positiveInt(getenv, "EVENTAPI_REDIS_POOL_SIZE", 0, errs)
	socketCeilings(getenv, r, errs)
	return r
}

// boundedDuration reads the duration setting name, unset (0: the edge
// store's default) or from least to most; outside, the problem is added to
// errs with why the range matters, and the setting reads as unset so that
// it is not compared with others (socketCeilings).
func boundedDuration(getenv Getenv, name string, least, most time.Duration, why string, errs *[]error) time.Duration {
	v := getenv(name)
	if v == "" {
		return 0
	}
	// Zero and negative durations get the range too: duration's "such as
	// 60s" would suggest a value the range refuses.
	d, err := time.ParseDuration(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s %q must be a duration from %v to %v, such as %v", name, v, least, most, least))
		return 0
	}
	if d < least || d > most {
		*errs = append(*errs, fmt.Errorf("%s %q must be from %v to %v: %s (docs/edge.md)", name, getenv(name), least, most, why))
		return 0
	}
	return d
}

// socketCeilings refuses a read or write timeout set shorter than a per-call
// bound. go-redis ends each socket read and write at the earlier of the
// call's context deadline and the socket timeout (the client runs with
// ContextTimeoutEnabled), so a longer per-call bound would be silently cut
// to the socket timeout (docs/edge.md, "Redis client settings"). Unset
// socket timeouts are raised to the longest bound by platform/edge instead.
func socketCeilings(getenv Getenv, r Redis, errs *[]error) {
	for _, socket := range []struct {
		name string
		d    time.Duration
	}{
		{"EVENTAPI_REDIS_READ_TIMEOUT", r.ReadTimeout},
		{"EVENTAPI_REDIS_WRITE_TIMEOUT", r.WriteTimeout},
	} {
		if socket.d == 0 {
			continue // unset (or refused already)
		}
		for _, call := range perCallBounds(getenv, r) {
			if socket.d < call.d {
				*errs = append(*errs, fmt.Errorf("%s %q is shorter than %s (%v%s): each Redis call ends at the "+
					"shorter of the two, so set %s to at least %v or leave it unset (docs/edge.md, \"Redis client settings\")",
					socket.name, getenv(socket.name), call.name, call.d, call.note, socket.name, call.d))
			}
		}
	}
}

// perCallBound is one per-call bound as it will apply: note says when it is
// the default.
type perCallBound struct {
	name, note string
	d          time.Duration
}

// perCallBounds returns the limiter's and the idempotency records' bounds,
// the defaults where unset.
func perCallBounds(getenv Getenv, r Redis) []perCallBound {
	bound := func(name string, set, def time.Duration) perCallBound {
		if set > 0 {
			return perCallBound{name: name, d: set}
		}
		if getenv(name) != "" {
			// Refused already: no second error about a value not taken.
			return perCallBound{name: name}
		}
		return perCallBound{name: name, d: def, note: ", the default"}
	}
	return []perCallBound{
		bound("EVENTAPI_REDIS_LIMITER_TIMEOUT", r.LimiterTimeout, DefaultLimiterTimeout),
		bound("EVENTAPI_REDIS_IDEMPOTENCY_TIMEOUT", r.IdempotencyTimeout, DefaultIdempotencyTimeout),
	}
}
