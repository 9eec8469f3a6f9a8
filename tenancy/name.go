package tenancy

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/eventapi/eventapi/platform/errs"
)

// MaxNameLength is the most characters (not bytes) of an organization's or
// a key's name, as the tables' CHECK (length(name) <= 200) counts them.
const MaxNameLength = 200

// CleanName is the check every stored organization or key name passes
// (cleanName): callers that must refuse a name before acting on it (the
// operator, before it revokes anything) use it to apply the same rule.
func CleanName(name string) (string, error) { return cleanName(name) }

// cleanName trims name and checks it: valid UTF-8 without control
// characters (PostgreSQL would store invalid bytes as U+FFFD or refuse a
// NUL), and 1 to MaxNameLength characters.
func cleanName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if !utf8.ValidString(name) {
		return "", errs.InvalidField("name", "must be valid UTF-8 text")
	}
	if strings.ContainsFunc(name, unicode.IsControl) {
		return "", errs.InvalidField("name", "must not contain control characters")
	}
	if name == "" {
		return "", errs.InvalidField("name", "must not be blank")
	}
	if utf8.RuneCountInString(name) > MaxNameLength {
		return "", errs.InvalidField("name", "must be 1 to "+strconv.Itoa(MaxNameLength)+" characters")
	}
	return name, nil
}
