// Which catalog model serves a transcription.
//
// - omitted, `gateway-auto`, `whisper-1`, `gpt-4o-transcribe`, `gpt-4o-mini-transcribe`: the
//   configured `transcription.defaultModel` (without one: the first catalog model that takes audio
//   and has a transcriptions deployment);
// - any other value resolves like every model name (catalog id, alias, vendor name, ...) and must list
//   `audio` in its input modalities; otherwise 400 invalid_model;
// - the model must have at least one `transcriptions` deployment on an `openai` provider (the only
//   protocol that carries transcriptions); otherwise 400 invalid_model.
import { modelAllowed, type Catalog, type CatalogModel } from '../../catalog.js';
import type { Deployment } from '../../chunks.js';
import type { Config } from '../../config.js';
import { errors } from '../../errors/index.js';

export const AUTO_MODEL = 'gateway-auto';
/** Model names that mean "the default transcription model" (OpenAI's names and the router's). */
export const DEFAULT_MODEL_NAMES: ReadonlySet<string> = new Set([AUTO_MODEL, 'whisper-1', 'gpt-4o-transcribe', 'gpt-4o-mini-transcribe']);

export interface TranscriptionModel {
  model: CatalogModel;
  /** the transcriptions deployments, in failover order */
  deployments: readonly Deployment[];
  /** true when the gateway chose the model (omitted or `gateway-auto`) */
  auto: boolean;
}

export function transcriptionDeployments(model: CatalogModel): Deployment[] {
  return model.deployments.filter((d) => d.api === 'transcriptions' && d.protocol === 'openai');
}

function isTranscriptionModel(model: CatalogModel): boolean {
  return model.input.has('audio') && transcriptionDeployments(model).length > 0;
}

/** the catalog's models that can transcribe and the key may use, named in the errors below */
function transcribers(catalog: Catalog, allow: readonly string[]): string[] {
  return catalog.models.filter((m) => isTranscriptionModel(m) && modelAllowed(allow, m.id)).map((m) => m.id);
}

/** `allow`: the key's model allowlist (empty = every model); hints name only models it admits. */
export function resolveTranscriptionModel(value: string | null, catalog: Catalog, config: Config, allow: readonly string[] = []): TranscriptionModel {
  if (value === null || DEFAULT_MODEL_NAMES.has(value)) {
    const id = config.transcription?.defaultModel;
    const model = id !== undefined ? catalog.get(id) : catalog.models.find(isTranscriptionModel);
    if (model === undefined || !isTranscriptionModel(model)) {
      throw errors.transcriptionDefaultMissing(transcribers(catalog, allow));
    }
    return { model, deployments: transcriptionDeployments(model), auto: value === null || value === AUTO_MODEL };
  }
  const hit = catalog.resolve(value);
  if (hit === null) {
    throw errors.transcriptionModelUnknown(value, catalog.suggestions(value, allow), transcribers(catalog, allow));
  }
  const model = hit.model;
  if (!model.input.has('audio')) {
    throw errors.modelNotAudio(model.id, transcribers(catalog, allow));
  }
  const deployments = transcriptionDeployments(model);
  if (deployments.length === 0) {
    throw errors.modelNoTranscriptionDeployment(model.id, transcribers(catalog, allow));
  }
  return { model, deployments, auto: false };
}
