/**
 * What a decider answers for a command, in one shape for every entity: the
 * events its actor is sent, in order, or a refusal named by its catalog code
 * with the arguments the catalog words it from. `decide(command, state) →
 * events` as the Decider pattern has it; the machine beside it is `evolve`.
 *
 * A decider is pure and imports nothing from the service: it names a refusal
 * and the command handler (`src/engine/handle-command.ts`) turns the name
 * into the catalog's refusal (`src/domain/refusals.ts`). Ids, instants and
 * the verdicts of ports (the Gate's mechanics and merits, the Signer
 * registry) arrive in the command. So the same functions answer "what would
 * each command do now" for a reader that never runs one.
 */

/** A refusal by name: the catalog's code, the arguments its wording takes, and the fields a caller can act on. */
export interface Refusing<C extends string = string> {
  code: C;
  args: object;
  extra?: Record<string, unknown>;
}

export type Decision<E, C extends string = string> = { send: E[] } | { refuse: Refusing<C> };

/** What a decider reads of an entity: its id and the state its journal holds (a live entity or a stored one). */
export interface Subject<S> {
  readonly id: string;
  snapshot(): S;
}

export const sends = <E>(...events: E[]): { send: E[] } => ({ send: events });

export const refuses = <C extends string>(code: C, args: object = {}, extra?: Record<string, unknown>): { refuse: Refusing<C> } => ({ refuse: extra ? { code, args, extra } : { code, args } });
