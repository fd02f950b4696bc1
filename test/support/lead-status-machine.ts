/**
 * The lead status machine of API_DECISIONS, written out for the tests as their oracle rather than
 * imported from src/leads/lead-status.ts: a test that read the table it checks could not fail.
 */
export const LEAD_STATUSES = ['new', 'contacted', 'qualified', 'unqualified', 'converted'] as const;
export type LeadStatusName = (typeof LEAD_STATUSES)[number];

/** The statuses each status may move to. */
export const LEAD_MOVES: Record<LeadStatusName, LeadStatusName[]> = {
  new: ['contacted', 'qualified', 'unqualified'],
  contacted: ['qualified', 'unqualified'],
  qualified: ['converted', 'unqualified'],
  unqualified: ['new'],
  converted: [],
};
