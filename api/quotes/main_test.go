package quotes_test

import (
	"testing"

	"github.com/eventapi/eventapi/api/documents/doctest"
	"github.com/eventapi/eventapi/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const base = "/api/v2/quotes"

// The helpers shared with the other document tests.
var (
	newEnv, want, ok       = doctest.NewEnv, doctest.Want, doctest.OK
	body, line, errDetails = doctest.Body, doctest.Line, doctest.ErrDetails
	fields, lines          = doctest.Fields, doctest.Lines
)

// A GET reads the document and its lines in one snapshot.
func TestReadIsOneSnapshot(t *testing.T) {
	doctest.ReadIsOneSnapshot(t, base, "quote_line_items", body("title", "Audio"))
}
