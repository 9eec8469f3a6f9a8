package rest

import (
	"log/slog"

	"github.com/uptrace/bun"
)

// Env is what resource handlers need from the process.
type Env struct {
	DB      *bun.DB
	Cursors *Cursors
	Log     *slog.Logger
}
