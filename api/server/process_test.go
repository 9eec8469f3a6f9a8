package server_test

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

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
