package server_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/eventapi/eventapi/api/server"
)

// TestServeWhileStartingAnswersThenHandsOver: while serve waits for its
// database the port says alive, not ready, and refuses requests in their
// envelope; stop hands the listener, open, to what serves next.
func TestServeWhileStartingAnswersThenHandsOver(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	base := "http://" + ln.Addr().String()
	sunset := time.Date(2027, 6, 30, 0, 0, 0, 0, time.UTC)
	stop := server.ServeWhileStarting(ln, slog.New(slog.DiscardHandler), sunset)
	// A client that connects and sends nothing.
	idle, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()

	tests := []struct {
		method, path, wantCode, wantStatus string
		want                               int
	}{
		{"GET", "/livez", "", "", http.StatusOK},
		{"GET", "/readyz", "service_unavailable", "starting", http.StatusServiceUnavailable},
		{"GET", "/api/v2/clients", "service_unavailable", "", http.StatusServiceUnavailable},
		{"GET", "/api/v1/equipment", "SERVICE_UNAVAILABLE", "", http.StatusServiceUnavailable},
		// A method Fiber does not know: Fiber's own answer was a
		// plain-text 400 without the envelope or a request id.
		{"BREW", "/api/v1/equipment", "SERVICE_UNAVAILABLE", "", http.StatusServiceUnavailable},
	}
	for _, tt := range tests {
		res, body := do(t, tt.method, base+tt.path)
		if res.StatusCode != tt.want || !res.Close {
			t.Fatalf("GET %s while starting: %d (closes: %t) %s, want %d closing the connection", tt.path, res.StatusCode, res.Close, body, tt.want)
		}
		if tt.want == http.StatusOK {
			continue
		}
		var env struct {
			Error struct {
				Code    string `json:"code"`
				Details struct {
					Status string `json:"status"`
				} `json:"details"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &env); err != nil || env.Error.Code != tt.wantCode || env.Error.Details.Status != tt.wantStatus {
			t.Fatalf("GET %s while starting: %s, want code %q, details.status %q", tt.path, body, tt.wantCode, tt.wantStatus)
		}
		if res.Header.Get("Retry-After") == "" || res.Header.Get("X-Request-Id") == "" {
			t.Fatalf("%s %s while starting has no Retry-After or X-Request-Id", tt.method, tt.path)
		}
		// v1's answers carry its deprecation, as the service's do.
		v1 := strings.HasPrefix(tt.path, "/api/v1/")
		if deprecated := res.Header.Get("Deprecation") == "true" && res.Header.Get("Sunset") == sunset.Format(http.TimeFormat); deprecated != v1 {
			t.Fatalf("GET %s while starting: Deprecation %q, Sunset %q", tt.path, res.Header.Get("Deprecation"), res.Header.Get("Sunset"))
		}
	}

	// A header block the service reads (over fasthttp's default 4 KiB
	// buffer, under the service's) is read here too, and answered as the
	// other requests are.
	req, err := http.NewRequest(http.MethodGet, base+"/api/v1/equipment", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Big", strings.Repeat("a", 6<<10))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Deprecation") != "true" {
		t.Fatalf("GET with a 6 KiB header while starting: %d, Deprecation %q; want 503 in v1's envelope", res.StatusCode, res.Header.Get("Deprecation"))
	}

	stop()
	// The client that had sent nothing finds its connection closed, not
	// answered "starting" once the service serves.
	_ = idle.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := idle.Read(make([]byte, 512)); err != io.EOF {
		t.Fatalf("the idle connection after the hand-over: read %d bytes, %v; want it closed unanswered", n, err)
	}
	next := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "served") })}
	go func() { _ = next.Serve(ln) }()
	defer next.Close()
	if res, body := get(t, base+"/livez"); res.StatusCode != http.StatusOK || string(body) != "served" {
		t.Fatalf("after the hand-over: %d %q, want the next server's answer", res.StatusCode, body)
	}
}

func get(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	return do(t, http.MethodGet, url)
}

// do sends a request of method to url without a body and reads the answer.
func do(t *testing.T, method, url string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}
