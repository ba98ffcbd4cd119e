// The gateway's own configuration (file, environment, command line): refused at start or on reload.
import { defineError } from '../errors.js';

export const configErrors = {
  /** a config rule ("<path>: <problem>", or several joined by "; ") */
  configInvalid: defineError('GW_ERR_CONFIG_INVALID', (problem: string) => `Invalid configuration: ${problem}`),
  configUnreadable: defineError('GW_ERR_CONFIG_INVALID', (file: string, cause: Error) => `Invalid configuration: cannot read ${file}: ${cause.message}`),
  configNotJson: defineError('GW_ERR_CONFIG_INVALID', (file: string, cause: Error) => `Invalid configuration: ${file} is not valid JSON: ${cause.message}`),
  // a `keys[i]` entry that cannot be stored: its id or its secret belongs to a key made elsewhere (`source`)
  configKeyIdTaken: defineError('GW_ERR_CONFIG_INVALID', (index: number, id: string, source: string) => `Invalid configuration: keys[${index}]: id "${id}" belongs to a key made outside the config (${source})`),
  configKeySecretTaken: defineError('GW_ERR_CONFIG_INVALID', (index: number, holder: string, source: string) => `Invalid configuration: keys[${index}]: this secret belongs to key "${holder}", made outside the config (${source})`),
  configKeyIdRepeated: defineError('GW_ERR_CONFIG_INVALID', (index: number, id: string) => `Invalid configuration: keys[${index}].id: key id "${id}" is listed twice`),
  /** `limits: "redis://…"` names a server that does not answer at start */
  limitsUnreachableAtStart: defineError('GW_ERR_CONFIG_INVALID', (url: string, reason: string) => `Invalid configuration: limits: cannot reach ${url}: ${reason}. Start Redis (7 or later) there, or remove \`limits\` to keep rate limits in each process`),
  /** `--workers` with a store each process would open on its own */
  workersNeedSharedStore: defineError('GW_ERR_CONFIG_INVALID', (store: string) => `Invalid configuration: --workers: the store ${store} is private to each process; use a file (sqlite:PATH) or postgres:// store`),
  workersInvalid: defineError('GW_ERR_CONFIG_INVALID', (given: string) => `Invalid configuration: --workers: must be a positive integer or "auto", got "${given}"`),
  portInvalid: defineError('GW_ERR_CONFIG_INVALID', (port: string) => `Invalid configuration: --port: must be an integer from 0 to 65535, got "${port}"`),
  recordDirUnwritable: defineError('GW_ERR_CONFIG_INVALID', (dir: string, cause: Error) => `Invalid configuration: recordDir: cannot create the folder ${dir}: ${cause.message}`),
};
