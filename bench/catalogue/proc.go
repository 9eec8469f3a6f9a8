package catalogue

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Memory is a process's resident set, from /proc/<pid>/status.
type Memory struct {
	// RSS is the current resident set (VmRSS); HWM its peak so far (VmHWM).
	RSS, HWM int64 // bytes
	// File is the part of RSS mapped from files (RssFile): for a Go server,
	// its own binary's code and read-only data. The rest is its heap,
	// stacks and runtime.
	File int64 // bytes
}

// memoryFields names the /proc/<pid>/status lines ReadMemory reads.
var memoryFields = map[string]func(*Memory) *int64{
	"VmRSS":   func(m *Memory) *int64 { return &m.RSS },
	"VmHWM":   func(m *Memory) *int64 { return &m.HWM },
	"RssFile": func(m *Memory) *int64 { return &m.File },
}

// ReadMemory reads VmRSS, VmHWM and RssFile of pid (0: this process).
func ReadMemory(pid int) (Memory, error) {
	path := "/proc/self/status"
	if pid > 0 {
		path = "/proc/" + strconv.Itoa(pid) + "/status"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Memory{}, err
	}
	return parseMemory(path, b)
}

// parseMemory reads the memoryFields of a /proc/<pid>/status text.
func parseMemory(path string, b []byte) (Memory, error) {
	var m Memory
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		field := memoryFields[name]
		if !ok || field == nil {
			continue
		}
		f := strings.Fields(rest) // "12345 kB"
		if len(f) != 2 || f[1] != "kB" {
			return Memory{}, fmt.Errorf("%s: unexpected %s line %q", path, name, rest)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("%s: %s: %w", path, name, err)
		}
		*field(&m) = kb << 10
	}
	if m.RSS == 0 {
		return Memory{}, fmt.Errorf("%s: no VmRSS", path)
	}
	return m, nil
}

// ReadCPU returns the user+system CPU time pid has used (0: this process),
// from /proc/<pid>/stat.
func ReadCPU(pid int) (time.Duration, error) {
	path := "/proc/self/stat"
	if pid > 0 {
		path = "/proc/" + strconv.Itoa(pid) + "/stat"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces; fields after its ')' are plain.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("%s: unexpected format", path)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("%s: too few fields", path)
	}
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("%s: bad utime/stime", path)
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// clockTicks is USER_HZ, 100 on every Linux platform Go supports.
const clockTicks = 100

// SampleMemory reads pid's memory every interval until stop is closed and
// returns the largest VmRSS seen, with its RssFile, and the last VmHWM.
func SampleMemory(pid int, interval time.Duration, stop <-chan struct{}) Memory {
	var peak Memory
	t := time.NewTicker(interval)
	defer t.Stop()
	sample := func() {
		if m, err := ReadMemory(pid); err == nil {
			if m.RSS > peak.RSS {
				peak.RSS, peak.File = m.RSS, m.File
			}
			peak.HWM = m.HWM
		}
	}
	for {
		sample()
		select {
		case <-stop:
			sample()
			return peak
		case <-t.C:
		}
	}
}

// CPUSet is the CPU time used so far by each of a set of processes.
type CPUSet map[int]time.Duration

// ReadCPUSet reads the CPU time of every pid that still exists.
func ReadCPUSet(pids []int) CPUSet {
	s := CPUSet{}
	for _, pid := range pids {
		if d, err := ReadCPU(pid); err == nil {
			s[pid] = d
		}
	}
	return s
}

// Since returns the CPU time used between before and s by the processes of
// s; one that is new in s counts from zero, one that has exited is lost.
func (s CPUSet) Since(before CPUSet) time.Duration {
	var total time.Duration
	for pid, d := range s {
		total += d - before[pid]
	}
	return total
}

// ServerPIDs lists the server processes of every other session on the
// database pool is connected to, and with background PostgreSQL's own
// processes too (WAL writer, checkpointer, ...: the cost of writing), keeping
// only children of postmaster, the process listening at the configured
// address: a pid from pg_stat_activity is only read from /proc when it is
// that server's (PostgreSQL on this machine only).
func ServerPIDs(ctx context.Context, pool *pgxpool.Pool, postmaster int, background bool) ([]int, error) {
	rows, err := pool.Query(ctx, `SELECT pid FROM pg_stat_activity
		WHERE pid <> pg_backend_pid()
		  AND (datname = current_database() OR ($1 AND backend_type NOT IN ('client backend', 'autovacuum worker')))`,
		background)
	if err != nil {
		return nil, err
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(pids, func(pid int) bool {
		ppid, err := ParentPID(pid)
		return err != nil || ppid != postmaster
	}), nil
}
