/**
 * The answers the pages read, typed by the contract the service serves
 * (`src/client/contract.gen.ts`, generated from `/openapi.json` and held
 * equal to it by test/contract-types.test.ts): a page reads a field the
 * contract does not declare only past the compiler. Types only: nothing of
 * it reaches a bundle.
 */
import type { components, operations } from '../../client/contract.gen.ts';

type Schemas = components['schemas'];

/** The JSON a door answers with `status`, as the contract declares it. */
export type JsonOf<Op extends keyof operations, Status extends keyof operations[Op]['responses']> = operations[Op]['responses'][Status] extends { content: { 'application/json': infer Body } } ? Body : never;

export type Inspection = Schemas['Inspection'];
export type InspectionStep = Schemas['InspectionStep'];
export type Population = Schemas['Population'];
export type PopulationState = Schemas['PopulationState'];
/** A population door's answer: the population, or a typed EMPTY when the grain holds none. */
export type PopulationAnswer = JsonOf<'get_workspaces_workspaceId_inspection_matters', 200>;
/** A page of one state's records. */
export type MembersAnswer = JsonOf<'get_workspaces_workspaceId_inspection_matters_states_state', 200>;
export type Matter = Schemas['Matter'];
