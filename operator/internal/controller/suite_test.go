package controller_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/eventapi/eventapi/api/apitest"
	"github.com/eventapi/eventapi/api/server"
	"github.com/eventapi/eventapi/operator/manager"
	"github.com/eventapi/eventapi/platform/config"
	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/pgtest"
	"github.com/eventapi/eventapi/platform/telemetry"
)

// restConfig reaches the envtest kube-apiserver shared by every test as an
// administrator; operatorConfig as a user holding only the ClusterRole
// generated from the controllers' rbac markers (the chart grants exactly that,
// scripts/checks/chart.sh checks it), so every test also proves the operator
// works with least privilege.
var restConfig, operatorConfig *rest.Config

// TestMain starts a real kube-apiserver and etcd (envtest) with the generated
// CRDs installed. It never skips: without KUBEBUILDER_ASSETS it fails.
func TestMain(m *testing.M) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		fmt.Fprintln(os.Stderr, "FAIL: KUBEBUILDER_ASSETS is not set. These tests need a real kube-apiserver and etcd:\n"+
			"  KUBEBUILDER_ASSETS=\"$(hack/envtest-assets.sh)\" && export KUBEBUILDER_ASSETS\n"+
			"then run go test again (make test does this for you).")
		os.Exit(1)
	}
	start := time.Now()
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		// envtest's default is 20 s; kube-apiserver on a loaded two-core
		// machine can take longer.
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	cfg, err := env.Start()
	if err != nil {
		_ = env.Stop() // whatever did start (etcd) must not outlive the suite
		fmt.Fprintln(os.Stderr, "FAIL: starting envtest (kube-apiserver + etcd from KUBEBUILDER_ASSETS):", err)
		os.Exit(1)
	}
	fmt.Printf("envtest: kube-apiserver and etcd up, CRDs installed, in %s\n", time.Since(start).Round(time.Millisecond))
	restConfig = cfg
	if operatorConfig, err = restrictedUser(env); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL: creating the operator's least-privilege user:", err)
		_ = env.Stop()
		os.Exit(1)
	}
	code := m.Run()
	stop := time.Now()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "envtest stop:", err)
	}
	fmt.Printf("envtest: stopped in %s\n", time.Since(stop).Round(time.Millisecond))
	pgtest.Cleanup()
	os.Exit(code)
}

// restrictedUser adds a user bound to operator/config/rbac/role.yaml only.
func restrictedUser(env *envtest.Environment) (*rest.Config, error) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "config", "rbac", "role.yaml"))
	if err != nil {
		return nil, err
	}
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict(raw, &role); err != nil {
		return nil, err
	}
	const user = "eventapi-operator"
	c, err := client.New(env.Config, client.Options{})
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if err := c.Create(ctx, &role); err != nil {
		return nil, err
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
	}
	if err := c.Create(ctx, binding); err != nil {
		return nil, err
	}
	u, err := env.AddUser(envtest.User{Name: user}, env.Config)
	if err != nil {
		return nil, err
	}
	return u.Config(), nil
}

// harness is one test's world: its own database, namespace, running operator
// (watching only that namespace) and a real eventapi HTTP server on loopback
// that shares the operator's database.
type harness struct {
	t       *testing.T
	ctx     context.Context
	k8s     client.Client // uncached: reads what the API server has now
	db      *bun.DB
	ns      string
	baseURL string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	dbURL := pgtest.NewDatabase(t)
	db, err := database.Open(ctx, dbURL, database.Options{MaxOpenConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	scheme, err := manager.Scheme()
	if err != nil {
		t.Fatal(err)
	}
	k8s, err := client.New(restConfig, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, ctx: ctx, k8s: k8s, db: db, ns: "t-" + randomHex(4)}
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: h.ns}}); err != nil {
		t.Fatal(err)
	}

	mgr, err := manager.New(operatorConfig, manager.Options{DB: db, Namespaces: []string{h.ns},
		MetricsAddr: "0", ProbeAddr: "0", SkipNameValidation: true, SandboxRecheck: time.Second, KeyRecheck: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Start(ctx) }()

	cfg, err := config.FromEnv(func(k string) string {
		switch k {
		case "EVENTAPI_DATABASE_URL":
			return dbURL
		case "EVENTAPI_REDIS_URL":
			return pgtest.RedisURL()
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := server.Open(ctx, cfg, telemetry.NewLogger(io.Discard, "error"),
		server.Options{RedisPrefix: "eventapi-operator-test:" + uuid.NewString() + ":"})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h.baseURL = "http://" + ln.Addr().String()
	srvDone := make(chan error, 1)
	go func() { srvDone <- server.Run(ctx, svc.App, ln, time.Second) }()

	t.Cleanup(func() {
		cancel()
		if err := <-mgrDone; err != nil {
			t.Errorf("manager: %v", err)
		}
		<-srvDone
		_ = svc.Close()
		_ = db.Close()
	})
	return h
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// health is the data of GET /api/v2/health.
type health struct {
	OrganizationID string   `json:"organization_id"`
	Scopes         []string `json:"scopes"`
	Sandbox        bool     `json:"sandbox"`
	Mode           string   `json:"mode"`
}

// get sends a real HTTP GET with key and returns the status and body.
func (h *harness) get(path, key string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(h.ctx, http.MethodGet, h.baseURL+path, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil {
		// Every answer the operator's tests see is held to the OpenAPI
		// document, as apitest.Send does for the API's own tests.
		apitest.CheckContract(h.t, http.MethodGet, path, nil,
			&apitest.Response{Status: resp.StatusCode, Header: resp.Header, Body: body})
	}
	return resp.StatusCode, body, err
}

// health calls GET /api/v2/health with key; a non-200 is an error.
func (h *harness) health(key string) (health, error) {
	status, body, err := h.get("/api/v2/health", key)
	if err != nil {
		return health{}, err
	}
	if status != http.StatusOK {
		return health{}, fmt.Errorf("GET /api/v2/health: %d %s", status, body)
	}
	var out struct{ Data health }
	if err := json.Unmarshal(body, &out); err != nil {
		return health{}, err
	}
	return out.Data, nil
}

// status returns only the HTTP status of GET /api/v2/health with key.
func (h *harness) status(key string) (int, error) {
	status, _, err := h.get("/api/v2/health", key)
	return status, err
}

// eventually polls check until it returns nil or the deadline passes. The
// deadline only bounds waiting for the operator and the 1 s auth cache; it
// is not a performance threshold.
func (h *harness) eventually(what string, check func() error) {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		if err = check(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	h.t.Fatalf("%s: still failing after 30s: %v", what, err)
}

// key is an object key in the test's namespace.
func (h *harness) key(name string) client.ObjectKey {
	return client.ObjectKey{Namespace: h.ns, Name: name}
}

// errNotYet is what eventually checks return while waiting.
var errNotYet = errors.New("not yet")
