/**
 * The synthetic data set the catalog's reads answer from. Every name, number
 * and event here is invented (no real patent, mark, entity or filing), fixed
 * as of one date, so every read is deterministic and a verify suite can pin
 * exact answers. Cross-references (families, citations) are consistent.
 */
export const DATASET_AS_OF = '2025-01-01';

/** Each maintenance window, named by its years after grant, and the month after grant it falls due. */
const WINDOW_DUE_MONTHS = { '3.5': 42, '7.5': 90, '11.5': 138 } as const;
export type MaintenanceWindow = keyof typeof WINDOW_DUE_MONTHS;

export interface PatentRecord {
  number: string;
  title: string;
  abstract: string;
  assignee: string;
  inventors: string[];
  filedOn: string;
  grantedOn: string;
  cpc: string[];
  status: { current: string; history: Array<{ on: string; status: string }> };
  familyId: string;
  relation: 'parent' | 'continuation' | 'divisional' | 'continuation-in-part';
  assignments: Array<{ recordedOn: string; reelFrame: string; assignor: string; assignee: string; conveyance: string }>;
  cites: string[];
  ptab: Array<{ proceeding: string; type: 'IPR' | 'PGR'; filedOn: string; petitioner: string; status: string }>;
  maintenance: Array<{ window: MaintenanceWindow; opensOn: string; dueOn: string; surchargeUntil: string; state: 'paid' | 'open' | 'upcoming' | 'closed unpaid' }>;
}

/** A date `months` after an ISO date (day clamped to the month's end). */
function addMonths(iso: string, months: number): string {
  const [y, m, d] = iso.split('-').map(Number);
  const total = y * 12 + (m - 1) + months;
  const last = new Date(Date.UTC(Math.floor(total / 12), (total % 12) + 1, 0)).getUTCDate();
  return `${Math.floor(total / 12)}-${String((total % 12) + 1).padStart(2, '0')}-${String(Math.min(d, last)).padStart(2, '0')}`;
}

/**
 * Maintenance windows after grant: each opens 6 months before its due date
 * (3.5, 7.5, 11.5 years) and may still be paid, with a surcharge, for 6 more.
 * A window's state is derived as of the data set's date from the windows paid.
 */
function windows(granted: string, paid: MaintenanceWindow[]): PatentRecord['maintenance'] {
  return (Object.entries(WINDOW_DUE_MONTHS) as Array<[MaintenanceWindow, number]>).map(([window, due]) => {
    const opensOn = addMonths(granted, due - 6);
    const surchargeUntil = addMonths(granted, due + 6);
    const state = paid.includes(window) ? 'paid' : DATASET_AS_OF < opensOn ? 'upcoming' : DATASET_AS_OF <= surchargeUntil ? 'open' : 'closed unpaid';
    return { window, opensOn, dueOn: addMonths(granted, due), surchargeUntil, state };
  });
}

export const PATENTS: readonly PatentRecord[] = [
  {
    number: 'US10000101B2',
    title: 'Self-folding paper map with memory creases',
    abstract: 'A paper map whose creases are pre-stressed so that it refolds along its original lines when released.',
    assignee: 'Cartofold Synthetic Inc.',
    inventors: ['Ada Quill', 'Ben Marsh'],
    filedOn: '2016-03-14',
    grantedOn: '2018-10-02',
    cpc: ['B42D 15/00', 'G09B 29/00'],
    status: { current: 'active', history: [{ on: '2016-03-14', status: 'filed' }, { on: '2018-10-02', status: 'granted' }, { on: '2022-03-30', status: 'maintenance fee paid (3.5)' }] },
    familyId: 'FAM-0001',
    relation: 'parent',
    assignments: [{ recordedOn: '2016-05-01', reelFrame: '038112/0001', assignor: 'Ada Quill; Ben Marsh', assignee: 'Cartofold Synthetic Inc.', conveyance: 'assignment of assignors interest' }],
    cites: [],
    ptab: [],
    maintenance: windows('2018-10-02', ['3.5']),
  },
  {
    number: 'US10000202B2',
    title: 'Folding map with embedded wayfinding fibres',
    abstract: 'A continuation adding conductive fibres to a self-folding map so that a reader can trace routes by touch.',
    assignee: 'Cartofold Synthetic Inc.',
    inventors: ['Ada Quill'],
    filedOn: '2018-09-20',
    grantedOn: '2020-06-16',
    cpc: ['B42D 15/00'],
    status: { current: 'active', history: [{ on: '2018-09-20', status: 'filed' }, { on: '2020-06-16', status: 'granted' }, { on: '2023-12-01', status: 'maintenance fee paid (3.5)' }] },
    familyId: 'FAM-0001',
    relation: 'continuation',
    assignments: [
      { recordedOn: '2018-11-05', reelFrame: '047220/0115', assignor: 'Ada Quill', assignee: 'Cartofold Synthetic Inc.', conveyance: 'assignment of assignors interest' },
      { recordedOn: '2023-02-14', reelFrame: '062901/0040', assignor: 'Cartofold Synthetic Inc.', assignee: 'Northwind Lending Trust (synthetic)', conveyance: 'security agreement' },
    ],
    cites: ['US10000101B2'],
    ptab: [{ proceeding: 'IPR2023-00017', type: 'IPR', filedOn: '2023-01-09', petitioner: 'Mapmaker Collective LLC (synthetic)', status: 'instituted' }],
    maintenance: windows('2020-06-16', ['3.5']),
  },
  {
    number: 'US10000303B1',
    title: 'Acoustic leak detector for irrigation lines',
    abstract: 'A clamp-on sensor that listens for the acoustic signature of a leak in buried irrigation pipe and reports its position.',
    assignee: 'Greenrow Devices LLC',
    inventors: ['Chen Ito', 'Dana Ruiz', 'Eli Park'],
    filedOn: '2017-07-11',
    grantedOn: '2019-01-29',
    cpc: ['G01M 3/24', 'A01G 25/16'],
    status: { current: 'active', history: [{ on: '2017-07-11', status: 'filed' }, { on: '2019-01-29', status: 'granted' }, { on: '2022-07-25', status: 'maintenance fee paid (3.5)' }] },
    familyId: 'FAM-0002',
    relation: 'parent',
    assignments: [{ recordedOn: '2017-08-02', reelFrame: '043330/0722', assignor: 'Chen Ito; Dana Ruiz; Eli Park', assignee: 'Greenrow Devices LLC', conveyance: 'assignment of assignors interest' }],
    cites: ['US10000101B2'],
    ptab: [],
    maintenance: windows('2019-01-29', ['3.5']),
  },
  {
    number: 'US10000404B2',
    title: 'Solar-powered acoustic sensor mesh for farms',
    abstract: 'A mesh of solar-powered acoustic sensors that locate leaks and pests across a field and relay readings hop by hop.',
    assignee: 'Greenrow Devices LLC',
    inventors: ['Dana Ruiz'],
    filedOn: '2019-02-01',
    grantedOn: '2021-04-13',
    cpc: ['G01M 3/24', 'H04W 84/18'],
    status: { current: 'active', history: [{ on: '2019-02-01', status: 'filed' }, { on: '2021-04-13', status: 'granted' }] },
    familyId: 'FAM-0002',
    relation: 'continuation-in-part',
    assignments: [],
    cites: ['US10000303B1'],
    ptab: [],
    maintenance: windows('2021-04-13', []),
  },
  {
    number: 'US10000505B2',
    title: 'Battery pack with passive thermal runaway barrier',
    abstract: 'A battery pack whose cells are separated by an intumescent barrier that swells under heat and isolates a failing cell.',
    assignee: 'Voltmere Energy Corp.',
    inventors: ['Farah Nadim', 'Gus Olsen'],
    filedOn: '2015-11-30',
    grantedOn: '2017-08-22',
    cpc: ['H01M 10/658', 'H01M 50/293'],
    status: { current: 'active', history: [{ on: '2015-11-30', status: 'filed' }, { on: '2017-08-22', status: 'granted' }, { on: '2021-02-22', status: 'maintenance fee paid (3.5)' }] },
    familyId: 'FAM-0003',
    relation: 'parent',
    assignments: [{ recordedOn: '2016-01-15', reelFrame: '037540/0301', assignor: 'Farah Nadim; Gus Olsen', assignee: 'Voltmere Energy Corp.', conveyance: 'assignment of assignors interest' }],
    cites: [],
    ptab: [{ proceeding: 'PGR2018-00042', type: 'PGR', filedOn: '2018-05-21', petitioner: 'Cellguard Holdings (synthetic)', status: 'final written decision: claims upheld' }],
    maintenance: windows('2017-08-22', ['3.5']),
  },
];

export interface TrademarkRecord {
  serial: string;
  mark: string;
  owner: string;
  classes: number[];
  status: string;
  statusDate: string;
  history: Array<{ on: string; event: string }>;
}

export const TRADEMARKS: readonly TrademarkRecord[] = [
  { serial: '97000101', mark: 'CARTOFOLD', owner: 'Cartofold Synthetic Inc.', classes: [16], status: 'registered', statusDate: '2022-09-13', history: [{ on: '2021-10-04', event: 'application filed' }, { on: '2022-06-28', event: 'published for opposition' }, { on: '2022-09-13', event: 'registered' }] },
  { serial: '97000202', mark: 'GREENROW LISTEN', owner: 'Greenrow Devices LLC', classes: [9, 42], status: 'office action issued', statusDate: '2024-11-18', history: [{ on: '2024-05-02', event: 'application filed' }, { on: '2024-11-18', event: 'non-final office action: likelihood of confusion, section 2(d)' }] },
  { serial: '97000303', mark: 'VOLTMERE', owner: 'Voltmere Energy Corp.', classes: [9], status: 'abandoned', statusDate: '2023-03-07', history: [{ on: '2022-01-10', event: 'application filed' }, { on: '2022-08-01', event: 'office action issued' }, { on: '2023-03-07', event: 'abandoned: no response to the office action' }] },
];

export interface EntityRecord {
  state: string;
  id: string;
  name: string;
  kind: 'llc' | 'corporation';
  formedOn: string;
  standing: 'good standing' | 'void' | 'cancelled';
  registeredAgent: string;
  lastAnnualFiling: string | null;
}

export const ENTITIES: readonly EntityRecord[] = [
  { state: 'DE', id: '7000101', name: 'Cartofold Synthetic Inc.', kind: 'corporation', formedOn: '2015-12-01', standing: 'good standing', registeredAgent: 'Registered Agents of Synthetic Delaware', lastAnnualFiling: '2024-02-27' },
  { state: 'DE', id: '7000202', name: 'Greenrow Devices LLC', kind: 'llc', formedOn: '2017-01-17', standing: 'good standing', registeredAgent: 'Harbor Agent Services (synthetic)', lastAnnualFiling: '2024-05-30' },
  { state: 'DE', id: '7000303', name: 'Voltmere Energy Corp.', kind: 'corporation', formedOn: '2014-06-09', standing: 'void', registeredAgent: 'Registered Agents of Synthetic Delaware', lastAnnualFiling: '2021-02-28' },
  { state: 'CA', id: '202400101', name: 'Mapmaker Collective LLC (synthetic)', kind: 'llc', formedOn: '2020-03-03', standing: 'good standing', registeredAgent: 'Mapmaker Collective LLC', lastAnnualFiling: '2024-03-01' },
];

export interface UccFilingRecord {
  state: string;
  filing: string;
  filedOn: string;
  lapsesOn: string;
  debtor: string;
  securedParty: string;
  collateral: string;
  status: 'active' | 'lapsed' | 'terminated';
}

export const UCC_FILINGS: readonly UccFilingRecord[] = [
  { state: 'DE', filing: '20230001010', filedOn: '2023-02-10', lapsesOn: '2028-02-10', debtor: 'Cartofold Synthetic Inc.', securedParty: 'Northwind Lending Trust (synthetic)', collateral: 'all patents and patent applications, including US10000202B2, and their proceeds', status: 'active' },
  { state: 'DE', filing: '20180002020', filedOn: '2018-04-04', lapsesOn: '2023-04-04', debtor: 'Voltmere Energy Corp.', securedParty: 'Ironbridge Capital (synthetic)', collateral: 'inventory and equipment', status: 'lapsed' },
];

export const patentOf = (number: string) => PATENTS.find((p) => p.number === number.toUpperCase());
export const trademarkOf = (serial: string) => TRADEMARKS.find((t) => t.serial === serial);
export const entityOf = (state: string, id: string) => ENTITIES.find((e) => e.state === state.toUpperCase() && e.id === id);
export const uccFilingOf = (state: string, filing: string) => UCC_FILINGS.find((f) => f.state === state.toUpperCase() && f.filing === filing);

/** Patents citing `number`: derived, so the two directions always agree. */
export const citedBy = (number: string) => PATENTS.filter((p) => p.cites.includes(number)).map((p) => p.number);

/** The family members of a patent, parent first. */
export const familyOf = (p: PatentRecord) => PATENTS.filter((m) => m.familyId === p.familyId).sort((a, b) => a.filedOn.localeCompare(b.filedOn));

/** A patent as a list or a citation names it. */
export const patentSummary = (p: PatentRecord) => ({ number: p.number, title: p.title, assignee: p.assignee, grantedOn: p.grantedOn });

/** Words of at least two letters, lower-cased: the unit the search matches on. */
export const words = (text: string) => text.toLowerCase().match(/[a-z0-9]{2,}/g) ?? [];

/** Patents matching every word of `q` in title, abstract, assignee or CPC, best first. */
export function searchPatents(q: string): Array<ReturnType<typeof patentSummary> & { matched: string[] }> {
  const terms = [...new Set(words(q))];
  if (terms.length === 0) return [];
  return PATENTS.map((p) => {
    const text = new Set(words(`${p.title} ${p.abstract} ${p.assignee} ${p.cpc.join(' ')}`));
    return { p, matched: terms.filter((t) => text.has(t)) };
  })
    .filter(({ matched }) => matched.length === terms.length)
    .map(({ p, matched }) => ({ ...patentSummary(p), matched }));
}
