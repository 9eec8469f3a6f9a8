// Package redistest gives tests a real Redis Cluster (3 masters, one replica
// each) started by scripts/redis-cluster.sh from Debian's redis-server. It
// never skips: a missing redis-server or an unreachable cluster fails the
// test loudly.
//
// SharedClusterURL is the cluster that read-and-write tests share: the one
// named by EVENTAPI_TEST_REDIS_CLUSTER_URL (scripts/test.sh starts it and
// sets the variable), or, when the variable is unset (a plain `go test`
// from a developer's shell), one this test process starts on free ports
// and stops in Cleanup. Tests that kill nodes start a private one with
// StartCluster, so they never disturb other packages.
package redistest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a cluster this process started.
type Cluster struct {
	// URL is redis+cluster://127.0.0.1:BASE,… (three seed nodes).
	URL         string
	base        int
	dir         string
	nodeTimeout time.Duration
}

// SharedNodeTimeout is the shared cluster's cluster-node-timeout, as
// scripts/test.sh starts it too: no test kills its nodes, so a replica must
// not take over a master that a starved machine kept from answering for a
// few seconds (a promotion loses the writes not yet replicated, a rate
// window's entries among them).
const SharedNodeTimeout = 15 * time.Second

// Epochs reports the cluster's failover history as the node at the first
// seed of url sees it: cluster_current_epoch and the epoch of each master,
// which a promotion raises. A test that finds data missing prints it to
// tell a failover from a fault of its own.
func Epochs(ctx context.Context, url string) string {
	addrs, err := Seeds(url)
	if err != nil || len(addrs) == 0 {
		return fmt.Sprintf("no seed in %q: %v", url, err)
	}
	rc := redis.NewClient(&redis.Options{Addr: addrs[0], MaxRetries: -1, DialerRetries: 1})
	defer rc.Close()
	info, err := rc.ClusterInfo(ctx).Result()
	if err != nil {
		return "CLUSTER INFO: " + err.Error()
	}
	nodes, err := rc.ClusterNodes(ctx).Result()
	if err != nil {
		return "CLUSTER NODES: " + err.Error()
	}
	var out []string
	for _, line := range strings.Split(info, "\n") {
		if strings.HasPrefix(line, "cluster_current_epoch:") {
			out = append(out, strings.TrimSpace(line))
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(nodes), "\n") {
		// id addr flags master-id ping pong config-epoch link-state slots…
		if f := strings.Fields(line); len(f) >= 8 {
			out = append(out, fmt.Sprintf("%s %s epoch %s", f[1], f[2], f[6]))
		}
	}
	return strings.Join(out, "; ")
}

var (
	sharedMu  sync.Mutex
	sharedURL string
	started   []*Cluster
)

// SharedClusterURL returns the URL of the cluster tests share (see the
// package comment), checking that it answers with cluster_state:ok.
func SharedClusterURL(tb testing.TB) string {
	tb.Helper()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if sharedURL != "" {
		return sharedURL
	}
	if u := os.Getenv("EVENTAPI_TEST_REDIS_CLUSTER_URL"); u != "" {
		if err := CheckCluster(context.Background(), u); err != nil {
			tb.Fatalf("EVENTAPI_TEST_REDIS_CLUSTER_URL=%s is not a healthy Redis Cluster (start one with scripts/redis-cluster.sh start): %v", u, err)
		}
		sharedURL = u
		return u
	}
	c, err := start(SharedNodeTimeout)
	if err != nil {
		tb.Fatalf("redistest: starting a Redis Cluster (EVENTAPI_TEST_REDIS_CLUSTER_URL is unset): %v", err)
	}
	sharedURL = c.URL
	started = append(started, c)
	return sharedURL
}

// StartCluster starts a private cluster, stopped at the end of the test. A
// replica takes over a killed master about nodeTimeout after it stopped
// answering (cluster-node-timeout).
func StartCluster(tb testing.TB, nodeTimeout time.Duration) *Cluster {
	tb.Helper()
	c, err := start(nodeTimeout)
	if err != nil {
		tb.Fatalf("redistest: %v", err)
	}
	tb.Cleanup(func() { _ = c.Stop() })
	return c
}

// Cleanup stops the clusters this process started for SharedClusterURL; call
// it from TestMain after m.Run.
func Cleanup() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	for _, c := range started {
		_ = c.Stop()
	}
	started, sharedURL = nil, ""
}

// script is scripts/redis-cluster.sh of this source tree.
func script() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "scripts", "redis-cluster.sh")
}

// start picks six free ports whose cluster-bus ports (+10000) are free too
// and runs the script there.
func start(nodeTimeout time.Duration) (*Cluster, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		base := 20000 + rand.IntN(2700) // bus ports (+10000) stay below the ephemeral range (32768+)
		if !portsFree(base) {
			continue
		}
		dir, err := os.MkdirTemp("", "redistest-cluster-")
		if err != nil {
			return nil, err
		}
		c := &Cluster{base: base, dir: dir, nodeTimeout: nodeTimeout}
		out, err := c.run("start")
		if err != nil {
			_ = c.Stop()
			lastErr = err
			continue
		}
		c.URL = strings.TrimSpace(out)
		return c, nil
	}
	if lastErr == nil {
		lastErr = fmt.Errorf("no free port range found")
	}
	return nil, lastErr
}

func portsFree(base int) bool {
	for i := 0; i < 6; i++ {
		for _, p := range []int{base + i, base + i + 10000} {
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				return false
			}
			_ = ln.Close()
		}
	}
	return true
}

// run runs the script with this cluster's ports and directory.
func (c *Cluster) run(args ...string) (string, error) {
	cmd := exec.Command("bash", append([]string{script()}, args...)...)
	cmd.Env = append(os.Environ(), "REDIS_CLUSTER_BASE_PORT="+strconv.Itoa(c.base), "REDIS_CLUSTER_DIR="+c.dir)
	if c.nodeTimeout > 0 {
		cmd.Env = append(cmd.Env, "REDIS_CLUSTER_NODE_TIMEOUT="+strconv.FormatInt(c.nodeTimeout.Milliseconds(), 10))
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("redis-cluster.sh %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}

// Stop kills the cluster's nodes and removes its directory.
func (c *Cluster) Stop() error {
	_, err := c.run("stop")
	return err
}

// MasterOf returns the address (host:port) of the master serving key's
// slot, as the cluster reports it now.
func (c *Cluster) MasterOf(tb testing.TB, key string) string {
	tb.Helper()
	addrs, _ := Seeds(c.URL)
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, MaxRetries: -1, DialerRetries: 1})
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	slot, err := cc.ClusterKeySlot(ctx, key).Result()
	if err != nil {
		tb.Fatalf("CLUSTER KEYSLOT: %v", err)
	}
	//lint:ignore SA1019 CLUSTER SLOTS lists the serving master first as the ip:port Kill takes and the failover tests compare; CLUSTER SHARDS reports role and health per node instead, which changes what a poll during failover sees
	slots, err := cc.ClusterSlots(ctx).Result()
	if err != nil {
		tb.Fatalf("CLUSTER SLOTS: %v", err)
	}
	for _, s := range slots {
		if int64(s.Start) <= slot && slot <= int64(s.End) && len(s.Nodes) > 0 {
			return s.Nodes[0].Addr
		}
	}
	tb.Fatalf("no master serves slot %d", slot)
	return ""
}

// Kill crashes the node at addr (SIGKILL) and waits until it has exited.
func (c *Cluster) Kill(tb testing.TB, addr string) {
	tb.Helper()
	_, port, _ := net.SplitHostPort(addr)
	if _, err := c.run("kill", port); err != nil {
		tb.Fatal(err)
	}
}

// CheckCluster connects to the cluster at a redis+cluster:// URL and checks
// that it reports cluster_state:ok.
func CheckCluster(ctx context.Context, rawURL string) error {
	addrs, err := Seeds(rawURL)
	if err != nil {
		return err
	}
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, MaxRetries: -1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	info, err := c.ClusterInfo(ctx).Result()
	if err != nil {
		return err
	}
	if !strings.Contains(info, "cluster_state:ok") {
		return fmt.Errorf("cluster info: %s", info)
	}
	return nil
}

// Seeds returns the host:port list of a redis+cluster:// URL.
func Seeds(rawURL string) ([]string, error) {
	rest, ok := strings.CutPrefix(rawURL, "redis+cluster://")
	if !ok {
		return nil, fmt.Errorf("%q is not a redis+cluster:// URL", rawURL)
	}
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		rest = rest[:i]
	}
	return strings.Split(rest, ","), nil
}

// DeleteKeys deletes the keys matching pattern on every master (KEYS on a
// cluster client reaches one node only).
func DeleteKeys(ctx context.Context, c redis.UniversalClient, pattern string) error {
	del := func(ctx context.Context, node *redis.Client) error {
		keys, err := node.Keys(ctx, pattern).Result()
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := node.Del(ctx, k).Err(); err != nil {
				return err
			}
		}
		return nil
	}
	if cc, ok := c.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, del)
	}
	if sc, ok := c.(*redis.Client); ok {
		return del(ctx, sc)
	}
	return fmt.Errorf("unexpected client %T", c)
}
