package rest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/eventapi/eventapi/platform/errs"
)

// maxNesting is how deeply encoding/json lets arrays and objects nest: it
// refuses a deeper text, valid JSON or not.
const maxNesting = 10000

// malformed is the 400 for a body encoding/json does not read, saying so
// when the body is refused for its depth alone.
func malformed(body []byte) error {
	if nestsDeeperThan(body, maxNesting) {
		return errs.New(errs.MalformedJSON, "the request body nests arrays and objects deeper than "+thousands(maxNesting)+" levels")
	}
	if json.Valid(body) && !utf8.Valid(body) {
		// Often a body in another charset (ISO-8859-1, UTF-16), whatever
		// its Content-Type declares: JSON is read as UTF-8 (RFC 8259).
		return errs.New(errs.MalformedJSON, "the request body is not valid UTF-8: send JSON in UTF-8, whatever charset the Content-Type names")
	}
	return errs.New(errs.MalformedJSON, "the request body is not valid JSON")
}

// nestsDeeperThan reports whether the arrays and objects of a JSON text
// (brackets outside its strings) open more than limit levels deep.
func nestsDeeperThan(body []byte, limit int) bool {
	depth, inString, escaped := 0, false, false
	for _, c := range body {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			if depth++; depth > limit {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}

// objectOver reports whether an object of a JSON text, at any depth, has
// more than limit members. body must be valid JSON (json.Valid).
func objectOver(body []byte, limit int) bool {
	_, _, over := countMembers(body, limit)
	return over
}

// countMembers returns the members of the JSON text's outermost object,
// how many objects it holds in all, and whether one of them, at any depth,
// has more than limit members (then it stops there). body must be valid
// JSON (json.Valid): a member is then a string that opens an object or
// follows a comma in one. It counts without allocating, for bodies that
// are not too deep.
func countMembers(body []byte, limit int) (outer, objects int, over bool) {
	var stack [32]int
	// The members of each open object so far; -1 for an open array.
	open := stack[:0]
	inString, escaped, name := false, false, false
	for _, c := range body {
		switch {
		case escaped:
			escaped = false
		case inString:
			if c == '\\' {
				escaped = true
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
			if name {
				name = false
				top := len(open) - 1
				if open[top]++; open[top] > limit {
					return 0, 0, true
				}
				if top == 0 {
					outer++
				}
			}
		case c == '{':
			open = append(open, 0)
			name = true
			objects++
		case c == '[':
			open = append(open, -1)
		case c == '}' || c == ']':
			open = open[:len(open)-1]
			name = false
		case c == ',':
			name = open[len(open)-1] >= 0
		}
	}
	return outer, objects, false
}

// tooManyMembers is the 400 for a body with an object of more than limit
// members (objectOver), saying which object: the body is read again, to
// that object only, without keeping names.
func tooManyMembers(body []byte, limit int) error {
	where := "an object"
	dec := jsontext.NewDecoder(bytes.NewBuffer(body), allowInvalidUTF8, jsontext.AllowDuplicateNames(true))
	for {
		if _, err := dec.ReadToken(); err != nil {
			break
		}
		// An object's index counts its names and values: past 2×limit,
		// its name number limit+1 was just read.
		if kind, n := dec.StackIndex(dec.StackDepth()); kind == '{' && n > 2*int64(limit) {
			where = "the top-level object"
			if parent := dec.StackPointer().Parent(); parent != "" {
				where = fmt.Sprintf("the object at %s", errs.Echo(string(parent)))
			}
			break
		}
	}
	return errs.Newf(errs.MalformedJSON, "the request body has more than %s members in %s; an object may have at most %s members",
		thousands(limit), where, thousands(limit))
}

// thousands writes a positive n with comma separators (1,000).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
