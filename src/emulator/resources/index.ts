// Every route of the contract, from the resource modules (each also registers its indexes,
// settlement jobs and replay scanners on the app).
import type { Services } from '../services.js';
import type { Route } from '../types.js';
import { accountRoutes } from './accounts.js';
import { cardRoutes } from './cards.js';
import { collectionRoutes } from './collections.js';
import { cryptoRoutes } from './crypto.js';
import { customerRoutes } from './customers.js';
import { fxRoutes } from './fx.js';
import { kycRoutes } from './kyc.js';
import { transferRoutes } from './transfers.js';
import { viewRoutes } from './views.js';

export function allRoutes(app: Services): Route[] {
  return [
    ...customerRoutes(app),
    ...kycRoutes(app),
    ...accountRoutes(app),
    ...transferRoutes(app),
    ...cardRoutes(app),
    ...collectionRoutes(app),
    ...cryptoRoutes(app),
    ...fxRoutes(app),
    ...viewRoutes(app),
  ];
}
