package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// postgres is a PostgreSQL instance of the harness's own.
type postgres struct {
	bin, data, log string
	port           int
}

// pgBin is the newest /usr/lib/postgresql/*/bin.
func pgBin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	if len(dirs) == 0 {
		fatalf("no /usr/lib/postgresql/*/bin: install postgresql")
	}
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi < vj
	})
	return dirs[len(dirs)-1]
}

// chownPostgres hands dir to the postgres user when running as root.
func chownPostgres(dir string) {
	if os.Geteuid() != 0 {
		return
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		fatalf("running as root needs the postgres user: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		fatalf("chown %s: %v", dir, err)
	}
}

func startPostgres(dir string) *postgres {
	pg := &postgres{bin: pgBin(), data: filepath.Join(dir, "pgdata"), log: filepath.Join(dir, "postgres.log"), port: freePort()}
	sock := filepath.Join(dir, "pgsock")
	for _, d := range []string{pg.data, sock} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			fatalf("%v", err)
		}
		chownPostgres(d)
	}
	chownPostgres(dir)
	must(asPostgres(pg.log+".initdb", filepath.Join(pg.bin, "initdb"), "-D", pg.data, "-U", "postgres", "--auth=trust", "-E", "UTF8"))
	conf := fmt.Sprintf("\nport = %d\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\nmax_connections = 200\nfsync = off\n", pg.port, sock)
	f, err := os.OpenFile(filepath.Join(pg.data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	must(err)
	_, _ = f.WriteString(conf)
	_ = f.Close()
	pg.start()
	must(asPostgres(pg.log+".createdb", filepath.Join(pg.bin, "createdb"), "-h", "127.0.0.1", "-p", strconv.Itoa(pg.port), "-U", "postgres", "eventapi"))
	// The documented setup behind PgBouncer (README, "Behind PgBouncer";
	// docs/helm.md): statement_timeout on the role, not sent at connect.
	must(asPostgres(pg.log+".psql", filepath.Join(pg.bin, "psql"), "-h", "127.0.0.1", "-p", strconv.Itoa(pg.port), "-U", "postgres", "-d", "eventapi",
		"-v", "ON_ERROR_STOP=1", "-c", "ALTER ROLE postgres SET statement_timeout = '15s'"))
	return pg
}

func (pg *postgres) pgctl(args ...string) error {
	return asPostgres(pg.log+".pg_ctl", append([]string{filepath.Join(pg.bin, "pg_ctl"), "-D", pg.data, "-l", pg.log, "-w", "-t", "60"}, args...)...)
}

func (pg *postgres) start() { must(pg.pgctl("start")) }

func (pg *postgres) stop() { _ = pg.pgctl("stop", "-m", "fast") }

func (pg *postgres) url() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/eventapi?sslmode=disable", pg.port)
}

// pgLoginRetry is PgBouncer's server_login_retry: after a failed login to
// PostgreSQL (it was down) it tries again this much later, so a pod's
// readiness check passes again at most this long after PostgreSQL is back
// (postgresOutage's bound).
const pgLoginRetry = time.Second

// pgbouncer is a PgBouncer in transaction mode in front of pg.
type pgbouncer struct {
	port int
	cmd  *exec.Cmd
}

func startPgBouncer(dir string, pg *postgres) *pgbouncer {
	if _, err := exec.LookPath("pgbouncer"); err != nil {
		fatalf("pgbouncer is not installed (scripts/fleet.sh installs it): %v", err)
	}
	b := &pgbouncer{port: freePort()}
	auth := writeFile(dir, "pgbouncer.users", `"postgres" ""`+"\n")
	ini := writeFile(dir, "pgbouncer.ini", fmt.Sprintf(`[databases]
eventapi = host=127.0.0.1 port=%d dbname=eventapi user=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
max_client_conn = 1000
default_pool_size = 40
; the pods send no statement_timeout (EVENTAPI_DATABASE_POOLER=transaction):
; it is the role's, as README "Behind PgBouncer" says to set it.
ignore_startup_parameters = extra_float_digits
; after a PostgreSQL restart, reconnect within a second, and let a client
; wait at most 10 s for a server connection.
server_login_retry = %d
query_wait_timeout = 10
logfile = %s
`, pg.port, b.port, auth, int(pgLoginRetry.Seconds()), filepath.Join(dir, "pgbouncer.log")))
	for _, f := range []string{auth, ini} {
		chownPostgres(f)
	}
	args := []string{"pgbouncer", ini}
	if os.Geteuid() == 0 {
		args = append([]string{"runuser", "-u", "postgres", "--"}, args...)
	}
	b.cmd = exec.Command(args[0], args[1:]...)
	// Its own process group: runuser passes terminal signals on to the group.
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	must(b.cmd.Start())
	must(waitFor("pgbouncer", 30*time.Second, func() bool { return tcpUp(b.port) }))
	return b
}

// stop signals the process group (runuser does not pass SIGINT on) and
// waits; SIGKILL after 10 s.
func (b *pgbouncer) stop() {
	if b.cmd == nil || b.cmd.Process == nil {
		return
	}
	pgid := b.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGINT)
	done := make(chan struct{})
	go func() { _ = b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
	}
}

// url is the pods' database URL through PgBouncer (the pods run with
// EVENTAPI_DATABASE_POOLER=transaction), with extra pgx parameters if any.
func (b *pgbouncer) url(params string) string {
	u := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/eventapi?sslmode=disable", b.port)
	if params != "" {
		u += "&" + params
	}
	return u
}

// redisCluster is scripts/redis-cluster.sh with a port range of its own.
type redisCluster struct {
	script, dir     string
	base, busOffset int
	url             string
}

func startRedisCluster(repo, dir string) *redisCluster {
	rc := &redisCluster{script: filepath.Join(repo, "scripts", "redis-cluster.sh"), dir: filepath.Join(dir, "redis")}
	if portBase != 0 {
		// Six nodes and their bus ports (offset 6) in twelve ports of the range.
		rc.base, rc.busOffset = freePorts(12), 6
	} else {
		rc.base, rc.busOffset = freePorts(6), 10000
	}
	out, err := rc.run("start")
	must(err)
	rc.url = strings.TrimSpace(out)
	return rc
}

func (rc *redisCluster) run(args ...string) (string, error) {
	cmd := exec.Command("bash", append([]string{rc.script}, args...)...)
	cmd.Env = append(os.Environ(), "REDIS_CLUSTER_BASE_PORT="+strconv.Itoa(rc.base), "REDIS_CLUSTER_DIR="+rc.dir,
		"REDIS_CLUSTER_BUS_PORT_OFFSET="+strconv.Itoa(rc.busOffset))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	return string(out), err
}

// haproxy balances TCP connections over the pods like a Kubernetes Service:
// health checks on /readyz every readiness period, out after the failure
// threshold, back after one success; no retries, no redispatch.
type haproxy struct {
	port int
	sock string
	cmd  *exec.Cmd
}

func startHAProxy(dir string, pods []*pod, period time.Duration, fall int, checkTimeout time.Duration) *haproxy {
	if _, err := exec.LookPath("haproxy"); err != nil {
		fatalf("haproxy is not installed (scripts/fleet.sh installs it): %v", err)
	}
	h := &haproxy{port: freePort(), sock: filepath.Join(dir, "haproxy.sock")}
	var servers strings.Builder
	for _, p := range pods {
		fmt.Fprintf(&servers, "  server %s 127.0.0.1:%d check inter %dms fall %d rise 1\n", p.name, p.port, period.Milliseconds(), fall)
	}
	cfg := writeFile(dir, "haproxy.cfg", fmt.Sprintf(`global
  stats socket %s mode 600 level admin
  maxconn 4000

defaults
  mode tcp
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout check %dms
  # kube-proxy retries nothing and never moves a connection elsewhere.
  retries 0
  no option redispatch

frontend api
  bind 127.0.0.1:%d
  default_backend pods

backend pods
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
%s`, h.sock, checkTimeout.Milliseconds(), h.port, servers.String()))
	must(run(filepath.Join(dir, "haproxy.check.log"), "haproxy", "-c", "-f", cfg))
	h.cmd = exec.Command("haproxy", "-f", cfg)
	logf, _ := os.Create(filepath.Join(dir, "haproxy.log"))
	h.cmd.Stdout, h.cmd.Stderr = logf, logf
	must(h.cmd.Start())
	must(waitFor("haproxy", 30*time.Second, func() bool { return tcpUp(h.port) }))
	must(waitFor("every pod UP in haproxy", 60*time.Second, func() bool { return h.down() == 0 }))
	return h
}

// states returns each server's status (UP, DOWN, …) from the stats socket.
func (h *haproxy) states() (map[string]string, error) {
	c, err := net.DialTimeout("unix", h.sock, time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("show stat\n")); err != nil {
		return nil, err
	}
	out := map[string]string{}
	sc := bufio.NewScanner(c)
	for sc.Scan() {
		f := strings.Split(sc.Text(), ",")
		if len(f) > 17 && f[0] == "pods" && f[1] != "BACKEND" {
			out[f[1]] = f[17]
		}
	}
	return out, sc.Err()
}

// down counts the servers not UP (-1 when the socket does not answer).
func (h *haproxy) down() int {
	s, err := h.states()
	if err != nil || len(s) == 0 {
		return -1
	}
	n := 0
	for _, st := range s {
		if !strings.HasPrefix(st, "UP") {
			n++
		}
	}
	return n
}

func (h *haproxy) stop() {
	if h.cmd != nil && h.cmd.Process != nil {
		_ = h.cmd.Process.Kill()
		_ = h.cmd.Wait()
	}
}

func must(err error) {
	if err != nil {
		fatalf("%v", err)
	}
}
