/**
 * One service call made on behalf of a tool: the answer becomes the tool's
 * result, and an unreachable service becomes an error result, never a thrown
 * protocol error. Each call is logged on stderr (stdout is the protocol's).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ServiceUnreachable, type RequestOptions, type ServiceAnswer, type ServiceClient } from '../cli/service-client.ts';
import { fromAnswer, fromUnreachable } from './tool-result.ts';

export type Log = (line: string) => void;

export interface Caller {
  /** Calls the service and returns the answer as a tool result. */
  call(tool: string, method: string, path: string, options?: RequestOptions): Promise<CallToolResult>;
  /** Calls the service and returns the raw answer (for tools that need a read before their write). */
  fetch(tool: string, method: string, path: string, options?: RequestOptions): Promise<ServiceAnswer | CallToolResult>;
}

export function caller(client: ServiceClient, log: Log): Caller {
  const fetchAnswer = async (tool: string, method: string, path: string, options?: RequestOptions): Promise<ServiceAnswer | CallToolResult> => {
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
    async call(tool, method, path, options) {
      const answer = await fetchAnswer(tool, method, path, options);
      return isToolResult(answer) ? answer : fromAnswer(answer);
    },
  };
}

export function isToolResult(value: ServiceAnswer | CallToolResult): value is CallToolResult {
  return 'content' in value;
}
