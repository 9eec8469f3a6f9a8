package catalogue

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// HostPort is the host:port of a PostgreSQL or Redis URL, with the
// scheme's default port when the URL names none.
func HostPort(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.Port() != "" {
		return u.Host
	}
	switch u.Scheme {
	case "redis", "rediss":
		return u.Host + ":6379"
	default:
		return u.Host + ":5432"
	}
}

// URLListenerPID finds the local process listening at the host:port of a
// PostgreSQL or Redis URL.
func URLListenerPID(raw string) (int, error) { return ListenerPID(HostPort(raw)) }

// ListenerPID returns the pid of the local process that owns the listening
// TCP socket of addr ("host:port"), found the way ss -p does: the socket's
// inode from /proc/net/tcp{,6}, then the process whose /proc/<pid>/fd holds
// "socket:[inode]". Finding Redis and PostgreSQL by their configured address
// rather than by process name means the CPU read is the one the servers
// under test talk to, not another program's redis-server. A listener bound
// to the wildcard address (0.0.0.0 or ::) on that port matches too.
func ListenerPID(addr string) (int, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, err
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil {
		return 0, fmt.Errorf("port of %q: %w", addr, err)
	}
	ips, err := net.LookupIP(host)
	if err != nil {
		return 0, err
	}
	var inodes []string
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		found, err := listeningInodes(table, uint16(port), ips)
		if err != nil && !os.IsNotExist(err) {
			return 0, err
		}
		inodes = append(inodes, found...)
	}
	if len(inodes) == 0 {
		return 0, fmt.Errorf("no local process listens on %s", addr)
	}
	return socketOwner(inodes)
}

// tcpListen is the socket state LISTEN in /proc/net/tcp.
const tcpListen = "0A"

// listeningInodes returns the inodes of the sockets of table that listen on
// port at one of ips or at the wildcard address.
func listeningInodes(table string, port uint16, ips []net.IP) ([]string, error) {
	f, err := os.Open(table)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var inodes []string
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != tcpListen {
			continue
		}
		ip, p, err := parseProcAddr(f[1])
		if err != nil || p != port {
			continue
		}
		if ip.IsUnspecified() || containsIP(ips, ip) {
			inodes = append(inodes, f[9])
		}
	}
	return inodes, sc.Err()
}

func containsIP(ips []net.IP, ip net.IP) bool {
	for _, x := range ips {
		if x.Equal(ip) {
			return true
		}
	}
	return false
}

// parseProcAddr decodes "0100007F:18EB" (IPv4) or the 32-hex-digit IPv6
// form: the address is in host byte order per 32-bit word (little-endian on
// every platform this runs on), the port big-endian.
func parseProcAddr(s string) (net.IP, uint16, error) {
	hexIP, hexPort, ok := strings.Cut(s, ":")
	if !ok {
		return nil, 0, fmt.Errorf("bad address %q", s)
	}
	raw, err := hex.DecodeString(hexIP)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return nil, 0, fmt.Errorf("bad address %q", s)
	}
	for w := 0; w < len(raw); w += 4 {
		raw[w], raw[w+1], raw[w+2], raw[w+3] = raw[w+3], raw[w+2], raw[w+1], raw[w]
	}
	port, err := strconv.ParseUint(hexPort, 16, 16)
	if err != nil {
		return nil, 0, fmt.Errorf("bad port in %q", s)
	}
	return net.IP(raw), uint16(port), nil
}

// socketOwner returns the pid of the process that opened one of the socket
// inodes. Forked children that inherited the socket (a PostgreSQL backend
// for the moment before it closes it) hold it too, so the holder whose
// parent holds none of them wins: the lowest pid is not the parent once
// the machine's pids have wrapped around (a backend numbered 1046 under a
// postmaster numbered 2247 was taken for PostgreSQL, and its CPU read as 0).
func socketOwner(inodes []string) (int, error) {
	want := map[string]bool{}
	for _, in := range inodes {
		want["socket:["+in+"]"] = true
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	holders := map[int]bool{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fds, err := os.ReadDir("/proc/" + e.Name() + "/fd")
		if err != nil {
			continue // gone, or not ours to read
		}
		for _, fd := range fds {
			if link, err := os.Readlink("/proc/" + e.Name() + "/fd/" + fd.Name()); err == nil && want[link] {
				holders[pid] = true
				break
			}
		}
	}
	return rootHolder(holders, ParentPID)
}

// rootHolder picks, of the processes holding a socket, the one whose parent
// is not among them (the lowest such pid should there be several).
func rootHolder(holders map[int]bool, parent func(int) (int, error)) (int, error) {
	owner := 0
	for pid := range holders {
		if ppid, err := parent(pid); err == nil && holders[ppid] {
			continue
		}
		if owner == 0 || pid < owner {
			owner = pid
		}
	}
	if owner == 0 {
		return 0, fmt.Errorf("no readable process holds the socket")
	}
	return owner, nil
}

// ParentPID reads the PPid of pid from /proc/<pid>/status.
func ParentPID(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no PPid", pid)
}
