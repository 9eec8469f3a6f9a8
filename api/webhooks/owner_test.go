package webhooks_test

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ownsConnection reports whether process pid holds the TCP socket from
// sender to receiver (the addresses as the receiver sees them), by matching
// the socket's inode in /proc/net/tcp against pid's open files. Both ends
// are matched: the sender's port alone can also be the local port of
// another connection, to another address, or of a closed one waiting out
// TIME_WAIT (inode 0), and /proc/net/tcp may list that one too.
func ownsConnection(t *testing.T, pid int, sender, receiver string) bool {
	t.Helper()
	local, remote := procAddr(t, sender), procAddr(t, receiver)
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inodes := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 9 && fields[1] == local && fields[2] == remote && fields[9] != "0" {
			inodes["socket:["+fields[9]+"]"] = true
		}
	}
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err == nil && inodes[target] {
			return true
		}
	}
	return false
}

// procAddr is a loopback IPv4 address as /proc/net/tcp writes it.
func procAddr(t *testing.T, addr string) string {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != "127.0.0.1" {
		t.Fatalf("unexpected address %q", addr)
	}
	p, _ := strconv.Atoi(port)
	return fmt.Sprintf("0100007F:%04X", p)
}
