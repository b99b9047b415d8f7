// The webhook event types and delivery statuses: one list for the contract, the commands
// (--type and --status choices, completions) and the emulator. No imports, so the start-up
// bundle can take it without the contract.
export const EVENT_TYPES = [
  'customer.created',
  'customer.updated',
  'kyc.pending',
  'kyc.in_review',
  'kyc.approved',
  'kyc.rejected',
  'feature.activated',
  'account.created',
  'account.closed',
  'external_account.created',
  'external_account.removed',
  'transfer.created',
  'transfer.completed',
  'transfer.failed',
  'transfer.cancelled',
  'card.created',
  'card.activated',
  'card.frozen',
  'card.unfrozen',
  'card.terminated',
  'collection.created',
  'collection.succeeded',
  'collection.failed',
  'payment_link.created',
  'payment_link.disabled',
  'payment_link.expired',
  'wallet.created',
  'fx_trade.completed',
] as const;
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'disabled'] as const;
