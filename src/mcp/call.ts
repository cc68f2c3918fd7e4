/**
 * The service calls of one tool: the answer becomes the tool's result, and an
 * unreachable service becomes an error result, never a thrown protocol error.
 * Each call is logged on stderr under the tool's name (stdout is the
 * protocol's).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ServiceUnreachable, type MethodOf, type PathTo, type RequestOptions, type Route, type RouteAnswer, type RouteRequestOptions, type ServiceAnswer, type ServiceClient } from '../client/service-client.ts';
import { fromAnswer, fromUnreachable } from './tool-result.ts';

export type Log = (line: string) => void;

/** Each call may name its route and method, as `ServiceClient.request` takes them, to be typed from the contract. */
export interface Caller {
  /** Calls the service and returns the answer as a tool result. */
  call<R extends Route, M extends MethodOf<R>>(method: Uppercase<M>, path: PathTo<R>, options?: RouteRequestOptions<R, M>): Promise<CallToolResult>;
  call(method: string, path: string, options?: RequestOptions): Promise<CallToolResult>;
  /** Calls the service and returns the raw answer (for tools that need a read before their write). */
  fetch<R extends Route, M extends MethodOf<R>>(method: Uppercase<M>, path: PathTo<R>, options?: RouteRequestOptions<R, M>): Promise<RouteAnswer<R, M> | CallToolResult>;
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
  // The route-typed signatures only name types: each runs as the untyped one.
  return {
    fetch: fetchAnswer as Caller['fetch'],
    async call(method: string, path: string, options?: RequestOptions) {
      const answer = await fetchAnswer(method, path, options);
      return isToolResult(answer) ? answer : fromAnswer(answer);
    },
  };
}

export function isToolResult(value: ServiceAnswer | CallToolResult): value is CallToolResult {
  return 'content' in value;
}
