// Every named error, by area: `throw errors.authInvalid()`. A definition carries its code (and so its
// status, lib/errors.ts), its wording and its parameters; call sites pass values, never sentences.
// test/errors-catalog.test.ts checks every code has a definition, every definition is used, and
// that no file outside lib/errors* words an error itself.
import { adminApiErrors, adminErrors } from './admin.js';
import { authErrors } from './auth.js';
import { configErrors } from './config.js';
import { connectionErrors } from './connection.js';
import { fieldErrors } from './fields.js';
import { gatewayErrors } from './gateway.js';
import { headerErrors } from './headers.js';
import { limitErrors } from './limits.js';
import { modelErrors } from './model.js';
import { requestErrors } from './request.js';
import { storeErrors } from './store.js';
import { upstreamErrors } from './upstream.js';

export { inBandUpstream, type InBandCode } from './upstream.js';

export const errors = {
  ...authErrors,
  ...adminErrors,
  ...adminApiErrors,
  ...limitErrors,
  ...requestErrors,
  ...headerErrors,
  ...fieldErrors,
  ...modelErrors,
  ...upstreamErrors,
  ...configErrors,
  ...gatewayErrors,
  ...storeErrors,
  ...connectionErrors,
};

/** the definitions of each area, for the test that no name is defined twice */
export const errorAreas = { authErrors, adminErrors, adminApiErrors, limitErrors, requestErrors, headerErrors, fieldErrors, modelErrors, upstreamErrors, configErrors, gatewayErrors, storeErrors, connectionErrors };
