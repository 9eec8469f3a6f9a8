package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/eventapi/eventapi/bench/catalogue"
)

// child is a server process started by catbench.
type child struct {
	name string // shown in the report
	role string // chain or baseline
	cmd  *exec.Cmd
	addr string
	done chan error
}

// startChild re-executes catbench in role with extra environment, forwards
// its stderr and waits for its listening line. Its stdout (the chain's
// access log) is a pipe that another process reads and discards, as a
// container runtime reads a pod's stdout: writing to /dev/null instead
// would cost the server less than it does in production.
func startChild(ctx context.Context, name, role string, env []string) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	defer devnull.Close()
	logs, logsW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	reader := exec.Command("cat")
	reader.Stdin, reader.Stdout = logs, devnull
	err = reader.Start()
	_ = logs.Close()
	if err != nil {
		_ = logsW.Close()
		return nil, fmt.Errorf("the log reader: %w", err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(append(os.Environ(), roleEnv+"="+role), env...)
	cmd.Stdout = logsW
	stderr, err := cmd.StderrPipe()
	if err == nil {
		err = cmd.Start()
	}
	_ = logsW.Close() // the server holds it now; the reader ends when the server does
	if err != nil {
		_ = reader.Wait()
		return nil, err
	}
	c := &child{name: name, role: role, cmd: cmd, done: make(chan error, 1)}
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if addr, ok := strings.CutPrefix(line, listeningLine); ok {
				addrc <- addr
				continue
			}
			fmt.Fprintf(os.Stderr, "[%s] %s\n", name, line)
		}
		err := cmd.Wait()
		_ = reader.Wait()
		c.done <- err
	}()
	select {
	case c.addr = <-addrc:
	case err := <-c.done:
		return nil, fmt.Errorf("%s server exited before listening: %v", name, err)
	case <-time.After(30 * time.Second):
		c.kill()
		return nil, fmt.Errorf("%s server did not start within 30s", name)
	case <-ctx.Done():
		c.kill()
		return nil, ctx.Err()
	}
	if err := catalogue.CheckLoopbackURL("http://" + c.addr); err != nil {
		c.kill()
		return nil, err
	}
	return c, nil
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// stop asks the server to drain and exit (SIGTERM), and kills it after 30 s
// (the chain drains for up to EVENTAPI_SHUTDOWN_TIMEOUT, 20 s by default).
func (c *child) stop() error {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-c.done:
		return err
	case <-time.After(30 * time.Second):
		c.kill()
		return fmt.Errorf("%s server did not stop on SIGTERM; killed", c.name)
	}
}

func (c *child) kill() { _ = c.cmd.Process.Kill() }
