package webhooks

// PurgeDeletedWith is PurgeDeletedEndpoints with a batch of the test's.
var PurgeDeletedWith = purgeDeleted
