package config

import (
	"slices"
	"strings"
	"testing"
)

// TestParseRedisURL: each accepted form gives the client the platform/edge
// builds from it, with every seed node; each refused one names its problem.
func TestParseRedisURL(t *testing.T) {
	cases := []struct {
		name, url string
		cluster   bool
		single    string   // the single node's address
		seeds     []string // the cluster's seed nodes
		wantErr   string
	}{
		{name: "single node", url: "redis://127.0.0.1:6379/2", single: "127.0.0.1:6379"},
		{name: "single node over TLS", url: "rediss://cache.internal:6380/0", single: "cache.internal:6380"},
		{name: "cluster scheme", url: "redis+cluster://10.0.0.1:7000,10.0.0.2:7000,10.0.0.3:7000", seeds: []string{"10.0.0.1:7000", "10.0.0.2:7000", "10.0.0.3:7000"}},
		{name: "redis URL with cluster set", url: "redis://10.0.0.1:6379,10.0.0.2:6379", cluster: true, seeds: []string{"10.0.0.1:6379", "10.0.0.2:6379"}},
		{name: "unknown scheme", url: "redis+sentinel://x:26379", wantErr: "must be a redis://"},
		{name: "not a URL", url: "http://[::1", wantErr: "must be a redis://"},
		{name: "cluster without a seed", url: "redis+cluster://", wantErr: "names no Redis Cluster seed node"},
		{name: "cluster with an empty seed", url: "redis+cluster://10.0.0.1:7000,,10.0.0.2:7000", wantErr: "names no Redis Cluster seed node"},
		{name: "single node with a bad database", url: "redis://127.0.0.1:6379/x", wantErr: "invalid"},
		{name: "cluster with database 0", url: "redis+cluster://10.0.0.1:7000/0", seeds: []string{"10.0.0.1:7000"}},
		{name: "cluster with an empty path", url: "redis+cluster://10.0.0.1:7000/", seeds: []string{"10.0.0.1:7000"}},
		{name: "cluster with another database", url: "redis+cluster://10.0.0.1:7000,10.0.0.2:7000/3", wantErr: "a Redis Cluster has database 0 only"},
		{name: "redis URL with cluster set and a database", url: "redis://10.0.0.1:6379/2", cluster: true, wantErr: "names database 2"},
		{name: "cluster with an unknown parameter", url: "redis+cluster://10.0.0.1:7000?bogus=1", wantErr: "bogus"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			target, err := ParseRedisURL(c.url, c.cluster)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case c.single != "":
				if target.Cluster != nil || target.Single == nil || target.Single.Addr != c.single {
					t.Fatalf("target = %+v, want the single node %s", target, c.single)
				}
			default:
				if target.Single != nil || target.Cluster == nil || !slices.Equal(target.Cluster.Addrs, c.seeds) {
					t.Fatalf("target = %+v, want the seed nodes %v", target, c.seeds)
				}
			}
		})
	}
}
