// Every endpoint group, in the order root help lists them. Data only (start-up path).
import { accounts } from './accounts/index.js';
import { cards } from './cards/index.js';
import { collections } from './collections/index.js';
import { customers } from './customers/index.js';
import { externalAccounts } from './external-accounts/index.js';
import { features } from './features/index.js';
import { fx } from './fx/index.js';
import { kycLegacy } from './kyc-legacy/index.js';
import { kyc } from './kyc/index.js';
import { paymentLinks } from './payment-links/index.js';
import type { GroupSpec } from '../cmdutil/spec.js';
import { transactions } from './transactions/index.js';
import { transfers } from './transfers/index.js';
import { wallets } from './wallets/index.js';
import { webhooks } from './webhooks/index.js';

export const allGroups: readonly GroupSpec[] = [
  customers,
  kyc,
  kycLegacy,
  features,
  accounts,
  externalAccounts,
  transfers,
  cards,
  collections,
  paymentLinks,
  wallets,
  fx,
  transactions,
  webhooks,
];
