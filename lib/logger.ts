// The root pino logger. Credentials are redacted by path; prompts are never logged at info level.
// Stages get `ctx.log` (a child with reqId and endpoint) and never import pino themselves.
import { pino, type Logger, type DestinationStream } from 'pino';

export const REDACT_PATHS = [
  'authorization',
  'x-api-key',
  'headers.authorization',
  'headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  '*.apiKey',
  '*.key',
  'apiKey',
  '*.sealKey',
  'sealKey',
  'key',
];

export function createRootLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: null,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? pino.destination({ fd: 1, sync: false }),
  );
}
