// Documented default quality profiles (the catalog's `quality`) for the built-in models of
// lib/default-config.ts. No labelled data exists for these models, so their profiles are placed on
// the scale the training learned (lib/router/weights.json, `profiles`), anchored on its two best
// known models: gpt-4-1106-preview learned ability ≈ 1.8, Mixtral-8x7B ≈ 0.9 (a gap of ≈ 0.9 logit
// between a 2023 frontier model and a good open model of the time).
//
// Reasoning, written so an operator can adjust it:
// - Today's smallest tier (Haiku, Fable, gpt-5-mini) scores at or above GPT-4-1106 on the public
//   benchmarks the data comes from (MMLU, GSM8K, MT-Bench): ability ≈ GPT-4's, 1.7 to 1.8.
// - Each step up a tier (Haiku → Sonnet → Opus) is given about the Mixtral → GPT-4 gap, a bit less:
//   +0.6 per tier; a newer version of a tier +0.2 over the one before (Opus 4.8 → 5 → 5.5).
// - gpt-5 sits with Opus 5, gpt-5-mini just below Sonnet 5; both are reasoning models, so they get a
//   `math` offset (+0.3), as the learned math offsets of the reasoning-tuned models in the data do
//   (qwen2.5 and nemotron-super: about +0.4); Claude models get a `code` offset (+0.3).
// With the decision rule (cheapest within the target of the best), a cheaper model is chosen on
// prompts the encoder finds easy, where every model's predicted quality is near 1 and the ratio
// passes the target; hard prompts go to the strongest.
import type { QualityProfile } from './router-api.js';

const claude = (ability: number): QualityProfile => ({ ability, skills: { code: 0.3 } });
const gpt = (ability: number): QualityProfile => ({ ability, skills: { math: 0.3 } });

export const DEFAULT_QUALITY_PROFILES: Readonly<Record<string, QualityProfile>> = {
  'anthropic/claude-opus-5.5': claude(3.1),
  'anthropic/claude-opus-5': claude(2.9),
  'anthropic/claude-opus-4.8': claude(2.7),
  'anthropic/claude-sonnet-5.5': claude(2.5),
  'anthropic/claude-sonnet-5': claude(2.3),
  'anthropic/claude-haiku-5.5': claude(1.9),
  'anthropic/claude-fable-5': claude(1.7),
  'openai/gpt-5': gpt(2.9),
  'openai/gpt-5-mini': gpt(2.1),
};

/** The documented default profile of a built-in catalog model; undefined for any other id. */
export function defaultQualityProfile(modelId: string): QualityProfile | undefined {
  return DEFAULT_QUALITY_PROFILES[modelId];
}

// The learned free factors (`factor-1` …) are left out of these profiles (0): they carry how the
// training data's models differ beyond ability and skills, which says nothing of a model outside it.
