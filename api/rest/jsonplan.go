package rest

import (
	"encoding"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/money"
)

// Encoding plans. A response whose type is built only of the kinds below is
// encoded by a plan made once per type, as api/storage scans rows by a plan
// per model: each struct field's key, offset and encoder are found once,
// and a value is then written by walking its memory, without goccy's
// virtual machine and without calling a method per value. It writes a
// uuid's 36 characters straight into the body, where both encoding/json and
// goccy call MarshalText, which allocates them, and then escape them (a
// tenth of a 1000-item manifest's CPU; docs/architecture.md, "JSON").
//
// The kinds are the ones encoding/json writes without a method of the type,
// plus three types whose methods a plan writes the same bytes as: strings,
// bools, ints, float64, uuid.UUID (MarshalText), time.Time and money.Amount
// (MarshalJSON, whose output encoding/json compacts: already compact);
// pointers to, slices of and structs of those. Any other type (a map, an
// interface, a type with its own MarshalJSON or MarshalText, a struct tag
// option other than omitempty or omitzero, an embedded struct that has
// fields, a duplicated or escaped key, a recursive type) has no plan, and
// the whole value is encoded by goccy as before. The tests compare a plan's
// bytes with encoding/json's: the manifest with nulls, escapes, unicode,
// money and the three states of an expansion, the records of several
// resources filled at random, every byte in strings, floats and times by
// the hundred thousand; and the test harness compares every response of
// the suite (api/apitest).

// op is what a plan node writes.
type op uint8

const (
	opString op = iota + 1
	opBool
	opInt
	opInt64
	opInt32
	opFloat64
	opUUID
	opTime
	opMoney
	opPtr
	opSlice
	opStruct
)

// node encodes the values of one type.
type node struct {
	op     op
	elem   *node       // opPtr: the pointee; opSlice: the element
	size   uintptr     // opSlice: the element's size
	fields []planField // opStruct
}

// planField is one field of a struct node.
type planField struct {
	key       string // `,"name":`: the comma is left out before the first
	offset    uintptr
	omitEmpty bool
	omitZero  bool
	node      *node
}

var (
	uuidType   = reflect.TypeFor[uuid.UUID]()
	timeType   = reflect.TypeFor[time.Time]()
	moneyType  = reflect.TypeFor[money.Amount]()
	numberType = reflect.TypeFor[json.Number]()

	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	isZeroerType      = reflect.TypeFor[interface{ IsZero() bool }]()
)

// plans caches one plan per type; a nil plan means goccy encodes the type.
var plans sync.Map // reflect.Type → *node

// planOf returns the plan of t, or nil.
func planOf(t reflect.Type) *node {
	if t == nil {
		return nil
	}
	if v, ok := plans.Load(t); ok {
		return v.(*node)
	}
	n := newPlan(t, map[reflect.Type]bool{})
	plans.Store(t, n)
	return n
}

// newPlan builds the plan of t; visiting holds the struct types being
// built, so a recursive type gets no plan.
func newPlan(t reflect.Type, visiting map[reflect.Type]bool) *node {
	switch t {
	case uuidType:
		return &node{op: opUUID}
	case timeType:
		return &node{op: opTime}
	case moneyType:
		return &node{op: opMoney}
	case numberType:
		return nil
	}
	if t.Kind() != reflect.Pointer && hasMethods(t) {
		return nil // a pointer has its element's methods: decided there
	}
	switch t.Kind() {
	case reflect.String:
		return &node{op: opString}
	case reflect.Bool:
		return &node{op: opBool}
	case reflect.Int:
		return &node{op: opInt}
	case reflect.Int64:
		return &node{op: opInt64}
	case reflect.Int32:
		return &node{op: opInt32}
	case reflect.Float64:
		return &node{op: opFloat64}
	case reflect.Pointer:
		if e := newPlan(t.Elem(), visiting); e != nil {
			return &node{op: opPtr, elem: e}
		}
	case reflect.Slice:
		if e := newPlan(t.Elem(), visiting); e != nil {
			return &node{op: opSlice, elem: e, size: t.Elem().Size()}
		}
	case reflect.Struct:
		if visiting[t] {
			return nil
		}
		visiting[t] = true
		defer delete(visiting, t)
		return structPlan(t, visiting)
	}
	return nil
}

// hasMethods reports whether encoding/json would call a method of t (or of
// *t, on an addressable value) to encode it.
func hasMethods(t reflect.Type) bool {
	for _, m := range []reflect.Type{marshalerType, textMarshalerType} {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			return true
		}
	}
	return false
}

func structPlan(t reflect.Type, visiting map[reflect.Type]bool) *node {
	n := &node{op: opStruct}
	names := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, tagged := sf.Tag.Lookup("json")
		if sf.Anonymous {
			// An embedded struct without fields and without a tag, such
			// as bun.BaseModel, contributes nothing; any other embedding
			// promotes fields by rules a plan does not follow.
			if sf.Type.Kind() == reflect.Struct && sf.Type.NumField() == 0 && !tagged {
				continue
			}
			return nil
		}
		if !sf.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		if !plainName(name) || names[name] {
			return nil // escaped or duplicated names: encoding/json's rules
		}
		names[name] = true
		f := planField{key: `,"` + name + `":`, offset: sf.Offset}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "":
			case "omitempty":
				f.omitEmpty = true
			case "omitzero":
				f.omitZero = true
			default:
				return nil // ",string" and the like
			}
		}
		if f.node = newPlan(sf.Type, visiting); f.node == nil {
			return nil
		}
		if (f.omitEmpty || f.omitZero) && !omittable(sf.Type, f.node, f.omitZero) {
			return nil
		}
		n.fields = append(n.fields, f)
	}
	return n
}

// plainName reports whether a key is ASCII letters, digits and
// underscores, which encoding/json writes as they are.
func plainName(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// omittable reports whether a plan decides omitempty (and omitzero, when
// zero) for a field of type t as encoding/json does: its emptiness and its
// zero value are read from memory, never from an IsZero method.
func omittable(t reflect.Type, n *node, zero bool) bool {
	if zero && (t.Implements(isZeroerType) || reflect.PointerTo(t).Implements(isZeroerType)) {
		return false
	}
	switch n.op {
	case opString, opBool, opInt, opInt64, opInt32, opFloat64, opPtr, opSlice:
		return true
	}
	return false
}

// omitted reports whether the field at p is left out.
func (f *planField) omitted(p unsafe.Pointer) bool {
	if !f.omitEmpty && !f.omitZero {
		return false
	}
	switch f.node.op {
	case opString:
		return len(*(*string)(p)) == 0
	case opBool:
		return !*(*bool)(p)
	case opInt:
		return *(*int)(p) == 0
	case opInt64:
		return *(*int64)(p) == 0
	case opInt32:
		return *(*int32)(p) == 0
	case opFloat64:
		return *(*float64)(p) == 0 // -0 too, for both options
	case opPtr:
		return *(*unsafe.Pointer)(p) == nil
	case opSlice:
		s := (*sliceHeader)(p)
		return f.omitEmpty && s.len == 0 || f.omitZero && s.data == nil
	}
	return false
}

// sliceHeader is the memory of a slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// appendJSON appends the JSON of the value at p.
func (n *node) appendJSON(b []byte, p unsafe.Pointer) ([]byte, error) {
	switch n.op {
	case opString:
		return appendString(b, *(*string)(p)), nil
	case opBool:
		if *(*bool)(p) {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case opInt:
		return strconv.AppendInt(b, int64(*(*int)(p)), 10), nil
	case opInt64:
		return strconv.AppendInt(b, *(*int64)(p), 10), nil
	case opInt32:
		return strconv.AppendInt(b, int64(*(*int32)(p)), 10), nil
	case opFloat64:
		return appendFloat(b, *(*float64)(p))
	case opUUID:
		return appendUUID(b, (*uuid.UUID)(p)), nil
	case opTime:
		return appendTime(b, *(*time.Time)(p))
	case opMoney:
		return (*(*money.Amount)(p)).AppendText(b), nil
	case opPtr:
		q := *(*unsafe.Pointer)(p)
		if q == nil {
			return append(b, "null"...), nil
		}
		return n.elem.appendJSON(b, q)
	case opSlice:
		s := (*sliceHeader)(p)
		if s.data == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		var err error
		for i := range s.len {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = n.elem.appendJSON(b, unsafe.Add(s.data, uintptr(i)*n.size)); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case opStruct:
		b = append(b, '{')
		first := true
		var err error
		for i := range n.fields {
			f := &n.fields[i]
			fp := unsafe.Add(p, f.offset)
			if f.omitted(fp) {
				continue
			}
			if first {
				b = append(b, f.key[1:]...)
				first = false
			} else {
				b = append(b, f.key...)
			}
			if b, err = f.node.appendJSON(b, fp); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	}
	return b, errors.New("rest: no encoder for a planned value")
}

const hexDigits = "0123456789abcdef"

// hexPairs holds the two hex digits of every byte.
var hexPairs = func() (t [256][2]byte) {
	for i := range t {
		t[i] = [2]byte{hexDigits[i>>4], hexDigits[i&0xf]}
	}
	return t
}()

// appendUUID appends u quoted, as its MarshalText writes it.
func appendUUID(b []byte, u *uuid.UUID) []byte {
	n := len(b)
	b = slices.Grow(b, 38)[:n+38]
	s := (*[38]byte)(b[n:])
	s[0], s[9], s[14], s[19], s[24], s[37] = '"', '-', '-', '-', '-', '"'
	*(*[2]byte)(s[1:]) = hexPairs[u[0]]
	*(*[2]byte)(s[3:]) = hexPairs[u[1]]
	*(*[2]byte)(s[5:]) = hexPairs[u[2]]
	*(*[2]byte)(s[7:]) = hexPairs[u[3]]
	*(*[2]byte)(s[10:]) = hexPairs[u[4]]
	*(*[2]byte)(s[12:]) = hexPairs[u[5]]
	*(*[2]byte)(s[15:]) = hexPairs[u[6]]
	*(*[2]byte)(s[17:]) = hexPairs[u[7]]
	*(*[2]byte)(s[20:]) = hexPairs[u[8]]
	*(*[2]byte)(s[22:]) = hexPairs[u[9]]
	*(*[2]byte)(s[25:]) = hexPairs[u[10]]
	*(*[2]byte)(s[27:]) = hexPairs[u[11]]
	*(*[2]byte)(s[29:]) = hexPairs[u[12]]
	*(*[2]byte)(s[31:]) = hexPairs[u[13]]
	*(*[2]byte)(s[33:]) = hexPairs[u[14]]
	*(*[2]byte)(s[35:]) = hexPairs[u[15]]
	return b
}

// appendTime appends t as its MarshalJSON writes it (RFC 3339 with
// nanoseconds, trailing zeros dropped), with encoding/json's error for a
// time MarshalJSON refuses. A time of the years 0 to 9999 whose zone is a
// whole number of minutes off UTC, less than a day (every zone of the
// database and of Go's zone data), is written here from its Unix time,
// which costs a third of time's formatting; any other goes to time's.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	_, offset := t.Zone()
	if offset%60 == 0 && -86400 < offset && offset < 86400 {
		sec := t.Unix() + int64(offset)
		// seconds since 0000-03-01 in the proleptic Gregorian calendar
		// time uses; January and February of the year 0 go to time's
		const (
			fromMarch0000 = 719468 * 86400  // to 1970-01-01
			toYear10000   = 3652365 * 86400 // to 10000-01-01
		)
		if s := sec + fromMarch0000; s >= 0 && s < toYear10000 {
			return appendRFC3339(b, s/86400, int(s%86400), t.Nanosecond(), offset), nil
		}
	}
	out, err := t.AppendText(append(b, '"'))
	if err != nil {
		_, err = t.MarshalJSON()
		return b, &json.MarshalerError{Type: timeType, Err: err}
	}
	return append(out, '"'), nil
}

// appendRFC3339 appends, quoted, the time days after 0000-03-01 (before
// 10000-01-01), sec seconds into the day, nsec nanoseconds (trailing zeros
// dropped) and offset seconds east of UTC (whole minutes), as time writes
// RFC 3339 with nanoseconds.
func appendRFC3339(b []byte, days int64, sec, nsec, offset int) []byte {
	// civil date from days (the algorithm of H. Hinnant's chrono
	// date library, for days from 0000-03-01)
	era := days / 146097
	doe := days - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day := int(doy - (153*mp+2)/5 + 1)
	month := int(mp + 3)
	year := int(yoe + era*400)
	if month > 12 {
		month -= 12
		year++
	}
	var s [37]byte // "YYYY-MM-DDTHH:MM:SS.nnnnnnnnn+hh:mm"
	s[0] = '"'
	put4(s[1:], year)
	s[5] = '-'
	put2(s[6:], month)
	s[8] = '-'
	put2(s[9:], day)
	s[11] = 'T'
	put2(s[12:], sec/3600)
	s[14] = ':'
	put2(s[15:], sec/60%60)
	s[17] = ':'
	put2(s[18:], sec%60)
	n := 20
	if nsec != 0 {
		s[20] = '.'
		for i := 29; i > 20; i-- {
			s[i] = byte('0' + nsec%10)
			nsec /= 10
		}
		n = 30
		for s[n-1] == '0' {
			n--
		}
	}
	b = append(b, s[:n]...)
	if offset == 0 {
		return append(b, 'Z', '"')
	}
	sign := byte('+')
	if offset < 0 {
		sign, offset = '-', -offset
	}
	zone := offset / 60
	return append(b, sign, byte('0'+zone/600), byte('0'+zone/60%10), ':', byte('0'+zone%60/10), byte('0'+zone%10), '"')
}

func put2(s []byte, v int) { s[0], s[1] = byte('0'+v/10), byte('0'+v%10) }

func put4(s []byte, v int) {
	put2(s, v/100)
	put2(s[2:], v%100)
}

// appendFloat appends f as encoding/json writes a float64 (ES6 number
// formatting), with its error for NaN and infinities.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, &json.UnsupportedValueError{Value: reflect.ValueOf(f), Str: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	abs := math.Abs(f)
	if b, ok := appendShortDecimal(b, f, abs); ok {
		return b, nil
	}
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// appendShortDecimal appends f when it is the float nearest a decimal of
// at most two places, which the measurements and rates of equipment are,
// and reports whether it did: strconv's shortest formatting then writes
// exactly that decimal (no shorter one parses back to f, and below 1e12
// the floats are so dense that no other of as many digits does either),
// and integer arithmetic writes it for a fraction of strconv's cost.
// Zero is left to strconv (it writes -0 as "-0").
func appendShortDecimal(b []byte, f, abs float64) ([]byte, bool) {
	if abs >= 1e12 || abs < 0.01 {
		return b, false
	}
	for _, scale := range [...]float64{1, 10, 100} {
		n := math.Round(abs * scale)
		if n/scale != abs {
			continue
		}
		if f < 0 {
			b = append(b, '-')
		}
		u := uint64(n)
		switch scale {
		case 1:
			return strconv.AppendUint(b, u, 10), true
		case 10:
			b = strconv.AppendUint(b, u/10, 10)
			return append(b, '.', byte('0'+u%10)), true
		default:
			// n is not a multiple of 10: it would have matched scale 10
			b = strconv.AppendUint(b, u/100, 10)
			return append(b, '.', byte('0'+u/10%10), byte('0'+u%10)), true
		}
	}
	return b, false
}

// plainByte marks the ASCII bytes a JSON string carries as they are, with
// encoding/json's HTML-safe escaping: not the controls, '"', '\\', '<', '>'
// and '&'.
var plainByte = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = !strings.ContainsRune(`"\<>&`, c)
	}
	return t
}()

// appendString appends s quoted as encoding/json writes it: HTML-safe,
// U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if plainByte[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
