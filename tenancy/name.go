package tenancy

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/eventapi/eventapi/platform/errs"
)

// MaxNameLength is the most characters (not bytes) of an organization's or
// a key's name, as the tables' CHECK (length(name) <= 200) counts them.
const MaxNameLength = 200

// cleanName trims name and checks its length in characters.
func cleanName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > MaxNameLength {
		return "", errs.InvalidField("name", "must be 1 to "+strconv.Itoa(MaxNameLength)+" characters")
	}
	return name, nil
}
