package compress

import "bytes"

// acceptsGzip reports whether the Accept-Encoding field lines of a request
// admit gzip (RFC 9110, 12.5.3), read as one comma-separated list (RFC
// 9110, 5.3): gzip (or its alias x-gzip) listed with a weight above zero,
// or not listed and * above zero. Names are case-insensitive; an element
// whose weight is not of the grammar's form admits nothing. Without the
// field, no coding but identity is admitted.
func acceptsGzip(lines [][]byte) bool {
	gzip, star := -1, -1 // -1: not listed; 0: refused; 1: admitted
	for _, field := range lines {
		for len(field) > 0 {
			var element []byte
			if i := bytes.IndexByte(field, ','); i >= 0 {
				element, field = field[:i], field[i+1:]
			} else {
				element, field = field, nil
			}
			name, params, _ := bytes.Cut(element, []byte(";"))
			name = bytes.TrimSpace(name)
			admitted := 0
			if weightAboveZero(params) {
				admitted = 1
			}
			switch {
			case bytes.EqualFold(name, []byte("gzip")), bytes.EqualFold(name, []byte("x-gzip")):
				gzip = max(gzip, admitted)
			case bytes.Equal(name, []byte("*")):
				star = max(star, admitted)
			}
		}
	}
	if gzip >= 0 {
		return gzip == 1
	}
	return star == 1
}

// weightAboveZero reads an element's parameters: none means weight 1;
// otherwise q= with a qvalue, ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ),
// above zero.
func weightAboveZero(params []byte) bool {
	params = bytes.TrimSpace(params)
	if len(params) == 0 {
		return true
	}
	key, value, ok := bytes.Cut(params, []byte("="))
	if !ok || !bytes.EqualFold(bytes.TrimSpace(key), []byte("q")) {
		return false
	}
	value = bytes.TrimSpace(value)
	if len(value) == 0 || len(value) > 5 {
		return false // empty, or more than three decimals
	}
	if len(value) > 1 && value[1] != '.' { // "1." and "0." are qvalues: 0*3DIGIT
		return false
	}
	decimals := value[min(len(value), 2):]
	switch value[0] {
	case '1':
		return len(bytes.Trim(decimals, "0")) == 0
	case '0':
		above := false
		for _, d := range decimals {
			if d < '0' || d > '9' {
				return false
			}
			above = above || d != '0'
		}
		return above
	}
	return false
}
