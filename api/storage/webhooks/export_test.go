package webhooks

// GetDelivery is getDelivery, for the tests.
var GetDelivery = getDelivery
