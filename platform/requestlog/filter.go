package requestlog

import "strconv"

// ParseStatus reads a status filter: a code (100 to 599) or a class such
// as 4xx. ok is false for anything else.
func ParseStatus(s string) (f Filter, ok bool) {
	if len(s) == 3 && s[1:] == "xx" && s[0] >= '1' && s[0] <= '5' {
		return Filter{StatusClass: int(s[0] - '0')}, true
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 100 && n <= 599 && len(s) == 3 {
		return Filter{Status: n}, true
	}
	return Filter{}, false
}
