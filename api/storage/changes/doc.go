// Package changes reads the change feed: the outbox rows that the
// record_change trigger appends, in the writing transaction, for every
// insert, update and delete of a v2 record (docs/changes.md). It lists them
// in commit order behind a visibility horizon, so that a reader following
// the cursor sees each committed change exactly once, refuses a cursor that
// the retention purge has overtaken (cursor_expired), and renders each
// change's stored row as GET renders the record.
package changes
