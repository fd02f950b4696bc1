import type { LeadStatus } from '../generated/prisma/enums';
import { LEAD_STATUSES } from './dto/update-lead.dto';
import { canMoveLead, LEAD_STATUS_TRANSITIONS } from './lead-status';

/** The transitions of API_DECISIONS (Leads), written out independently of the implementation. */
const ALLOWED = new Set([
  'new>contacted',
  'new>qualified',
  'new>unqualified',
  'contacted>qualified',
  'contacted>unqualified',
  'qualified>converted',
  'qualified>unqualified',
  'unqualified>new',
]);

const STATUSES: LeadStatus[] = ['new', 'contacted', 'qualified', 'unqualified', 'converted'];
const PAIRS = STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as const));

describe('lead status transitions', () => {
  it('knows exactly the five statuses of API_DECISIONS', () => {
    expect(Object.keys(LEAD_STATUS_TRANSITIONS).sort()).toEqual([...STATUSES].sort());
    expect([...LEAD_STATUSES].sort()).toEqual([...STATUSES].sort());
  });

  it.each(PAIRS.filter(([from, to]) => ALLOWED.has(`${from}>${to}`)))('allows %s -> %s', (from, to) => {
    expect(canMoveLead(from, to)).toBe(true);
  });

  it.each(PAIRS.filter(([from, to]) => !ALLOWED.has(`${from}>${to}`)))('refuses %s -> %s', (from, to) => {
    expect(canMoveLead(from, to)).toBe(false);
  });

  it('makes converted final', () => {
    expect(LEAD_STATUS_TRANSITIONS.converted).toEqual([]);
    for (const to of STATUSES) expect(canMoveLead('converted', to)).toBe(false);
  });

  it('lets every status but converted reach converted, and every status come back to new only through unqualified', () => {
    const reachable = (from: LeadStatus, seen = new Set<LeadStatus>()): Set<LeadStatus> => {
      for (const next of LEAD_STATUS_TRANSITIONS[from]) {
        if (!seen.has(next)) {
          seen.add(next);
          reachable(next, seen);
        }
      }
      return seen;
    };
    for (const from of STATUSES.filter((status) => status !== 'converted')) expect(reachable(from).has('converted')).toBe(true);
    expect(STATUSES.filter((from) => canMoveLead(from, 'new'))).toEqual(['unqualified']);
  });
});
