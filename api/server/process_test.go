package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The real eventapi binary, built once per test binary for the tests that
// signal a server process.
var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

func eventapiBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "server-test-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "eventapi")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/eventapi/eventapi/cmd/eventapi").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build cmd/eventapi: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// serverProcess is a running `eventapi serve`.
type serverProcess struct {
	cmd  *exec.Cmd
	Addr string
	done chan struct{}
	mu   sync.Mutex
	logs bytes.Buffer
}

// startServer runs `eventapi serve` with env on a random loopback port and
// returns once it logs its address. It is killed at the end of the test if
// it is still running.
func startServer(t *testing.T, env ...string) *serverProcess {
	t.Helper()
	p := &serverProcess{done: make(chan struct{})}
	p.cmd = exec.Command(eventapiBinary(t), "serve")
	p.cmd.Env = append(os.Environ(), append([]string{"EVENTAPI_ADDR=127.0.0.1:0", "EVENTAPI_METRICS_ADDR=127.0.0.1:0", "OTEL_SDK_DISABLED=true",
		"EVENTAPI_LOG_LEVEL=info"}, env...)...)
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = &lockedWriter{p}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var line struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "eventapi listening" {
				addr <- line.Addr
			}
			_, _ = (&lockedWriter{p}).Write(append(sc.Bytes(), '\n'))
		}
	}()
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("server log:\n%s", p.Logs())
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

// Signal sends sig to the process.
func (p *serverProcess) Signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// Logs returns what the process printed so far.
func (p *serverProcess) Logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

type lockedWriter struct{ p *serverProcess }

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.logs.Write(b)
}

// redisProcess is a redis-server of the test's own on a free loopback port,
// so that stopping it never disturbs the shared Redis.
type redisProcess struct {
	Port int
	cmd  *exec.Cmd
	done chan struct{}
}

func startRedis(t *testing.T) *redisProcess {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redis-server is required: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &redisProcess{Port: ln.Addr().(*net.TCPAddr).Port, done: make(chan struct{})}
	_ = ln.Close()
	r.cmd = exec.Command("redis-server", "--port", strconv.Itoa(r.Port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no")
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	go func() { _ = r.cmd.Wait(); close(r.done) }()
	t.Cleanup(r.Stop)
	waitFor(t, "redis-server to answer PING", func() bool { return redisPing(r.Port) })
	return r
}

// URL is the server's redis:// URL.
func (r *redisProcess) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", r.Port) }

// Stop kills the server and waits until it has exited.
func (r *redisProcess) Stop() {
	if r.cmd.Process != nil {
		_ = r.cmd.Process.Kill()
	}
	<-r.done
}

func redisPing(port int) bool {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line == "+PONG\r\n"
}

// waitFor polls cond until it holds, failing the test after a generous
// deadline (a guard against hanging, not a measured bound).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
