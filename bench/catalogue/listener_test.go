package catalogue

import (
	"net"
	"net/url"
	"os"
	"testing"

	"github.com/eventapi/eventapi/platform/pgtest"
)

func TestParseProcAddr(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ip   string
		port uint16
	}{
		{"0100007F:18EB", "127.0.0.1", 6379},
		{"00000000:1538", "0.0.0.0", 5432},
		{"00000000000000000000000001000000:1F90", "::1", 8080},
		{"00000000000000000000000000000000:0050", "::", 80},
	} {
		ip, port, err := parseProcAddr(tc.in)
		if err != nil || !ip.Equal(net.ParseIP(tc.ip)) || port != tc.port {
			t.Errorf("parseProcAddr(%q) = %v, %d, %v; want %s, %d", tc.in, ip, port, err, tc.ip, tc.port)
		}
	}
	for _, bad := range []string{"", "0100007F", "01007F:18EB", "zz00007F:18EB", "0100007F:zz"} {
		if _, _, err := parseProcAddr(bad); err == nil {
			t.Errorf("parseProcAddr(%q) accepted", bad)
		}
	}
}

// TestListenerPID finds this test process by a socket it listens on, the
// local Redis and PostgreSQL by their configured addresses, and nothing on a
// port where nobody listens.
func TestListenerPID(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if pid, err := ListenerPID(ln.Addr().String()); err != nil || pid != os.Getpid() {
		t.Errorf("ListenerPID(own listener) = %d, %v; want %d", pid, err, os.Getpid())
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	if pid, err := ListenerPID(addr); err == nil {
		t.Errorf("ListenerPID(closed %s) = %d, want an error", addr, pid)
	}

	for _, raw := range []string{pgtest.RedisURL(), pgtest.AdminURL()} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		pid, err := ListenerPID(u.Host)
		if err != nil {
			t.Fatalf("%s: %v", u.Host, err)
		}
		if _, err := ReadCPU(pid); err != nil || pid == os.Getpid() {
			t.Errorf("%s: pid %d (own %d), CPU: %v", u.Host, pid, os.Getpid(), err)
		}
		t.Logf("%s is served by pid %d", u.Host, pid)
	}
}

func TestHostPort(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{"postgres://postgres@127.0.0.1:5433/db?sslmode=disable", "127.0.0.1:5433"},
		{"postgres://postgres@127.0.0.1/db", "127.0.0.1:5432"},
		{"redis://127.0.0.1/0", "127.0.0.1:6379"},
		{"rediss://cache.internal:6380/0", "cache.internal:6380"},
	} {
		if got := HostPort(tc.raw); got != tc.want {
			t.Errorf("HostPort(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

// TestRootHolder: of the processes holding a listening socket, the one
// whose parent holds none wins, whatever the pids' order.
func TestRootHolder(t *testing.T) {
	parents := map[int]int{2247: 1, 1046: 2247, 3000: 2247, 500: 1, 501: 500}
	parent := func(pid int) (int, error) { return parents[pid], nil }
	for _, tc := range []struct {
		name    string
		holders []int
		want    int
	}{
		{"the parent alone", []int{2247}, 2247},
		{"a child numbered below its parent (pids wrapped)", []int{1046, 2247}, 2247},
		{"children above and below", []int{3000, 2247, 1046}, 2247},
		{"two unrelated roots: the lowest", []int{2247, 500, 501}, 500},
		{"a child whose parent holds nothing", []int{1046}, 1046},
	} {
		holders := map[int]bool{}
		for _, pid := range tc.holders {
			holders[pid] = true
		}
		if got, err := rootHolder(holders, parent); err != nil || got != tc.want {
			t.Errorf("%s: rootHolder = %d, %v; want %d", tc.name, got, err, tc.want)
		}
	}
	if _, err := rootHolder(map[int]bool{}, parent); err == nil {
		t.Error("rootHolder of no holder: want an error")
	}
}
