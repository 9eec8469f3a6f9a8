package rest

import (
	"reflect"
	"sync"

	gojson "github.com/goccy/go-json"

	"github.com/eventapi/eventapi/api/rest/jsonplan"
)

// Encode renders a response body. A value whose type has an encoding plan
// (api/rest/jsonplan) is written by its plan; any other by goccy/go-json.
// Both write what encoding/json writes, byte for byte (HTML-safe escapes,
// invalid UTF-8 as U+FFFD, float formats, time.Time, Marshalers, omitempty
// and omitzero), in less time and with fewer allocations
// (docs/architecture.md, "JSON"). Every response of the test suite is
// encoded both ways and compared (apitest), so a difference fails the tests
// rather than reach a client.
//
// Encode is Fiber's JSONEncoder, whose body must be a slice of its own: a
// planned value is written into a pooled buffer and copied out at its
// size. The envelopes of envelope.go skip the copy (respond).
func Encode(v any) ([]byte, error) {
	t := reflect.TypeOf(v)
	n := jsonplan.Of(t)
	if n == nil {
		return gojson.Marshal(v)
	}
	// An addressable copy of v, whose memory the plan reads.
	p := reflect.New(t)
	p.Elem().Set(reflect.ValueOf(v))
	buf := getBuffer()
	defer putBuffer(buf)
	b, err := n.Append(buf.b[:0], p.UnsafePointer())
	buf.b = b
	if err != nil {
		return nil, err
	}
	out := make([]byte, len(b))
	copy(out, b)
	return out, nil
}

// buffer is a pooled encoding buffer.
type buffer struct{ b []byte }

// maxPooled is the largest buffer kept for reuse; a larger one (a page of
// pick lists with thousands of items) is left to the collector.
const maxPooled = 4 << 20

var buffers = sync.Pool{New: func() any { return &buffer{b: make([]byte, 0, 4096)} }}

func getBuffer() *buffer { return buffers.Get().(*buffer) }

func putBuffer(buf *buffer) {
	if cap(buf.b) <= maxPooled {
		buf.b = buf.b[:0]
		buffers.Put(buf)
	}
}
