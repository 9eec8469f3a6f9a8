package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/eventapi/eventapi/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// The command itself, end to end: flags, database, kubeconfig, leader
// election (a Lease appears), health and readiness probes and metrics.
func TestRunServesProbesAndLeads(t *testing.T) {
	managersPerProcess = 2
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Fatal(`KUBEBUILDER_ASSETS is not set: run KUBEBUILDER_ASSETS="$(hack/envtest-assets.sh)" && export KUBEBUILDER_ASSETS`)
	}
	env := &envtest.Environment{CRDDirectoryPaths: []string{filepath.Join("..", "..", "operator", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	admin, err := env.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := admin.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", path)

	dbURL := pgtest.NewDatabase(t)
	metrics, probes := freeAddr(t), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--leader-elect", "--leader-election-namespace=default", "--leader-election-id=release-a-operator",
			"--metrics-bind-address=" + metrics, "--health-probe-bind-address=" + probes, "--log-level=error"},
			io.Discard, func(k string) string {
				if k == "EVENTAPI_DATABASE_URL" {
					return dbURL
				}
				return ""
			})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})

	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the leader election Lease", func() error {
		return c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "release-a-operator"}, &coordinationv1.Lease{})
	})
	for _, url := range []string{"http://" + probes + "/healthz", "http://" + probes + "/readyz", "http://" + metrics + "/metrics"} {
		waitFor(t, url, func() error {
			resp, err := http.Get(url)
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("status %d", resp.StatusCode)
			}
			return nil
		})
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitFor polls check for up to 30 s (a bound on start-up, not a
// performance threshold).
func waitFor(t *testing.T, what string, check func() error) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if err = check(); err == nil {
			return
		}
	}
	t.Fatalf("%s: %v", what, err)
}
