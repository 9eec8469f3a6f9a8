package storage

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/money"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// probe has a field of every kind scan.go stores itself, and one it leaves
// to bun (an int64).
type probe struct {
	bun.BaseModel `bun:"table:scan_probe"`

	ID      uuid.UUID  `bun:"id,pk,type:uuid" json:"id"`
	Name    string     `bun:"name" json:"name"`
	Email   *string    `bun:"email" json:"email"`
	Flag    bool       `bun:"flag" json:"flag"`
	At      time.Time  `bun:"at,nullzero" json:"at"`
	Maybe   *time.Time `bun:"maybe" json:"maybe"`
	Count   int64      `bun:"count" json:"count"`
	Missing string     `bun:"missing" json:"missing"`
	Ref     uuid.UUID  `bun:"ref,type:uuid" json:"ref"`
	RefP    *uuid.UUID `bun:"ref_p,type:uuid" json:"ref_p"`
	FlagP   *bool      `bun:"flag_p" json:"flag_p"`
	N       int        `bun:"n" json:"n"`
	NP      *int       `bun:"n_p" json:"n_p"`
	F       float64    `bun:"f" json:"f"`
	FP      *float64   `bun:"f_p" json:"f_p"`
	// Left to the field's scanner, or on the pgx path stored as a []string.
	Price *money.Amount `bun:"price,type:numeric" json:"price"`
	Tags  []string      `bun:"tags,array" json:"tags"`
	// An unconstrained numeric, so its amounts need rounding past the cents.
	Cost money.Amount `bun:"cost" json:"cost"`
}

// hookedProbe scans through bun, which runs its hook.
type hookedProbe struct {
	bun.BaseModel `bun:"table:scan_probe"`
	Name          string `bun:"name"`
}

func (h *hookedProbe) AfterScanRow(context.Context) error { h.Name += "!"; return nil }

// TestScanMatchesBun: the rows scan.go scans are the records bun scans from
// the same rows (deep-equal, same JSON), NULLs, empty and non-ASCII strings,
// a far timestamp and the fields it leaves to bun included; the fast kinds
// are really in use for the probe, and a model with a scan hook is left to bun.
func TestScanMatchesBun(t *testing.T) {
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	db, err := database.Open(ctx, url, database.Options{MaxOpenConns: 10, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	// the same database in pgx's exec mode, whose results come as text (as
	// behind the pooler): the pgx path decodes only the texts itself then
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	textDB, err := database.Open(ctx, url+sep+"default_query_exec_mode=exec", database.Options{MaxOpenConns: 2, Pooler: pgtest.Pooler()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = textDB.Close() })
	if _, err := db.ExecContext(ctx, `CREATE TABLE scan_probe (id uuid PRIMARY KEY, name text NOT NULL,
		email text, flag boolean NOT NULL, at timestamptz, maybe timestamptz, count bigint, missing text, ref uuid,
		ref_p uuid, flag_p boolean, n integer, n_p integer, f double precision, f_p double precision,
		price numeric(12,2), tags text[], cost numeric)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO scan_probe VALUES
		('00000000-0000-0000-0000-000000000001', 'Ä <b>&"x"', 'a@b.c', true, '2026-11-23 10:00:00.123456+00', '9999-12-31 23:59:59+00', 42, 'm', '0b6f4a52-94f2-4c0e-9d8a-3c1f6e2b7a10',
		 '0b6f4a52-94f2-4c0e-9d8a-3c1f6e2b7a11', false, 2147483647, -7, 1.5e300, -0.25, 25.5, '{a,"b c",NULL,"Ä"}', 123456789012.345),
		('00000000-0000-0000-0000-000000000002', '', NULL, false, NULL, NULL, NULL, NULL, NULL,
		 NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
		('00000000-0000-0000-0000-000000000003', 'z', '', true, '1970-01-01 00:00:00+00', '2000-02-29 12:00:00+05', -1, '', NULL,
		 '00000000-0000-0000-0000-000000000000', true, -2147483648, 0, 0, 3.25, 0, '{}', -0.00499999)`); err != nil {
		t.Fatal(err)
	}
	text := scanner.NewSelect().Model((*probe)(nil)).OrderExpr("id").String()
	// Each way of scanning runs the same statement: database/sql's rows, or
	// pgx's through onPgx (the pool's path).
	type way struct {
		name string
		run  func(scan func(rows) error)
	}
	viaSQL := func(scan func(rows) error) {
		t.Helper()
		rs, err := db.DB.QueryContext(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		if err := scan(rows{sql: rs}); err != nil {
			t.Fatal(err)
		}
	}
	viaPgx := func(scan func(rows) error) {
		t.Helper()
		if err := onPgx(ctx, db, text, nil, func(_ context.Context, rs rows) error { return scan(rs) }); err != nil {
			t.Fatal(err)
		}
	}
	viaPgxText := func(scan func(rows) error) {
		t.Helper()
		err := onPgx(ctx, textDB, text, nil, func(_ context.Context, rs rows) error {
			for _, fd := range rs.pgx.FieldDescriptions() {
				if fd.Format != pgx.TextFormatCode {
					t.Errorf("column %s comes in format %d in exec mode", fd.Name, fd.Format)
				}
			}
			return scan(rs)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if !pgxScannable[probe]() {
		t.Fatal("the probe is not scanned on the pgx path")
	}
	var byBun []probe
	viaSQL(func(rs rows) error { return scanner.ScanRows(ctx, rs.sql, &byBun) })
	var oneBun probe
	viaSQL(func(rs rows) error { rs.next(); return scanner.ScanRow(ctx, rs.sql, &oneBun) })
	if len(byBun) != 3 {
		t.Fatalf("bun scanned %d rows", len(byBun))
	}
	for _, w := range []way{{"database/sql", viaSQL}, {"pgx", viaPgx}, {"pgx, text results", viaPgxText}} {
		t.Run(w.name, func(t *testing.T) {
			var all []probe
			w.run(func(rs rows) error { return scanAll(ctx, rs, &all) })
			if !reflect.DeepEqual(all, byBun) {
				t.Fatalf("scanAll scanned\n%+v\nbun scanned\n%+v", all, byBun)
			}
			// A second statement reuses the first one's scanning state
			// (pgxrows.go): the first one's records stay as they were.
			var again []probe
			w.run(func(rs rows) error { return scanAll(ctx, rs, &again) })
			if !reflect.DeepEqual(again, byBun) || !reflect.DeepEqual(all, byBun) {
				t.Fatalf("after a second scan: first\n%+v\nsecond\n%+v\nbun scanned\n%+v", all, again, byBun)
			}
			a, _ := json.Marshal(all)
			b, _ := json.Marshal(byBun)
			if string(a) != string(b) {
				t.Fatalf("JSON differs:\n%s\n%s", a, b)
			}
			var one probe
			w.run(func(rs rows) error { rs.next(); return scanOne(ctx, rs, &one) })
			if !reflect.DeepEqual(one, oneBun) {
				t.Fatalf("scanOne = %+v, bun = %+v", one, oneBun)
			}
		})
	}

	p := scanPlans.Load
	v, _ := p(reflect.TypeFor[probe]())
	plan, _ := v.(*scanPlan)
	if plan == nil {
		t.Fatal("no scan plan for the probe: bun scanned it")
	}
	used := map[fieldKind]bool{}
	for _, k := range plan.kinds {
		used[k] = true
	}
	for _, k := range []fieldKind{viaBun, kindString, kindStringPtr, kindBool, kindTime, kindUUID,
		kindUUIDPtr, kindBoolPtr, kindInt, kindIntPtr, kindFloat, kindFloatPtr} {
		if !used[k] {
			t.Errorf("the probe's plan %v does not use kind %d", plan.kinds, k)
		}
	}

	// On the pgx path the array and both amounts are stored by kinds of
	// their own, not by their bun scanners; an amount only when its numeric
	// comes in binary (behind the pooler, pgx's exec mode reads text, which
	// the amount's Scan parses).
	err = onPgx(ctx, db, text, nil, func(_ context.Context, rs rows) error {
		fds := rs.pgx.FieldDescriptions()
		r, err := newPgxRow[probe](fds)
		if err != nil {
			return err
		}
		got := map[string]fieldKind{}
		money := kindMoney
		for i, c := range r.cells {
			got[fds[i].Name] = c.kind
			// Text is decoded from its raw bytes in either format; the
			// fixed-size kinds only in binary (behind the pooler, pgx's exec
			// mode reads text, which pgx parses).
			raw := false
			switch c.kind {
			case kindString, kindStringPtr:
				raw = true
			case kindUUID, kindUUIDPtr, kindBool, kindBoolPtr, kindInt, kindIntPtr, kindFloat, kindFloatPtr:
				raw = fds[i].Format == pgx.BinaryFormatCode
			}
			if raw && !c.raw {
				t.Errorf("the probe's pgx cell for %s (kind %d) is decoded by pgx, not from its raw value", fds[i].Name, c.kind)
			}
			if fds[i].Name == "cost" && fds[i].Format != pgx.BinaryFormatCode {
				money = viaBun
			}
		}
		want := map[string]fieldKind{"tags": kindStrings, "cost": money, "price": kindMoneyPtr}
		if money == viaBun {
			want["price"] = viaBun
		}
		for col, k := range want {
			if got[col] != k {
				t.Errorf("the probe's pgx cell for %s has kind %d, want %d", col, got[col], k)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	var hooks []hookedProbe
	if pgxScannable[hookedProbe]() {
		t.Error("a model with a scan hook would be scanned on the pgx path")
	}
	rs, err := db.DB.QueryContext(ctx, "SELECT name FROM scan_probe ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	if err := scanAll(ctx, rows{sql: rs}, &hooks); err != nil {
		t.Fatal(err)
	}
	if len(hooks) != 3 || hooks[2].Name != "z!" {
		t.Fatalf("hookedProbe rows %+v: the hook did not run", hooks)
	}
}

// TestNextDoublesAndZeroes: next hands out the new last element, zero even
// where the slice's spare capacity held an old value, and a full slice
// doubles its capacity (at least 8) instead of append's quarter steps.
func TestNextDoublesAndZeroes(t *testing.T) {
	tests := []struct {
		name    string
		start   []int
		appends int
		wantCap int
	}{
		{"from nil", nil, 1, 8},
		{"to the first doubling", nil, 9, 16},
		{"a large read", nil, 1000, 1024},
		{"past 256, doubling not a quarter", make([]int, 300), 1, 600},
		{"spare capacity with an old value", []int{7, 8, 9}[:1], 2, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.start
			for i := range tt.appends {
				p := next(&s)
				if *p != 0 {
					t.Fatalf("append %d: element holds %d, want zero", i, *p)
				}
				if p != &s[len(s)-1] {
					t.Fatalf("append %d: not the last element", i)
				}
				*p = i + 1
			}
			if len(s) != len(tt.start)+tt.appends || cap(s) != tt.wantCap {
				t.Fatalf("len %d cap %d, want len %d cap %d", len(s), cap(s), len(tt.start)+tt.appends, tt.wantCap)
			}
		})
	}
}
