/**
 * The request generator: for each operation of the contract in turn (a
 * shuffled round, so every operation gets its share), a request that is
 * valid by its schema and aimed at the fixtures (real grain and record ids,
 * the key that owns them, a signed callback where the door wants one), then,
 * most of the time, one to three mutations from `mutate.ts`.
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { FIXTURE } from '../../../src/domain/fixtures.ts';
import { PATENTS, TRADEMARKS, ENTITIES, UCC_FILINGS } from '../../../src/domain/capabilities/dataset.ts';
import { REGISTERED_SIGNER, SUPPLY_SECRET } from '../supply.ts';
import type { Operation, Schema } from './contract.ts';
import type { Grain, World } from './fixtures.ts';
import type { FuzzRequest } from './http.ts';
import { holdsPoison, jsonOf, MUTATORS, toJson, type Ctx, type Draft, type Mutator } from './mutate.ts';
import type { Rng } from './rng.ts';
import { OMIT, ValueGen } from './values.ts';

const DIAGRAMS = ['matter.svg', 'deadline-ladder.svg', 'enrollment.svg'];
/** The request head a Node server reads at most (16 KiB): past it, Node itself answers 431; the edge test covers that. */
const HEAD_BUDGET = 15_000;
const MAX_BODY = 1_500_000;
/** Doors that end the key a request presents (anywhere in the path: a mutated path may still reach them). */
const ENDS_ITS_KEY = /\/keys\/self\/(roll|revoke)/i;

export interface GeneratorOptions {
  /** The share of requests sent as generated, valid by the contract. */
  validShare: number;
  bodyLimit: number;
}

export class Generator {
  private round: Operation[] = [];
  private readonly values: ValueGen;
  private readonly ctx: Ctx;
  private readonly supply = new Webhook(SUPPLY_SECRET);
  private grain!: Grain;
  /** The Matter the path names, if any (a callback answers its pending Gig). */
  private pathMatter: string | undefined;
  private n = 0;

  constructor(
    private readonly rng: Rng,
    readonly ops: Operation[],
    private readonly world: World,
    private readonly options: GeneratorOptions,
  ) {
    this.values = new ValueGen(rng, (name, schema, path) => this.hint(name, schema, path));
    this.ctx = { rng, values: this.values, world, recentKeys: [], bodyLimit: options.bodyLimit };
  }

  /**
   * The next request: the next operation of the round, valid or mutated.
   * With `refused`, a mutated one the contract refuses whatever the state
   * (for the batches in which no tail may move).
   */
  next(refused = false): FuzzRequest {
    if (this.round.length === 0) this.round = this.rng.shuffle([...this.ops]);
    const op = this.round.pop()!;
    for (let tries = 0; ; tries++) {
      const req = this.build(op, refused || !this.rng.chance(this.options.validShare));
      if (req && (!refused || req.mustRefuse || tries > 50)) return req;
    }
  }

  /** A request for `op`, valid by its schema, then mutated when `mutate`; undefined when the draw must be redone. */
  build(op: Operation, mutate: boolean): FuzzRequest | undefined {
    this.n++;
    const rng = this.rng;
    const grains = this.world.grains.filter((g) => g.kind === op.prefix);
    const grain = (this.grain = rng.pick(grains.length ? grains : this.world.grains.filter((g) => g.kind === 'top')));
    this.pathMatter = undefined;
    const d: Draft = {
      op,
      grain,
      method: op.method,
      segments: [],
      params: new Map(),
      query: [],
      headers: {},
      chunked: false,
      mutations: [],
      offRoute: false,
      sign: false,
      stream: false,
      mustRefuse: false,
      touched: new Set(),
      added: new Set(),
    };

    // The path, its parameters aimed at real records (sometimes at a value merely valid by the pattern).
    const entity = rng.pick(ENTITIES);
    const ucc = rng.pick(UCC_FILINGS);
    for (const seg of op.template.split('/').slice(1)) {
      const m = /^\{(\w+)\}$/.exec(seg);
      if (!m) {
        d.segments.push(seg);
        continue;
      }
      const name = m[1];
      const param = op.params.find((p) => p.in === 'path' && p.name === name)!;
      let value = this.pathValue(name, op.template, grain, entity.state, entity.id, ucc.state, ucc.filing);
      if (value === undefined || rng.chance(0.05)) value = String(this.values.value(param?.schema ?? { type: 'string' }, name));
      d.params.set(name, d.segments.length);
      d.segments.push(encodeURIComponent(value));
    }

    // The query: what is required, and some of the rest.
    for (const p of op.params.filter((x) => x.in === 'query')) {
      if (!p.required && !rng.chance(0.4)) continue;
      const v = this.queryValue(p.name, p.schema);
      d.query.push([p.name, encodeURIComponent(String(v))]);
    }

    // Who calls: the grain's key where the door is keyed (and sometimes on a keyless read), nothing inside a sandbox grain.
    if (grain.kind === 'top' && (op.keyed ? rng.chance(0.97) : rng.chance(0.3))) Object.assign(d.headers, grain.auth);
    if ((op.method === 'POST' || op.method === 'PUT') && (grain.kind !== 'top' || d.headers.authorization || op.template.endsWith('/gig-result'))) {
      if (rng.chance(0.2)) {
        const key = rng.chance(0.5) ? randomUUID() : `fuzz-${this.n}-${rng.u32().toString(36)}`;
        d.headers['idempotency-key'] = key;
        this.ctx.recentKeys.push(key);
        if (this.ctx.recentKeys.length > 64) this.ctx.recentKeys.shift();
      }
    }
    if (op.params.some((p) => p.name === 'if-match') && rng.chance(0.1)) d.headers['if-match'] = rng.chance(0.5) ? '*' : `"${rng.between(1, 12)}"`;
    // A conditional read (`src/http/etag.ts`): `*` matches any answer (304), a made-up tag none (the answer in full).
    if (op.params.some((p) => p.name === 'if-none-match') && rng.chance(0.1)) d.headers['if-none-match'] = rng.chance(0.5) ? '*' : `"${rng.u32().toString(36)}"`;
    if (rng.chance(0.05)) d.headers['x-actor'] = this.values.text(1, 60).replace(/[^\x20-\x7e]/g, '?').trim() || 'agent';
    if (rng.chance(0.03)) d.headers['x-mandate'] = this.values.text(1, 200).replace(/[^\x20-\x7e]/g, '?').trim() || 'mandate';
    if (op.params.some((p) => p.name === 'webhook-signature')) d.sign = rng.chance(0.9);
    if (op.template.endsWith('/events/stream') && rng.chance(0.1)) {
      d.headers.accept = 'text/event-stream';
      d.stream = true;
    }
    // Every GET route serves HEAD too (its Allow says so).
    if (op.method === 'GET' && rng.chance(op.template.endsWith('/events/stream') ? 0.15 : 0.03)) d.method = 'HEAD';

    // The body: one of its media types; an optional body is sometimes left out.
    if (op.body) {
      const medias = Object.keys(op.body.content);
      const media = medias.length > 1 && rng.chance(0.3) ? medias.find((m) => m !== 'application/json') ?? medias[0] : medias.includes('application/json') ? 'application/json' : medias[0];
      if (op.body.required || rng.chance(0.7)) {
        d.schema = op.body.content[media];
        d.value = this.values.value(d.schema, '', []);
        d.media = media;
      }
    }

    if (mutate) {
      const count = rng.weighted([
        [70, 1],
        [25, 2],
        [5, 3],
      ] as const);
      const chosen: Mutator[] = [];
      // Text mutators look at the serialized body: choose on a preview of it, then apply in phase order (each checked again as it applies).
      d.text = d.value !== undefined ? Buffer.from(toJson(d.value)) : undefined;
      for (let i = 0; i < count; i++) {
        const applicable = MUTATORS.filter((m) => !chosen.includes(m) && m.applies(d));
        if (!applicable.length) break;
        const m = rng.weighted(applicable.map((x) => [x.weight, x] as const));
        chosen.push(m);
      }
      const order: Mutator['phase'][] = ['value', 'text', 'header', 'path'];
      chosen.sort((a, b) => order.indexOf(a.phase) - order.indexOf(b.phase));
      d.text = undefined;
      let serialized = false;
      for (const m of chosen) {
        if (m.phase !== 'value' && !serialized) {
          this.serialize(d);
          serialized = true;
        }
        if (!m.applies(d)) continue;
        d.mutations.push(m.name);
        m.apply(d, this.ctx);
      }
      if (!serialized) this.serialize(d);
    } else this.serialize(d);

    return this.finalize(d);
  }

  /**
   * The authorization with each grain's key swapped for an expendable one:
   * sent with a grain's key, a roll or a revocation would end that grain for
   * the rest of the run (its tail unreadable). Validity is kept: a malformed
   * variant of a grain's key becomes the same variant of the expendable one.
   */
  private expendable(authorization: string | string[]): string | string[] {
    const swap = (v: string) => this.world.grains.reduce((s, g) => (g.kind === 'top' ? s.split(g.auth.authorization.slice('Bearer '.length)).join(this.rng.pick(this.world.expendableKeys)) : s), v);
    return Array.isArray(authorization) ? authorization.map(swap) : swap(authorization);
  }

  private serialize(d: Draft): void {
    if (d.value === undefined || d.text) return;
    if (d.media === 'application/x-www-form-urlencoded') {
      const form = new URLSearchParams();
      if (d.value && typeof d.value === 'object' && !Array.isArray(d.value)) for (const [k, v] of Object.entries(d.value)) form.append(k, typeof v === 'string' ? v : toJson(v));
      else form.append('value', toJson(d.value));
      d.text = Buffer.from(form.toString());
    } else d.text = Buffer.from(toJson(d.value), 'utf8');
  }

  private finalize(d: Draft): FuzzRequest | undefined {
    const asJson = /^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(d.media ?? '');
    const parsed = d.text && jsonOf(d.text);
    // Malformed JSON, sent as JSON to a door that reads a body, is refused (whatever was done to it after, if it still does not parse).
    if (d.syntaxBroken && d.op.body && d.text && d.text.toString('utf8').trim() !== '' && asJson && !parsed) d.mustRefuse = true;
    // A poisoned body sent as JSON is refused only while the poison is still in it as parsed (a later value may overwrite it, a repeated key shadow it).
    if (d.poisoned && (!asJson || !parsed || holdsPoison(parsed.value))) d.mustRefuse = true;
    const headers: Record<string, string | string[]> = { ...d.headers };
    if (d.headers.authorization && ENDS_ITS_KEY.test(`/${d.segments.join('/')}`)) headers.authorization = this.expendable(d.headers.authorization);
    if (d.text && d.media !== undefined) headers['content-type'] = d.media;
    if (d.sign) {
      const body = d.text?.toString('utf8') ?? '';
      const id = `msg_${this.rng.u32().toString(36)}${this.n}`;
      const at = new Date();
      headers['webhook-id'] = id;
      headers['webhook-timestamp'] = String(Math.floor(at.getTime() / 1000));
      headers['webhook-signature'] = this.supply.sign(id, at, body);
      for (const spoil of Object.keys(headers).filter((h) => h.startsWith('x-spoil-'))) {
        const which = spoil.slice('x-spoil-'.length);
        const v = headers[spoil] as string;
        delete headers[spoil];
        if (v === '\u0000missing') delete headers[which];
        else headers[which] = v;
      }
    }
    const query = d.query.map(([k, v]) => (v === '' && k === '' ? '' : `${k}=${v}`)).join('&');
    const path = `/${d.segments.join('/')}${query ? `?${query}` : ''}`;
    // Bodies past a few times the 256 KiB limit test nothing more, and cost the fuzzer's own memory.
    if (d.text && d.text.length > MAX_BODY) return undefined;
    const head = path.length + Object.entries(headers).reduce((n, [k, v]) => n + k.length + 4 + (Array.isArray(v) ? v.join('').length + 4 : v.length), 0);
    if (head > HEAD_BUDGET) return undefined;
    return {
      op: d.op.key,
      method: d.method,
      path,
      headers,
      body: d.text,
      chunked: d.chunked,
      mutations: d.mutations,
      tail: d.grain.tail,
      offRoute: d.offRoute,
      stream: d.stream,
      // A request sent to another route, or to none, is judged by where it lands, not by what its own door refuses.
      mustRefuse: d.mustRefuse && !d.offRoute,
    };
  }

  private pathValue(name: string, template: string, g: Grain, entityState: string, entityId: string, uccState: string, uccFiling: string): string | undefined {
    const rng = this.rng;
    const pool = (p: string[]) => (p.length ? rng.pick(p) : undefined);
    switch (name) {
      case 'workspaceId':
      case 'tenantId':
      case 'firmId':
        return g.id;
      case 'assetId':
        return pool(g.pools.assets);
      case 'deliveryId':
        return pool(g.pools.deliveries);
      case 'memberId':
        return pool(g.pools.members);
      case 'practitionerId':
        return pool(g.pools.practitioners);
      case 'number':
        return rng.chance(0.2) ? rng.pick(PATENTS).number.toLowerCase() : rng.pick(PATENTS).number;
      case 'serial':
        return rng.pick(TRADEMARKS).serial;
      case 'state':
        return template.includes('/entity/') ? entityState : uccState;
      case 'filing':
        return uccFiling;
      case 'file':
        return rng.pick(DIAGRAMS);
      case 'district':
        return rng.pick(['nysd', 'cand', 'ded']);
      case 'case':
        return rng.pick(['1:23-cv-1', '5:24-cv-00042']);
      case 'id':
        if (template.includes('/entity/')) return entityId;
        if (template.includes('/webhooks/')) return pool(g.pools.webhooks);
        if (template.includes('/assets/')) return pool(g.pools.assets);
        // A callback mostly answers a Matter that waits on its Signer.
        this.pathMatter = template.endsWith('/gig-result') && g.pending.size && rng.chance(0.7) ? rng.pick([...g.pending.keys()]) : pool(g.pools.matters);
        return this.pathMatter;
      default:
        return undefined;
    }
  }

  private queryValue(name: string, schema: Schema): unknown {
    const rng = this.rng;
    switch (name) {
      case 'q':
        return rng.pick(['map', 'folding map', 'battery', 'G01C', 'Cartofold', 'zeppelin', 'é', '🗺']);
      case 'limit':
        return rng.between(1, rng.chance(0.8) ? 20 : 500);
      case 'after':
        return rng.chance(0.7) ? rng.between(0, 30) : rng.between(0, 1_000_000);
      case 'before':
        return rng.between(1, 50);
      case 'scope':
        return rng.pick(['', 'mine', 'admin', 'internal']);
      default:
        return this.values.value(schema, name);
    }
  }

  /** Meaningful values where a field names a record or a fixture. */
  private hint(name: string, _schema: Schema, path: string[]): unknown {
    const rng = this.rng;
    const g = this.grain;
    if (!g || !rng.chance(0.85)) return undefined;
    const pool = (p: string[]) => (p.length ? rng.pick(p) : undefined);
    const parent = path[path.length - 2];
    switch (name) {
      case 'gigId':
        return (this.pathMatter && rng.chance(0.8) ? g.pending.get(this.pathMatter) : undefined) ?? pool(g.pools.gigs);
      case 'tenant':
        return g.kind === 'tenants' ? (rng.chance(0.8) ? OMIT : g.id) : undefined;
      case 'listFeeUsd':
      case 'matterType':
        return g.kind === 'tenants' && path.length === 1 && rng.chance(0.8) ? OMIT : undefined;
      case 'actor':
        return path.length === 1 && rng.chance(0.6) ? 'client' : undefined;
      case 'entityName':
        return rng.pick(['Map Co LLC', 'Fold Works L.L.C.', 'Cartofold Inc.', 'Lamp Corporation', 'Gear Company']);
      case 'outcome':
        return path.length === 1 && this.pathMatter && rng.chance(0.5) ? 'attested' : undefined;
      case 'memberId':
        return g.kind === 'firms' ? pool(g.pools.members) : undefined;
      case 'signedBy':
        return g.kind === 'top' ? REGISTERED_SIGNER.signerId : rng.weighted([[6, FIXTURE.eligibleSigner], [1, FIXTURE.lapsedSigner], [1, FIXTURE.lapsedCoverageSigner]] as const);
      case 'credentialRef':
        return g.kind === 'top' ? REGISTERED_SIGNER.credentialRef : 'uspto-reg:70001';
      case 'name':
        return parent === 'client' ? rng.weighted([[4, FIXTURE.fulfillingClient], [2, FIXTURE.decliningClient], [3, 'Ada Inventor']] as const) : undefined;
      case 'title':
        return parent === 'asset' && rng.chance(0.4) ? `${rng.pick([FIXTURE.ackDuePrefix, FIXTURE.noticeEvePrefix])} map` : undefined;
      case 'offer':
        return g.kind === 'tenants' ? pool(g.pools.offers) : undefined;
      case 'patentNumber':
      case 'citation':
        return rng.pick(PATENTS).number;
      case 'serial':
        return rng.pick(TRADEMARKS).serial;
      case 'url':
        return rng.chance(0.1) ? this.world.receiverUrl : rng.pick(['ftp://example.com/hook', 'https://legalwork-fuzz.invalid/hook', 'http://user:pw@127.0.0.1/hook', 'not a url']);
      case 'events':
        return rng.chance(0.7) ? ['outcome.filed'] : undefined;
      case 'days':
        return rng.between(1, 3);
      case 'signerId':
        return rng.pick(['platform', FIXTURE.eligibleSigner, FIXTURE.lapsedSigner, REGISTERED_SIGNER.signerId]);
      case 'email':
        return `fuzz${this.n}@example.com`;
      case 'grants':
        return rng.shuffle(['roster', 'remittance', 'routing']).slice(0, rng.between(1, 3));
      case 'adverseParties':
        return rng.chance(0.3) ? [FIXTURE.conflictParty] : undefined;
      default:
        return undefined;
    }
  }
}
