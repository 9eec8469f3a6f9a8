package requestlog

// Partitions lists request_log_segments' partitions by name (for the tests
// of package requestlog_test).
var Partitions = partitions
