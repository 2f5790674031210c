// What other features do with the marketplaces' payments: the Stripe feature records them (with
// the transaction's client of the event it processes), the dashboard and the summary report read
// their totals. They go through here, never through the repository.
export {
  refundByPaymentIntent,
  setTransactionStatus,
  transactionTotalsByStatus,
  upsertTransaction,
} from './transactions.repository.js';
