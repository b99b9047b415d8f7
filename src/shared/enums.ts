// The API's vocabularies: every set of values a field or filter takes, defined once. The contract
// (src/api/contract/) states them, the emulator (src/emulator/resources/) checks them and the
// commands offer them (src/commands/<group>/operations.ts, generated from the contract, names them
// from here). test/unit/enums-once.test.ts fails when a set of values is written out twice in src/.
// Data only: the start-up path reads it.
export { ASSETS, CUSTOMER_TYPES, FIAT_CURRENCIES, GENDERS, NETWORKS } from './domain.js';
export { DELIVERY_STATUSES, EVENT_TYPES } from './events.js';
export { FEATURE_KEYS, KYC_STATUSES } from './rules.js';

export const ACCOUNT_TYPES = ['checking', 'savings'] as const;
export const ACCOUNT_STATUSES = ['active', 'closed'] as const;
export const EXTERNAL_ACCOUNT_STATUSES = ['active', 'removed'] as const;

export const TRANSFER_STATUSES = ['pending', 'completed', 'failed', 'cancelled'] as const;
export const TRANSFER_DESTINATION_TYPES = ['account', 'external_account'] as const;

export const CARD_TYPES = ['virtual', 'physical'] as const;
export const CARD_STATUSES = ['inactive', 'active', 'frozen', 'terminated'] as const;
/** The card states terminate leaves (every one but the final state). */
export const CARD_TERMINABLE_STATUSES = ['active', 'frozen', 'inactive'] as const;
export const SPENDING_INTERVALS = ['daily', 'monthly'] as const;

export const COLLECTION_METHODS = ['card', 'bank_transfer', 'mobile_money'] as const;
export const MOBILE_MONEY_PROVIDERS = ['mpesa', 'mtn', 'airtel'] as const;
export const COLLECTION_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const KYC_LEVELS = ['basic', 'enhanced'] as const;
export const KYC_DOCUMENT_TYPES = ['passport', 'national_id', 'drivers_license', 'utility_bill', 'selfie'] as const;
/** A verification's states (a customer's kyc_status adds `not_started`: KYC_STATUSES). */
export const KYC_VERIFICATION_STATUSES = ['pending', 'in_review', 'approved', 'rejected'] as const;
/** A verification still open: a new one cannot start, a document can be submitted; --wait waits while it is. */
export const KYC_OPEN_STATUSES = ['pending', 'in_review'] as const;
/** A customer's kyc_status from which a verification can start (an approved customer may upgrade). */
export const KYC_STARTABLE_STATUSES = ['not_started', 'rejected', 'approved'] as const;
export const KYC_DOCUMENT_STATUSES = ['received', 'accepted', 'rejected'] as const;

export const PAYMENT_LINK_STATUSES = ['active', 'disabled', 'expired', 'paid'] as const;
export const FX_QUOTE_STATUSES = ['open', 'used', 'expired'] as const;

export const TRANSACTION_TYPES = ['transfer', 'collection', 'fx_trade', 'reversal'] as const;
export const TRANSACTION_DIRECTIONS = ['credit', 'debit'] as const;
export const TRANSACTION_STATUSES = ['pending', 'posted', 'voided'] as const;
