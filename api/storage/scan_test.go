package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

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
	db := pgtest.Open(t)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE scan_probe (id uuid PRIMARY KEY, name text NOT NULL,
		email text, flag boolean NOT NULL, at timestamptz, maybe timestamptz, count bigint, missing text, ref uuid,
		ref_p uuid, flag_p boolean, n integer, n_p integer, f double precision, f_p double precision)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO scan_probe VALUES
		('00000000-0000-0000-0000-000000000001', 'Ä <b>&"x"', 'a@b.c', true, '2026-11-23 10:00:00.123456+00', '9999-12-31 23:59:59+00', 42, 'm', '0b6f4a52-94f2-4c0e-9d8a-3c1f6e2b7a10',
		 '0b6f4a52-94f2-4c0e-9d8a-3c1f6e2b7a11', false, 2147483647, -7, 1.5e300, -0.25),
		('00000000-0000-0000-0000-000000000002', '', NULL, false, NULL, NULL, NULL, NULL, NULL,
		 NULL, NULL, NULL, NULL, NULL, NULL),
		('00000000-0000-0000-0000-000000000003', 'z', '', true, '1970-01-01 00:00:00+00', '2000-02-29 12:00:00+05', -1, '', NULL,
		 '00000000-0000-0000-0000-000000000000', true, -2147483648, 0, 0, 3.25)`); err != nil {
		t.Fatal(err)
	}
	text := scanner.NewSelect().Model((*probe)(nil)).OrderExpr("id").String()
	run := func(scan func(*sql.Rows) error) {
		t.Helper()
		rows, err := db.DB.QueryContext(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		if err := scan(rows); err != nil {
			t.Fatal(err)
		}
	}
	var fast, byBun []probe
	run(func(rows *sql.Rows) error { return scanAll(ctx, rows, &fast) })
	run(func(rows *sql.Rows) error { return scanner.ScanRows(ctx, rows, &byBun) })
	if len(fast) != 3 || !reflect.DeepEqual(fast, byBun) {
		t.Fatalf("scan.go scanned\n%+v\nbun scanned\n%+v", fast, byBun)
	}
	a, _ := json.Marshal(fast)
	b, _ := json.Marshal(byBun)
	if string(a) != string(b) {
		t.Fatalf("JSON differs:\n%s\n%s", a, b)
	}
	var one, oneBun probe
	for _, tc := range []struct {
		m    *probe
		scan func(*sql.Rows, *probe) error
	}{
		{&one, func(rows *sql.Rows, m *probe) error { return scanOne(ctx, rows, m) }},
		{&oneBun, func(rows *sql.Rows, m *probe) error { return scanner.ScanRow(ctx, rows, m) }},
	} {
		run(func(rows *sql.Rows) error {
			rows.Next()
			return tc.scan(rows, tc.m)
		})
	}
	if !reflect.DeepEqual(one, oneBun) || !reflect.DeepEqual(one, fast[0]) {
		t.Fatalf("scanOne = %+v, bun = %+v", one, oneBun)
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

	var hooks []hookedProbe
	rows, err := db.DB.QueryContext(ctx, "SELECT name FROM scan_probe ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if err := scanAll(ctx, rows, &hooks); err != nil {
		t.Fatal(err)
	}
	if len(hooks) != 3 || hooks[2].Name != "z!" {
		t.Fatalf("hookedProbe rows %+v: the hook did not run", hooks)
	}
}
