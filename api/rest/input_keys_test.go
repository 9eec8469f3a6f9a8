package rest

// Keys returns the keys present, in the order the body's members are kept
// (sorted by name), for the tests.
func (in *Input) Keys() []string {
	keys := make([]string, len(in.members))
	for i, m := range in.members {
		keys[i] = m.name
	}
	return keys
}
