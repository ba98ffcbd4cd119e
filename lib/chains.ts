// The chains of stages, one list per endpoint, in the order the design names them: parse, validate,
// route, offer web search, reserve credits, dispatch, provider-SSE decode, integrity check, the web
// search loop, settle, re-encode. Settle comes before the encoder so that the answer's last frames
// (which tell the client it succeeded and what it cost) are encoded only once its charge committed
// (stages/settle.ts).
import type { Config } from './config.js';
import { Chain } from './pipeline.js';
import { dialects, type Dialect, type ValidateOptions } from './dialects/index.js';
import { parseBody } from '../stages/parse-body.js';
import { validate, type Validator } from '../stages/validate.js';
import { route } from '../stages/route.js';
import { reserveCredits } from '../stages/reserve-credits.js';
import { searchOffer } from '../stages/search-offer.js';
import { searchLoop } from '../stages/search-loop.js';
import { dispatch } from '../stages/dispatch.js';
import { sseDecode } from '../stages/sse-decode.js';
import { providerDecode } from '../stages/provider-decode.js';
import { integrity } from '../stages/integrity.js';
import { encodeResponse } from '../stages/encode.js';
import { completesAtMessageStop, settle } from '../stages/settle.js';
import { countTokensUnavailable } from '../stages/count-tokens.js';
import type { CanonicalEvent, CanonicalRequest, RawBody } from './chunks.js';
import type { Stage, StageFactory } from './stage.js';
import type { ChainNote, FailedNote, UsageNote } from './notes.js';

/** The client dialect's request validator, from the registry. */
function dialectValidator(dialect: Dialect, opts?: ValidateOptions): Validator {
  const check = dialect.validate;
  if (check === undefined) throw new Error(`the ${dialect.name} dialect has no JSON request validator`);
  return (raw, ctx) => check(raw.value, ctx, opts);
}

const messagesValidator = (countTokens: boolean): Validator => dialectValidator(dialects.anthropic, { countTokens });

/** The generation part shared by every text endpoint: from the validated request to the client's bytes. */
export function generationChain(config: Config, validator: StageFactory<RawBody, CanonicalRequest>): Chain<Buffer, string | ChainNote> {
  return Chain.of(parseBody({ limit: config.maxBodyBytes }))
    .then(validator)
    .then(route())
    .then(searchOffer())
    .then(reserveCredits())
    .then(dispatch())
    .then(() => sseDecode())
    .then(() => providerDecode())
    .then((): Stage<CanonicalEvent, CanonicalEvent | UsageNote | FailedNote> => integrity())
    .then(searchLoop())
    .then(settle<CanonicalEvent>({ completes: completesAtMessageStop }))
    .then(encodeResponse());
}

export function buildMessagesChain(config: Config): Chain<Buffer, string | ChainNote> {
  return generationChain(config, validate(messagesValidator(false)));
}

export function buildChatChain(config: Config): Chain<Buffer, string | ChainNote> {
  return generationChain(config, validate(dialectValidator(dialects['openai-chat'])));
}

export function buildResponsesChain(config: Config): Chain<Buffer, string | ChainNote> {
  return generationChain(config, validate(dialectValidator(dialects['openai-responses'])));
}

export function buildCountTokensChain(config: Config): Chain<Buffer, string | ChainNote> {
  return Chain.of(parseBody({ limit: config.maxBodyBytes }))
    .then(validate(messagesValidator(true)))
    .then(route())
    .then(countTokensUnavailable())
    .then(settle<string>());
}
