package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// portBase, when set (-port-base), is where freePort starts counting: the
// harness then stays in a range of ports of its own, as on a machine whose
// ports are shared out between runs; else the kernel picks any free port.
var (
	portMu   sync.Mutex
	portBase int
)

// freePort returns a loopback port nothing listens on now: the next free
// one from portBase, or one the kernel picks. A port is free between this
// check and the process binding it only because nothing else uses the
// range (with -port-base) or the kernel hands it out rarely (without).
func freePort() int {
	portMu.Lock()
	defer portMu.Unlock()
	if portBase == 0 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fatalf("no free port: %v", err)
		}
		defer ln.Close()
		return ln.Addr().(*net.TCPAddr).Port
	}
	for ; portBase < 65536; portBase++ {
		if ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(portBase)); err == nil {
			_ = ln.Close()
			portBase++
			return portBase - 1
		}
	}
	fatalf("no free port left above -port-base")
	return 0
}

// freePorts returns n consecutive free ports from portBase (without one,
// from a random base in 21000-28999 whose +10000 bus ports are free too,
// as the Redis Cluster's default bus offset needs).
func freePorts(n int) int {
	portMu.Lock()
	defer portMu.Unlock()
	if portBase == 0 {
		for attempt := 0; attempt < 20; attempt++ {
			base := 21000 + int(time.Now().UnixNano()%8000)
			free := true
			for i := 0; i < n; i++ {
				free = free && !tcpUp(base+i) && !tcpUp(base+i+10000)
			}
			if free {
				return base
			}
		}
		fatalf("no %d free consecutive ports found", n)
	}
	for base := portBase; base+n <= 65536; base++ {
		free := true
		for i := 0; i < n && free; i++ {
			free = !tcpUp(base + i)
		}
		if free {
			portBase = base + n
			return base
		}
	}
	fatalf("no %d free consecutive ports left above -port-base", n)
	return 0
}

// run runs a command to completion, its output appended to logFile.
func run(logFile string, name string, args ...string) error {
	f, err := os.OpenFile(logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %v: %w (see %s)", name, args, err, logFile)
	}
	return nil
}

// asPostgres runs a command as the postgres user (initdb, pg_ctl and
// pgbouncer refuse root).
func asPostgres(logFile string, args ...string) error {
	if os.Geteuid() != 0 {
		return run(logFile, args[0], args[1:]...)
	}
	return run(logFile, "runuser", append([]string{"-u", "postgres", "--"}, args...)...)
}

// waitFor polls cond every 100 ms until it holds or timeout passes.
func waitFor(what string, timeout time.Duration, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

func tcpUp(port int) bool {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 500*time.Millisecond)
	if err == nil {
		_ = c.Close()
	}
	return err == nil
}

func httpOK(url string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// pod is one `eventapi serve` process.
type pod struct {
	name    string
	port    int
	metrics int // EVENTAPI_METRICS_ADDR's port
	bin     string
	env     []string
	log     string
	cmd     *exec.Cmd
	done    chan struct{}
}

func (p *pod) start() error {
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	p.cmd = exec.Command(p.bin, "serve")
	p.cmd.Env = append(os.Environ(), append(p.env, "EVENTAPI_ADDR=127.0.0.1:"+strconv.Itoa(p.port),
		"EVENTAPI_METRICS_ADDR=127.0.0.1:"+strconv.Itoa(p.metrics))...)
	p.cmd.Stdout, p.cmd.Stderr = f, f
	if err := p.cmd.Start(); err != nil {
		_ = f.Close()
		return err
	}
	p.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { _ = cmd.Wait(); _ = f.Close(); close(done) }(p.cmd, p.done)
	return waitFor(p.name+" ready", 60*time.Second, func() bool { return httpOK(p.url() + "/readyz") })
}

func (p *pod) url() string { return "http://127.0.0.1:" + strconv.Itoa(p.port) }

func (p *pod) metricsURL() string { return "http://127.0.0.1:" + strconv.Itoa(p.metrics) + "/metrics" }

// stop sends SIGTERM and waits for the process to exit (SIGKILL after
// timeout); it reports whether it had to kill it.
func (p *pod) stop(timeout time.Duration) (killed bool) {
	if p.cmd == nil || p.cmd.Process == nil {
		return false
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		killed = true
	}
	p.cmd = nil
	return killed
}

// writeFile writes content to dir/name and returns the path.
func writeFile(dir, name, content string) string {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		fatalf("write %s: %v", path, err)
	}
	return path
}
