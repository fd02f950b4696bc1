import type { LeadStatus } from '../generated/prisma/enums';

/** The allowed moves of API_DECISIONS (Leads); `converted` is final. */
export const LEAD_STATUS_TRANSITIONS: Readonly<Record<LeadStatus, readonly LeadStatus[]>> = {
  new: ['contacted', 'qualified', 'unqualified'],
  contacted: ['qualified', 'unqualified'],
  qualified: ['converted', 'unqualified'],
  unqualified: ['new'],
  converted: [],
};

export function canMoveLead(from: LeadStatus, to: LeadStatus): boolean {
  return LEAD_STATUS_TRANSITIONS[from].includes(to);
}
