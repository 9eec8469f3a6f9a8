DROP TABLE change_plain_cursor_bound;
