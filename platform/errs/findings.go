package errs

// Findings collects the answers of a request's checks, in order, into one
// (Err): the first error that is not a validation_error wins, since a
// failure to check is not a finding; otherwise every validation_error's
// fields are named at once, so that a client learns every bad field in one
// answer. A validation_error that names no field counts as a failure: merged
// away, the check that gave it would pass. The zero value is ready to use.
type Findings struct {
	issues []FieldIssue
	total  int   // bad fields found, listed or not
	failed error // the first check that failed to answer
}

// Add records one check's answer (nil: passed).
func (f *Findings) Add(err error) {
	if err == nil || f.failed != nil {
		return
	}
	found := Issues(err)
	if len(found) == 0 {
		f.failed = err
		return
	}
	f.issues = append(f.issues, found...)
	f.total += len(found) + As(err).Details.(ValidationDetails).unlisted
}

// Run runs check and records its answer, unless a check before it failed:
// in a transaction that failure aborted, check's statements would only cost
// a round trip each for an error Err does not return.
func (f *Findings) Run(check func() error) {
	if f.failed == nil {
		f.Add(check())
	}
}

// Err is the answer to the checks recorded: nil when all passed.
func (f *Findings) Err() error {
	if f.failed != nil {
		return f.failed
	}
	if len(f.issues) == 0 {
		return nil
	}
	return InvalidOf(f.total, f.issues...)
}
