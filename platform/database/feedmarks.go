package database

// FeedMarksCTE is the tail of a WITH whose CTE "gone" deleted changes and
// RETURNING organization_id, position, seq: it moves each organization's
// retention mark (change_retention_marks) to the last of its deleted
// changes in feed order, never back, so that a reader's cursor before a
// deleted change is refused (410 cursor_expired, docs/changes.md, "An
// expired cursor") rather than skipping it. The marks are written in the
// order of their organizations, so that two statements wait for each other
// rather than deadlock; an organization being deleted meanwhile gets none
// (its row is locked first, and skipped once gone). The retention purge
// and an organization's deletion (which deletes its feed in batches before
// the organization) both use it.
const FeedMarksCTE = `last AS (
    SELECT DISTINCT ON (organization_id) organization_id, position, seq FROM gone
    ORDER BY organization_id, position DESC, seq DESC
), marked AS (
    INSERT INTO change_retention_marks AS m (organization_id, position, seq)
    SELECT last.organization_id, last.position, last.seq
    FROM last JOIN organizations o ON o.id = last.organization_id
    ORDER BY last.organization_id
    FOR KEY SHARE OF o
    ON CONFLICT (organization_id) DO UPDATE SET position = excluded.position, seq = excluded.seq
    WHERE (m.position, m.seq) < (excluded.position, excluded.seq)
)`
