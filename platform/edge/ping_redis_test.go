package edge

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// TestPingLeavesNoErrorsInRedis: the health check (Ping, run every 5 s by
// eventapi_edge_store_up's loop and on every /readyz) sends no command that
// a Redis without cluster mode refuses, so it adds nothing to the server's
// error statistics; a user that may not run INFO meets one refusal, at the
// first check, and is not asked again. The errors are counted by the
// server itself (INFO errorstats) of a redis-server of the test's own,
// before and after a few checks.
func TestPingLeavesNoErrorsInRedis(t *testing.T) {
	server := privateRedis(t)
	host := strings.TrimPrefix(strings.TrimSuffix(server, "/0"), "redis://")
	admin := redis.NewClient(&redis.Options{Addr: host})
	defer admin.Close()
	ctx := context.Background()
	if err := admin.Do(ctx, "ACL", "SETUSER", "noinfo", "on", ">pw", "~*", "+@all", "-info", "-cluster").Err(); err != nil {
		t.Fatal(err)
	}
	noInfo, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	noInfo.User = url.UserPassword("noinfo", "pw")
	const checks = 5
	tests := []struct {
		name       string
		url        string
		wantErrors int
	}{
		{"the default user", server, 0},
		{"a user that may not run INFO or CLUSTER", noInfo.String(), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRedis(tt.url, RedisOptions{Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			// The connection is made (and its handshake's own replies
			// counted) and the probe's script loaded before the count
			// starts: a script's first EVALSHA after Redis starts meets
			// NOSCRIPT once, whoever sends it.
			if err := probe.Load(ctx, r.Client()).Err(); err != nil {
				t.Fatal(err)
			}
			before := errorReplies(t, admin)
			for i := range checks {
				if err := r.Ping(ctx); err != nil {
					t.Fatalf("check %d: %v", i+1, err)
				}
			}
			if got := errorReplies(t, admin) - before; got != tt.wantErrors {
				t.Fatalf("%d checks added %d error replies to Redis's errorstats, want %d", checks, got, tt.wantErrors)
			}
		})
	}
}

// errorReplies is the sum of the counts of the server's INFO errorstats.
func errorReplies(t *testing.T, c *redis.Client) int {
	t.Helper()
	info, err := c.Info(context.Background(), "errorstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for line := range strings.Lines(info) {
		_, count, found := strings.Cut(strings.TrimSpace(line), ":count=")
		if !found {
			continue
		}
		n, err := strconv.Atoi(count)
		if err != nil {
			t.Fatalf("errorstats line %q: %v", line, err)
		}
		total += n
	}
	return total
}

// TestPingFollowsTheServersMode restarts the redis-server behind one
// address in the other mode under a running client: a plain Redis
// restarted as a one-shard Cluster node (whose every slot is its own, so
// the probe's write passes) fails the next check as a node of a Cluster,
// and a node put back to plain Redis passes it again.
func TestPingFollowsTheServersMode(t *testing.T) {
	ctx := context.Background()
	port := freePort(t)
	url := fmt.Sprintf("redis://127.0.0.1:%d/0", port)
	r, err := NewRedis(url, RedisOptions{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	modes := []struct {
		name    string
		cluster bool
	}{{"plain", false}, {"a one-shard Cluster node", true}, {"plain again", false}}
	for _, m := range modes {
		stop := redisOnPort(t, port, m.cluster)
		// The first check after a restart may meet the closed connection
		// of the server before; the next one is on a new connection.
		_ = r.Ping(ctx)
		err := r.Ping(ctx)
		var node clusterNode
		if isNode := errors.As(err, &node); isNode != m.cluster || (!m.cluster && err != nil) {
			t.Fatalf("%s: Ping = %v, want a cluster-node error: %v", m.name, err, m.cluster)
		}
		stop()
	}
}

// TestConnectingLeavesNoErrorsInRedis: a new connection's handshake sends
// nothing a Redis 7.0 refuses (go-redis's CLIENT SETINFO and CLIENT
// MAINT_NOTIFICATIONS added three error replies per connection), on a
// plain Redis and on a Cluster node, and names the connection: the
// default name, or the URL's client_name.
func TestConnectingLeavesNoErrorsInRedis(t *testing.T) {
	tests := []struct {
		name     string
		cluster  bool
		query    string
		wantName string
	}{
		{"a plain Redis", false, "", clientName},
		{"a plain Redis, named by the URL", false, "?client_name=planner", "planner"},
		{"a Cluster node", true, "", clientName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			port := freePort(t)
			t.Cleanup(redisOnPort(t, port, tt.cluster))
			addr := fmt.Sprintf("127.0.0.1:%d", port)
			admin := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true,
				MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}})
			defer admin.Close()
			ctx := context.Background()
			before := errorReplies(t, admin)
			url := "redis://" + addr + "/0" + tt.query
			if tt.cluster {
				url = "redis+cluster://" + addr + tt.query
			}
			r, err := NewRedis(url, RedisOptions{Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			// Several connections at once: each runs its own handshake.
			const conns = 3
			hold := make(chan struct{})
			var opened, done sync.WaitGroup
			errs := make(chan error, conns)
			for range conns {
				opened.Add(1)
				done.Add(1)
				go func() {
					defer done.Done()
					err := r.Client().Watch(ctx, func(*redis.Tx) error {
						opened.Done()
						<-hold
						return nil
					}, "held")
					if err != nil {
						errs <- err
					}
				}()
			}
			opened.Wait()
			names, err := admin.ClientList(ctx).Result()
			close(hold)
			done.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(names, " name="+tt.wantName+" "); got < conns {
				t.Fatalf("%d connections named %q, want at least %d:\n%s", got, tt.wantName, conns, names)
			}
			if got := errorReplies(t, admin) - before; got != 0 {
				t.Fatalf("connecting added %d error replies to Redis's errorstats, want 0", got)
			}
		})
	}
}
