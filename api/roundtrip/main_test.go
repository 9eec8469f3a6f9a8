// Package roundtrip_test proves the PATCH rule of docs/decisions.md ("PATCH
// accepts arbitrary properties") on every v2 resource: a client that GETs a
// record, changes one field and PATCHes the whole object back succeeds, only
// the writable field is written, and every other field it sent back is named
// in an ignored_fields warning. The list of resources is checked against the
// PATCH operations of the OpenAPI document, so a new resource must join it.
package roundtrip_test

import (
	"testing"

	"github.com/eventapi/eventapi/platform/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }
