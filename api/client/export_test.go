package client

// ListRecordType exposes listRecordType to the package's external tests.
var ListRecordType = listRecordType
