// The endpoint groups' names and summaries, in root-help order, and how to load each one's
// spec. The entry registers every group from here and loads only the specs argv names, so
// start-up never parses the other thirteen. Data only (start-up path).
import type { GroupSpec } from '../cmdutil/spec.js';

export type GroupHead = Pick<GroupSpec, 'name' | 'summary' | 'deprecated'>;

export const GROUP_HEADS = {
  customers: { name: 'customers', summary: 'Create and manage customer profiles' },
  kyc: { name: 'kyc', summary: "Verify customers' identity: start a check, submit documents, follow the status" },
  'kyc-legacy': { name: 'kyc-legacy', summary: 'KYC over the deprecated /kyc endpoints', deprecated: { use: 'pay kyc' } },
  features: { name: 'features', summary: 'List product features, check and activate them for a customer' },
  accounts: { name: 'accounts', summary: 'Create and manage internal accounts and their balances' },
  'external-accounts': {
    name: 'external-accounts',
    summary: "Add and manage customers' bank accounts outside the service (payout destinations)",
  },
  transfers: { name: 'transfers', summary: 'Send money between accounts and to external accounts' },
  cards: { name: 'cards', summary: 'Issue virtual and physical cards; freeze, unfreeze and terminate them' },
  collections: { name: 'collections', summary: 'Collect money into an account by card, bank transfer or mobile money' },
  'payment-links': { name: 'payment-links', summary: 'Create and manage crypto payment links into a wallet' },
  wallets: { name: 'wallets', summary: "Create and inspect customers' crypto wallets" },
  fx: { name: 'fx', summary: 'Exchange rates, quotes and currency trades between accounts' },
  transactions: { name: 'transactions', summary: 'Browse the ledger: every credit and debit on accounts and wallets' },
  webhooks: { name: 'webhooks', summary: 'Webhook events and their deliveries; verify signatures and receive deliveries locally' },
} as const satisfies Record<string, GroupHead>;

export type GroupName = keyof typeof GROUP_HEADS;

export const GROUP_LOADERS: Record<GroupName, () => Promise<GroupSpec>> = {
  customers: () => import('./customers/index.js').then((m) => m.customers),
  kyc: () => import('./kyc/index.js').then((m) => m.kyc),
  'kyc-legacy': () => import('./kyc-legacy/index.js').then((m) => m.kycLegacy),
  features: () => import('./features/index.js').then((m) => m.features),
  accounts: () => import('./accounts/index.js').then((m) => m.accounts),
  'external-accounts': () => import('./external-accounts/index.js').then((m) => m.externalAccounts),
  transfers: () => import('./transfers/index.js').then((m) => m.transfers),
  cards: () => import('./cards/index.js').then((m) => m.cards),
  collections: () => import('./collections/index.js').then((m) => m.collections),
  'payment-links': () => import('./payment-links/index.js').then((m) => m.paymentLinks),
  wallets: () => import('./wallets/index.js').then((m) => m.wallets),
  fx: () => import('./fx/index.js').then((m) => m.fx),
  transactions: () => import('./transactions/index.js').then((m) => m.transactions),
  webhooks: () => import('./webhooks/index.js').then((m) => m.webhooks),
};
