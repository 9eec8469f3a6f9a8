-- The feed's retention mark (docs/changes.md, "An expired cursor"): for
-- each organization, the last change in feed order, (position, seq), that
-- the retention purge has deleted. A cursor before it would pass over a
-- deleted change without a word, so the feed refuses it (410
-- cursor_expired), and a read without a cursor starts after it. The purge
-- moves it forward in the statement that deletes the changes, so a reader
-- sees the deletions and the mark together. Purges made before this
-- migration left no mark.
CREATE TABLE change_retention_marks (
    organization_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    position        xid8 NOT NULL,
    seq             bigint NOT NULL
);
