package storage_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/platform/pgtest"
)

var jsonTexts = []string{
	"", "plain", "Bühne · Licht 🎛 ½", "<script>&amp;</script>", `back\slash "quoted"`,
	"one\ntwo\r\n\tthree", "line\u2028sep\u2029para", strings.Repeat("<&>", 100), "\x1b[2J",
}

// TestJSONTextSize: the size is what encoding/json (which rest.Encode
// writes byte for byte) writes inside the quotes.
func TestJSONTextSize(t *testing.T) {
	for _, s := range jsonTexts {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := storage.JSONTextSize(s), len(b)-2; got != want {
			t.Errorf("JSONTextSize(%q) = %d, want %d", s, got, want)
		}
	}
}

// TestJSONTextSizeSQL: PostgreSQL computes the same size as Go for text a
// body may store (no control character but tab, line feed and carriage
// return), and 0 for null.
func TestJSONTextSizeSQL(t *testing.T) {
	db := pgtest.Open(t)
	for _, s := range jsonTexts {
		if strings.ContainsRune(s, 0x1b) {
			continue
		}
		var got int
		if err := db.NewRaw("SELECT "+storage.JSONTextSizeSQL("t.s")+" FROM (SELECT ?::text AS s) t", s).Scan(context.Background(), &got); err != nil {
			t.Fatal(err)
		}
		if want := storage.JSONTextSize(s); got != want {
			t.Errorf("SQL size of %q = %d, want %d", s, got, want)
		}
	}
	var null int
	if err := db.NewRaw("SELECT "+storage.JSONTextSizeSQL("NULL::text")).Scan(context.Background(), &null); err != nil || null != 0 {
		t.Errorf("SQL size of null = %d (%v), want 0", null, err)
	}
}
