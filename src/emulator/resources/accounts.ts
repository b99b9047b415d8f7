// Accounts (internal, holding a ledger balance) and external bank accounts. An external account
// with a pending transfer to it cannot be removed (409 invalid_state). Opening either is refused
// to a customer whose KYC was rejected (the rules: ./rules.ts).
import { ACCOUNT_STATUSES, ACCOUNT_TYPES } from '../../shared/enums.js';
import type { Services } from '../services.js';
import { randomDigits } from '../ids.js';
import { ApiProblem, invalidState } from '../problems.js';
import { check, country, id, oneOf, opt, orThrow, req, str } from '../validation.js';
import type { Account, Customer, ExternalAccount, Route, Transfer } from '../types.js';
import { created, FIAT, insert, load, qEnum, qId } from './common.js';
import { listAndGet, resource, transition } from './routes.js';
import { holder, requireAllowed } from './rules.js';

const accountShape = {
  customer_id: req(id('cus_')),
  currency: req(oneOf(FIAT)),
  type: opt(oneOf(ACCOUNT_TYPES)),
  nickname: opt(str({ max: 100 })),
};

const externalShape = {
  customer_id: req(id('cus_')),
  account_holder_name: req(str()),
  bank_name: req(str()),
  account_number: req(str({ max: 34, pattern: /^[0-9A-Za-z]{4,34}$/, hint: 'must be 4-34 letters or digits' })),
  routing_number: opt(str({ max: 20, pattern: /^[0-9A-Za-z]{4,20}$/, hint: 'must be 4-20 letters or digits' })),
  iban: opt(
    str({
      max: 34,
      pattern: /^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/,
      hint: 'must be an IBAN like GB29NWBK60161331926819 (upper case, no spaces)',
    }),
  ),
  country: req(country),
  currency: req(oneOf(FIAT)),
};

const ACCOUNT = resource<Account>({ kind: 'account', noun: 'account', path: '/accounts', param: 'account_id' });
const EXTERNAL = resource<ExternalAccount>({
  kind: 'external_account',
  noun: 'external account',
  path: '/external-accounts',
  param: 'external_account_id',
});

export function accountRoutes(app: Services): Route[] {
  app.store.index('account', (a: Account) => [`customer_id=${a.customer_id}`, `currency=${a.currency}`]);
  app.store.index('external_account', (a: ExternalAccount) => [`customer_id=${a.customer_id}`]);

  return [
    {
      method: 'POST',
      path: '/accounts',
      op: 'createAccount',
      handler: (ctx) => {
        orThrow(check(ctx.body, accountShape));
        const b = ctx.body as { customer_id: string; currency: string; type?: string; nickname?: string };
        requireAllowed('accounts.create', load<Customer>(ctx, 'customer', 'cus_', b.customer_id, 'customer'));
        const a = app.create<Account>(ctx.scope, 'acc_', 'account', {
          customer_id: b.customer_id,
          currency: b.currency,
          type: b.type ?? 'checking',
          nickname: b.nickname ?? null,
          status: 'active',
          account_number: randomDigits(10),
          balance: app.ledger.balance('', b.currency),
        });
        const rec = insert(ctx, 'account', a, 'account.created');
        return created(rec);
      },
    },
    ...listAndGet(ACCOUNT, {
      tenantRequired: true,
      filters: { customer_id: qId('cus_'), currency: qEnum(FIAT), status: qEnum(ACCOUNT_STATUSES) },
      indexes: ['customer_id', 'currency'],
    }),
    transition(ACCOUNT, {
      op: 'closeAccount',
      action: 'close',
      from: ['active'],
      to: 'closed',
      event: 'account.closed',
      refused: (rec) => `account ${rec.id} is already closed`,
      before: (ctx, rec) => {
        if (app.ledger.isEmpty(rec.id)) return;
        const b = rec.obj.balance;
        // A holder whose KYC was rejected can move nothing out (the rules): say so, and name them, or the advice is a dead end.
        const owner = holder(ctx, rec.obj.customer_id);
        const rejected = owner.obj.kyc_status === 'rejected';
        throw new ApiProblem(
          409,
          'account_not_empty',
          `the account still holds money (available ${b.available}, pending ${b.pending} ${b.currency}); move it out first` +
            (rejected ? `, once a new KYC verification of its holder ${owner.id} is started (theirs was rejected)` : ''),
          undefined,
          undefined,
          rejected ? { customer_id: owner.id, kyc_status: 'rejected', customer_country: owner.obj.address.country } : undefined,
        );
      },
    }),
    {
      method: 'POST',
      path: '/external-accounts',
      op: 'createExternalAccount',
      handler: (ctx) => {
        orThrow(check(ctx.body, externalShape));
        const b = ctx.body as Record<string, string>;
        requireAllowed('external_accounts.create', load<Customer>(ctx, 'customer', 'cus_', b.customer_id, 'customer'));
        const e = app.create<ExternalAccount>(ctx.scope, 'ea_', 'external_account', {
          customer_id: b.customer_id!,
          account_holder_name: b.account_holder_name!,
          bank_name: b.bank_name!,
          country: b.country!,
          currency: b.currency!,
          account_number_last4: b.account_number!.slice(-4),
          routing_number: b.routing_number ?? null,
          iban_last4: b.iban ? b.iban.slice(-4) : null,
          status: 'active',
        });
        const rec = insert(ctx, 'external_account', e, 'external_account.created');
        return created(rec);
      },
    },
    ...listAndGet(EXTERNAL, { filters: { customer_id: qId('cus_') }, indexes: ['customer_id'] }),
    transition(EXTERNAL, {
      op: 'removeExternalAccount',
      action: { method: 'DELETE' },
      from: ['active'],
      to: 'removed',
      event: 'external_account.removed',
      refused: (rec) => `external account ${rec.id} is already removed`,
      // Money on its way there would have nowhere to go: refused until those transfers settle or are cancelled.
      before: (ctx, rec) => {
        const pending = app.store
          .all(ctx.scope, 'transfer')
          .filter((r) => (r.obj as Transfer).destination_id === rec.id && (r.obj as Transfer).status === 'pending');
        if (pending.length > 0) {
          throw invalidState(
            `external account ${rec.id} has ${pending.length === 1 ? 'a pending transfer' : `${pending.length} pending transfers`} (${pending[0]!.id}${pending.length > 1 ? ', …' : ''}); cancel ${pending.length === 1 ? 'it' : 'them'} or wait until ${pending.length === 1 ? 'it settles' : 'they settle'}, then remove it`,
          );
        }
      },
    }),
  ];
}
