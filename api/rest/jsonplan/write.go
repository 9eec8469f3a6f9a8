package jsonplan

import (
	"errors"
	"strconv"
	"time"
	"unsafe"

	"github.com/google/uuid"

	"github.com/eventapi/eventapi/platform/money"
)

// A value is written by its plan (plan.go) walking its memory: Append
// writes each plan from a pointer to its value, and leaves out the struct
// fields that omitempty or omitzero drop (omitted).

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

// Append appends the JSON of the value at p, which must point to a value of
// the type the plan was made for (Of): the plan reads its memory as that
// type's. The error is encoding/json's for the same value (a float that is
// not a number, a time out of RFC 3339's range).
func (n *Plan) Append(b []byte, p unsafe.Pointer) ([]byte, error) {
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
		return n.elem.Append(b, q)
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
			if b, err = n.elem.Append(b, unsafe.Add(s.data, uintptr(i)*n.size)); err != nil {
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
			if b, err = f.node.Append(b, fp); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	}
	return b, errors.New("jsonplan: no encoder for a planned value")
}
