-- The last change a feed cursor in the clear can name (docs/decisions.md,
-- "A feed cursor in the clear is accepted only at a change made before the
-- upgrade"). A cursor issued before cursors were sealed (2.7.1), its
-- (position, seq) in the clear, is still accepted, but only for a
-- change numbered at most this bound: every such cursor was issued before
-- this migration ran, so it names a change whose seq the sequence had
-- already handed out. A sealed cursor carries the tag its position would
-- have in the clear, so without the bound a reader could test guesses of
-- the global (position, seq) of any of its cursors; with it, only of one
-- at a change made before this migration. One row; 0 on a new database,
-- where no cursor was ever issued in the clear.
CREATE TABLE change_plain_cursor_bound (
    single boolean PRIMARY KEY DEFAULT true CHECK (single),
    seq    bigint NOT NULL
);
INSERT INTO change_plain_cursor_bound (seq)
SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence('changes', 'seq')::regclass), 0);
