package edge

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/eventapi/eventapi/platform/redistest"
)

// TestPingFindsUnusableSettings: Redis servers of the test's own that
// answer a PING but refuse what the edge layer does are refused settings,
// which end a start (SettingsError): a Cluster URL for a Redis without
// cluster mode, a user that may not run scripts, a read-only replica, and
// the converse of the first: a plain URL for a node of a Redis Cluster
// (the shared test cluster's every seed). The master itself, with the full
// user, and the cluster by its cluster URL are no error.
func TestPingFindsUnusableSettings(t *testing.T) {
	master := privateRedisWith(t, "--repl-diskless-sync-delay", "0")
	host := strings.TrimPrefix(strings.TrimSuffix(master, "/0"), "redis://")
	admin := redis.NewClient(&redis.Options{Addr: host})
	defer admin.Close()
	ctx := context.Background()
	if err := admin.Do(ctx, "ACL", "SETUSER", "noscript", "on", ">pw", "~*", "-@all", "+ping", "+select", "+hello", "+client", "+auth").Err(); err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(host, ":")
	replica := privateRedisWith(t, "--replicaof", "127.0.0.1", port)
	waitForLink(t, strings.TrimPrefix(strings.TrimSuffix(replica, "/0"), "redis://"))
	noScript, err := url.Parse(master)
	if err != nil {
		t.Fatal(err)
	}
	noScript.User = url.UserPassword("noscript", "pw")
	type setting struct {
		name, url string
		refused   bool
	}
	settings := []setting{
		{"the master", master, false},
		{"a Cluster URL for a Redis without cluster mode", "redis+cluster://" + host, true},
		{"a user that may not run scripts", noScript.String(), true},
		{"a read-only replica", replica, true},
	}
	cluster := redistest.SharedClusterURL(t)
	settings = append(settings, setting{"the cluster", cluster, false})
	seeds, err := redistest.Seeds(cluster)
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range seeds {
		settings = append(settings, setting{"a plain URL for the cluster's node " + seed, "redis://" + seed + "/0", true})
	}
	for _, tc := range settings {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewRedis(tc.url, RedisOptions{Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			err = r.Ping(ctx)
			if RefusedSettings(err) != tc.refused || (err == nil) == tc.refused {
				t.Fatalf("Ping: %v; RefusedSettings %v, want %v", err, RefusedSettings(err), tc.refused)
			}
		})
	}
}

// waitForLink waits until the replica at addr has synchronised with its
// master, so that it answers as a replica (READONLY) and no longer LOADING.
func waitForLink(t *testing.T, addr string) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		info, err := c.Info(context.Background(), "replication").Result()
		if err == nil && strings.Contains(info, "master_link_status:up") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica at %s did not synchronise: %v %q", addr, err, info)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
