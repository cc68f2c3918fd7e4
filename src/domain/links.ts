/**
 * Where an entity's doors are: every door of a record is mounted under the
 * grain it lives in (the top level, or `/workspaces/{id}`, `/tenants/{id}`,
 * `/firms/{id}`), so a link is the grain's mount and the door's path. The
 * grain's kind is read off its id's prefix, as `src/engine/grains.ts` reads
 * it (`test/inspection.test.ts` holds the two equal).
 */

/** The mount of each sandbox grain's doors, by its id's prefix (`ws_…` → `/workspaces`). */
export const GRAIN_MOUNTS: Readonly<Record<string, string>> = { ws: '/workspaces', tn: '/tenants', fm: '/firms' };

/** The path the doors of records in `grain` are mounted under: `''` at the top level, `/workspaces/ws_…` in a workspace. */
export function grainBase(grain: string): string {
  const mount = GRAIN_MOUNTS[grain.slice(0, grain.indexOf('_'))];
  return mount ? `${mount}/${encodeURIComponent(grain)}` : '';
}

/** A Matter's links, as its JSON carries them: the inspector page and the inspection it draws. */
export function matterLinks(matterId: string, grain: string) {
  const self = `${grainBase(grain)}/matters/${encodeURIComponent(matterId)}`;
  return { inspect: `${self}/inspect`, inspection: `${self}/inspection` };
}
