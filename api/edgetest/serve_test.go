package edgetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// cli runs the eventapi binary with env and returns its stdout; with a
// non-nil out it decodes the JSON printed by --output json.
func cli(t *testing.T, env []string, out any, args ...string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("eventapi %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if out != nil {
		if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
			t.Fatalf("eventapi %s printed %q: %v", strings.Join(args, " "), stdout.String(), err)
		}
	}
}

// process is a running `eventapi serve`.
type process struct {
	URL      string
	mu       sync.Mutex
	warnings []string
}

// Warnings returns the WARN and ERROR lines the process logged so far.
func (p *process) Warnings() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.warnings...)
}

// ClearWarnings forgets the lines logged so far.
func (p *process) ClearWarnings() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.warnings = nil
}

// serve starts `eventapi serve` on a random loopback port and returns it
// once it logs that it listens. The process is stopped with SIGTERM at the
// end of the test.
func serve(t *testing.T, env []string) *process {
	t.Helper()
	p := &process{}
	cmd := exec.Command(binary, "serve")
	cmd.Env = append(os.Environ(), append(env, "EVENTAPI_ADDR=127.0.0.1:0", "EVENTAPI_METRICS_ADDR=127.0.0.1:0", "EVENTAPI_LOG_LEVEL=info")...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			var line struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if !sent && json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "eventapi listening" {
				addr <- line.Addr
				sent = true
			}
			if bytes.Contains(sc.Bytes(), []byte(`"level":"WARN"`)) || bytes.Contains(sc.Bytes(), []byte(`"level":"ERROR"`)) {
				p.mu.Lock()
				p.warnings = append(p.warnings, sc.Text())
				p.mu.Unlock()
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case a := <-addr:
		p.URL = "http://" + a
		return p
	case <-done:
		t.Fatalf("eventapi serve exited before listening: %s", stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("eventapi serve did not report its address: %s", stderr.String())
	}
	return nil
}
