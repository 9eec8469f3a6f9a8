package edge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// boundOp is one step of TestMemoryBytesAreBounded: a Store call on key and
// what it must answer.
type boundOp struct {
	op, key string
	// refused: the call must fail with ErrUnavailable; otherwise succeed (a
	// Claim or SetNX of an absent key must claim it).
	refused bool
}

// The values a Memory holds never take more than maxBytes. Done values
// (Set: completed Idempotency-Key records) are evicted oldest first to make
// room; claims (Claim, SetNX: in-progress markers) never are, and a claim
// they leave no room for is refused with ErrUnavailable. Every value here
// has the same size, and the cap holds three.
func TestMemoryBytesAreBounded(t *testing.T) {
	tests := []struct {
		name string
		ops  []boundOp
		// held are the keys held at the end.
		held []string
	}{
		{name: "done values are evicted oldest first",
			ops:  []boundOp{{op: "set", key: "d1"}, {op: "set", key: "d2"}, {op: "set", key: "d3"}, {op: "set", key: "d4"}, {op: "set", key: "d5"}},
			held: []string{"d3", "d4", "d5"}},
		{name: "a claim evicts the oldest done value",
			ops:  []boundOp{{op: "set", key: "d1"}, {op: "set", key: "d2"}, {op: "set", key: "d3"}, {op: "claim", key: "c1"}},
			held: []string{"c1", "d2", "d3"}},
		{name: "a rewritten done value is the newest",
			ops:  []boundOp{{op: "set", key: "d1"}, {op: "set", key: "d2"}, {op: "set", key: "d3"}, {op: "set", key: "d1"}, {op: "set", key: "d4"}},
			held: []string{"d1", "d3", "d4"}},
		{name: "claims are never evicted: a done value makes way even for itself",
			ops:  []boundOp{{op: "claim", key: "c1"}, {op: "setnx", key: "c2"}, {op: "claim", key: "c3"}, {op: "set", key: "d1"}},
			held: []string{"c1", "c2", "c3"}},
		{name: "a claim the claims leave no room for is refused",
			ops: []boundOp{{op: "set", key: "d1"}, {op: "claim", key: "c1"}, {op: "claim", key: "c2"}, {op: "claim", key: "c3"},
				{op: "claim", key: "c4", refused: true}, {op: "setnx", key: "c4", refused: true}},
			held: []string{"c1", "c2", "c3"}},
		{name: "a released claim makes room again",
			ops: []boundOp{{op: "claim", key: "c1"}, {op: "claim", key: "c2"}, {op: "claim", key: "c3"},
				{op: "claim", key: "c4", refused: true}, {op: "deleteif", key: "c2"}, {op: "claim", key: "c4"}},
			held: []string{"c1", "c3", "c4"}},
		// The idempotency middleware's path: a claim, then its record
		// replaces it; the record is evictable, the running claims not.
		{name: "a claim completed by Set becomes evictable",
			ops: []boundOp{{op: "claim", key: "k1"}, {op: "set", key: "k1"}, {op: "claim", key: "k2"}, {op: "claim", key: "k3"},
				{op: "claim", key: "k4"}},
			held: []string{"k2", "k3", "k4"}},
		{name: "an existing key's claim answers its value, full or not",
			ops:  []boundOp{{op: "claim", key: "c1"}, {op: "claim", key: "c2"}, {op: "claim", key: "c3"}, {op: "claim", key: "c1"}},
			held: []string{"c1", "c2", "c3"}},
	}
	ctx := context.Background()
	value := []byte("0123456789") // every key here is 2 bytes: one value is size bytes
	size := valueSize("k1", value)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			m := newMemory(clock.now)
			m.maxBytes = 3 * size
			for i, op := range tt.ops {
				err := boundStep(ctx, m, op, value)
				if op.refused != errors.Is(err, ErrUnavailable) || !op.refused && err != nil {
					t.Fatalf("step %d, %s %s: %v (refused %v expected)", i, op.op, op.key, err, op.refused)
				}
				if m.held > m.maxBytes {
					t.Fatalf("step %d, %s %s: %d bytes held, cap %d", i, op.op, op.key, m.held, m.maxBytes)
				}
			}
			if got := heldKeys(m); !slices.Equal(got, tt.held) {
				t.Fatalf("held %v, want %v", got, tt.held)
			}
			checkCounts(t, m)
		})
	}
}

// boundStep runs op on m.
func boundStep(ctx context.Context, m *Memory, op boundOp, value []byte) error {
	switch op.op {
	case "set":
		return m.Set(ctx, op.key, value, time.Hour)
	case "claim":
		prev, claimed, err := m.Claim(ctx, op.key, value, time.Hour)
		if err == nil && !claimed && prev == nil {
			return fmt.Errorf("neither claimed nor found")
		}
		return err
	case "setnx":
		ok, err := m.SetNX(ctx, op.key, value, time.Hour)
		if err == nil && !ok {
			return fmt.Errorf("not stored")
		}
		return err
	case "deleteif":
		return m.DeleteIf(ctx, op.key, value)
	}
	return fmt.Errorf("unknown op %q", op.op)
}

// heldKeys lists the keys m holds, sorted.
func heldKeys(m *Memory) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	keys := make([]string, 0, len(m.values))
	for k := range m.values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkCounts checks m's byte counts and eviction list against its values.
func checkCounts(t *testing.T, m *Memory) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	var held, claims int64
	done := 0
	for k, v := range m.values {
		held += valueSize(k, v.v)
		if v.done == nil {
			claims += valueSize(k, v.v)
		} else {
			done++
		}
	}
	if held != m.held || claims != m.claims || done != m.done.Len() {
		t.Fatalf("counted %d bytes, %d of claims, %d done; values hold %d, %d, %d", m.held, m.claims, m.done.Len(), held, claims, done)
	}
}

// Sustained keyed writes (a claim, then its record, ~2 KiB) on a store
// capped at 64 KiB: memory stays under the cap however many there are,
// while the counts stay exact through expiry, sweeps and deletes.
func TestMemorySustainedKeyedWritesStayUnderTheCap(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	m := newMemory(clock.now)
	m.maxBytes = 64 << 10
	record := make([]byte, 2<<10)
	for i := range 20_000 {
		key := fmt.Sprint("idem:org:", i)
		if _, claimed, err := m.Claim(ctx, key, []byte(`{"s":"running"}`), 30*time.Second); err != nil || !claimed {
			t.Fatalf("write %d: claimed %v, %v", i, claimed, err)
		}
		if err := m.Set(ctx, key, record, 24*time.Hour); err != nil {
			t.Fatal(err)
		}
		if i%7 == 0 {
			_ = m.Delete(ctx, fmt.Sprint("idem:org:", i/2))
		}
		if m.held > m.maxBytes {
			t.Fatalf("write %d: %d bytes held, cap %d", i, m.held, m.maxBytes)
		}
		clock.advance(10 * time.Millisecond)
	}
	if _, v := m.Len(); v > int(m.maxBytes/int64(len(record))) {
		t.Fatalf("%d values held under a %d-byte cap", v, m.maxBytes)
	}
	checkCounts(t, m)
	clock.advance(25 * time.Hour) // everything expires; the sweep drops it
	_, _ = m.Admit(ctx, "trigger", 1, time.Second)
	if _, v := m.Len(); v != 0 || m.held != 0 || m.claims != 0 || m.done.Len() != 0 {
		t.Fatalf("after expiry: %d values, %d bytes, %d of claims, %d done", v, m.held, m.claims, m.done.Len())
	}
}
