package reservations

import (
	"testing"

	"github.com/eventapi/eventapi/api/rest"
)

// BenchmarkDecodeCreate measures the per-request cost of reading and
// validating a typical reservation body (docs/decisions.md, "Each request
// rule once": the rules come from the OpenAPI document at start-up, so a
// request pays only the decoding).
func BenchmarkDecodeCreate(b *testing.B) {
	body := []byte(`{"equipment_id":"5d0c6f1e-8a4b-4f0e-9c55-2b7d6c1a9e33","event_id":"0b7f8f52-3c1e-4c59-9d0a-6d2f1e7c2a10",
		"start_date":"2026-09-01T10:00:00Z","end_date":"2026-09-03T10:00:00Z","quantity":4,
		"truck_position":"front left","notes":"handle with care","reservation_status":"reserved"}`)
	b.ReportAllocs()
	for b.Loop() {
		in, err := rest.ParseObject(body)
		if err != nil {
			b.Fatal(err)
		}
		decode(in, true)
		if err := in.Err(); err != nil {
			b.Fatal(err)
		}
	}
}
