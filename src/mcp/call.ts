/**
 * The service calls of one tool: the answer becomes the tool's result, and an
 * unreachable service becomes an error result, never a thrown protocol error.
 * Each call is logged on stderr under the tool's name (stdout is the
 * protocol's).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ServiceUnreachable, type RequestOptions, type ServiceAnswer, type ServiceClient } from '../client/service-client.ts';
import { fromAnswer, fromUnreachable } from './tool-result.ts';

export type Log = (line: string) => void;

export interface Caller {
  /** Calls the service and returns the answer as a tool result. */
  call(method: string, path: string, options?: RequestOptions): Promise<CallToolResult>;
  /** Calls the service and returns the raw answer (for tools that need a read before their write). */
  fetch(method: string, path: string, options?: RequestOptions): Promise<ServiceAnswer | CallToolResult>;
}

export function caller(client: ServiceClient, log: Log, tool: string): Caller {
  const fetchAnswer = async (method: string, path: string, options?: RequestOptions): Promise<ServiceAnswer | CallToolResult> => {
    try {
      const answer = await client.request(method, path, options);
      log(`${tool}: ${method} ${path} -> ${answer.status}`);
      return answer;
    } catch (error) {
      if (!(error instanceof ServiceUnreachable)) throw error;
      log(`${tool}: ${method} ${path} -> unreachable (${error.reason})`);
      return fromUnreachable(error);
    }
  };
  return {
    fetch: fetchAnswer,
    async call(method, path, options) {
      const answer = await fetchAnswer(method, path, options);
      return isToolResult(answer) ? answer : fromAnswer(answer);
    },
  };
}

export function isToolResult(value: ServiceAnswer | CallToolResult): value is CallToolResult {
  return 'content' in value;
}
