/**
 * Identifiers as people write them, over real HTTP: the capability doors read
 * patent numbers, trademark serials and states in every accepted form (path
 * parameters and body fields), answer with the canonical form, and refuse a
 * value they cannot read with 422 IDENTIFIER_UNRECOGNIZED listing the forms,
 * writing nothing. And the capability doors' examples: every parameter, body
 * property and success answer carries one, each answer's validates against
 * its schema, and each identifier field's examples match its pattern.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATENTS } from '../src/domain/capabilities/dataset.ts';
import { IDENTIFIERS } from '../src/domain/identifiers.ts';
import { sha256Hex as sha } from '../src/domain/hash.ts';
import { call, testApp, topLevelHeaders, topLevelKey, workspace, type TestApp } from './helpers/app.ts';

let app: TestApp;
let auth: Record<string, string>;
beforeAll(async () => {
  app = await testApp();
  auth = await topLevelHeaders(app);
});
afterAll(async () => app.close());

const get = (path: string) => call(app, 'GET', path);
const HASH = sha('an instrument');
const IDENTIFIER_REFUSAL = { code: 'IDENTIFIER_UNRECOGNIZED', rule: 'identifier', accepted: expect.arrayContaining([expect.any(String)]), fix: expect.any(String) };

describe('patent numbers in the path', () => {
  it.each(['US10000202B2', 'US10000202', '10000202', 'US 10,000,202 B2', 'us10000202b2', 'US-10000202-B2', '10.000.202', 'us 10000202'])('GET /patent/%s/status reaches US10000202B2 and echoes it', async (form) => {
    const res = await get(`/patent/${encodeURIComponent(form)}/status`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ type: 'OK', number: 'US10000202B2', status: { current: 'active' } });
  });

  it('every read of a patent takes the human forms', async () => {
    for (const suffix of ['', '/family', '/assignment', '/citations', '/ptab', '/maintenance']) {
      const res = await get(`/patent/${encodeURIComponent('US 10,000,202')}${suffix}`);
      expect(res.status, suffix).toBe(200);
      expect(res.body.number ?? res.body.patent.number, suffix).toBe('US10000202B2');
    }
  });

  it('a well-formed number not in the data set is a typed EMPTY 404 naming its canonical form, not a 422', async () => {
    for (const form of ['US10000001', '10,000,001', 'us 10000001 b2']) {
      const res = await get(`/patent/${encodeURIComponent(form)}/status`);
      expect(res.status, form).toBe(404);
      expect(res.body).toMatchObject({ type: 'EMPTY', code: 'PATENT_NOT_FOUND', results: [] });
      expect(res.body.error).toMatch(/^patent US10000001(B2)? is not in the data set/);
    }
    // The right number with the wrong kind code is not that patent.
    expect((await get('/patent/US10000202B1')).status).toBe(404);
  });

  it.each(['not-a-number', 'US1234', 'US10000202B2B2', 'USA 10000202'])('GET /patent/%s is 422 IDENTIFIER_UNRECOGNIZED naming the field and the accepted forms', async (form) => {
    const res = await get(`/patent/${encodeURIComponent(form)}`);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ ...IDENTIFIER_REFUSAL, field: 'params.number', accepted: [...IDENTIFIERS.patent.forms] });
    expect(res.body.error).toContain(JSON.stringify(form));
    expect(res.body.fix).toContain('US10000202B2');
  });

  it('any human rendering of any patent of the data set reaches it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...PATENTS), fc.boolean(), fc.boolean(), fc.constantFrom('', ' ', ',', '.'), fc.boolean(), async (p, country, kind, group, lower) => {
        const digits = p.number.slice(2).replace(/[A-Z][0-9]?$/, '');
        let form = `${country ? 'US ' : ''}${digits.replace(/\B(?=(\d{3})+(?!\d))/g, group)}${kind ? ` ${p.number.slice(2 + digits.length)}` : ''}`;
        if (lower) form = form.toLowerCase();
        const res = await get(`/patent/${encodeURIComponent(form)}`);
        expect(res.status, form).toBe(200);
        expect(res.body.patent.number, form).toBe(p.number);
      }),
      { numRuns: 30 },
    );
  });
});

describe('trademark serials and states in the path', () => {
  it.each(['97000202', '97-000202', '97 000 202', '97,000,202'])('GET /trademark/%s/status echoes 97000202', async (form) => {
    const res = await get(`/trademark/${encodeURIComponent(form)}/status`);
    expect(res.status).toBe(200);
    expect(res.body.trademark).toMatchObject({ serial: '97000202', mark: 'GREENROW LISTEN' });
  });

  it('a serial that is not 8 digits is 422 with the accepted forms; 8 digits not in the data set a 404', async () => {
    const res = await get('/trademark/97-0002/status');
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ ...IDENTIFIER_REFUSAL, field: 'params.serial', accepted: [...IDENTIFIERS.trademark.forms] });
    expect((await get('/trademark/12-345678/status')).body).toMatchObject({ type: 'EMPTY', code: 'TRADEMARK_NOT_FOUND', error: expect.stringContaining('trademark serial 12345678') });
  });

  it.each(['DE', 'de', 'De', 'dE', 'Delaware', 'DELAWARE', 'delaware'])('state %s reaches the Delaware records and echoes DE', async (state) => {
    const standing = await get(`/entity/${encodeURIComponent(state)}/7000202/standing`);
    expect(standing.status).toBe(200);
    expect(standing.body.entity).toMatchObject({ state: 'DE', id: '7000202' });
    const ucc = await get(`/lien/ucc/${encodeURIComponent(state)}/20230001010`);
    expect(ucc.status).toBe(200);
    expect(ucc.body.filing).toMatchObject({ state: 'DE', number: '20230001010' });
  });

  it('a state that is none is 422 with the accepted forms; a real state without the record a 404 naming its code', async () => {
    for (const path of ['/entity/ZZ/7000202/standing', '/lien/ucc/Atlantis/20230001010']) {
      const res = await get(path);
      expect(res.status, path).toBe(422);
      expect(res.body).toMatchObject({ ...IDENTIFIER_REFUSAL, field: 'params.state', accepted: [...IDENTIFIERS.state.forms] });
    }
    expect((await get('/entity/california/7000202/standing')).body).toMatchObject({ code: 'ENTITY_NOT_FOUND', error: expect.stringContaining('entity 7000202 in CA') });
    expect((await get('/entity/ca/202400101/standing')).status).toBe(200);
  });
});

describe('identifiers in bodies', () => {
  it('pay-maintenance takes a human patent number and answers the canonical one; an unreadable one is refused, writing nothing', async () => {
    const ws = await workspace(app);
    const paid = await call(app, 'POST', `${ws}/patent/pay-maintenance`, { patentNumber: 'us 10,000,404', window: '3.5' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    expect(paid.body.receipt).toMatchObject({ patentNumber: 'US10000404B2', window: '3.5' });
    // The same patent written another way is the same window, already paid.
    expect((await call(app, 'POST', `${ws}/patent/pay-maintenance`, { patentNumber: 'US10000404B2', window: '3.5' })).body.code).toBe('MAINTENANCE_ALREADY_PAID');
    const { grain } = await topLevelKey(app);
    const before = await app.services.journal.latestSeq(grain);
    const refused = await call(app, 'POST', '/patent/pay-maintenance', { patentNumber: 'US 1234', window: '3.5' }, auth);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ ...IDENTIFIER_REFUSAL, field: 'body.patentNumber' });
    expect(await app.services.journal.latestSeq(grain)).toBe(before);
  });

  it('the trademark draft reads its serial in any separated form and drafts under the canonical serial', async () => {
    const res = await call(app, 'POST', '/trademark/oa-response-draft', { serial: '97 000 202', refusals: [{ basis: '2(d)' }] }, auth);
    expect(res.status).toBe(201);
    expect(res.body.artifact.title).toBe('Trademark office-action response draft: 97000202');
    expect(res.body.artifact.content).toContain('serial 97000202 (GREENROW LISTEN, Greenrow Devices LLC)');
    const refused = await call(app, 'POST', '/trademark/oa-response-draft', { serial: '97-0002', refusals: [{ basis: '2(d)' }] }, auth);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ ...IDENTIFIER_REFUSAL, field: 'body.serial' });
  });

  it('an information disclosure statement matches a us_patent citation written in any form, keeping the citation as written', async () => {
    const res = await call(app, 'POST', '/patent/ids', { applicationNumber: '17/000,001', references: [{ citation: 'us 10,000,101', kind: 'us_patent' }, { citation: 'US 10,000,101 B1', kind: 'us_patent' }] }, auth);
    expect(res.status).toBe(201);
    expect(res.body.artifact.content).toContain('| 1 | us patent | us 10,000,101 | 2018-10-02 | Self-folding paper map with memory creases (Cartofold Synthetic Inc.) |');
    // Another kind code is another document: not matched.
    expect(res.body.artifact.content).toContain('| 2 | us patent | US 10,000,101 B1 |  |  |');
  });

  it('reserved acts read their patent number or serial before posting anything', async () => {
    const ws = await workspace(app);
    const assignment = { assignor: 'Cartofold Synthetic Inc.', assignee: 'Ada', instrumentSha256: HASH };
    expect((await call(app, 'POST', `${ws}/patent/record-assignment`, { ...assignment, patentNumber: 'US 10,000,202 B2' })).status).toBe(202);
    expect((await call(app, 'POST', `${ws}/trademark/file-oa-response`, { serial: '97-000202', responseSha256: HASH })).status).toBe(202);
    const grain = ws.split('/')[2];
    const before = await app.services.journal.latestSeq(grain);
    const badPatent = await call(app, 'POST', `${ws}/patent/record-assignment`, { ...assignment, patentNumber: '12' });
    expect(badPatent.status).toBe(422);
    expect(badPatent.body).toMatchObject({ ...IDENTIFIER_REFUSAL, field: 'body.patentNumber' });
    const badSerial = await call(app, 'POST', `${ws}/trademark/file-oa-response`, { serial: '9700', responseSha256: HASH });
    expect(badSerial.status).toBe(422);
    expect(badSerial.body).toMatchObject({ ...IDENTIFIER_REFUSAL, field: 'body.serial' });
    expect(await app.services.journal.latestSeq(grain)).toBe(before);
  });
});

describe('the capability doors in the contract', () => {
  let doc: any;
  beforeAll(async () => {
    doc = (await get('/openapi.json')).body;
  });
  const capabilityOps = () =>
    Object.entries<Record<string, any>>(doc.paths)
      .filter(([path]) => !path.startsWith('/workspaces/') && !path.startsWith('/tenants/') && !path.startsWith('/firms/'))
      .flatMap(([path, ops]) => Object.entries<any>(ops).filter(([, op]) => op.tags?.includes('capabilities')).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op })));

  /** The properties of `schema` (recursively, through arrays) that carry no example. */
  function unexampled(schema: any, at: string): string[] {
    const own = Array.isArray(schema.examples) && schema.examples.length ? [] : [at];
    const props = Object.entries<any>(schema.properties ?? {}).flatMap(([name, member]) => unexampled(member, `${at}.${name}`));
    const items = schema.items ? unexampled(schema.items, `${at}[]`).filter((p) => p !== `${at}[]`) : [];
    return [...own, ...props, ...items];
  }

  it('every parameter, body property and success answer carries an example', () => {
    const ops = capabilityOps();
    expect(ops.length).toBe(31);
    const missing: string[] = [];
    for (const { where, op } of ops) {
      for (const p of op.parameters ?? []) if (p.in !== 'header' && !p.schema?.examples?.length && p.example === undefined && !Object.keys(p.examples ?? {}).length) missing.push(`${where} ${p.in} ${p.name}`);
      const body = op.requestBody?.content?.['application/json'];
      if (body) {
        if (body.example === undefined) missing.push(`${where} body`);
        missing.push(...unexampled({ ...body.schema, examples: [body.example] }, `${where} body`));
      }
      for (const [status, answer] of Object.entries<any>(op.responses)) {
        if (status.startsWith('2') && answer.content?.['application/json']?.example === undefined) missing.push(`${where} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every success answer\'s example is valid under its schema, and every identifier example matches its pattern', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema(doc, 'openapi');
    for (const { where, op } of capabilityOps()) {
      for (const [status, answer] of Object.entries<any>(op.responses)) {
        const media = answer.content?.['application/json'];
        if (!status.startsWith('2') || !media) continue;
        const validate = ajv.compile({ $ref: `openapi#/paths/${encodeURIComponent(where.split(' ')[1].replace(/~/g, '~0').replace(/\//g, '~1'))}/${where.split(' ')[0].toLowerCase()}/responses/${status}/content/application~1json/schema` });
        expect(validate(media.example) ? [] : validate.errors, `${where} ${status}`).toEqual([]);
      }
      for (const p of op.parameters ?? []) {
        if (!p.schema?.pattern) continue;
        const examples = [p.example, ...(p.schema.examples ?? []), ...Object.values<any>(p.examples ?? {}).map((e) => e.value)].filter((e) => e !== undefined);
        expect(examples.length, `${where} ${p.name}`).toBeGreaterThan(0);
        for (const example of examples) expect(example, `${where} ${p.name}`).toMatch(new RegExp(p.schema.pattern));
      }
    }
  });

  it('the entity name rule is in the schema, beside a valid example; an LLC name may end in LLC, L.L.C. or Limited Liability Company', async () => {
    for (const path of ['/entity/de/formation-docs', '/entity/de/form']) {
      const schema = doc.paths[path].post.requestBody.content['application/json'].schema.properties.entityName;
      expect(schema.description).toMatch(/"LLC", "L\.L\.C\.", "Limited Liability Company"/);
      expect(schema.description).toContain('ENTITY_NAME_SUFFIX');
      expect(schema.examples[0]).toMatch(/LLC$/);
    }
    const body = (entityName: string) => ({ entityName, entityType: 'llc', registeredAgent: { name: 'Agent', address: '1 Main St, Dover, DE' }, organizer: { name: 'Ada' } });
    for (const name of ['Cartofold Maps LLC', 'Cartofold Maps L.L.C.', 'Cartofold Maps Limited Liability Company', 'Cartofold Maps llc']) {
      expect((await call(app, 'POST', '/entity/de/formation-docs', body(name), auth)).status, name).toBe(201);
    }
    const refused = await call(app, 'POST', '/entity/de/formation-docs', body('Cartofold Maps'), auth);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('ENTITY_NAME_SUFFIX');
  });
});
