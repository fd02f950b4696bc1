/** The scopes of SPEC 5.3, and the ones API_DECISIONS adds (knowledge:write, conversations:write, privacy:manage: part 3). */
export const Scope = {
  BotsRead: 'bots:read',
  ConversationsRead: 'conversations:read',
  /** Human handoff (take conversations over, answer, release, end, assign) and deleting a conversation (part 3). */
  ConversationsWrite: 'conversations:write',
  LeadsRead: 'leads:read',
  LeadsWrite: 'leads:write',
  WebhooksManage: 'webhooks:manage',
  AnalyticsRead: 'analytics:read',
  SettingsRead: 'settings:read',
  SettingsWrite: 'settings:write',
  KnowledgeWrite: 'knowledge:write',
  /** A person's export and erasure (part 3). */
  PrivacyManage: 'privacy:manage',
} as const;

export type Scope = (typeof Scope)[keyof typeof Scope];

export const ALL_SCOPES: readonly Scope[] = Object.values(Scope);

/**
 * The route's scopes the caller does not hold, in the route's order: the one comparison of a
 * caller's scopes (a key's, or a member's role's from ROLE_SCOPES) with what a route needs. Exact
 * names only: a scope is never a prefix or a pattern.
 */
export function missingScopes(held: readonly string[], required: readonly Scope[]): Scope[] {
  return required.filter((scope) => !held.includes(scope));
}

/** Whether the caller holds every one of the scopes (missingScopes finds none). */
export const holdsScopes = (held: readonly string[], ...required: Scope[]): boolean => missingScopes(held, required).length === 0;
