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

	"github.com/eventapi/eventapi/api/middleware/ratelimit"
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
	cmd      *exec.Cmd
	done     chan struct{} // closed when the process has exited
	mu       sync.Mutex
	warnings []string
	// logged holds the request_id of every access-log line read so far;
	// failedOpen those of the requests the rate limiter admitted without a
	// decision (ratelimit.FailOpenRequestMessage, logged at debug level).
	logged, failedOpen map[string]bool
}

// FailedOpen reports whether the request with this X-Request-Id was
// admitted without a rate-limit decision. The request's access-log line must
// have been read (WaitLogged).
func (p *process) FailedOpen(requestID string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failedOpen[requestID]
}

// WaitLogged returns once the access-log lines of every request id in ids
// have been read from the process's output. A request's fail-open line comes
// before its access-log line in the same stream, so after WaitLogged,
// FailedOpen is final for those requests.
func (p *process) WaitLogged(t *testing.T, ids []string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		p.mu.Lock()
		missing := ""
		for _, id := range ids {
			if !p.logged[id] {
				missing = id
				break
			}
		}
		p.mu.Unlock()
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the access-log line of request %s never appeared in the process's output", missing)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Kill ends the process with SIGKILL, as a node failure or the OOM killer
// would: no deferred code, no shutdown hook runs. It returns once the
// process has exited.
func (p *process) Kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Warnings returns the WARN and ERROR lines the process logged so far.
func (p *process) Warnings() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.warnings...)
}

// serve starts `eventapi serve` on a random loopback port and returns it
// once it logs that it listens. The process is stopped with SIGTERM at the
// end of the test.
func serve(t *testing.T, env []string) *process {
	t.Helper()
	cmd := exec.Command(binary, "serve")
	p := &process{cmd: cmd, logged: map[string]bool{}, failedOpen: map[string]bool{}}
	// The defaults come first, so that env may override them (the last of
	// duplicate keys wins).
	cmd.Env = append(os.Environ(), append([]string{"EVENTAPI_ADDR=127.0.0.1:0", "EVENTAPI_METRICS_ADDR=127.0.0.1:0", "EVENTAPI_LOG_LEVEL=info"}, env...)...)
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
	p.done = done
	// Wait closes the pipe: it may only run once every line was read
	// (os/exec), or a test reading the last lines (the drain's) misses them.
	read := make(chan struct{})
	go func() { <-read; _ = cmd.Wait(); close(done) }()
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
		defer close(read)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			var line struct {
				Msg       string `json:"msg"`
				Addr      string `json:"addr"`
				RequestID string `json:"request_id"`
			}
			parsed := json.Unmarshal(sc.Bytes(), &line) == nil
			if !sent && parsed && line.Msg == "eventapi listening" {
				addr <- line.Addr
				sent = true
			}
			if parsed && line.RequestID != "" && (line.Msg == "request" || line.Msg == ratelimit.FailOpenRequestMessage) {
				p.mu.Lock()
				if line.Msg == "request" {
					p.logged[line.RequestID] = true
				} else {
					p.failedOpen[line.RequestID] = true
				}
				p.mu.Unlock()
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
