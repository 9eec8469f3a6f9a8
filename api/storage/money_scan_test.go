package storage

import (
	"context"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/platform/database"
	"github.com/eventapi/eventapi/platform/money"
	"github.com/eventapi/eventapi/platform/pgtest"
)

// TestNumericDecodesAsItScans: the amount the pgx path decodes from
// PostgreSQL's binary numeric is the one money.Amount's Scan reads from the
// same value's text, for every shape of digits PostgreSQL writes: whole
// base-10000 groups, rounding past the cents either way, signs, scales
// beyond the value's digits. The statement asks for the first column in
// binary itself (pgconn's ExecParams): behind the pooler pgx's exec mode
// reads every result as text, and money then goes through its Scan.
func TestNumericDecodesAsItScans(t *testing.T) {
	db := pgtest.Open(t)
	ctx := context.Background()
	values := []string{
		"0", "-0", "0.00", "1", "25.5", "25.50", "0.01", "-0.01", "0.005", "-0.005", "0.00499999",
		"1.004999", "1.995", "99.995", "-99.995", "10000", "9999.99", "10000.01", "123456789012.345",
		"999999999999.99", "99999999999999.99", "0.0000001", "1e-10", "1e12", "12345678.00000000",
		"0.9999", "0.99999", "100000000.5050",
	}
	sql := "SELECT v::numeric, v::numeric::text FROM unnest(ARRAY['" + strings.Join(values, "','") + "']) AS v"
	conn, err := db.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var rows [][][]byte
	err = conn.Raw(func(dc any) error {
		res := database.PgxConn(dc).PgConn().ExecParams(ctx, sql, nil, nil, nil, []int16{1, 0}).Read()
		rows = res.Rows
		return res.Err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(values) {
		t.Fatalf("%d rows, want %d", len(rows), len(values))
	}
	for _, row := range rows {
		text := string(row[1])
		got, err := money.DecodeNumeric(row[0])
		var want money.Amount
		if serr := want.Scan(text); serr != nil || err != nil {
			t.Errorf("%s: decoded %v, %v; scanned %v, %v", text, got, err, want, serr)
			continue
		}
		if got != want {
			t.Errorf("%s: decoded %v, scanned %v", text, got, want)
		}
	}
}
