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

// Redis is the Store shared by every instance. Keys are prefixed and carry a
// hash tag per logical key, so each script touches one slot and works on
// Redis Cluster.
type Redis struct {
	client redis.UniversalClient
	prefix string
}

// RedisOptions tunes the client.
type RedisOptions struct {
	// Prefix namespaces every key (default "eventapi:").
	Prefix string
	// Timeout bounds each command (default 50ms): the limiter fails open
	// within it when Redis is unreachable.
	Timeout time.Duration
	// Tracing adds the go-redis OpenTelemetry hook.
	Tracing bool
}

// NewRedis connects to the Redis at url (redis:// or rediss://).
func NewRedis(url string, opt RedisOptions) (*Redis, error) {
	o, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("parse Redis URL: %w", err)
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 50 * time.Millisecond
	}
	if opt.Prefix == "" {
		opt.Prefix = "eventapi:"
	}
	o.DialTimeout = 200 * time.Millisecond
	o.ReadTimeout = opt.Timeout
	o.WriteTimeout = opt.Timeout
	o.MaxRetries = 0
	o.PoolTimeout = opt.Timeout
	o.ContextTimeoutEnabled = true
	c := redis.NewClient(o)
	if opt.Tracing {
		if err := redisotel.InstrumentTracing(c); err != nil {
			return nil, err
		}
	}
	return &Redis{client: c, prefix: opt.Prefix}, nil
}

// Client exposes the underlying client (for tests and benchmarks).
func (r *Redis) Client() redis.UniversalClient { return r.client }

func (r *Redis) key(k string) string { return r.prefix + "{" + k + "}" }

func unavailable(err error) error {
	if err == nil || errors.Is(err, redis.Nil) {
		return err
	}
	return fmt.Errorf("%w: %v", ErrUnavailable, err)
}

// slidingWindow is an exact sliding-window log: one sorted set per bucket of
// admitted request times (Redis server time, microseconds). It trims entries
// older than the window, admits only below the limit, and never records a
// rejected request. Memory per bucket is bounded by the limit.
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
end
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000) + 1000)
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = now
if oldest[2] then reset = tonumber(oldest[2]) + window end
return {allowed, count, reset, now}
`)

// Admit implements Store in one round trip (EVALSHA, falling back to EVAL).
func (r *Redis) Admit(ctx context.Context, key string, limit int, window time.Duration) (Decision, error) {
	var nonce [6]byte
	_, _ = rand.Read(nonce[:])
	res, err := slidingWindow.Run(ctx, r.client, []string{r.key("rl:" + key)},
		window.Microseconds(), limit, hex.EncodeToString(nonce[:])).Int64Slice()
	if err != nil {
		return Decision{}, unavailable(err)
	}
	d := Decision{Allowed: res[0] == 1, Limit: limit, Remaining: max(0, limit-int(res[1])),
		Reset: time.UnixMicro(res[2]).UTC()}
	if !d.Allowed {
		d.RetryAfter = time.Duration(res[2]-res[3]) * time.Microsecond
	}
	return d, nil
}

// SetNX implements Store.
func (r *Redis) SetNX(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	ok, err := r.client.SetNX(ctx, r.key(key), value, ttl).Result()
	return ok, unavailable(err)
}

// Set implements Store.
func (r *Redis) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return unavailable(r.client.Set(ctx, r.key(key), value, ttl).Err())
}

// Get implements Store.
func (r *Redis) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, err := r.client.Get(ctx, r.key(key)).Bytes()
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
	return unavailable(r.client.Del(ctx, r.key(key)).Err())
}

// Ping implements Store.
func (r *Redis) Ping(ctx context.Context) error { return unavailable(r.client.Ping(ctx).Err()) }

// Close implements Store.
func (r *Redis) Close() error { return r.client.Close() }
