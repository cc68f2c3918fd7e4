/**
 * What the event stream's wire promises a client: the event name of each
 * journal event and the keep-alive comment and interval. Import-free, so the CLI's
 * follower takes them without pulling the service into its build.
 */

/** The SSE event name the service gives each journal event. */
export const SSE_EVENT_NAME = 'grain-event';
/** The keep-alive comment line the service writes on every stream, and names in the subscription contract. */
export const KEEP_ALIVE_COMMENT = ': keep-alive';
/** How often, by default, the service writes a keep-alive comment on every stream (ms). */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;
