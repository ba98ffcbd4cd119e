// Paths used by tests. Tests run with the project root as the working directory (tap does this),
// whether they were compiled to ./dist or elsewhere.
import { join } from 'node:path';

export const ROOT = process.env.GATEWAY_ROOT ?? process.cwd();
export const FIXTURES = join(ROOT, 'fixtures');
export const DIST = join(ROOT, 'dist');
export function fixture(...parts: string[]): string {
  return join(FIXTURES, ...parts);
}
