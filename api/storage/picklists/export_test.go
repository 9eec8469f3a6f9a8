package picklists

// QuoteApproved exposes quoteApproved to the external tests.
const QuoteApproved = quoteApproved
