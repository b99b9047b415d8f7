// What a live-mode request must be confirmed for: the one table of the contract's operations that
// move money or destroy something, and the one function that decides from it. Every command that
// sends such a request in live mode asks first on a terminal and needs --yes elsewhere (exit 2,
// nothing sent): the resource verbs (src/verbs/run.ts, --from-file in src/verbs/bulk.ts, --yes
// added by src/cmdutil/registry.ts from this table), `pay api` (an operation it cannot name is
// asked about too), `pay trigger` and `pay seed apply` (a live collection, transfer or trade).
// Data only (the start-up path registers --yes from it): no contract, no engine.

export type ConfirmClass = 'moves money' | 'destroys';

/** The operations (by operationId) a live request needs a yes for, and why. Everything else goes through. */
export const CONFIRMED_OPERATIONS: Readonly<Record<string, ConfirmClass>> = {
  createTransfer: 'moves money',
  createCollection: 'moves money',
  createFxTrade: 'moves money',
  cancelTransfer: 'destroys',
  closeAccount: 'destroys',
  removeExternalAccount: 'destroys',
  terminateCard: 'destroys',
  disablePaymentLink: 'destroys',
};

/** What a request is, as far as the decision goes: its method, and its operation when known (undefined: no operation of the contract matches). */
export interface OperationRef {
  method: string;
  operationId: string | undefined;
}

/** Why an operation needs a yes in live mode, whatever the mode: the table's class, or undefined. */
export function confirmClassOf(operationId: string | undefined): ConfirmClass | undefined {
  return operationId !== undefined && Object.hasOwn(CONFIRMED_OPERATIONS, operationId) ? CONFIRMED_OPERATIONS[operationId] : undefined;
}

/**
 * The one decision: does this request, in this mode, need a yes? Never in sandbox mode, never for
 * a read (GET, HEAD). In live mode: an operation of the table, and a writing request whose
 * operation is unknown (`pay api` to a path the contract does not describe: it may move money).
 */
export function needsConfirmation(op: OperationRef, mode: string): ConfirmClass | 'unknown operation' | undefined {
  if (mode !== 'live') return undefined;
  const method = op.method.toUpperCase();
  if (method === 'GET' || method === 'HEAD') return undefined;
  if (op.operationId === undefined) return 'unknown operation';
  return confirmClassOf(op.operationId);
}
