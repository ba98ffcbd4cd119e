// Which quality profile gateway-auto weighs a catalog model with: the one the config declares
// (`models[].quality`), else the documented default of a built-in model (profiles.ts), else the
// neutral profile. The neutral profile, `{ability: 0}` with no skill offsets, is the middle of the
// scale the router learned (the trained models' abilities span about −1.4 to 1.8, mean ≈ 0): a model
// the operator has not described is taken as an average model, so it serves the prompts the router
// finds easy when it is the cheapest, and never the hard ones while a described stronger model fits.
import { defaultQualityProfile } from './profiles.js';
import type { QualityProfile } from './router-api.js';

export const NEUTRAL_QUALITY: QualityProfile = Object.freeze({ ability: 0 });

export function qualityProfileOf(modelId: string, configured: QualityProfile | undefined): QualityProfile {
  return configured ?? defaultQualityProfile(modelId) ?? NEUTRAL_QUALITY;
}
