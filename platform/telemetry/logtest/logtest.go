// Package logtest holds what tests need to read the log lines a service
// writes while it runs.
package logtest

import (
	"bytes"
	"strings"
	"sync"
)

// Buffer is a log destination that the code under test may write to from
// any goroutine while the test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Lines counts the complete lines written so far.
func (s *Buffer) Lines() int {
	return strings.Count(s.String(), "\n")
}
