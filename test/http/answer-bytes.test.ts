/**
 * A resident Matter's answer bytes, kept per version (issue 37, item 3;
 * `src/http/answer-bytes.ts`): what a kept answer sends is byte for byte
 * what a fresh build would (over random advances, ladder ticks and
 * documents, at the top level and in a workspace and a Tenant); a Matter's
 * commit keeps the answer it built, a ladder's tick makes the read build it;
 * a read right after a write answers the write; a
 * Matter passivated by the supervisor's resident cap forgets its bytes; and
 * no other grain or caller is ever sent them.
 *
 * A fresh build is asked for by making `sendKept` find nothing and `keep`
 * keep nothing for one request (spies on the class, restored after it), so
 * what was kept before stays kept and is compared, not replaced.
 */
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { sha256Hex } from '../../src/domain/hash.ts';
import { KeptAnswers } from '../../src/http/answer-bytes.ts';
import { etagOf } from '../../src/http/etag.ts';
import { call, issueKey, testApp, workspace, type IssuedKey, type TestApp } from '../helpers/app.ts';

/** A read as the door answers it now: kept bytes when their key holds. */
const read = (app: TestApp, url: string, headers: Record<string, string> = {}) => call(app, 'GET', url, undefined, headers);

/** The same read built afresh, nothing kept or taken from what is kept. */
async function fresh(app: TestApp, url: string, headers: Record<string, string> = {}) {
  const sent = vi.spyOn(KeptAnswers.prototype, 'sendKept').mockReturnValue(false);
  const kept = vi.spyOn(KeptAnswers.prototype, 'keep').mockImplementation(() => undefined);
  try {
    return await read(app, url, headers);
  } finally {
    sent.mockRestore();
    kept.mockRestore();
  }
}

/** How many answers were built to be kept while `work` ran: 0 means every read in it was sent kept bytes. */
async function builds(work: () => Promise<unknown>): Promise<number> {
  const keep = vi.spyOn(KeptAnswers.prototype, 'keep');
  try {
    await work();
    return keep.mock.calls.length;
  } finally {
    keep.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe('kept answer bytes of a resident Matter', () => {
  let app: TestApp;
  let key: IssuedKey;
  let ws: string;
  let tenant: string;
  beforeAll(async () => {
    app = await testApp({ creationBound: { limit: 1_000_000 } });
    key = await issueKey(app, 'kept@legalwork.test');
    ws = await workspace(app);
    tenant = `/tenants/${(await call(app, 'POST', '/tenants')).body.tenant.id}`;
    expect((await call(app, 'PUT', `${tenant}/offers`, [{ id: 'of_prov', title: 'Provisional filing', priceUsd: 199, matterType: 'patent_provisional' }])).status).toBe(200);
  });
  afterAll(async () => app?.close());

  /** The three forms a Matter is read by: its grain's prefix, and the headers a write there needs. */
  const forms = () => [
    { name: 'top level', prefix: '', headers: key.headers, mint: { matterType: 'patent_provisional' } },
    { name: 'workspace', prefix: ws, headers: {}, mint: { matterType: 'patent_provisional' } },
    { name: 'tenant', prefix: tenant, headers: {}, mint: { offer: 'of_prov' } },
  ];

  type Op = { kind: 'advance' | 'tick' | 'document' | 'read'; form: number; pick: number; days: number };
  const op: fc.Arbitrary<Op> = fc.record({ kind: fc.constantFrom('advance', 'tick', 'document', 'read'), form: fc.nat(2), pick: fc.nat(5), days: fc.integer({ min: 1, max: 40 }) });

  it('sends, after any sequence of advances, ticks and documents in any grain form, the very bytes and tag a fresh build would', async () => {
    let hits = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const pools = forms().map(() => [] as Array<{ url: string; assetId: string }>);
        for (const [f, form] of forms().entries()) {
          for (let i = 0; i < 2; i++) {
            const made = await call(app, 'POST', `${form.prefix}/matters`, form.mint, form.headers);
            expect(made.status, made.raw).toBe(201);
            pools[f].push({ url: `${form.prefix}/matters/${made.body.matter.id}`, assetId: made.body.asset.id });
          }
        }
        for (const o of ops) {
          const form = forms()[o.form];
          const target = pools[o.form][o.pick % pools[o.form].length];
          const res =
            o.kind === 'advance' ? await call(app, 'POST', `${target.url}/advance`, undefined, form.headers)
            : o.kind === 'tick' ? await call(app, 'POST', `${form.prefix}/deadlines/${target.assetId}/tick`, { days: o.days }, form.headers)
            : o.kind === 'document' ? await call(app, 'POST', `${target.url}/documents`, { name: 'spec.pdf', kind: 'specification', sha256: sha256Hex(`${target.url} ${o.days}`) }, form.headers)
            : await read(app, target.url);
          // A refusal (an advance past review, a tick past the deadline) changes nothing, and is a step like any other.
          expect(res.status, res.raw).toBeLessThan(500);
          // Every Matter of every form, as sent now (kept or built), beside a fresh build: most were kept steps ago.
          for (const { url } of pools.flat()) {
            const sent = await read(app, url);
            const built = await fresh(app, url);
            expect(sent.status, url).toBe(200);
            expect(sent.raw, url).toBe(built.raw);
            expect(sent.headers.etag, url).toBe(built.headers.etag);
            expect(sent.headers.etag, url).toBe(etagOf(built.raw, `"${built.body.matter.version}"`));
            expect(sent.headers['content-type'], url).toBe(built.headers['content-type']);
            expect(sent.headers['content-length'], url).toBe(built.headers['content-length']);
          }
          hits += 6 - (await builds(async () => { for (const { url } of pools.flat()) await read(app, url); }));
        }
      }),
      { numRuns: 12 },
    );
    // The property is about kept bytes: they were sent, not built each time.
    expect(hits).toBeGreaterThan(0);
  });

  it('answers each kind of change at once (an advance, a ladder tick, a document on the Asset\'s docket): a Matter\'s commit keeps the answer it built, a tick is built again', async () => {
    const made = (await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional' })).body;
    const url = `${ws}/matters/${made.matter.id}`;
    const first = await read(app, url);
    expect(await builds(() => read(app, url))).toBe(0);

    // An advance: the Matter's version moves. Its commit composed the answer for the Matter's row, and kept its bytes
    // for the read that follows (in the Matter's mailbox, behind the advance: settled here, as a read a moment later finds it).
    expect((await call(app, 'POST', `${url}/advance`)).status).toBe(200);
    await app.services.supervisor.afterCommitsSettled();
    let after!: Awaited<ReturnType<typeof read>>;
    expect(await builds(async () => (after = await read(app, url, { 'if-none-match': first.headers.etag as string })))).toBe(0);
    expect(after.status).toBe(200);
    expect(after.body.matter).toMatchObject({ stage: 'prepare', version: first.body.matter.version + 1 });
    expect(after.raw).toBe((await fresh(app, url)).raw);

    // A tick: only the ladder's version moves, the Matter's stays; nothing of the Matter committed, so its read builds.
    expect((await call(app, 'POST', `${ws}/deadlines/${made.asset.id}/tick`, { days: 3 })).status).toBe(200);
    await app.services.supervisor.afterCommitsSettled();
    let ticked!: Awaited<ReturnType<typeof read>>;
    expect(await builds(async () => (ticked = await read(app, url, { 'if-none-match': after.headers.etag as string })))).toBe(1);
    expect(ticked.status).toBe(200);
    expect(ticked.body.matter.version).toBe(after.body.matter.version);
    expect(ticked.body.asset.deadlineLadder.daysUntilDeadline).toBe(after.body.asset.deadlineLadder.daysUntilDeadline - 3);
    expect(ticked.headers.etag).not.toBe(after.headers.etag);

    // A document: on the Matter's stream, and on its Asset's docket.
    expect((await call(app, 'POST', `${url}/documents`, { name: 'spec.pdf', kind: 'specification', sha256: sha256Hex('kept') })).status).toBe(201);
    await app.services.supervisor.afterCommitsSettled();
    let documented!: Awaited<ReturnType<typeof read>>;
    expect(await builds(async () => (documented = await read(app, url)))).toBe(0);
    expect(documented.raw).toBe((await fresh(app, url)).raw);
    expect(documented.body.asset.docket.at(-1).kind).toBe('document.recorded');
    expect(documented.body.journal.at(-1).kind).toBe('document.recorded');

    // Unchanged since: kept, and a matching If-None-Match is 304 from the kept tag.
    let unchanged!: Awaited<ReturnType<typeof read>>;
    expect(await builds(async () => (unchanged = await read(app, url, { 'if-none-match': documented.headers.etag as string })))).toBe(0);
    expect(unchanged.status).toBe(304);
    expect(unchanged.raw).toBe('');
    expect(unchanged.headers.etag).toBe(documented.headers.etag);
    expect(unchanged.headers['content-type']).toBeUndefined();
    // HEAD is answered from the same bytes: their length, no body.
    const head = await app.inject({ method: 'HEAD', url });
    expect(head.statusCode).toBe(200);
    expect(head.headers.etag).toBe(documented.headers.etag);
    expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(documented.raw));
    expect(head.body).toBe('');
  });

  it('keeps the bytes of a polling client\'s first conditional read too (taken before the 304 drops them)', async () => {
    const made = (await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional' })).body;
    const url = `${ws}/matters/${made.matter.id}`;
    // A tick moves the ladder, so what the Matter's opening kept no longer answers.
    expect((await call(app, 'POST', `${ws}/deadlines/${made.asset.id}/tick`, { days: 1 })).status).toBe(200);
    await app.services.supervisor.afterCommitsSettled();
    const tag = (await fresh(app, url)).headers.etag as string;
    // Nothing kept for this answer: this read builds, answers 304, and keeps; the next is sent from what it kept.
    expect(await builds(async () => expect((await read(app, url, { 'if-none-match': tag })).status).toBe(304))).toBe(1);
    expect(await builds(async () => expect((await read(app, url, { 'if-none-match': tag })).status).toBe(304))).toBe(0);
  });

  it('never sends a Matter\'s kept bytes through another grain, and sends every caller that reaches it the same bytes', async () => {
    const other = await workspace(app);
    const inWs = (await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional' })).body.matter.id;
    const top = (await call(app, 'POST', '/matters', { matterType: 'patent_provisional' }, key.headers)).body.matter.id;
    const inTenant = (await call(app, 'POST', `${tenant}/matters`, { offer: 'of_prov' })).body.matter.id;
    for (const url of [`${ws}/matters/${inWs}`, `/matters/${top}`, `${tenant}/matters/${inTenant}`]) {
      await read(app, url);
      expect(await builds(() => read(app, url))).toBe(0);
    }
    // Kept in their own grains; asked through any other, each is not found.
    for (const url of [`${other}/matters/${inWs}`, `/matters/${inWs}`, `${tenant}/matters/${inWs}`, `${ws}/matters/${top}`, `${tenant}/matters/${top}`, `/matters/${inTenant}`, `${ws}/matters/${inTenant}`]) {
      const res = await read(app, url);
      expect(res.status, url).toBe(404);
      expect(res.raw, url).not.toContain('"journal"');
    }
    // The sandbox stamp names the grain asked from.
    expect((await read(app, `${ws}/matters/${inWs}`)).body.provenance).toMatchObject({ workspace: ws.split('/')[2] });
    expect((await read(app, `${tenant}/matters/${inTenant}`)).body.provenance).toMatchObject({ tenant: tenant.split('/')[2] });
    expect((await read(app, `/matters/${top}`)).body.provenance).toBeUndefined();
    // At the top level a read by id answers any caller, keyed or not, with the same bytes (the id is the capability).
    const keyless = await read(app, `/matters/${top}`);
    const stranger = await read(app, `/matters/${top}`, (await issueKey(app, 'stranger@legalwork.test')).headers);
    const owner = await read(app, `/matters/${top}`, key.headers);
    expect(stranger.raw).toBe(keyless.raw);
    expect(owner.raw).toBe(keyless.raw);
    expect(keyless.raw).toBe((await fresh(app, `/matters/${top}`)).raw);
  });
});

describe('bounded by the resident cap', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await testApp({ residentActors: 4 });
  });
  afterAll(async () => app?.close());

  it('forgets the bytes of a Matter the supervisor passivated, and keeps the recently read', async () => {
    const ws = await workspace(app);
    const urls: string[] = [];
    for (let i = 0; i < 6; i++) urls.push(`${ws}/matters/${(await call(app, 'POST', `${ws}/matters`, { matterType: 'patent_provisional' })).body.matter.id}`);
    const first = await read(app, urls[0]);
    expect(await builds(() => read(app, urls[0]))).toBe(0);
    // Five other Matters read (each made resident, with its answer kept): more than the cap holds, so the first is passivated.
    for (const url of urls.slice(1)) await read(app, url);
    expect(await builds(() => read(app, urls.at(-1)!))).toBe(0);
    // Passivated, it is answered from its row in the journal (`stored-answers.ts`), nothing held for it in memory.
    const id = urls[0].split('/').at(-1)!;
    const stored = await read(app, urls[0]);
    expect(app.services.supervisor.isResident(id)).toBe(false);
    expect(stored.raw).toBe(first.raw);
    // Loaded again, its bytes are built anew: those its earlier actor kept went with it.
    await call(app, 'GET', `${urls[0]}/journal`);
    let again!: Awaited<ReturnType<typeof read>>;
    expect(await builds(async () => (again = await read(app, urls[0])))).toBe(1);
    // Rebuilt from the journal: the same bytes.
    expect(again.raw).toBe(first.raw);
    expect(again.headers.etag).toBe(first.headers.etag);
  });
});
