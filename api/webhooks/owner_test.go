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

// ownsConnection reports whether process pid holds the TCP socket whose
// local address is remote (the receiver's view of the sender), by matching
// the socket's inode in /proc/net/tcp against pid's open files.
func ownsConnection(t *testing.T, pid int, remote string) bool {
	t.Helper()
	host, port, err := net.SplitHostPort(remote)
	if err != nil || host != "127.0.0.1" {
		t.Fatalf("unexpected sender address %q", remote)
	}
	p, _ := strconv.Atoi(port)
	local := fmt.Sprintf("0100007F:%04X", p)
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inode := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 9 && fields[1] == local {
			inode = fields[9]
		}
	}
	if inode == "" {
		return false
	}
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err == nil && target == "socket:["+inode+"]" {
			return true
		}
	}
	return false
}
