DROP TABLE change_retention_marks;
