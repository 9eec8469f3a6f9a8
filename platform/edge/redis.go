package edge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/extra/redisotel/v9"
	"github.com/redis/go-redis/v9"

	"github.com/eventapi/eventapi/platform/config"
)

// Redis is the Store shared by every instance.
//
// Key layout: every key is Prefix + "{" + name + "}", so the whole logical
// name is the hash tag and each command or script touches exactly one slot
// (Redis Cluster-safe). Names used by eventapi:
//
//	window:v2:org:<organization id>    list, the v2 sliding window
//	window:v1:key:<api key id>         list, the v1 sliding window
//	idem:<organization id>:<sha256>    string, an idempotency record
type Redis struct {
	client redis.UniversalClient
	prefix string
	// limiter bounds a rate-limit decision (no retry: the limiter fails
	// open); record bounds one attempt of an idempotency-record operation.
	limiter, record time.Duration
	// retries counts the idempotency-record operations retried after a
	// timed-out attempt (Retries).
	retries atomic.Int64
	// admits batches the process's concurrent admissions (admit.go);
	// cluster tells it that a script call may only take one window's key.
	admits  admitter
	cluster bool
	// tracing is RedisOptions.Tracing: a batch of several admissions
	// gets a trace of its own (batchTrace).
	tracing bool
	// infoRefused is set once the server refused Ping's INFO (a user
	// that may not run it), which is then not sent again.
	infoRefused atomic.Bool
}

// RedisOptions tunes the client.
type RedisOptions struct {
	// Prefix namespaces every key (default "eventapi:").
	Prefix string
	// Timeout, when set, replaces both per-purpose bounds (Client's
	// LimiterTimeout and IdempotencyTimeout); tests on a loaded machine use
	// it to be patient.
	Timeout time.Duration
	// Client holds the client settings (EVENTAPI_REDIS_*); zero values take
	// the defaults (DefaultLimiterTimeout, DefaultIdempotencyTimeout, …).
	Client config.Redis
	// Tracing adds the go-redis OpenTelemetry hook; a command run under
	// telemetry.Untraced makes no span (untraced.go).
	Tracing bool
	// Metrics reports the connection pool and command durations through
	// the global OpenTelemetry meter provider.
	Metrics bool
}

// NewRedis connects to the Redis at url: redis:// or rediss:// for one
// server, redis+cluster://host:port,host:port,… (or opt.Client.Cluster) for
// a Redis Cluster.
func NewRedis(url string, opt RedisOptions) (*Redis, error) {
	s := withDefaults(opt.Client)
	if opt.Timeout > 0 {
		s.LimiterTimeout, s.IdempotencyTimeout = opt.Timeout, opt.Timeout
	}
	if opt.Prefix == "" {
		opt.Prefix = "eventapi:"
	}
	c, err := newClient(url, s)
	if err != nil {
		return nil, err
	}
	if opt.Tracing {
		if err := redisotel.InstrumentTracing(c, redisotel.WithTracerProvider(tracerProvider())); err != nil {
			_ = c.Close()
			return nil, err
		}
	}
	if opt.Metrics {
		if err := redisotel.InstrumentMetrics(c); err != nil {
			return nil, err
		}
	}
	_, cluster := c.(*redis.ClusterClient)
	return &Redis{client: c, prefix: opt.Prefix, limiter: s.LimiterTimeout, record: s.IdempotencyTimeout,
		cluster: cluster, tracing: opt.Tracing}, nil
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

// failed wraps err as ErrUnavailable. On a Redis Cluster it also asks the
// client to reload the slot map: a dead master refuses connections rather
// than answering MOVED, so without this go-redis would keep sending its
// slots there until its periodic reload, long after a replica took over.
// Reloads are coalesced by go-redis (one at a time, 200 ms apart).
func (r *Redis) failed(err error) error {
	if err == nil || errors.Is(err, redis.Nil) {
		return err
	}
	if cc, ok := r.client.(*redis.ClusterClient); ok {
		cc.ReloadState(context.Background())
	}
	return unavailable(err)
}

// slidingWindow is an exact sliding-window log: one list per bucket of the
// times (Redis server time, microseconds, so every instance shares one
// clock) at which requests were admitted, oldest first. One call admits one
// request on each of its keys in turn, under one reading of TIME: KEYS[i]
// is a window, ARGV[2i-1] its length in microseconds and ARGV[2i] its
// limit, and a key may come more than once (admit.go sends a whole batch as
// one call when the keys may share a script).
//
// For each key the script cuts the entries that left the window (at or
// before now - window) from the head, appends the new one, and takes the
// append back when it made the count exceed the limit, so a rejected
// request is never recorded. The reset is when the next slot frees: the
// oldest entry's expiry, or, when the bucket holds more than a lowered
// limit, the expiry of the entry whose leaving brings the count below it.
// Memory per bucket is bounded by the limit.
//
// The list is always in time order, which the cut relies on. The first
// peek entries come in one LRANGE, which settles the usual cases: none has
// left, or one (LPOP), or a few (LTRIM). When all of them have, the script
// finds the first entry still in the window by doubling steps and then
// halving, and removes the ones before it with one LTRIM. Should the clock
// step back (a failover to a replica whose clock is behind, an NTP step),
// the entries written before the step lie ahead of the new time; a new
// entry then takes the newest one's time instead of its own (the newest is
// read after the append, LINDEX -2, unless the LRANGE showed the whole list,
// and the new entry rewritten with LSET only then), so the order holds and
// the entries admitted until the clock catches up leave the window late, by
// at most the step: the count is too high for that long, never too low.
//
// The key expires expiryMargin after the end of the expiryStep (a step of
// Redis's clock) in which its newest entry leaves the window: 1 to 1.5 s
// after it leaves. The PEXPIREAT is only sent when an admission leaves the
// window in a later step than the newest entry before it, so a busy window
// sets it about twice a second rather than on every admission. An expiry
// that an earlier release set (1 s after its newest entry leaves the
// window, on every admission) is as safe to keep: an admission in the same
// step leaves less than expiryStep after that entry. A window made longer
// (EVENTAPI_RATE_WINDOW) finds the expiries set for the shorter one until
// its first admission in a new step; a key that sees none before that
// expiry loses the admissions of that last half second early.
//
// Lua numbers passed to redis.call() are formatted by Redis with
// snprintf("%.17g"), which costs more than a short command, so the script
// passes strings. The reply is the call's time and two integers per key:
// the count after the call (-1 - count when refused) and the reset minus
// the time, in microseconds. docs/edge.md, "Rate limits", has the
// measurements behind this shape.
var slidingWindow = redis.NewScript(fmt.Sprintf(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
-- The new entries' text (µs: seconds and 6 digits of microseconds).
local nows = t[1] .. string.sub('00000' .. t[2], -6)
local out = {now}
for i, key in ipairs(KEYS) do
  local window = tonumber(ARGV[2 * i - 1])
  local limit = tonumber(ARGV[2 * i])
  local edge = now - window
  -- The cut: e of the first entries have left the window, and head is the
  -- first that has not (nil: none is left).
  local first = redis.call('LRANGE', key, '0', '%[4]d')
  local n, e = #first, 0
  while e < n and tonumber(first[e + 1]) <= edge do e = e + 1 end
  local head = first[e + 1]
  if e == 1 then
    redis.call('LPOP', key)
  elseif e == %[5]d then
    -- Entries 0..lo have left the window; hi is the first that has not
    -- (or the end). A few dozen calls however many left: popping a
    -- million one by one held Redis for 1.1 s, the LTRIM takes 0.3 ms.
    local lo, hi, step = e - 1, nil, 1
    repeat
      local v = redis.call('LINDEX', key, lo + step)
      if v and tonumber(v) <= edge then lo, step = lo + step, step * 2 else hi, head = lo + step, v end
    until hi
    while hi - lo > 1 do
      local mid = math.floor((lo + hi) / 2)
      local v = redis.call('LINDEX', key, mid)
      if v and tonumber(v) <= edge then lo = mid else hi, head = mid, v end
    end
    redis.call('LTRIM', key, hi, -1)
  elseif e > 1 then
    redis.call('LTRIM', key, e, -1)
  end
  -- newest: the newest entry before the append, known when LRANGE showed
  -- the whole list; otherwise it is read after the append.
  local newest = nil
  if n < %[5]d and e < n then newest = first[n] end
  local count = redis.call('RPUSH', key, nows)
  local at = now
  if count > limit then
    redis.call('RPOP', key)
    count = count - 1
    out[2 * i] = -1 - count
  else
    out[2 * i] = count
    local last = nil
    if count > 1 then
      newest = newest or redis.call('LINDEX', key, '-2')
      last = tonumber(newest)
      if last > now then
        at = last
        redis.call('LSET', key, '-1', newest)
      end
    end
    -- The expiryStep in which the new entry leaves the window.
    local tick = math.floor((at + window) / %[1]d)
    if not last or tick ~= math.floor((last + window) / %[1]d) then
      redis.call('PEXPIREAT', key, string.format('%%d', (tick + 1) * %[2]d + %[3]d))
    end
  end
  local reset = now
  if count > 0 then
    local frees = head or at
    local j = math.min(count - 1, math.max(0, count - limit))
    if j > 0 then frees = redis.call('LINDEX', key, j) end
    reset = tonumber(frees) + window
  end
  out[2 * i + 1] = reset - now
end
return out
`, expiryStep.Microseconds(), expiryStep.Milliseconds(), expiryMargin.Milliseconds(), peek-1, peek))

// expiryStep and expiryMargin place a window key's expiry, and peek is how
// many entries the script reads from a window's head (slidingWindow).
const (
	peek         = 4
	expiryStep   = 500 * time.Millisecond
	expiryMargin = time.Second
)

// claim returns the value under KEYS[1], or stores ARGV[1] there for ARGV[2]
// milliseconds and returns nil (false) when it is absent.
var claim = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`)

// ttlMillis rounds ttl up to whole milliseconds (Redis PX), at least 1.
func ttlMillis(ttl time.Duration) int64 {
	return max(1, int64((ttl+time.Millisecond-1)/time.Millisecond))
}

// Claim implements Store in one round trip (two when the first timed out).
// A retry that finds exactly the value it tried to store reports claimed:
// the timed-out attempt reached Redis. Callers make values unique (the
// idempotency marker carries a random owner) so that this cannot be another
// claimer's.
func (r *Redis) Claim(ctx context.Context, key string, value []byte, ttl time.Duration) ([]byte, bool, error) {
	var existing []byte
	claimed := false
	err := r.retried(ctx, func(ctx context.Context, retry bool) error {
		v, err := claim.Run(ctx, r.client, []string{r.Key(key)}, value, int64(ttlMillis(ttl))).Text()
		switch {
		case errors.Is(err, redis.Nil):
			existing, claimed = nil, true
			return nil
		case err != nil:
			return err
		case retry && v == string(value):
			existing, claimed = nil, true
			return nil
		}
		existing, claimed = []byte(v), false
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return existing, claimed, nil
}

// SetNX implements Store; a retry that finds the value it tried to store
// reports stored, as Claim does.
func (r *Redis) SetNX(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	stored := false
	err := r.retried(ctx, func(ctx context.Context, retry bool) error {
		ok, err := r.client.SetNX(ctx, r.Key(key), value, time.Duration(ttlMillis(ttl))*time.Millisecond).Result()
		if err != nil || ok || !retry {
			stored = ok
			return err
		}
		prev, err := r.client.Get(ctx, r.Key(key)).Result()
		stored = err == nil && prev == string(value)
		if errors.Is(err, redis.Nil) {
			return nil
		}
		return err
	})
	return stored, err
}

// Set implements Store.
func (r *Redis) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return r.retried(ctx, func(ctx context.Context, _ bool) error {
		return r.client.Set(ctx, r.Key(key), value, time.Duration(ttlMillis(ttl))*time.Millisecond).Err()
	})
}

// Get implements Store.
func (r *Redis) Get(ctx context.Context, key string) ([]byte, bool, error) {
	var v []byte
	found := false
	err := r.retried(ctx, func(ctx context.Context, _ bool) error {
		b, err := r.client.Get(ctx, r.Key(key)).Bytes()
		if errors.Is(err, redis.Nil) {
			v, found = nil, false
			return nil
		}
		v, found = b, err == nil
		return err
	})
	if err != nil {
		return nil, false, err
	}
	return v, found, nil
}

// Delete implements Store.
func (r *Redis) Delete(ctx context.Context, key string) error {
	return r.retried(ctx, func(ctx context.Context, _ bool) error {
		return r.client.Del(ctx, r.Key(key)).Err()
	})
}

// deleteIf deletes KEYS[1] while it holds ARGV[1].
var deleteIf = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// DeleteIf implements Store in one round trip (a retry after a timeout is
// harmless: the key is gone or holds another value).
func (r *Redis) DeleteIf(ctx context.Context, key string, value []byte) error {
	return r.retried(ctx, func(ctx context.Context, _ bool) error {
		return deleteIf.Run(ctx, r.client, []string{r.Key(key)}, value).Err()
	})
}

// probe is the write Ping ends with: a script that sets KEYS[1] for
// ARGV[1] milliseconds, as the limiter's and the records' scripts write
// their keys.
var probe = redis.NewScript(`return redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])`)

// Ping implements Store, bounded like one idempotency-record attempt. On a
// Redis Cluster it pings every master: each holds some organizations'
// windows and records, so one that does not answer is their outage,
// whichever other node would answer a PING. It then runs one script that
// writes a key (probe), as every admission and record does: a PING is
// answered by a read-only replica and by a user that may run no script,
// where every limiter call and keyed write then fails (READONLY, NOPERM:
// RefusedSettings).
func (r *Redis) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, r.record)
	defer cancel()
	cc, cluster := r.client.(*redis.ClusterClient)
	var err error
	if cluster {
		err = cc.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			return m.Ping(ctx).Err()
		})
	} else if err = r.client.Ping(ctx).Err(); err == nil {
		err = r.notAClusterNode(ctx)
	}
	if err == nil {
		err = probe.Run(ctx, r.client, []string{r.Key("probe")}, "10000").Err()
		if reply := (redis.Error)(nil); !cluster && errors.As(err, &reply) && strings.HasPrefix(reply.Error(), "MOVED") {
			err = clusterNode{reply: reply.Error()}
		}
	}
	return r.failed(err)
}

// notAClusterNode is clusterNode when the Redis a plain client talks to is
// in cluster mode: its INFO cluster says cluster_enabled:1. Every Redis
// answers INFO, in cluster mode or not, so the check, run every 5 s and on
// every /readyz, adds no refused command to Redis's statistics (CLUSTER
// INFO is refused by a Redis without cluster mode). It is asked at every
// check, not once: the server behind the address can be restarted or
// replaced in the other mode while the process runs, and a one-shard
// cluster node would pass the probe's write (every slot is its own). A
// refusal (a user that may not run INFO) tells nothing; it is not asked
// again, and the probe's write then meets MOVED unless its key's slot is on
// that node. No answer (Redis down) is the check's failure.
func (r *Redis) notAClusterNode(ctx context.Context) error {
	if r.infoRefused.Load() {
		return nil
	}
	info, err := r.client.Info(ctx, "cluster").Result()
	switch {
	case err == nil:
		if strings.Contains(info, "cluster_enabled:1") {
			return clusterNode{reply: "its INFO cluster says cluster_enabled:1"}
		}
		return nil
	case errors.As(err, new(redis.Error)):
		r.infoRefused.Store(true)
		return nil
	default:
		return err
	}
}

// Close implements Store.
func (r *Redis) Close() error { return r.client.Close() }
