package storage

import (
	"errors"

	"github.com/google/uuid"
)

// errNotUUID is ParseUUID's error for a text of any length but 36.
var errNotUUID = errors.New("not a uuid")

// ParseUUID reads a uuid as the API reads every uuid it is sent (an id in a
// path, a query parameter or a body, a filter on ids): the canonical 36
// characters with hyphens, in either case. Anything else (braces, a
// urn:uuid: prefix, no hyphens, white space, empty) is an error, which
// uuid.Parse alone would accept for some of them. api/rest, the stores'
// filters and the request log's filters all read a uuid with it.
func ParseUUID(s string) (uuid.UUID, error) {
	if len(s) != 36 {
		return uuid.Nil, errNotUUID
	}
	return uuid.Parse(s)
}
