package requestlog

// Partitions lists request_logs' partitions by name (for the tests of
// package requestlog_test).
var Partitions = partitions
