package redistest

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestSharedCluster: the shared cluster (scripts/test.sh's, or one this
// process started) runs with SharedNodeTimeout, and Epochs reports its
// current epoch and a config epoch for each of its six nodes.
func TestSharedCluster(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	url := SharedClusterURL(t)
	seeds, err := Seeds(url)
	if err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(&redis.Options{Addr: seeds[0]})
	defer rc.Close()
	timeout, err := rc.ConfigGet(ctx, "cluster-node-timeout").Result()
	if want := strconv.FormatInt(SharedNodeTimeout.Milliseconds(), 10); err != nil || timeout["cluster-node-timeout"] != want {
		t.Errorf("cluster-node-timeout %v (%v), want %s", timeout, err, want)
	}
	got := Epochs(ctx, url)
	if !strings.HasPrefix(got, "cluster_current_epoch:") || strings.Count(got, " epoch ") != 6 {
		t.Fatalf("Epochs = %q, want the current epoch and six nodes", got)
	}
	t.Log(got)
}
