/**
 * How an answer of the service becomes an MCP tool result. Every result
 * carries `structuredContent` and the same JSON as text. A refusal (4xx) or a
 * failure (5xx) of the service, and a service that cannot be reached, are tool
 * results with `isError: true` and the worded reason: never protocol errors,
 * so the agent reads them and can act on them.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ServiceAnswer, ServiceUnreachable } from '../client/service-client.ts';

export function fromAnswer(answer: ServiceAnswer): CallToolResult {
  const body = answer.body;
  const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
  let structured: Record<string, unknown>;
  if (answer.ok) {
    // A JSON object is passed through as it is; any other answer (text, an array) is wrapped.
    structured = isObject ? (body as Record<string, unknown>) : { httpStatus: answer.status, contentType: answer.contentType, body };
  } else {
    structured = isObject ? { httpStatus: answer.status, ...(body as Record<string, unknown>) } : { httpStatus: answer.status, error: typeof body === 'string' && body ? body : `the service answered ${answer.status} without a worded reason`, body };
  }
  return result(structured, !answer.ok);
}

/** A service that does not answer: an error result like any refusal, with its fix. */
export function fromUnreachable(error: ServiceUnreachable): CallToolResult {
  return result(error.toBody(), true);
}

/** A refusal worded by this server (before any request), in the same shape as the service's. */
export function refusal(code: string, error: string, extra: Record<string, unknown> = {}): CallToolResult {
  return result({ error, code, ...extra }, true);
}

function result(structured: Record<string, unknown>, isError: boolean): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
    ...(isError ? { isError: true } : {}),
  };
}
