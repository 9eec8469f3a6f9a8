package openapi_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/eventapi/eventapi/api/openapi"
)

// BenchmarkValidateRequestWithLibopenapi measures the alternative that
// docs/decisions.md ("Each request rule once") weighed and rejected:
// validating each request body against the document at request time. Compare
// with api/reservations BenchmarkDecodeCreate (the same body decoded with
// rules read from the document at start-up).
func BenchmarkValidateRequestWithLibopenapi(b *testing.B) {
	doc, err := libopenapi.NewDocument(openapi.MustJSON())
	if err != nil {
		b.Fatal(err)
	}
	m, errs := doc.BuildV3Model()
	if errs != nil {
		b.Fatal(errs)
	}
	v := validator.NewValidatorFromV3Model(&m.Model)
	body := `{"equipment_id":"5d0c6f1e-8a4b-4f0e-9c55-2b7d6c1a9e33","event_id":"0b7f8f52-3c1e-4c59-9d0a-6d2f1e7c2a10",
		"start_date":"2026-09-01T10:00:00Z","end_date":"2026-09-03T10:00:00Z","quantity":4,
		"truck_position":"front left","notes":"handle with care","reservation_status":"reserved"}`
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "/api/v2/equipment_reservations", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if ok, errs := v.ValidateHttpRequestSync(req); !ok {
			b.Fatal(errs[0].Message)
		}
	}
}
