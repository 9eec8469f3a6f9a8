package edge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/extra/redisotel/v9"
	"github.com/redis/go-redis/v9"
)

// Redis is the Store shared by every instance.
//
// Key layout: every key is Prefix + "{" + name + "}", so the whole logical
// name is the hash tag and each command or script touches exactly one slot
// (Redis Cluster-safe). Names used by eventapi:
//
//	rl:v2:org:<organization id>        sorted set, the v2 sliding window
//	rl:v1:key:<api key id>             sorted set, the v1 sliding window
//	idem:<organization id>:<sha256>    string, an idempotency record
type Redis struct {
	client  redis.UniversalClient
	prefix  string
	timeout time.Duration
}

// RedisOptions tunes the client.
type RedisOptions struct {
	// Prefix namespaces every key (default "eventapi:").
	Prefix string
	// Timeout bounds each operation, dialling included (default
	// DefaultTimeout, 50ms): the limiter fails open within it when Redis is
	// unreachable.
	Timeout time.Duration
	// Tracing adds the go-redis OpenTelemetry hook.
	Tracing bool
	// Metrics reports the connection pool and command durations through
	// the global OpenTelemetry meter provider.
	Metrics bool
}

// NewRedis connects to the Redis at url (redis:// or rediss://).
func NewRedis(url string, opt RedisOptions) (*Redis, error) {
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("parse Redis URL: %w", err)
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	if opt.Prefix == "" {
		opt.Prefix = "eventapi:"
	}
	// Dials made in the background (pool refill, the reconnect probe after
	// an outage) may take longer; a request never waits for more than
	// Timeout because every operation carries a context deadline.
	o.DialTimeout = 200 * time.Millisecond
	o.ReadTimeout = opt.Timeout
	o.WriteTimeout = opt.Timeout
	o.MaxRetries = -1 // 0 would mean the default (3 retries)
	// One dial attempt per operation: with the default (5 attempts, 100 ms
	// apart) every request during an outage would wait out the timeout
	// instead of failing at once on "connection refused".
	o.DialerRetries = 1
	o.PoolTimeout = opt.Timeout
	o.ContextTimeoutEnabled = true
	c := redis.NewClient(o)
	if opt.Tracing {
		if err := redisotel.InstrumentTracing(c); err != nil {
			return nil, err
		}
	}
	if opt.Metrics {
		if err := redisotel.InstrumentMetrics(c); err != nil {
			return nil, err
		}
	}
	return &Redis{client: c, prefix: opt.Prefix, timeout: opt.Timeout}, nil
}

// Client exposes the underlying client (for tests and benchmarks).
func (r *Redis) Client() redis.UniversalClient { return r.client }

// Key returns the Redis key of a logical name: prefix and hash tag.
func (r *Redis) Key(name string) string { return r.prefix + "{" + name + "}" }

func unavailable(err error) error {
	if err == nil || errors.Is(err, redis.Nil) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

func (r *Redis) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, r.timeout)
}

// slidingWindow is an exact sliding-window log: one sorted set per bucket of
// admitted request times (Redis server time, microseconds, so every instance
// shares one clock). It trims entries at or before now - window, admits only
// below the limit, and never records a rejected request. Memory per bucket is
// bounded by the limit, and the key expires one second after its newest
// entry leaves the window.
var slidingWindow = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, now .. ':' .. ARGV[3])
  count = count + 1
  allowed = 1
  redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000) + 1000)
end
local reset = now
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if oldest[2] then reset = tonumber(oldest[2]) + window end
return {allowed, count, reset, now}
`)

// claim returns the value under KEYS[1], or stores ARGV[1] there for ARGV[2]
// milliseconds and returns nil (false) when it is absent.
var claim = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`)

// Admit implements Store in one round trip (EVALSHA; EVAL once after the
// script cache was flushed, for example by a Redis restart).
func (r *Redis) Admit(ctx context.Context, key string, limit int, window time.Duration) (Decision, error) {
	var nonce [6]byte
	_, _ = rand.Read(nonce[:])
	ctx, cancel := r.bound(ctx)
	defer cancel()
	res, err := slidingWindow.Run(ctx, r.client, []string{r.Key("rl:" + key)},
		window.Microseconds(), limit, hex.EncodeToString(nonce[:])).Int64Slice()
	if err != nil {
		return Decision{}, unavailable(err)
	}
	if len(res) != 4 {
		return Decision{}, fmt.Errorf("%w: unexpected script reply %v", ErrUnavailable, res)
	}
	d := Decision{Allowed: res[0] == 1, Limit: limit, Remaining: max(0, limit-int(res[1])),
		Reset: time.UnixMicro(res[2]).UTC()}
	if !d.Allowed {
		d.RetryAfter = time.Duration(res[2]-res[3]) * time.Microsecond
	}
	return d, nil
}

// ttlMillis rounds ttl up to whole milliseconds (Redis PX), at least 1.
func ttlMillis(ttl time.Duration) int64 {
	return max(1, int64((ttl+time.Millisecond-1)/time.Millisecond))
}

// Claim implements Store in one round trip.
func (r *Redis) Claim(ctx context.Context, key string, value []byte, ttl time.Duration) ([]byte, bool, error) {
	ctx, cancel := r.bound(ctx)
	defer cancel()
	v, err := claim.Run(ctx, r.client, []string{r.Key(key)}, value, int64(ttlMillis(ttl))).Text()
	if errors.Is(err, redis.Nil) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, unavailable(err)
	}
	return []byte(v), false, nil
}

// SetNX implements Store.
func (r *Redis) SetNX(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	ctx, cancel := r.bound(ctx)
	defer cancel()
	ok, err := r.client.SetNX(ctx, r.Key(key), value, time.Duration(ttlMillis(ttl))*time.Millisecond).Result()
	return ok, unavailable(err)
}

// Set implements Store.
func (r *Redis) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	ctx, cancel := r.bound(ctx)
	defer cancel()
	return unavailable(r.client.Set(ctx, r.Key(key), value, time.Duration(ttlMillis(ttl))*time.Millisecond).Err())
}

// Get implements Store.
func (r *Redis) Get(ctx context.Context, key string) ([]byte, bool, error) {
	ctx, cancel := r.bound(ctx)
	defer cancel()
	v, err := r.client.Get(ctx, r.Key(key)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, unavailable(err)
	}
	return v, true, nil
}

// Delete implements Store.
func (r *Redis) Delete(ctx context.Context, key string) error {
	ctx, cancel := r.bound(ctx)
	defer cancel()
	return unavailable(r.client.Del(ctx, r.Key(key)).Err())
}

// Ping implements Store.
func (r *Redis) Ping(ctx context.Context) error {
	ctx, cancel := r.bound(ctx)
	defer cancel()
	return unavailable(r.client.Ping(ctx).Err())
}

// Close implements Store.
func (r *Redis) Close() error { return r.client.Close() }
