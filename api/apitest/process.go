package apitest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/eventapi/eventapi/platform/pgtest"
)

// The real eventapi binary, built once per test binary for the tests and
// benchmarks that run, signal or kill server processes.
var built struct {
	once sync.Once
	path string
	err  error
}

// Binary builds cmd/eventapi from this checkout (once per test binary) and
// returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "eventapi-test-bin-")
		if err != nil {
			built.err = err
			return
		}
		pgtest.AtExit(func() { _ = os.RemoveAll(dir) })
		built.path = filepath.Join(dir, "eventapi")
		out, err := exec.Command("go", "build", "-o", built.path, "github.com/eventapi/eventapi/cmd/eventapi").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build cmd/eventapi: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// Process is a running `eventapi serve`.
type Process struct {
	Cmd *exec.Cmd
	// Addr is the host:port it listens on.
	Addr string
	done chan struct{}
	mu   sync.Mutex
	logs bytes.Buffer
}

// StartProcess runs `eventapi serve` on a random loopback port (API and
// metrics) with tracing off and env added (a later entry wins), and returns
// once it logs its address. It is killed at the end of the test if it is
// still running, and its log is shown if the test failed.
func StartProcess(t testing.TB, env ...string) *Process {
	t.Helper()
	p := &Process{done: make(chan struct{})}
	p.Cmd = exec.Command(Binary(t), "serve")
	p.Cmd.Env = append(os.Environ(), append([]string{"EVENTAPI_ADDR=127.0.0.1:0", "EVENTAPI_METRICS_ADDR=127.0.0.1:0",
		"OTEL_SDK_DISABLED=true", "EVENTAPI_LOG_LEVEL=info"}, env...)...)
	stdout, err := p.Cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.Cmd.Stderr = p
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	// Wait closes the pipe: it may only run once every line was read
	// (os/exec), or the last lines (the drain's) would be lost.
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer func() { _, _ = io.Copy(io.Discard, stdout) }() // past a line too long to scan
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		listening := false
		for sc.Scan() {
			var line struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if !listening && json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "eventapi listening" {
				listening = true
				addr <- line.Addr
			}
			_, _ = p.Write(append(sc.Bytes(), '\n'))
		}
	}()
	go func() { <-read; _ = p.Cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("server %d log:\n%s", p.Cmd.Process.Pid, p.Logs())
		}
	})
	select {
	case p.Addr = <-addr:
		return p
	case <-p.done:
		t.Fatalf("eventapi serve exited before listening:\n%s", p.Logs())
	case <-time.After(60 * time.Second):
		t.Fatalf("eventapi serve did not report its address:\n%s", p.Logs())
	}
	return nil
}

// Base is the process's API base URL.
func (p *Process) Base() string { return "http://" + p.Addr }

// Pid is the process id.
func (p *Process) Pid() int { return p.Cmd.Process.Pid }

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Kill sends SIGKILL and waits for the process to exit.
func (p *Process) Kill() {
	select {
	case <-p.done:
	default:
		_ = p.Cmd.Process.Kill()
		<-p.done
	}
}

// Signal sends sig to the process.
func (p *Process) Signal(t testing.TB, sig syscall.Signal) {
	t.Helper()
	if err := p.Cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// Logs returns what the process printed so far.
func (p *Process) Logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

// maxLog bounds the log kept for a failing test's output (a benchmark's
// access log would otherwise grow without end); what comes later is
// dropped.
const maxLog = 4 << 20

// Write appends to the process's log (its stderr and stdout lines).
func (p *Process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.logs.Len() >= maxLog {
		return len(b), nil
	}
	return p.logs.Write(b)
}
