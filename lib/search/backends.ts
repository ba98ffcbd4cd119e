// The registry of search backends by config type: the only place that names them all.
import { brave } from './brave.js';
import { exa } from './exa.js';
import { searxng } from './searxng.js';
import { tavily } from './tavily.js';
import type { SearchBackend, SearchBackendConfig } from './types.js';

export const SEARCH_BACKENDS: Readonly<Record<SearchBackendConfig['type'], SearchBackend>> = Object.freeze({ brave, tavily, exa, searxng });
