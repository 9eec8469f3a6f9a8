package database

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/eventapi/eventapi/platform/errs"
)

// Back-off of UntilReachable's retries while the database is unreachable.
const (
	startRetryFirst = time.Second
	startRetryMost  = 10 * time.Second
)

// UntilReachable runs start until it succeeds, fails for a reason other
// than an unreachable database, or ctx ends (SIGTERM), and returns start's
// last error (nil on success). A process (the API's serve, the operator)
// that starts while PostgreSQL or PgBouncer restarts waits for it instead
// of exiting at once into a crash loop whose back-off outlasts the outage;
// Kubernetes' probes still bound the wait (docs/helm.md).
//
// An error is retried when Error makes it service_unavailable: any failure
// to connect (a refused connection, a timeout, a refused login or a
// database the server does not have, which PostgreSQL reports while
// connecting) and a lost connection. Anything else ends the wait at once:
// a malformed URL, a schema that needs migrating, a pooler that refuses a
// startup parameter (refusedStartupParameter). The first retry comes 1 s
// after the first failure, then 2 s, … up to every 10 s. Each failure is
// logged at warn as "<name> starting: the database is unreachable;
// retrying", with retry_in and the error; name is the program ("eventapi",
// "eventapi-operator").
func UntilReachable(ctx context.Context, log *slog.Logger, name string, start func() error) error {
	return untilReachableEvery(ctx, log, name, startRetryFirst, startRetryMost, start)
}

// untilReachableEvery is UntilReachable waiting first after the first
// failure, doubling up to most.
func untilReachableEvery(ctx context.Context, log *slog.Logger, name string, first, most time.Duration, start func() error) error {
	wait := first
	for {
		err := start()
		if _, ok := refusedStartupParameter(err); ok {
			return err // Open says which setting to change
		}
		if err == nil || !errs.Is(Error(err), errs.ServiceUnavailable) {
			return err
		}
		log.Warn(name+" starting: the database is unreachable; retrying", "retry_in", wait.String(), "error", err.Error())
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, most)
	}
}

// RefusedParameter is a failure to connect because the server refused a
// startup parameter, as a transaction pooler such as PgBouncer does when
// the service connects to it as to PostgreSQL. Its message names the
// setting to change, so every command that opens the database (serve,
// migrate, the CLI, the operator) says it.
type RefusedParameter struct {
	Param string
	Err   error // the server's error
}

func (r *RefusedParameter) Error() string {
	return fmt.Sprintf("the database refused the startup parameter %s, as a transaction pooler such as PgBouncer does: "+
		"behind one set EVENTAPI_DATABASE_POOLER=transaction (docs/helm.md): %v", r.Param, r.Err)
}

func (r *RefusedParameter) Unwrap() error { return r.Err }

// poolerHint is err, from connecting, as a *RefusedParameter when the
// server refused a startup parameter.
func poolerHint(err error) error {
	if param, ok := refusedStartupParameter(err); ok {
		return &RefusedParameter{Param: param, Err: err}
	}
	return err
}

// refusedStartupParameter reports the startup parameter a server refused
// while connecting (PgBouncer's "unsupported startup parameter: <name>",
// SQLSTATE 08P01, when the service connects to it as to PostgreSQL and
// sends statement_timeout). Waiting never mends that: it is a setting.
func refusedStartupParameter(err error) (string, bool) {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) || pg.Code != "08P01" {
		return "", false
	}
	param, ok := strings.CutPrefix(pg.Message, "unsupported startup parameter: ")
	return param, ok
}
