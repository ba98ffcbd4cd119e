// What an endpoint documents as an answer (gateway-api.md "Errors" plus docs/errors.md's decided
// additions), and how to read one: the status/code pairs of each envelope, the request id, and
// whether a streamed answer ended cleanly or with the dialect's in-stream error.
export type EndpointKind = 'messages' | 'chat' | 'responses' | 'transcriptions';

/** Messages envelope: status → the `error.type`s it may carry. */
const MESSAGES_PAIRS: Record<number, readonly string[]> = {
  400: ['invalid_request_error'],
  401: ['authentication_error'],
  402: ['billing_error'],
  403: ['permission_error'],
  404: ['not_found_error'],
  405: ['invalid_request_error'], // decided addition (docs/errors.md)
  413: ['request_too_large'],
  429: ['rate_limit_error'],
  500: ['api_error'],
  502: ['api_error'],
  503: ['overloaded_error', 'api_error'],
  504: ['timeout_error'],
  529: ['overloaded_error'],
};

/** OpenAI-style envelope: status → the `error.code`s it may carry. */
const OPENAI_PAIRS: Record<number, readonly string[]> = {
  400: ['invalid_model', 'invalid_call_name', 'invalid_end_user_id', 'unsupported_parameter', 'unsupported_modality', 'invalid_request', 'invalid_file_format', 'file_too_large', 'unsupported_response_format'],
  401: ['unauthorized'],
  402: ['insufficient_credits', 'spend_cap_exceeded'],
  403: ['endpoint_not_allowed', 'model_not_allowed', 'permission_denied'],
  404: ['not_found'],
  405: ['method_not_allowed'],
  413: ['request_too_large'],
  429: ['rate_limit_exceeded'],
  500: ['internal_error'],
  503: ['provider_unavailable', 'service_unavailable'],
};

export interface ErrorAnswer {
  status: number;
  /** Messages `error.type` or OpenAI `error.code` */
  code: string | undefined;
  message: string | undefined;
  param: string | undefined;
  requestId: string | undefined;
}

/** The error body of a non-2xx answer in the endpoint's envelope, or a reason it is not one. */
export function readError(endpoint: EndpointKind, status: number, text: string): ErrorAnswer | string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 120)}`;
  }
  if (typeof body !== 'object' || body === null) return `not an object: ${text.slice(0, 120)}`;
  const b = body as { type?: unknown; error?: { type?: unknown; code?: unknown; message?: unknown; param?: unknown }; request_id?: unknown };
  if (typeof b.error !== 'object' || b.error === null) return `no error object: ${text.slice(0, 120)}`;
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  if (endpoint === 'messages') {
    if (b.type !== 'error') return `Messages envelope without type "error": ${text.slice(0, 120)}`;
    return { status, code: str(b.error.type), message: str(b.error.message), param: undefined, requestId: str(b.request_id) };
  }
  return { status, code: str(b.error.code), message: str(b.error.message), param: str(b.error.param), requestId: undefined };
}

/** Whether the endpoint documents this status with this code or type. */
export function documentedPair(endpoint: EndpointKind, status: number, code: string | undefined): boolean {
  const table = endpoint === 'messages' ? MESSAGES_PAIRS : OPENAI_PAIRS;
  return code !== undefined && (table[status]?.includes(code) ?? false);
}

/** The gateway's own request id of an answer (Messages with an Anthropic upstream: `x-gateway-request-id`). */
export function gatewayRequestId(h: Headers): string | null {
  return h.get('x-gateway-request-id') ?? h.get('request-id') ?? h.get('x-request-id');
}

export interface SseEnd {
  /** the stream ended with the dialect's terminal success event */
  clean: boolean;
  /** the stream carried the dialect's in-stream error */
  failed: boolean;
  /** the in-stream error's type or code */
  errorCode: string | undefined;
}

/** How a streamed answer ended, by the dialect's own frames. */
export function sseEnd(endpoint: EndpointKind, text: string): SseEnd {
  let clean = false;
  let failed = false;
  let errorCode: string | undefined;
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length === 0) continue;
    const raw = data.join('\n');
    if (raw === '[DONE]') continue;
    let d: Record<string, unknown>;
    try {
      d = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      continue;
    }
    const err = d.error as { type?: string; code?: string } | null | undefined;
    const response = d.response as { error?: { code?: string } | null; status?: string } | undefined;
    if (endpoint === 'messages') {
      if (event === 'message_stop' || d.type === 'message_stop') clean = true;
      if (event === 'error' || d.type === 'error') {
        failed = true;
        errorCode = err?.type;
      }
    } else if (endpoint === 'chat') {
      const choice = Array.isArray(d.choices) ? (d.choices[0] as { finish_reason?: string | null } | undefined) : undefined;
      if (err) {
        failed = true;
        errorCode = err.code ?? err.type;
      } else if (choice?.finish_reason) clean = true;
    } else {
      const type = (d.type as string | undefined) ?? event;
      if (type === 'response.completed') clean = true;
      if (type === 'response.failed' || type === 'error') {
        failed = true;
        errorCode = response?.error?.code ?? (d.code as string | undefined) ?? err?.code;
      }
    }
  }
  return { clean: clean && !failed, failed, errorCode };
}
