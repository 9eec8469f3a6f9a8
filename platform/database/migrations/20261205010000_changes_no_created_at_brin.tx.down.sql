CREATE INDEX IF NOT EXISTS changes_created_at_idx ON changes USING brin (created_at);
