package controller

import (
	"context"
	"errors"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/eventapi/eventapi/operator/api/v1alpha1"
	"github.com/eventapi/eventapi/platform/errs"
)

// retryMissing is how often a resource whose organization does not exist
// (yet) is looked at again; creating the organization is not an event the
// operator can watch.
const retryMissing = 30 * time.Second

// failure is a step that did not succeed: why (the Ready reason and message)
// and how to go on.
type failure struct {
	reason, message string
	result          ctrl.Result
	err             error
}

// invalid is a terminal failure: nothing changes until the spec does.
func invalid(message string) *failure {
	return &failure{reason: v1alpha1.ReasonInvalidSpec, message: message}
}

// classify maps an error of tenancy or the database to a failure:
// validation_error is terminal (InvalidSpec), not_found is retried on a timer
// with notFoundReason, anything else is returned for exponential backoff.
// Messages of *errs.Error never carry database text, and no error here can
// carry a key.
func classify(err error, notFoundReason string) *failure {
	var e *errs.Error
	if errors.As(err, &e) {
		switch e.Code {
		case errs.Validation:
			return invalid(e.Message)
		case errs.NotFound:
			return &failure{reason: notFoundReason, message: e.Message, result: ctrl.Result{RequeueAfter: retryMissing}}
		case errs.Internal:
			return &failure{reason: v1alpha1.ReasonDatabaseError, message: "the eventapi database request failed", err: err}
		}
		return &failure{reason: v1alpha1.ReasonDatabaseError, message: e.Message, err: err}
	}
	return &failure{reason: v1alpha1.ReasonDatabaseError, message: "the eventapi database request failed", err: err}
}

func ctrlResultAfter(d time.Duration) ctrl.Result { return ctrl.Result{RequeueAfter: d} }

// stopping reports whether ctx was cancelled: the manager is stopping (a
// SIGTERM, a lost lease) and has cancelled the reconciles in flight, so what
// failed then failed because of that, not because of the database or the
// API server. Such a reconcile reports nothing (no Warning, no status
// change; before, every rolling update of the operator could leave a false
// DatabaseError) and returns no error (none is logged); the next leader
// reconciles the object again from the start. A reconcile that runs out of
// time ends with DeadlineExceeded instead, a failure still reported.
func stopping(ctx context.Context) bool { return errors.Is(ctx.Err(), context.Canceled) }
